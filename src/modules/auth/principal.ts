/**
 * Who a request is: the principal the auth guard records on every authenticated route, and the guard the
 * composition root hands to the HTTP kit's auth hook.
 */
import type { FastifyRequest } from 'fastify';
import type { AuthGuard } from '../../http/auth-hook.js';
import { forbidden } from '../../lib/errors.js';
import { isAdmin, isGuest, type User } from '../users/user.model.js';
import type { AuthService, Principal } from './auth.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** The guard: resolves `Authorization` to a principal and enforces the route's level. */
export function authGuard(auth: Pick<AuthService, 'authenticate'>): AuthGuard {
  return async (req, level) => {
    const p = await auth.authenticate(req.headers.authorization);
    if (level === 'user' && isGuest(p.user)) throw forbidden('You are a guest');
    if (level === 'admin' && !isAdmin(p.user)) throw forbidden('You are not an admin');
    req.principal = p;
  };
}

/** The authenticated user of a route whose level is not `none`. */
export function currentUser(req: FastifyRequest): User {
  if (!req.principal) throw new Error('route has no auth level');
  return req.principal.user;
}
