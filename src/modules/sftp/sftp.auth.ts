/**
 * SFTP logins (contract §6, reference auth-users-keys §5.6, with Ferry's fixes):
 *
 *  - publickey: the offered key must be one of the user's stored keys, read from the
 *    database at each attempt (a key added over HTTP works at once, a deleted one stops at
 *    once). ssh2 first asks without a signature (the client's "would you take this key?"):
 *    that query is answered without touching anything. Only a signature that verifies —
 *    proof that the client holds the private key — logs in and sets `last_used_time`.
 *    Public-key failures do not count toward the lockout (as in OpenList).
 *  - password: unless `sftp_disable_password_login`, through `AuthService.checkCredentials`
 *    with the client address, so failures count toward the shared lockout and the checks
 *    run in the contract's order. A user with 2FA cannot pass it without a code: such users
 *    log in with a key or an app password (app-passwords module, same lockout).
 *  - Either way the user must be enabled and hold bit 10. What the login granted (the user,
 *    the key used) is handed on: sftp.guard.ts re-checks it while the session lasts.
 */
import ssh2 from 'ssh2';
import type { AuthContext, AuthenticationType } from 'ssh2';
import type { SftpDeps } from './sftp.deps.js';
import { staticHash } from '../auth/password.js';
import { can, Perm, type User } from '../users/user.model.js';
import type { LoginGrant } from './sftp.guard.js';

export type AuthOutcome =
  | { kind: 'accepted'; user: User }
  /** A public key query answered "yes" (PK_OK); the client must now sign. */
  | { kind: 'key_ok' }
  | { kind: 'rejected'; reason: string };

export class SftpAuthenticator {
  constructor(private readonly deps: Pick<SftpDeps, 'auth' | 'keys' | 'users' | 'settings' | 'appPasswords'>) {}

  /** Methods offered to the client (read from the settings at each attempt). */
  async methods(): Promise<AuthenticationType[]> {
    return (await this.deps.settings.getBool('sftp_disable_password_login')) ? ['publickey'] : ['publickey', 'password'];
  }

  private async sftpUser(username: string): Promise<User | string> {
    const user = await this.deps.users.byUsername(username);
    if (!user) return 'unknown user';
    if (user.disabled) return 'user is disabled';
    if (!can(user, Perm.SFTP_READ)) return 'user is not allowed to access via SFTP';
    return user;
  }

  /**
   * Answers one ssh2 authentication request (calls accept/reject) and reports what happened.
   * `onLogin` runs just before the final accept: ssh2 emits `ready` from inside accept().
   */
  async handle(actx: AuthContext, ip: string, onLogin: (grant: LoginGrant) => void): Promise<AuthOutcome> {
    const methods = await this.methods();
    const reject = (reason: string): AuthOutcome => {
      actx.reject(methods);
      return { kind: 'rejected', reason };
    };
    switch (actx.method) {
      case 'publickey': {
        const user = await this.sftpUser(actx.username);
        if (typeof user === 'string') return reject(user);
        const offered = actx.key.data;
        const { rows } = await this.deps.keys.listByUser(user.id, 0, null);
        const row = rows.find((r) => {
          const b64 = r.key_text.split(' ')[1];
          return b64 !== undefined && Buffer.from(b64, 'base64').equals(offered);
        });
        if (!row) return reject('public key refused');
        if (!actx.signature || !actx.blob) {
          actx.accept(); // PK_OK: the key would do; no login yet, nothing recorded
          return { kind: 'key_ok' };
        }
        const parsed = ssh2.utils.parseKey(row.key_text);
        const key = Array.isArray(parsed) ? parsed[0] : parsed;
        if (!key || key instanceof Error) return reject('stored key cannot be used for SFTP');
        if (key.verify(actx.blob, actx.signature, actx.hashAlgo) !== true) return reject('signature does not verify');
        await this.deps.keys.touch(Number(row.id), Date.now());
        onLogin({ user, keyId: Number(row.id) });
        actx.accept();
        return { kind: 'accepted', user };
      }
      case 'password': {
        if (!methods.includes('password')) return reject('password login is disabled');
        let user: User;
        let appPasswordId: number | null = null;
        try {
          // an app password (its own shape) first; anything else is checked as the account password
          const app = await this.deps.appPasswords?.verify(actx.username, actx.password, ip);
          appPasswordId = app ? app.id : null;
          user = app ? app.user : await this.deps.auth.checkCredentials(actx.username, staticHash(actx.password), ip);
        } catch (e) {
          return reject((e as Error).message);
        }
        if (!can(user, Perm.SFTP_READ)) return reject('user is not allowed to access via SFTP');
        onLogin({ user, keyId: null, appPasswordId });
        actx.accept();
        return { kind: 'accepted', user };
      }
      default:
        return reject(`method ${actx.method} is not offered`);
    }
  }
}
