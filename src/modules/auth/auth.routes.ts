/** `/api/auth/login`, `/api/auth/login/hash` and `/api/auth/logout` (contract §3). */
import { Type } from 'typebox';
import { OkNull, OkOf, ok } from '../../http/envelope.js';
import type { HttpApp } from '../../http/types.js';
import type { AuthService } from './auth.service.js';
import { normaliseStaticHash, staticHash } from './password.js';

export interface AuthRouteDeps {
  auth: AuthService;
}

const LoginBody = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 256 }),
  password: Type.String({ maxLength: 1024 }),
  otp_code: Type.Optional(Type.String({ maxLength: 16 })),
});
const TokenReply = OkOf(Type.Object({ token: Type.String() }));

export function authRoutes(app: HttpApp, { auth }: AuthRouteDeps): void {
  app.post('/api/auth/login', {
    schema: { tags: ['auth'], summary: 'Log in with a plain password', body: LoginBody, response: { 200: TokenReply } },
  }, async (req) => {
    const { username, password, otp_code } = req.body;
    return ok({ token: await auth.login(username, password ? staticHash(password) : null, req.ip, otp_code) });
  });

  app.post('/api/auth/login/hash', {
    schema: { tags: ['auth'], summary: 'Log in with the static hash of the password (SHA-256 hex of `<password>-https://github.com/alist-org/alist`)', body: LoginBody, response: { 200: TokenReply } },
  }, async (req) => {
    const { username, password, otp_code } = req.body;
    return ok({ token: await auth.login(username, normaliseStaticHash(password), req.ip, otp_code) });
  });

  app.get('/api/auth/logout', {
    config: { auth: 'guest' },
    schema: { tags: ['auth'], summary: 'Revoke the token sent in Authorization', response: { 200: OkNull } },
  }, async (req) => {
    await auth.logout(req.principal!);
    return ok();
  });
}
