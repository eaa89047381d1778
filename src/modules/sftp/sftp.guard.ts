/**
 * Revocation reaching open SFTP sessions (issue #16 item 9). A login is checked once, but
 * the rights behind it can be withdrawn while the connection stays open: the user is
 * disabled or deleted, loses bit 10, changes password, loses the key it logged in with, or
 * gets another base path. Several Ferry instances may share one database, so the check
 * reads the database rather than waiting for an in-process event:
 *
 *  - Each connection has one guard, holding what the login granted (the user as read then,
 *    and the id of the key for a key login).
 *  - Before every SFTP request the session asks `current()`. A verdict younger than
 *    REVALIDATE_MS is answered synchronously (no I/O: the per-request cost is a clock
 *    read); an older one is refreshed with ONE query on the users and ssh_keys primary
 *    keys, shared by every request arriving meanwhile (they wait in arrival order, so the
 *    order of WRITEs and READs of a handle is kept).
 *  - A refused verdict is final: the request gets PERMISSION_DENIED, `onRevoked` listeners
 *    run (the server aborts the connection's unfinished uploads and ends the connection)
 *    and every later request is refused without a query.
 *  - Losing only bit 11 does not end the session: it becomes read-only and its unfinished
 *    uploads are aborted (the session applies `writable` from each verdict).
 *  - A password change ends every session of the user, key logins included, as it ends
 *    every JWT (the same `pwd_ts`).
 *  - A database error refuses that one request (FAILURE) without ending the session, and
 *    is not cached: the next request asks again.
 */
import { cleanPath } from '../../lib/path-safety.js';
import { can, Perm, type User } from '../users/user.model.js';
import type { SftpDeps } from './sftp.deps.js';

/** How old a verdict may be before a request re-reads the database. */
export const REVALIDATE_MS = 500;

/** What a login granted: the user as read at login, and the key used (null: password). */
export interface LoginGrant {
  user: User;
  keyId: number | null;
  /** The app password used to log in (null or absent: the account password or a key). */
  appPasswordId?: number | null;
}

export type Verdict =
  | { ok: true; user: User; writable: boolean }
  /** `final`: the rights are gone (the session ends); otherwise a passing failure. */
  | { ok: false; final: boolean; reason: string };

/** The rules: the session's rights as of `now` (`state` null: the user was deleted). */
export function judge(grant: LoginGrant, state: { user: User; keyPresent: boolean; appPasswordPresent?: boolean } | null): Verdict {
  const revoked = (reason: string): Verdict => ({ ok: false, final: true, reason });
  if (!state) return revoked('the user was deleted');
  const u = state.user;
  if (u.disabled) return revoked('the user was disabled');
  if (!can(u, Perm.SFTP_READ)) return revoked('the user may no longer use SFTP');
  if (u.pwdTs !== grant.user.pwdTs) return revoked('the password was changed');
  if (grant.keyId !== null && !state.keyPresent) return revoked('the key used to log in was removed');
  if (grant.appPasswordId != null && !state.appPasswordPresent) return revoked('the app password used to log in was revoked');
  if (cleanPath(u.basePath) !== cleanPath(grant.user.basePath)) return revoked("the user's base path changed");
  return { ok: true, user: u, writable: can(u, Perm.SFTP_WRITE) };
}

export class SessionGuard {
  private verdict: Verdict;
  private checkedAt: number;
  private pending: Promise<Verdict> | null = null;
  private readonly listeners: Array<(reason: string) => void> = [];

  constructor(
    private readonly deps: Pick<SftpDeps, 'users'>,
    readonly grant: LoginGrant,
    private readonly now: () => number = Date.now,
  ) {
    // The login has just read the user: that is the first verdict.
    this.verdict = judge(grant, { user: grant.user, keyPresent: grant.keyId !== null, appPasswordPresent: grant.appPasswordId != null });
    this.checkedAt = now();
  }

  /** The verdict for a request: at once when fresh (or final), else after one shared query. */
  current(): Verdict | Promise<Verdict> {
    if (!this.verdict.ok || this.now() - this.checkedAt < REVALIDATE_MS) return this.verdict;
    return (this.pending ??= this.refresh());
  }

  /** Called once, after the requests that found the revocation got their replies. */
  onRevoked(fn: (reason: string) => void): void {
    this.listeners.push(fn);
  }

  /** Ends the session now (an in-process revocation, or the server shutting down). */
  revoke(reason: string): void {
    this.settle({ ok: false, final: true, reason });
  }

  private async refresh(): Promise<Verdict> {
    const started = this.now();
    try {
      const state = await this.deps.users.withKey(this.grant.user.id, this.grant.keyId, this.grant.appPasswordId ?? null);
      this.settle(judge(this.grant, state), started);
      return this.verdict;
    } catch {
      return { ok: false, final: false, reason: 'the session could not be verified (database unavailable); try again' };
    } finally {
      this.pending = null;
    }
  }

  private settle(v: Verdict, at = this.now()): void {
    if (!this.verdict.ok) return; // final already
    this.verdict = v;
    this.checkedAt = at;
    if (!v.ok) {
      // After the microtasks: the requests waiting on this verdict reply first.
      setImmediate(() => {
        for (const fn of this.listeners) fn(v.reason);
      });
    }
  }
}
