/**
 * `/api/share/{list,get,create,update,delete,enable,disable}` (non-guest users; create and
 * update need bit 14, a custom id bit 15; others' shares are 404 unless admin) and the
 * anonymous download `GET|HEAD /sd/<id>[/<path>]` (`?pwd=`) and the visitors' listing `POST /api/share/public/list`.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { OkNull, OkOf, PageOf, ok, pagingOf } from '../../http/envelope.js';
import { requestOrigin } from '../../http/origin.js';
import type { HttpApp } from '../../http/types.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { serveVirtual } from '../fs/download.routes.js';
import type { FsService } from '../fs/fs.service.js';
import type { Links } from '../fs/links.js';
import { etagOf, notModified, parseRange } from '../fs/serve-file.js';
import { SHARE_INVALID, type SharesService } from './shares.service.js';

export interface SharesRouteDeps {
  shares: SharesService;
  fs: Pick<FsService, 'locate'>;
  links: Pick<Links, 'site'>;
}
import { baseName } from '../../lib/paths.js';
import { currentUser } from '../auth/principal.js';
import { CreateBody, IdQuery, ListQuery, PublicListBody, PublicListSchema, ShareSchema, UpdateBody } from './shares.schemas.js';

/**
 * Whether `serveFile` will answer 304 (conditional request) or 416 (unsatisfiable range)
 * for the file at `full`: decided before counting, with the same rules, so such replies
 * never consume a download. Storages that redirect (no proxy) always count.
 */
async function answersWithoutContent(fs: Pick<FsService, 'locate'>, req: FastifyRequest, full: string): Promise<boolean> {
  const { storage, driver, inner } = await fs.locate(full);
  if (!storage.record.proxy) return false;
  const e = await driver.stat(inner);
  if (parseRange(req.headers.range, e.size) === 'invalid') return true;
  return notModified(req, etagOf({ ...e, name: baseName(full) }), e.modified);
}

export function sharesRoutes(app: HttpApp, { shares: svc, fs, links }: SharesRouteDeps): void {
  const site = (req: FastifyRequest) => links.site(requestOrigin(req));
  const user = { config: { auth: 'user' as const } };
  const tags = ['shares'];

  app.route({
    ...user,
    method: ['GET', 'POST'],
    url: '/api/share/list',
    schema: { tags, summary: 'Own shares (admins: all), ordered by id', querystring: ListQuery, response: { 200: OkOf(PageOf(ShareSchema)) } },
    handler: async (req) => {
      const viewer = currentUser(req);
      const { offset, limit } = pagingOf(req);
      const { rows, total } = await svc.list(viewer, offset, limit);
      return ok({ content: await svc.present(rows, viewer, await site(req)), total });
    },
  });

  app.get('/api/share/get', {
    ...user,
    schema: { tags, querystring: IdQuery, response: { 200: OkOf(ShareSchema) } },
  }, async (req) => {
    const viewer = currentUser(req);
    return ok(await svc.presentOne(await svc.get(viewer, req.query.id), viewer, await site(req)));
  });

  app.post('/api/share/create', {
    ...user,
    schema: { tags, summary: 'Create a share (bit 14; custom id: bit 15)', body: CreateBody, response: { 200: OkOf(ShareSchema) } },
  }, async (req) => {
    const viewer = currentUser(req);
    return ok(await svc.presentOne(await svc.create(viewer, req.body), viewer, await site(req)));
  });

  app.post('/api/share/update', {
    ...user,
    schema: { tags, summary: 'Update a share: given fields are replaced, omitted ones kept (bit 14; new_id: bit 15)', body: UpdateBody, response: { 200: OkOf(ShareSchema) } },
  }, async (req) => {
    const viewer = currentUser(req);
    return ok(await svc.presentOne(await svc.update(viewer, req.body), viewer, await site(req)));
  });

  app.post('/api/share/delete', {
    ...user,
    schema: { tags, querystring: IdQuery, response: { 200: OkNull } },
  }, async (req) => {
    await svc.delete(currentUser(req), req.query.id);
    return ok();
  });

  for (const action of ['enable', 'disable'] as const) {
    app.post(`/api/share/${action}`, {
      ...user,
      schema: { tags, querystring: IdQuery, response: { 200: OkNull } },
    }, async (req) => {
      await svc.setDisabled(currentUser(req), req.query.id, action === 'disable');
      return ok();
    });
  }

  // ------------------------------------------------------------------ visitors' listing

  app.post('/api/share/public/list', {
    config: { auth: 'none' },
    schema: {
      tags,
      summary: "A share's contents for its visitors (the UI's /s/<id> pages)",
      description: 'Anonymous. `path` is addressed as after `/sd/<id>`; a folder lists its entries (names hidden by metas left out), a file lists itself (`is_dir` false). Does not count as an access. `pwd` as for `/sd/`.',
      body: PublicListBody,
      response: { 200: OkOf(PublicListSchema) },
      security: [],
    },
  }, async (req) => {
    const { files } = await svc.open(req.body.id, req.body.pwd, req.ip);
    const { isDir, entries } = await svc.listing(files, req.body.path ?? '');
    return ok({
      is_dir: isDir,
      content: entries.map((e) => ({ name: e.name, size: e.isDir ? 0 : e.size, is_dir: e.isDir, modified: e.modified.toISOString() })),
    });
  });

  // ------------------------------------------------------------------ /sd download

  const download = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const params = req.params as { id: string; '*'?: string };
    const { pwd } = req.query as { pwd?: string };
    const { row, files } = await svc.open(params.id, pwd, req.ip);
    const full = await svc.target(files, params['*'] ?? '');
    // HEAD, 304 and 416 deliver no content and are not counted.
    if (req.method === 'HEAD' || (await answersWithoutContent(fs, req, full))) return serveVirtual(fs, req, reply, full, 'direct');
    // Claim the access first (atomically, under the limit); give it back if serving fails
    // before any response went out (the error reply is sent only after the refund).
    if (!(await svc.claimAccess(row.id))) throw notFound(SHARE_INVALID);
    try {
      return await serveVirtual(fs, req, reply, full, 'direct');
    } catch (e) {
      await svc.refundAccess(row.id);
      throw e;
    }
  };

  const sdSchema = (withPath: boolean) => ({
    tags,
    summary: withPath ? 'Download a file of a share' : 'Download a single-file share',
    description: 'Anonymous. `pwd` when the share has a password (wrong: 403). Unknown, expired, disabled or used-up shares: 404.',
    params: Type.Object({ id: Type.String(), ...(withPath ? { '*': Type.String() } : {}) }),
    querystring: Type.Object({ pwd: Type.Optional(Type.String()), inline: Type.Optional(Type.String({ description: '`1`: show passive types inline' })) }),
    security: [],
  });
  app.route({ method: ['GET', 'HEAD'], url: '/sd/:id', config: { auth: 'none' }, schema: sdSchema(false), handler: download });
  app.route({ method: ['GET', 'HEAD'], url: '/sd/:id/*', config: { auth: 'none' }, schema: sdSchema(true), handler: download });
}
