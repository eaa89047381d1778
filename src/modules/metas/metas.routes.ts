/** `/api/admin/meta/{list,get,create,update,delete}` (OpenList's shapes; admin only). */
import { Type } from 'typebox';
import { OkNull, OkOf, PageOf, ok, pagingOf } from '../../http/envelope.js';
import type { HttpApp } from '../../http/types.js';
import { MetaCreateBody, MetaSchema, MetaUpdateBody } from './metas.schemas.js';
import { presentMeta, type MetasService } from './metas.service.js';

export interface MetasRouteDeps {
  metas: MetasService;
}

const IdQuery = Type.Object({ id: Type.Integer({ minimum: 1 }) });

export function metasRoutes(app: HttpApp, { metas }: MetasRouteDeps): void {
  const admin = { config: { auth: 'admin' as const } };

  app.get('/api/admin/meta/list', {
    ...admin,
    schema: { tags: ['metas'], summary: 'Folder rules, by path', querystring: Type.Object({ page: Type.Optional(Type.String()), per_page: Type.Optional(Type.String()) }), response: { 200: OkOf(PageOf(MetaSchema)) } },
  }, async (req) => {
    const { offset, limit } = pagingOf(req);
    const { rows, total } = await metas.list(offset, limit);
    return ok({ content: rows.map(presentMeta), total });
  });

  app.get('/api/admin/meta/get', {
    ...admin,
    schema: { tags: ['metas'], querystring: IdQuery, response: { 200: OkOf(MetaSchema) } },
  }, async (req) => ok(presentMeta(await metas.get(req.query.id))));

  app.post('/api/admin/meta/create', {
    ...admin,
    schema: { tags: ['metas'], summary: 'Add the rules of a folder (one meta per path)', body: MetaCreateBody, response: { 200: OkOf(MetaSchema) } },
  }, async (req) => ok(presentMeta(await metas.create(req.body))));

  app.post('/api/admin/meta/update', {
    ...admin,
    schema: { tags: ['metas'], body: MetaUpdateBody, response: { 200: OkOf(MetaSchema) } },
  }, async (req) => ok(presentMeta(await metas.update(req.body.id, req.body))));

  app.post('/api/admin/meta/delete', {
    ...admin,
    schema: { tags: ['metas'], querystring: IdQuery, response: { 200: OkNull } },
  }, async (req) => {
    await metas.delete(req.query.id);
    return ok();
  });
}
