import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { currentUser } from '../../http/auth-hook.js';
import { OkNull, OkOf, ok } from '../../http/envelope.js';
import type { HttpApp } from '../../http/types.js';
import { normaliseStaticHash, staticHash } from './password.js';

const LoginBody = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 256 }),
  password: Type.String({ maxLength: 1024 }),
  otp_code: Type.Optional(Type.String({ maxLength: 16 })),
});
const TokenReply = OkOf(Type.Object({ token: Type.String() }));

export function authRoutes(app: HttpApp, ctx: AppContext): void {
  app.post('/api/auth/login', {
    schema: { tags: ['auth'], summary: 'Log in with a plain password', body: LoginBody, response: { 200: TokenReply } },
  }, async (req) => {
    const { username, password, otp_code } = req.body;
    return ok({ token: await ctx.auth.login(username, password ? staticHash(password) : null, req.ip, otp_code) });
  });

  app.post('/api/auth/login/hash', {
    schema: { tags: ['auth'], summary: 'Log in with the static hash of the password (SHA-256 hex of `<password>-https://github.com/alist-org/alist`)', body: LoginBody, response: { 200: TokenReply } },
  }, async (req) => {
    const { username, password, otp_code } = req.body;
    return ok({ token: await ctx.auth.login(username, normaliseStaticHash(password), req.ip, otp_code) });
  });

  app.get('/api/auth/logout', {
    config: { auth: 'guest' },
    schema: { tags: ['auth'], summary: 'Revoke the token sent in Authorization', response: { 200: OkNull } },
  }, async (req) => {
    await ctx.auth.logout(req.principal!);
    return ok();
  });

  app.post('/api/auth/2fa/generate', {
    config: { auth: 'guest' },
    schema: { tags: ['two-factor'], summary: 'A new TOTP secret and its QR code (nothing stored)', response: { 200: OkOf(Type.Object({ qr: Type.String(), secret: Type.String() })) } },
  }, async (req) => {
    const { qr, secret } = await ctx.twoFactor.generate(currentUser(req));
    return ok({ qr, secret });
  });

  app.post('/api/auth/2fa/verify', {
    config: { auth: 'guest' },
    schema: { tags: ['two-factor'], summary: 'Enable 2FA with a secret and a current code', body: Type.Object({ code: Type.String(), secret: Type.String() }), response: { 200: OkNull } },
  }, async (req) => {
    await ctx.twoFactor.verify(currentUser(req), req.body.code, req.body.secret);
    return ok();
  });

  app.post('/api/auth/2fa/disable', {
    config: { auth: 'guest' },
    schema: { tags: ['two-factor'], summary: 'Turn 2FA off for oneself with a current code', body: Type.Object({ code: Type.String() }), response: { 200: OkNull } },
  }, async (req) => {
    await ctx.twoFactor.disable(currentUser(req), req.body.code);
    return ok();
  });
}
