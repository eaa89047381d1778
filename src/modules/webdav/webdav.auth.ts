/**
 * Who a WebDAV request is. Mount clients send credentials with every request, so:
 *
 *  - `Basic`: username + password through `AuthService.checkCredentials` (the shared lockout, disabled users
 *    refused, contract order). A user with two-factor authentication cannot send a code: the account
 *    password alone is refused (401). A successful check is remembered for CACHE_MS under a digest of the
 *    credentials (never the password itself); a remembered login re-reads the user by name each request,
 *    so disabling the user or changing the password ends it at once. Concurrent requests with the same
 *    unverified credentials share one check (a client opening 8 connections costs one scrypt run and
 *    one lockout reservation, not eight).
 *  - `Bearer <token>` or the raw token: the same tokens as the HTTP API.
 *  - No credentials: 401 with `WWW-Authenticate: Basic` so a mount dialog asks for them.
 * Then bit 8 (WebDAV read) is required; the admin role has every bit.
 */
import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { AppError, forbidden, unauthorized } from '../../lib/errors.js';
import { staticHash } from '../auth/password.js';
import { can, isGuest, Perm, type User } from '../users/user.model.js';
import type { WebdavDeps } from './webdav.deps.js';

export const CACHE_MS = 60_000;
const MAX_CACHED = 10_000;

interface Remembered {
  userId: number;
  pwdTs: number;
  /** The app password used, if any (its revocation ends the remembered login). */
  appId: number | null;
  until: number;
}

export class WebdavAuth {
  private readonly remembered = new Map<string, Remembered>();
  private readonly inFlight = new Map<string, Promise<{ user: User; appId: number | null }>>();

  constructor(
    private readonly deps: Pick<WebdavDeps, 'auth' | 'users' | 'appPasswords'>,
    private readonly now: () => number = Date.now,
  ) {}

  async authenticate(req: FastifyRequest): Promise<User> {
    const header = (req.headers.authorization ?? '').trim();
    if (header === '') throw unauthorized('authentication required');
    let user: User;
    if (/^basic\s+/i.test(header)) user = await this.basic(header.replace(/^basic\s+/i, ''), req.ip);
    else {
      const p = await this.deps.auth.authenticate(header);
      user = p.user;
    }
    if (isGuest(user)) throw unauthorized('authentication required');
    if (!can(user, Perm.WEBDAV_READ)) throw forbidden('this user may not use WebDAV');
    return user;
  }

  private async basic(b64: string, ip: string): Promise<User> {
    const decoded = Buffer.from(b64, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw unauthorized('malformed Basic credentials');
    const username = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    const key = createHash('sha256').update(username).update('\0').update(password).digest('base64');
    const hit = this.remembered.get(key);
    if (hit && hit.until > this.now()) {
      const user = await this.deps.users.byUsername(username);
      const appAlive = hit.appId === null || (await this.deps.appPasswords.exists(hit.appId));
      // an account password stops working here as soon as 2FA is turned on
      const otpFine = hit.appId !== null || !user?.otpSecret;
      if (user && user.id === hit.userId && user.pwdTs === hit.pwdTs && !user.disabled && appAlive && otpFine) return user;
      this.remembered.delete(key);
    }
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.check(username, password, ip).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    const { user, appId } = await pending;
    if (this.remembered.size >= MAX_CACHED) this.prune();
    this.remembered.set(key, { userId: user.id, pwdTs: user.pwdTs, appId, until: this.now() + CACHE_MS });
    return user;
  }

  private async check(username: string, password: string, ip: string): Promise<{ user: User; appId: number | null }> {
    const app = await this.deps.appPasswords.verify(username, password, ip);
    if (app) return { user: app.user, appId: app.id };
    try {
      return { user: await this.deps.auth.checkCredentials(username, staticHash(password), ip), appId: null };
    } catch (e) {
      // 2FA on: the account password cannot be completed with a code here (app passwords can).
      if (e instanceof AppError && e.code === 402) throw unauthorized('two-factor authentication is on: use an app password for WebDAV');
      throw e;
    }
  }

  private prune(): void {
    const t = this.now();
    for (const [k, v] of this.remembered) if (v.until <= t) this.remembered.delete(k);
    if (this.remembered.size >= MAX_CACHED) this.remembered.clear();
  }
}
