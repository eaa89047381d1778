import { Type } from 'typebox';
import { OkNull, OkOf, ok } from '../../http/envelope.js';
import type { HttpApp } from '../../http/types.js';
import type { SettingsService } from './settings.service.js';
import { PublicSettingsSchema, SettingSchema } from './settings.schemas.js';

export interface SettingsRouteDeps {
  settings: SettingsService;
  /** Ferry's version, shown in the public settings. */
  version: string;
}

export function settingsRoutes(app: HttpApp, deps: SettingsRouteDeps): void {
  const { settings } = deps;
  app.get('/api/public/settings', {
    schema: { tags: ['settings'], summary: 'Public settings, no login needed', response: { 200: OkOf(PublicSettingsSchema) } },
  }, async () => ok({ ...(await settings.publicSettings()), version: deps.version }));

  const admin = { config: { auth: 'admin' as const } };

  app.get('/api/admin/setting/list', {
    ...admin,
    schema: { tags: ['admin'], response: { 200: OkOf(Type.Array(SettingSchema)) } },
  }, async () => ok(await settings.list()));

  app.get('/api/admin/setting/get', {
    ...admin,
    schema: { tags: ['admin'], querystring: Type.Object({ key: Type.String({ minLength: 1 }) }), response: { 200: OkOf(SettingSchema) } },
  }, async (req) => ok(await settings.getView(req.query.key)));

  app.post('/api/admin/setting/save', {
    ...admin,
    schema: {
      tags: ['admin'],
      summary: 'Save settings; all or nothing',
      body: Type.Array(Type.Object({ key: Type.String({ minLength: 1 }), value: Type.String() }), { maxItems: 1000 }),
      response: { 200: OkNull },
    },
  }, async (req) => {
    await settings.save(req.body);
    return ok();
  });

  app.post('/api/admin/setting/reset_token', {
    ...admin,
    schema: { tags: ['admin'], summary: 'Generate a new admin API token', response: { 200: OkOf(Type.String()) } },
  }, async () => ok(await settings.resetToken()));
}
