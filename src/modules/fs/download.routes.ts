/**
 * `GET|HEAD /d/<path>` (direct: streamed, or a 302 to a presigned URL when the storage
 * does not proxy) and `/p/<path>` (always streamed). Paths are full virtual paths; a
 * `sign` is required while `sign_all` is on.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpApp } from '../../http/types.js';
import { forbidden, notFound } from '../../lib/errors.js';
import { cleanPath } from '../../lib/path-safety.js';
import { baseName } from '../../lib/paths.js';
import type { FsService } from './fs.service.js';
import type { Links } from './links.js';
import { serveFile } from './serve-file.js';

export interface DownloadRouteDeps {
  fs: Pick<FsService, 'locate'>;
  links: Pick<Links, 'verify'>;
}

/** Serves the file at full virtual path `full`; `mode` decides whether a redirect is allowed. */
export async function serveVirtual(fs: Pick<FsService, 'locate'>, req: FastifyRequest, reply: FastifyReply, full: string, mode: 'direct' | 'proxy'): Promise<FastifyReply> {
  const { storage, driver, inner } = await fs.locate(full);
  const e = await driver.stat(inner);
  if (e.isDir) throw notFound('object not found');
  if (!storage.record.proxy) {
    if (mode === 'proxy') throw forbidden('proxy not allowed: this storage serves downloads by redirect');
    if (!driver.presign) throw forbidden('this storage can neither stream nor redirect');
    const url = await driver.presign(inner, { filename: baseName(full) });
    return reply.status(302).header('Location', url).header('Referrer-Policy', 'no-referrer').header('Cache-Control', 'max-age=0, no-cache, no-store, must-revalidate').send();
  }
  return serveFile(req, reply, driver, inner, { ...e, name: baseName(full) });
}

export function downloadRoutes(app: HttpApp, { fs, links }: DownloadRouteDeps): void {
  for (const [prefix, mode] of [['d', 'direct'], ['p', 'proxy']] as const) {
    app.route({
      method: ['GET', 'HEAD'],
      url: `/${prefix}/*`,
      schema: {
        tags: ['downloads'],
        summary: mode === 'direct' ? 'Download (streamed, or 302 to the storage)' : 'Download streamed through Ferry',
        querystring: { type: 'object', properties: { sign: { type: 'string' } } },
      },
      handler: async (req, reply) => {
        const full = cleanPath('/' + (req.params as { '*': string })['*']);
        await links.verify(full, (req.query as { sign?: string }).sign);
        return serveVirtual(fs, req, reply, full, mode);
      },
    });
  }
}
