/**
 * Login tokens (contract §3): JWT HS256 with claims username, pwd_ts, jti, iat, nbf, exp.
 * Revocation (logout) is a row per jti until the token would have expired, so tokens
 * survive restarts and are valid on every instance sharing the database.
 */
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { unauthorized } from '../../lib/errors.js';

export interface TokenClaims {
  username: string;
  pwd_ts: number;
  jti: string;
  exp: number;
}

export class Tokens {
  private readonly key: Uint8Array;

  constructor(
    private readonly db: Kysely<DB>,
    secret: Uint8Array,
  ) {
    this.key = secret;
  }

  async issue(username: string, pwdTs: number, lifetimeHours: number): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ username, pwd_ts: pwdTs })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setJti(randomUUID())
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + Math.round(lifetimeHours * 3600))
      .sign(this.key);
  }

  /** Verifies signature, times and revocation; throws 401 with a plain message. */
  async verify(token: string): Promise<TokenClaims> {
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'] }));
    } catch (e) {
      if (e instanceof joseErrors.JWTExpired) throw unauthorized('token is expired');
      if (e instanceof joseErrors.JWTClaimValidationFailed && e.claim === 'nbf') throw unauthorized('token not active yet');
      throw unauthorized('token is invalid');
    }
    const { username, pwd_ts, jti, exp } = payload;
    if (typeof username !== 'string' || typeof pwd_ts !== 'number' || typeof jti !== 'string' || typeof exp !== 'number') {
      throw unauthorized('token is invalid');
    }
    const revoked = await this.db.selectFrom('revoked_tokens').select('jti').where('jti', '=', jti).executeTakeFirst();
    if (revoked) throw unauthorized('token is invalidated');
    return { username, pwd_ts, jti, exp };
  }

  async revoke(claims: TokenClaims): Promise<void> {
    const now = Date.now();
    await this.db.deleteFrom('revoked_tokens').where('expires_at', '<', now).execute();
    await this.db
      .insertInto('revoked_tokens')
      .values({ jti: claims.jti, expires_at: claims.exp * 1000 })
      .onConflict((oc) => oc.column('jti').doNothing())
      .execute();
  }
}
