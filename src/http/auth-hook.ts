/**
 * The auth hook. Each route declares `config: { auth }`:
 *  - `none`: no authentication (login, public settings, ping);
 *  - `guest`: a token, the admin API token, or no header = the guest user (401 while disabled);
 *  - `user`: like `guest`, but the guest is refused (403 `You are a guest`);
 *  - `admin`: the admin role only (403 `You are not an admin`).
 * What authenticating means (tokens, users, what is kept on the request) is the auth module's business:
 * the composition root passes its guard here.
 */
import type { FastifyRequest } from 'fastify';
import type { HttpApp } from './types.js';

export type AuthLevel = 'none' | 'guest' | 'user' | 'admin';

/** Authenticates `req` for a route's level (and records who it is); throws to refuse. */
export type AuthGuard = (req: FastifyRequest, level: Exclude<AuthLevel, 'none'>) => Promise<void>;

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthLevel;
  }
}

/**
 * Runs when the request's headers are in, before its body is read or parsed: an unauthenticated client cannot
 * make the server read, parse or validate a body for a route it may not use.
 */
export function installAuthHook(app: HttpApp, guard: AuthGuard): void {
  // callback style: a route without auth costs no promise
  app.addHook('onRequest', (req, _reply, done) => {
    const level = req.routeOptions.config?.auth ?? 'none';
    if (level === 'none') return done();
    guard(req, level).then(() => done(), done);
  });
}
