/**
 * The auth hook. Each route declares `config: { auth }`:
 *  - `none`: no authentication (login, public settings, ping);
 *  - `guest`: a token, the admin API token, or no header = the guest user (401 while disabled);
 *  - `user`: like `guest`, but the guest is refused (403 `You are a guest`);
 *  - `admin`: the admin role only (403 `You are not an admin`).
 */
import type { FastifyRequest } from 'fastify';
import { forbidden } from '../lib/errors.js';
import type { AuthService, Principal } from '../modules/auth/auth.service.js';
import { isAdmin, isGuest, type User } from '../modules/users/user.model.js';
import type { HttpApp } from './types.js';

export type AuthLevel = 'none' | 'guest' | 'user' | 'admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthLevel;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

export function installAuthHook(app: HttpApp, auth: AuthService): void {
  app.decorateRequest('principal', null);
  app.addHook('preHandler', async (req) => {
    const level = req.routeOptions.config?.auth ?? 'none';
    if (level === 'none') return;
    const p = await auth.authenticate(req.headers.authorization);
    if (level === 'user' && isGuest(p.user)) throw forbidden('You are a guest');
    if (level === 'admin' && !isAdmin(p.user)) throw forbidden('You are not an admin');
    req.principal = p;
  });
}

/** The authenticated user of a route whose level is not `none`. */
export function currentUser(req: FastifyRequest): User {
  if (!req.principal) throw new Error('route has no auth level');
  return req.principal.user;
}
