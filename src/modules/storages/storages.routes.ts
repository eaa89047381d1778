import { Type } from 'typebox';
import { OkNull, OkOf, PageOf, PageQuery, ok, paging } from '../../http/envelope.js';
import type { HttpApp } from '../../http/types.js';
import { drivers } from './drivers/index.js';
import type { StorageRegistry } from './storages.service.js';
import { IdQuery, StorageInput, StorageSchema } from './storages.schemas.js';
import { DriverInfoSchema } from './storages.schemas.js';
import { presentStorage } from './storages.present.js';
import { driverInfo } from './driver-info.js';
import { notFound } from '../../lib/errors.js';

export interface StoragesRouteDeps {
  storages: StorageRegistry;
}

export function storagesRoutes(app: HttpApp, { storages: reg }: StoragesRouteDeps): void {
  const admin = { config: { auth: 'admin' as const } };

  app.get('/api/admin/storage/list', {
    ...admin,
    schema: { tags: ['storages'], querystring: PageQuery, response: { 200: OkOf(PageOf(StorageSchema)) } },
  }, async (req) => {
    await reg.refresh(true);
    const all = reg.list();
    const { offset, limit } = paging(req.query);
    const page = all.slice(offset, limit === null ? undefined : offset + limit);
    return ok({ content: page.map((m) => presentStorage(m.record, m.status)), total: all.length });
  });

  app.get('/api/admin/storage/get', {
    ...admin,
    schema: { tags: ['storages'], querystring: IdQuery, response: { 200: OkOf(StorageSchema) } },
  }, async (req) => {
    await reg.refresh(true);
    const m = reg.get(req.query.id);
    return ok(presentStorage(m.record, m.status));
  });

  app.post('/api/admin/storage/create', {
    ...admin,
    schema: { tags: ['storages'], body: Type.Object(StorageInput), response: { 200: OkOf(StorageSchema) } },
  }, async (req) => {
    const m = await reg.create(req.body);
    return ok(presentStorage(m.record, m.status));
  });

  app.post('/api/admin/storage/update', {
    ...admin,
    schema: { tags: ['storages'], body: Type.Object({ id: Type.Integer({ minimum: 1 }), ...StorageInput }), response: { 200: OkOf(StorageSchema) } },
  }, async (req) => {
    await reg.refresh(true);
    const m = await reg.update(req.body.id, req.body);
    return ok(presentStorage(m.record, m.status));
  });

  for (const [verb, fn] of [
    ['delete', (id: number) => reg.delete(id)],
    ['enable', (id: number) => reg.setDisabled(id, false)],
    ['disable', (id: number) => reg.setDisabled(id, true)],
  ] as const) {
    app.post(`/api/admin/storage/${verb}`, {
      ...admin,
      schema: { tags: ['storages'], querystring: IdQuery, response: { 200: OkNull } },
    }, async (req) => {
      await reg.refresh(true);
      await fn(req.query.id);
      return ok();
    });
  }

  app.get('/api/admin/driver/list', {
    ...admin,
    schema: { tags: ['storages'], summary: "Every driver's fields and options with types, defaults and help", response: { 200: OkOf(Type.Record(Type.String(), DriverInfoSchema)) } },
  }, async () => ok(Object.fromEntries(Object.values(drivers).map((d) => [d.name, driverInfo(d)]))));

  app.get('/api/admin/driver/info', {
    ...admin,
    schema: { tags: ['storages'], summary: 'One driver, as an entry of driver/list', querystring: Type.Object({ driver: Type.String() }), response: { 200: OkOf(DriverInfoSchema) } },
  }, async (req) => {
    const d = Object.values(drivers).find((x) => x.name === req.query.driver);
    if (!d) throw notFound(`driver [${req.query.driver}] not found`);
    return ok(driverInfo(d));
  });

  app.get('/api/admin/driver/names', {
    ...admin,
    schema: { tags: ['storages'], summary: 'Driver names', response: { 200: OkOf(Type.Array(Type.String())) } },
  }, async () => ok(Object.values(drivers).map((d) => d.name)));

  app.post('/api/admin/storage/load_all', {
    ...admin,
    schema: { tags: ['storages'], summary: 'Re-initialise every storage (each one keeps serving until its new instance is ready)', response: { 200: OkNull } },
  }, async () => {
    await reg.reloadAll();
    return ok();
  });
}
