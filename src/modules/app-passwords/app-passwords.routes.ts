/** `/api/me/app_password/{create,list,delete}`: the current user's app passwords (WebDAV and SFTP logins). */
import { Type } from 'typebox';
import { OkNull, OkOf, ok } from '../../http/envelope.js';
import type { HttpApp } from '../../http/types.js';
import { currentUser } from '../auth/principal.js';
import { IdQuery } from '../users/users.schemas.js';
import { AppPasswordSchema, CreatedAppPasswordSchema } from './app-passwords.schemas.js';
import type { AppPasswordsService } from './app-passwords.service.js';

export function appPasswordsRoutes(app: HttpApp, { appPasswords }: { appPasswords: AppPasswordsService }): void {
  app.post('/api/me/app_password/create', {
    config: { auth: 'user' },
    schema: {
      tags: ['app-passwords'],
      summary: 'Create an app password (for WebDAV and SFTP password logins); the password is shown only in this reply',
      body: Type.Object({ name: Type.String({ maxLength: 100 }) }),
      response: { 200: OkOf(CreatedAppPasswordSchema) },
    },
  }, async (req) => ok(await appPasswords.create(currentUser(req), req.body.name)));

  app.get('/api/me/app_password/list', {
    config: { auth: 'user' },
    schema: { tags: ['app-passwords'], summary: 'Own app passwords with their last use (never the passwords)', response: { 200: OkOf(Type.Object({ content: Type.Array(AppPasswordSchema), total: Type.Integer() })) } },
  }, async (req) => ok(await appPasswords.list(currentUser(req))));

  app.post('/api/me/app_password/delete', {
    config: { auth: 'user' },
    schema: { tags: ['app-passwords'], summary: 'Revoke an app password', querystring: IdQuery, response: { 200: OkNull } },
  }, async (req) => {
    await appPasswords.delete(currentUser(req), req.query.id);
    return ok();
  });
}
