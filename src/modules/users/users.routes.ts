import { Type } from 'typebox';
import { OkNull, OkOf, PageOf, PageQuery, ok, paging } from '../../http/envelope.js';
import type { HttpApp } from '../../http/types.js';
import type { UsersService } from './users.service.js';

export interface UsersRouteDeps {
  users: UsersService;
}
import { currentUser } from '../auth/principal.js';
import { IdQuery, UserInput, UserSchema } from './users.schemas.js';
import { presentMe } from './users.present.js';

export function usersRoutes(app: HttpApp, { users }: UsersRouteDeps): void {
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
    await users.updateMe(currentUser(req), req.body);
    return ok();
  });

  const admin = { config: { auth: 'admin' as const } };

  app.get('/api/admin/user/list', {
    ...admin,
    schema: { tags: ['admin'], querystring: PageQuery, response: { 200: OkOf(PageOf(UserSchema)) } },
  }, async (req) => {
    const { offset, limit } = paging(req.query);
    const page = await users.list(offset, limit);
    return ok({ content: page.users.map(presentMe), total: page.total });
  });

  app.get('/api/admin/user/get', {
    ...admin,
    schema: { tags: ['admin'], querystring: IdQuery, response: { 200: OkOf(UserSchema) } },
  }, async (req) => ok(presentMe(await users.get(req.query.id))));

  app.post('/api/admin/user/create', {
    ...admin,
    schema: { tags: ['admin'], body: Type.Object(UserInput), response: { 200: OkOf(UserSchema) } },
  }, async (req) => ok(presentMe(await users.create(req.body))));

  app.post('/api/admin/user/update', {
    ...admin,
    schema: { tags: ['admin'], body: Type.Object({ id: Type.Integer({ minimum: 1 }), ...UserInput }), response: { 200: OkNull } },
  }, async (req) => {
    await users.update(req.body.id, req.body);
    return ok();
  });

  app.post('/api/admin/user/delete', {
    ...admin,
    schema: { tags: ['admin'], querystring: IdQuery, response: { 200: OkNull } },
  }, async (req) => {
    await users.delete(req.query.id);
    return ok();
  });

  // OpenList caches users in memory and offers to drop an entry; Ferry reads users from the database on every
  // request (several instances share it), so there is nothing to drop.
  app.post('/api/admin/user/del_cache', {
    ...admin,
    schema: { tags: ['admin'], summary: 'Drop a user from the cache (Ferry keeps none: a no-op)', querystring: Type.Object({ username: Type.Optional(Type.String()) }), response: { 200: OkNull } },
  }, async () => ok());

}
