import type { FastifyRequest } from 'fastify';

/** The origin a request came in on (`scheme://host[:port]`), as the client addressed this server. */
export function requestOrigin(req: FastifyRequest): string {
  return `${req.protocol}://${req.host}`;
}
