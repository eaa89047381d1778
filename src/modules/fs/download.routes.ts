/**
 * `GET|HEAD /d/<path>` (direct: streamed, or a 302 to a presigned URL when the storage
 * does not proxy) and `/p/<path>` (always streamed). Paths are full virtual paths; a
 * `sign` is required while `sign_all` is on. `/ws/<token>/<name>/<path>`: web-seed roots of
 * multi-file torrents (see Links.webSeedRoot), streamed with ranges like `/d/`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpApp } from '../../http/types.js';
import { forbidden, notFound } from '../../lib/errors.js';
import { cleanPath, UnsafePathError } from '../../lib/path-safety.js';
import { baseName, isWithin, joinPath } from '../../lib/paths.js';
import type { FsService } from './fs.service.js';
import type { Links } from './links.js';
import { fileSecurityHeaders, serveFile } from './serve-file.js';
import type { ThumbnailPort } from './fs.ports.js';
import type { FolderAccess } from './access.js';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';

export interface DownloadRouteDeps {
  fs: Pick<FsService, 'locate'>;
  links: Pick<Links, 'verify' | 'verifyWebSeed'>;
  thumbs: Pick<ThumbnailPort, 'file'>;
  /** Files in a password-protected folder (metas) need a sign even while `sign_all` is off. */
  folderAccess: Pick<FolderAccess, 'needsSign'>;
}

/**
 * `?type=thumb`: the file's thumbnail (a WebP made and cached by the thumbs module). Its URL carries the
 * file's version (`v`), so it is cached for a year; 404 when the file has none.
 */
async function serveThumb(fs: Pick<FsService, 'locate'>, thumbs: Pick<ThumbnailPort, 'file'>, reply: FastifyReply, full: string): Promise<FastifyReply> {
  const loc = await fs.locate(full);
  const e = await loc.driver.stat(loc.inner);
  const file = e.isDir ? null : await thumbs.file(loc, { ...e, name: baseName(full) });
  if (!file) throw notFound('this file has no thumbnail');
  const st = await stat(file);
  return reply
    .headers(fileSecurityHeaders('image/webp'))
    .header('Content-Type', 'image/webp')
    .header('Content-Length', String(st.size))
    .header('Cache-Control', 'private, max-age=31536000, immutable')
    .send(createReadStream(file));
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

export function downloadRoutes(app: HttpApp, { fs, links, thumbs, folderAccess }: DownloadRouteDeps): void {
  for (const [prefix, mode] of [['d', 'direct'], ['p', 'proxy']] as const) {
    app.route({
      method: ['GET', 'HEAD'],
      url: `/${prefix}/*`,
      schema: {
        tags: ['downloads'],
        summary: mode === 'direct' ? 'Download (streamed, or 302 to the storage)' : 'Download streamed through Ferry',
        querystring: { type: 'object', properties: { sign: { type: 'string' }, type: { type: 'string', description: '`thumb`: the thumbnail of an image or video (WebP)' }, v: { type: 'string' }, inline: { type: 'string', description: '`1`: show passive types (images but SVG, audio, video, text, PDF) inline' } } },
      },
      handler: async (req, reply) => {
        const full = cleanPath('/' + (req.params as { '*': string })['*']);
        const query = req.query as { sign?: string; type?: string };
        await links.verify(full, query.sign, await folderAccess.needsSign(full));
        if (query.type === 'thumb') return serveThumb(fs, thumbs, reply, full);
        return serveVirtual(fs, req, reply, full, mode);
      },
    });
  }
  app.route({
    method: ['GET', 'HEAD'],
    url: '/ws/:token/*',
    schema: {
      tags: ['downloads'],
      summary: 'Web seed (BEP 19) of a multi-file torrent: `<name>/<path>` below a signed folder',
      params: { type: 'object', properties: { token: { type: 'string' }, '*': { type: 'string' } } },
    },
    handler: async (req, reply) => {
      const params = req.params as { token: string; '*': string };
      const grant = await links.verifyWebSeed(params.token);
      const segs = cleanPath('/' + params['*']).split('/').filter(Boolean);
      if (segs.length < 2 || segs[0] !== grant.name) throw notFound('object not found');
      const full = cleanPath(joinPath(grant.root, segs.slice(1).join('/')));
      if (!isWithin(grant.root, full) || full === grant.root) throw new UnsafePathError();
      return serveVirtual(fs, req, reply, full, 'direct');
    },
  });
}
