/** `/api/auth/2fa/{generate,verify,disable}` (contract §4) and the admin's `/api/admin/user/cancel_2fa`. */
import { Type } from 'typebox';
import { OkNull, OkOf, ok } from '../../http/envelope.js';
import type { HttpApp } from '../../http/types.js';
import { currentUser } from '../auth/principal.js';
import { IdQuery } from '../users/users.schemas.js';
import type { UsersService } from '../users/users.service.js';
import type { TwoFactorService } from './two-factor.service.js';

export interface TwoFactorRouteDeps {
  twoFactor: TwoFactorService;
  users: Pick<UsersService, 'get'>;
}

export function twoFactorRoutes(app: HttpApp, { twoFactor, users }: TwoFactorRouteDeps): void {
  app.post('/api/auth/2fa/generate', {
    config: { auth: 'guest' },
    schema: { tags: ['two-factor'], summary: 'A new TOTP secret and its QR code (nothing stored)', response: { 200: OkOf(Type.Object({ qr: Type.String(), secret: Type.String() })) } },
  }, async (req) => {
    const { qr, secret } = await twoFactor.generate(currentUser(req));
    return ok({ qr, secret });
  });

  app.post('/api/auth/2fa/verify', {
    config: { auth: 'guest' },
    schema: { tags: ['two-factor'], summary: 'Enable 2FA with a secret and a current code', body: Type.Object({ code: Type.String(), secret: Type.String() }), response: { 200: OkNull } },
  }, async (req) => {
    await twoFactor.verify(currentUser(req), req.body.code, req.body.secret);
    return ok();
  });

  app.post('/api/auth/2fa/disable', {
    config: { auth: 'guest' },
    schema: { tags: ['two-factor'], summary: 'Turn 2FA off for oneself with a current code', body: Type.Object({ code: Type.String() }), response: { 200: OkNull } },
  }, async (req) => {
    await twoFactor.disable(currentUser(req), req.body.code);
    return ok();
  });

  app.post('/api/admin/user/cancel_2fa', {
    config: { auth: 'admin' },
    schema: { tags: ['admin'], summary: "Turn off a user's two-factor authentication", querystring: IdQuery, response: { 200: OkNull } },
  }, async (req) => {
    await users.get(req.query.id);
    await twoFactor.cancel(req.query.id);
    return ok();
  });
}
