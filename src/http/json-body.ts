/**
 * JSON request and reply bodies. Requests: parsed only after the route's size limit (1 MiB unless a route declares more) and only
 * when nested at most MAX_JSON_DEPTH levels deep. A deeply nested document makes JSON.parse take seconds on the
 * event loop (a 16 MiB `[[[[…` stalled every request for ~8 s); no Ferry body needs more than a few levels.
 */
import type { FastifyInstance } from 'fastify';

/** The default body limit of JSON routes. */
export const JSON_BODY_LIMIT = 1024 * 1024;
/** For routes that carry a seed document (`seed_data`, up to 14 MiB of base64) or many paths. */
export const LARGE_JSON_BODY_LIMIT = 16 * 1024 * 1024;
export const MAX_JSON_DEPTH = 64;

/** The position at which `text` nests deeper than `max`, or -1 (strings are skipped, escapes honoured). */
export function tooDeepAt(text: string, max: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}

export function installJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    const at = tooDeepAt(text, MAX_JSON_DEPTH);
    if (at >= 0) {
      const e = Object.assign(new Error(`body: JSON nested deeper than ${MAX_JSON_DEPTH} levels (at byte ${at})`), { statusCode: 400 });
      done(e, undefined);
      return;
    }
    parse(req, text, done);
  });
}

/**
 * Route options for replies that can be large (a 100,000-file seed preview is ~20 MB): serialized with
 * JSON.stringify, about 4× faster than the schema-compiled serializer on such payloads (both are synchronous;
 * the response schema still documents the shape). Their types come from the same schemas.
 */
export const LARGE_JSON_REPLIES = {
  bodyLimit: LARGE_JSON_BODY_LIMIT,
  serializerCompiler: () => (data: unknown) => JSON.stringify(data),
};
