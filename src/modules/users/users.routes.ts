import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { currentUser } from '../../http/auth-hook.js';
import { OkNull, OkOf, PageOf, PageQuery, ok, paging } from '../../http/envelope.js';
import type { HttpApp } from '../../http/types.js';
import { presentMe } from './user.model.js';

export const UserSchema = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  password: Type.String(),
  base_path: Type.String(),
  role: Type.Integer(),
  disabled: Type.Boolean(),
  permission: Type.Integer(),
  sso_id: Type.String(),
  otp: Type.Boolean(),
});

const UserInput = {
  username: Type.String({ minLength: 1, maxLength: 64 }),
  password: Type.Optional(Type.String({ maxLength: 1024 })),
  base_path: Type.Optional(Type.String({ maxLength: 4096 })),
  role: Type.Optional(Type.Integer()),
  permission: Type.Optional(Type.Integer()),
  disabled: Type.Optional(Type.Boolean()),
  sso_id: Type.Optional(Type.String({ maxLength: 256 })),
};
const IdQuery = Type.Object({ id: Type.Integer() });

export function usersRoutes(app: HttpApp, ctx: AppContext): void {
  app.get('/api/me', {
    config: { auth: 'guest' },
    schema: { tags: ['users'], summary: 'The current user', response: { 200: OkOf(UserSchema) } },
  }, async (req) => ok(presentMe(currentUser(req))));

  app.post('/api/me/update', {
    config: { auth: 'guest' },
    schema: {
      tags: ['users'],
      summary: 'Change own username, password or sso_id (a password change ends every session)',
      body: Type.Object({ username: Type.Optional(UserInput.username), password: UserInput.password, sso_id: UserInput.sso_id }),
      response: { 200: OkNull },
    },
  }, async (req) => {
    await ctx.users.updateMe(currentUser(req), req.body);
    return ok();
  });

  const admin = { config: { auth: 'admin' as const } };

  app.get('/api/admin/user/list', {
    ...admin,
    schema: { tags: ['admin'], querystring: PageQuery, response: { 200: OkOf(PageOf(UserSchema)) } },
  }, async (req) => {
    const { offset, limit } = paging(req.query);
    const { users, total } = await ctx.users.list(offset, limit);
    return ok({ content: users.map(presentMe), total });
  });

  app.get('/api/admin/user/get', {
    ...admin,
    schema: { tags: ['admin'], querystring: IdQuery, response: { 200: OkOf(UserSchema) } },
  }, async (req) => ok(presentMe(await ctx.users.get(req.query.id))));

  app.post('/api/admin/user/create', {
    ...admin,
    schema: { tags: ['admin'], body: Type.Object(UserInput), response: { 200: OkOf(UserSchema) } },
  }, async (req) => ok(presentMe(await ctx.users.create(req.body))));

  app.post('/api/admin/user/update', {
    ...admin,
    schema: { tags: ['admin'], body: Type.Object({ id: Type.Integer({ minimum: 1 }), ...UserInput }), response: { 200: OkNull } },
  }, async (req) => {
    await ctx.users.update(req.body.id, req.body);
    return ok();
  });

  app.post('/api/admin/user/delete', {
    ...admin,
    schema: { tags: ['admin'], querystring: IdQuery, response: { 200: OkNull } },
  }, async (req) => {
    await ctx.users.delete(req.query.id);
    return ok();
  });

  app.post('/api/admin/user/cancel_2fa', {
    ...admin,
    schema: { tags: ['admin'], querystring: IdQuery, response: { 200: OkNull } },
  }, async (req) => {
    await ctx.users.get(req.query.id);
    await ctx.twoFactor.cancel(req.query.id);
    return ok();
  });
}
