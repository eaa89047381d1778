import { Type } from 'typebox';
import { OkNull, OkOf, ok } from '../../http/envelope.js';
import type { HttpApp } from '../../http/types.js';
import type { SettingsService } from './settings.service.js';
import { badRequest } from '../../lib/errors.js';
import { PublicSettingsSchema, SettingListQuery, SettingSaveBody, SettingSchema } from './settings.schemas.js';

/** The OpenList group numbers a list asks for (`groups` wins over `group`); undefined = every group. */
function groupsOf(q: { group?: string; groups?: string }): number[] | undefined {
  const [name, raw] = q.groups !== undefined ? ['groups', q.groups] : q.group !== undefined ? ['group', q.group] : [null, null];
  if (name === null || raw === null) return undefined;
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.some((p) => !/^\d{1,4}$/.test(p))) throw badRequest(`${name}: must be group numbers separated by commas`);
  return parts.map(Number);
}

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
    schema: {
      tags: ['admin'],
      summary: 'Settings, all or those of OpenList groups (`group=1`, `groups=5,0`)',
      querystring: SettingListQuery,
      response: { 200: OkOf(Type.Array(SettingSchema)) },
    },
  }, async (req) => ok(await settings.list(groupsOf(req.query))));

  app.post('/api/admin/setting/default', {
    ...admin,
    schema: {
      tags: ['admin'],
      summary: 'Default settings, all or those of OpenList groups (as list; nothing is saved: the web UI fills its form with them)',
      querystring: SettingListQuery,
      response: { 200: OkOf(Type.Array(SettingSchema)) },
    },
  }, async (req) => ok(settings.defaults(groupsOf(req.query))));

  app.get('/api/admin/setting/get', {
    ...admin,
    schema: { tags: ['admin'], querystring: Type.Object({ key: Type.String({ minLength: 1 }) }), response: { 200: OkOf(SettingSchema) } },
  }, async (req) => ok(await settings.getView(req.query.key)));

  app.post('/api/admin/setting/save', {
    ...admin,
    schema: {
      tags: ['admin'],
      summary: 'Save settings (`key` and `value` of each item; other properties are ignored); all or nothing',
      body: SettingSaveBody,
      response: { 200: OkNull },
    },
  }, async (req) => {
    await settings.save(req.body.map((e) => ({ key: e.key, value: String(e.value) })));
    return ok();
  });

  app.post('/api/admin/setting/delete', {
    ...admin,
    schema: { tags: ['admin'], summary: 'Forget a saved value (the setting reads its default again)', querystring: Type.Object({ key: Type.String({ minLength: 1 }) }), response: { 200: OkNull } },
  }, async (req) => {
    await settings.reset(req.query.key);
    return ok();
  });

  app.post('/api/admin/setting/reset_token', {
    ...admin,
    schema: { tags: ['admin'], summary: 'Generate a new admin API token', response: { 200: OkOf(Type.String()) } },
  }, async () => ok(await settings.resetToken()));
}
