import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { OkNull, OkOf, ok } from '../../http/envelope.js';
import type { HttpApp } from '../../http/types.js';

const SettingSchema = Type.Object({
  key: Type.String(),
  value: Type.String(),
  type: Type.String(),
  group: Type.String(),
  public: Type.Boolean(),
  options: Type.Array(Type.String()),
  help: Type.String(),
});

export function settingsRoutes(app: HttpApp, ctx: AppContext): void {
  app.get('/api/public/settings', {
    schema: { tags: ['settings'], summary: 'Public settings, no login needed', response: { 200: OkOf(Type.Record(Type.String(), Type.String())) } },
  }, async () => ok({ ...(await ctx.settings.publicSettings()), version: ctx.version }));

  const admin = { config: { auth: 'admin' as const } };

  app.get('/api/admin/setting/list', {
    ...admin,
    schema: { tags: ['admin'], response: { 200: OkOf(Type.Array(SettingSchema)) } },
  }, async () => ok(await ctx.settings.list()));

  app.get('/api/admin/setting/get', {
    ...admin,
    schema: { tags: ['admin'], querystring: Type.Object({ key: Type.String({ minLength: 1 }) }), response: { 200: OkOf(SettingSchema) } },
  }, async (req) => ok(await ctx.settings.getView(req.query.key)));

  app.post('/api/admin/setting/save', {
    ...admin,
    schema: {
      tags: ['admin'],
      summary: 'Save settings; all or nothing',
      body: Type.Array(Type.Object({ key: Type.String({ minLength: 1 }), value: Type.String() }), { maxItems: 1000 }),
      response: { 200: OkNull },
    },
  }, async (req) => {
    await ctx.settings.save(req.body);
    return ok();
  });

  app.post('/api/admin/setting/reset_token', {
    ...admin,
    schema: { tags: ['admin'], summary: 'Generate a new admin API token', response: { 200: OkOf(Type.String()) } },
  }, async () => ok(await ctx.settings.resetToken()));
}
