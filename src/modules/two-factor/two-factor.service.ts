/**
 * TOTP two-factor authentication (contract §4): SHA-1, 6 digits, 30 s, ±1 step.
 * A code accepted once (at verify, login or disable) is refused while it is still valid.
 */
import * as OTPAuth from 'otpauth';
import QRCode from 'qrcode';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { badRequest, conflict, forbidden, tooManyRequests } from '../../lib/errors.js';
import { otpKey, type Lockout } from '../auth/lockout.js';
import type { SettingsService } from '../settings/settings.service.js';
import type { UsersRepo } from '../users/users.repo.js';
import { isGuest, type User } from '../users/user.model.js';

const PERIOD = 30;
const WINDOW = 1;
export const INVALID_CODE = 'Invalid 2FA code';

function totp(secret: string, issuer: string, username: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({ issuer, label: username, algorithm: 'SHA1', digits: 6, period: PERIOD, secret: OTPAuth.Secret.fromBase32(secret) });
}

export class TwoFactorService {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly users: UsersRepo,
    private readonly settings: SettingsService,
    private readonly lockout: Pick<Lockout, 'reserve'>,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A code checked against the stored secret outside the login (disable) is a guess against the user's `otp:`
   * lockout key: five wrong ones in 15 minutes, however many arrive at once, then 429. (At login the username
   * key counts them; at verify the client sends the secret itself, so there is nothing to guess.) A code that is
   * not six digits is refused without counting.
   */
  private async guess(userId: number, secret: string, code: string): Promise<boolean> {
    if (!/^\d{6}$/.test(code.trim())) return false;
    const attempt = await this.lockout.reserve([otpKey(userId)]);
    if (!attempt) throw tooManyRequests('too many wrong 2FA codes; try again later');
    const right = await this.consume(userId, secret, code);
    await attempt.settle(right ? 'success' : 'failure');
    return right;
  }

  /** A new secret and the QR code of its otpauth:// URI. Nothing is stored. */
  async generate(user: User): Promise<{ qr: string; secret: string; uri: string }> {
    if (isGuest(user)) throw forbidden('Guest user can not generate 2FA code');
    const secret = new OTPAuth.Secret({ size: 20 }).base32;
    const uri = totp(secret, await this.settings.get('site_title'), user.username).toString();
    const qr = await QRCode.toDataURL(uri, { errorCorrectionLevel: 'M', width: 400, margin: 2 });
    return { qr, secret, uri };
  }

  /** Checks `code` against `secret` (±1 step) and consumes it; false when wrong or replayed. */
  private async consume(userId: number, secret: string, code: string): Promise<boolean> {
    const trimmed = code.trim();
    if (!/^\d{6}$/.test(trimmed)) return false;
    let delta: number | null;
    try {
      delta = totp(secret, 'x', 'x').validate({ token: trimmed, timestamp: this.now(), window: WINDOW });
    } catch {
      return false;
    }
    if (delta === null) return false;
    const counter = Math.floor(this.now() / 1000 / PERIOD) + delta;
    const expiresAt = (counter + WINDOW + 1) * PERIOD * 1000;
    await this.db.deleteFrom('used_otp_codes').where('expires_at', '<=', this.now()).execute();
    const inserted = await this.db
      .insertInto('used_otp_codes')
      .values({ user_id: userId, code: trimmed, expires_at: expiresAt })
      .onConflict((oc) => oc.columns(['user_id', 'code']).doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  async verify(user: User, code: string, secret: string): Promise<void> {
    if (isGuest(user)) throw forbidden('Guest user can not generate 2FA code');
    if (user.otpSecret) throw conflict('2FA is already enabled');
    const clean = secret.trim().toUpperCase().replace(/=+$/, '');
    if (!/^[A-Z2-7]{16,128}$/.test(clean)) throw badRequest('secret: not a base32 2FA secret');
    if (!(await this.consume(user.id, clean, code))) throw badRequest(INVALID_CODE);
    await this.users.update(user.id, { otpSecret: clean });
  }

  async acceptLoginCode(user: User, code: string): Promise<boolean> {
    return user.otpSecret !== '' && this.consume(user.id, user.otpSecret, code);
  }

  /** Self-service off switch: needs a current code. */
  async disable(user: User, code: string): Promise<void> {
    if (isGuest(user)) throw forbidden('Guest user can not change 2FA');
    if (!user.otpSecret) throw badRequest('2FA is not enabled');
    if (!(await this.guess(user.id, user.otpSecret, code))) throw badRequest(INVALID_CODE);
    await this.users.update(user.id, { otpSecret: '' });
  }

  async cancel(userId: number): Promise<void> {
    await this.users.update(userId, { otpSecret: '' });
  }
}
