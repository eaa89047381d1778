/**
 * `/api/share/{list,get,create,update,delete,enable,disable}` (non-guest users; create and
 * update need bit 14, a custom id bit 15; others' shares are 404 unless admin) and the
 * anonymous download `GET|HEAD /sd/<id>[/<path>]` (`?pwd=`).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { currentUser } from '../../http/auth-hook.js';
import { OkNull, OkOf, PageOf, ok } from '../../http/envelope.js';
import type { HttpApp } from '../../http/types.js';
import { badRequest, notFound } from '../../lib/errors.js';
import { serveVirtual } from '../fs/download.routes.js';
import { siteUrl } from '../fs/fs.context.js';
import { baseName } from '../fs/fs.service.js';
import { etagOf, notModified, parseRange } from '../fs/serve-file.js';
import { SHARE_INVALID, sharesService } from './shares.service.js';

const ShareSchema = Type.Object({
  id: Type.String(),
  files: Type.Array(Type.String()),
  expires: Type.Union([Type.String(), Type.Null()]),
  pwd: Type.String(),
  accessed: Type.Integer(),
  max_accessed: Type.Integer(),
  disabled: Type.Boolean(),
  remark: Type.String(),
  creator: Type.String(),
  creator_role: Type.Integer(),
  url: Type.String(),
});

const Fields = {
  files: Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 1000, description: 'paths relative to your base path; each must exist' }),
  expires: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()], { description: 'RFC 3339 time, or null for never' })),
  pwd: Type.Optional(Type.String({ maxLength: 256 })),
  max_accessed: Type.Optional(Type.Integer({ minimum: 0, description: 'download limit; 0 = unlimited' })),
  accessed: Type.Optional(Type.Integer({ minimum: 0 })),
  disabled: Type.Optional(Type.Boolean()),
  remark: Type.Optional(Type.String({ maxLength: 4096 })),
  creator: Type.Optional(Type.String({ maxLength: 256, description: 'admin only: the owning username' })),
};

const CreateBody = Type.Object({ ...Fields, id: Type.Optional(Type.String({ maxLength: 1024, description: 'custom id (bit 15)' })) });
const UpdateBody = Type.Object({
  ...Fields,
  files: Type.Optional(Fields.files),
  id: Type.String({ minLength: 1, maxLength: 1024 }),
  new_id: Type.Optional(Type.String({ maxLength: 1024, description: 'rename (bit 15)' })),
});
const IdQuery = Type.Object({ id: Type.String({ minLength: 1, maxLength: 1024 }) });
const ListQuery = Type.Object({ page: Type.Optional(Type.Integer()), per_page: Type.Optional(Type.Integer()) });

/**
 * Whether `serveFile` will answer 304 (conditional request) or 416 (unsatisfiable range)
 * for the file at `full`: decided before counting, with the same rules, so such replies
 * never consume a download. Storages that redirect (no proxy) always count.
 */
async function answersWithoutContent(ctx: AppContext, req: FastifyRequest, full: string): Promise<boolean> {
  const { storage, driver, inner } = await ctx.fs.locate(full);
  if (!storage.record.proxy) return false;
  const e = await driver.stat(inner);
  if (parseRange(req.headers.range, e.size) === 'invalid') return true;
  return notModified(req, etagOf({ ...e, name: baseName(full) }), e.modified);
}

/** `page` / `per_page` from the query or a JSON body; below 1 means page 1 / everything. */
function listPaging(req: FastifyRequest): { offset: number; limit: number | null } {
  const q = (req.query ?? {}) as Record<string, unknown>;
  const b = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
  const num = (name: string): number | undefined => {
    const v = b[name] ?? q[name];
    if (v === undefined || v === null || v === '') return undefined;
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n)) throw badRequest(`${name}: must be an integer`);
    return n;
  };
  const page = Math.max(1, num('page') ?? 1);
  const per = num('per_page') ?? 0;
  return per < 1 ? { offset: 0, limit: null } : { offset: (page - 1) * per, limit: per };
}

export function sharesRoutes(app: HttpApp, ctx: AppContext): void {
  const svc = sharesService(ctx);
  const user = { config: { auth: 'user' as const } };
  const tags = ['shares'];

  app.route({
    ...user,
    method: ['GET', 'POST'],
    url: '/api/share/list',
    schema: { tags, summary: 'Own shares (admins: all), ordered by id', querystring: ListQuery, response: { 200: OkOf(PageOf(ShareSchema)) } },
    handler: async (req) => {
      const viewer = currentUser(req);
      const { offset, limit } = listPaging(req);
      const { rows, total } = await svc.list(viewer, offset, limit);
      return ok({ content: await svc.present(rows, viewer, await siteUrl(ctx, req)), total });
    },
  });

  app.get('/api/share/get', {
    ...user,
    schema: { tags, querystring: IdQuery, response: { 200: OkOf(ShareSchema) } },
  }, async (req) => {
    const viewer = currentUser(req);
    return ok(await svc.presentOne(await svc.get(viewer, req.query.id), viewer, await siteUrl(ctx, req)));
  });

  app.post('/api/share/create', {
    ...user,
    schema: { tags, summary: 'Create a share (bit 14; custom id: bit 15)', body: CreateBody, response: { 200: OkOf(ShareSchema) } },
  }, async (req) => {
    const viewer = currentUser(req);
    return ok(await svc.presentOne(await svc.create(viewer, req.body), viewer, await siteUrl(ctx, req)));
  });

  app.post('/api/share/update', {
    ...user,
    schema: { tags, summary: 'Update a share: given fields are replaced, omitted ones kept (bit 14; new_id: bit 15)', body: UpdateBody, response: { 200: OkOf(ShareSchema) } },
  }, async (req) => {
    const viewer = currentUser(req);
    return ok(await svc.presentOne(await svc.update(viewer, req.body), viewer, await siteUrl(ctx, req)));
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

  // ------------------------------------------------------------------ /sd download

  const download = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const params = req.params as { id: string; '*'?: string };
    const { pwd } = req.query as { pwd?: string };
    const { row, files } = await svc.open(params.id, pwd);
    const full = await svc.target(files, params['*'] ?? '');
    // HEAD, 304 and 416 deliver no content and are not counted.
    if (req.method === 'HEAD' || (await answersWithoutContent(ctx, req, full))) return serveVirtual(ctx, req, reply, full, 'direct');
    // Claim the access first (atomically, under the limit); give it back if serving fails
    // before any response went out (the error reply is sent only after the refund).
    if (!(await svc.claimAccess(row.id))) throw notFound(SHARE_INVALID);
    try {
      return await serveVirtual(ctx, req, reply, full, 'direct');
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
    querystring: Type.Object({ pwd: Type.Optional(Type.String()) }),
    security: [],
  });
  app.route({ method: ['GET', 'HEAD'], url: '/sd/:id', config: { auth: 'none' }, schema: sdSchema(false), handler: download });
  app.route({ method: ['GET', 'HEAD'], url: '/sd/:id/*', config: { auth: 'none' }, schema: sdSchema(true), handler: download });
}
