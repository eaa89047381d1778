import { Type } from 'typebox';
import { OkNull, OkOf, PageOf, PageQuery, ok, paging } from '../../http/envelope.js';
import type { HttpApp } from '../../http/types.js';
import { currentUser } from '../auth/principal.js';
import { IdQuery } from '../users/users.schemas.js';
import type { UsersService } from '../users/users.service.js';
import type { SshKeysService } from './ssh-keys.service.js';
import { KeySchema } from './ssh-keys.schemas.js';

export interface SshKeysRouteDeps {
  sshKeys: SshKeysService;
  users: Pick<UsersService, 'get'>;
}

const KeyList = OkOf(PageOf(KeySchema));

export function sshKeysRoutes(app: HttpApp, { sshKeys, users }: SshKeysRouteDeps): void {
  app.get('/api/me/sshkey/list', {
    config: { auth: 'user' },
    schema: { tags: ['ssh-keys'], summary: 'Own SSH public keys, ordered by id', querystring: PageQuery, response: { 200: KeyList } },
  }, async (req) => {
    const { offset, limit } = paging(req.query);
    return ok(await sshKeys.list(currentUser(req).id, offset, limit));
  });

  app.post('/api/me/sshkey/add', {
    config: { auth: 'user' },
    schema: {
      tags: ['ssh-keys'],
      summary: 'Register an OpenSSH public key line',
      body: Type.Object({ title: Type.String({ maxLength: 1024 }), key: Type.String({ maxLength: 16384 }) }),
      response: { 200: OkNull },
    },
  }, async (req) => {
    await sshKeys.add(currentUser(req).id, req.body.title, req.body.key);
    return ok();
  });

  app.post('/api/me/sshkey/delete', {
    config: { auth: 'user' },
    schema: { tags: ['ssh-keys'], querystring: IdQuery, response: { 200: OkNull } },
  }, async (req) => {
    await sshKeys.deleteOwn(currentUser(req).id, req.query.id);
    return ok();
  });

  app.get('/api/admin/user/sshkey/list', {
    config: { auth: 'admin' },
    schema: { tags: ['admin'], querystring: Type.Intersect([PageQuery, Type.Object({ uid: Type.Integer({ minimum: 1 }) })]), response: { 200: KeyList } },
  }, async (req) => {
    await users.get(req.query.uid);
    const { offset, limit } = paging(req.query);
    return ok(await sshKeys.list(req.query.uid, offset, limit));
  });

  app.post('/api/admin/user/sshkey/delete', {
    config: { auth: 'admin' },
    schema: { tags: ['admin'], querystring: IdQuery, response: { 200: OkNull } },
  }, async (req) => {
    await sshKeys.deleteAny(req.query.id);
    return ok();
  });
}
