/**
 * Login and request authentication (contract §3). Used by HTTP (and later SFTP).
 * Order of checks on login: lockout (429) → user + password (401, same message for
 * both) → disabled (403) → two-factor (402) → token.
 */
import { timingSafeEqual } from 'node:crypto';
import { forbidden, tooManyRequests, unauthorized, AppError } from '../../lib/errors.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { UsersRepo } from '../users/users.repo.js';
import { isGuest, Role, type User } from '../users/user.model.js';
import type { TwoFactorService } from '../two-factor/two-factor.service.js';
import { addressKey, userKey, type Lockout } from './lockout.js';
import { verifyStatic } from './password.js';
import type { TokenClaims, Tokens } from './tokens.js';

export const INVALID_CREDENTIALS = 'Invalid username or password';
export const LOCKED_MESSAGE = 'Too many unsuccessful sign-in attempts have been made using an incorrect username or password, Try again later.';

/**
 * Checked against when the user does not exist, so an unknown and a known username cost the same scrypt run
 * (a cached dummy answered ~20× faster and told an attacker which usernames exist).
 */
const DUMMY_SALT = 'ferry-dummy-salt';
const DUMMY_HASH = '0'.repeat(64);
const DUMMY_INPUT = '0'.repeat(64);

export interface Principal {
  user: User;
  /** The verified token, when authenticated by one (not for the admin API token or the guest). */
  claims: TokenClaims | null;
}

export class AuthService {
  constructor(
    private readonly users: UsersRepo,
    private readonly settings: SettingsService,
    private readonly lockout: Lockout,
    private readonly tokens: Tokens,
    private readonly twoFactor: TwoFactorService,
  ) {}

  /**
   * Checks a username and static hash (lowercase hex); throws 429/401/403/402 in contract order. The attempt is
   * reserved against the lockout before anything is checked (see lockout.ts).
   */
  async checkCredentials(username: string, staticHex: string | null, ip: string, otpCode?: string): Promise<User> {
    const attempt = await this.lockout.reserve([userKey(username), addressKey(ip)]);
    if (!attempt) throw tooManyRequests(LOCKED_MESSAGE);
    let outcome: 'success' | 'failure' = 'failure';
    try {
      const user = await this.users.byUsername(username);
      const matches = await verifyStatic(staticHex ?? DUMMY_INPUT, user?.salt ?? DUMMY_SALT, user?.pwdHash ?? DUMMY_HASH);
      if (!user || staticHex === null || !matches) throw unauthorized(INVALID_CREDENTIALS).withCompatCode(400);
      // the password was right: whatever follows, this attempt was no guess at it
      outcome = 'success';
      if (user.disabled) throw forbidden('user is disabled');
      if (user.otpSecret && !(await this.twoFactor.acceptLoginCode(user, otpCode ?? ''))) {
        // A wrong code is a guess and counts; a missing one (first step of a 2FA login, or an
        // SFTP password attempt by a 2FA user) came with the right password and does not.
        if (otpCode) outcome = 'failure';
        throw new AppError(402, 'Invalid 2FA code');
      }
      await this.lockout.clear(userKey(username));
      return user;
    } finally {
      await attempt.settle(outcome);
    }
  }

  async login(username: string, staticHex: string | null, ip: string, otpCode?: string): Promise<string> {
    const user = await this.checkCredentials(username, staticHex, ip, otpCode);
    return this.tokens.issue(user.username, user.pwdTs, await this.settings.getNumber('token_expires_in'));
  }

  /** Resolves the Authorization header to a user: admin API token, guest, or JWT. */
  async authenticate(header: string | undefined): Promise<Principal> {
    const raw = (header ?? '').trim();
    const token = raw.replace(/^Bearer\s+/i, '');
    if (token === '') {
      const guest = await this.users.byRole(Role.GUEST);
      if (!guest || guest.disabled) throw unauthorized('Guest user is disabled, login please');
      return { user: guest, claims: null };
    }
    const adminToken = await this.settings.get('token');
    if (adminToken && safeEqual(token, adminToken)) {
      const admin = await this.users.byRole(Role.ADMIN);
      if (!admin) throw unauthorized('admin user not found');
      return { user: admin, claims: null };
    }
    // signature (cached), then revocation and the user in one query: what every authenticated request costs
    const signed = this.tokens.verifySigned(token);
    const claims = signed instanceof Promise ? await signed : signed;
    const found = await this.users.forToken(claims.username, claims.jti);
    if (found?.revoked || (!found && (await this.tokens.isRevoked(claims.jti)))) throw unauthorized('token is invalidated');
    if (!found) throw unauthorized('user no longer exists, login please');
    const { user } = found;
    if (user.pwdTs !== claims.pwd_ts) throw unauthorized('Password has been changed, login please');
    if (user.disabled) throw unauthorized('Current user is disabled, replace please');
    if (isGuest(user)) throw unauthorized('token is invalid');
    return { user, claims };
  }

  async logout(p: Principal): Promise<void> {
    if (p.claims) await this.tokens.revoke(p.claims);
  }
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
