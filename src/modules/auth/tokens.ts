/**
 * Login tokens (contract §3): JWT HS256 with claims username, pwd_ts, jti, iat, nbf, exp.
 * Revocation (logout) is a row per jti until the token would have expired, so tokens
 * survive restarts and are valid on every instance sharing the database.
 *
 * A token's signature and claims are checked once: the verified claims are kept (bounded, dropped when the
 * token expires) so later requests with the same token skip the HMAC and JSON work. Nothing that can change is
 * kept: revocation is looked up on every request, and times (`exp`, `nbf`) are compared on every request.
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

/** Verified tokens kept at most (a full map drops its oldest entry). */
export const VERIFIED_CACHE_MAX = 10_000;

interface Verified {
  claims: TokenClaims;
  /** `nbf` in seconds (0 when absent). */
  nbf: number;
}

export class Tokens {
  private readonly key: Uint8Array;
  /** Token string → its verified claims (insertion order = age). */
  private readonly verified = new Map<string, Verified>();

  /** @param now the clock in ms (tests move it). */
  constructor(
    private readonly db: Kysely<DB>,
    secret: Uint8Array,
    private readonly now: () => number = Date.now,
  ) {
    this.key = secret;
  }

  async issue(username: string, pwdTs: number, lifetimeHours: number): Promise<string> {
    const now = Math.floor(this.now() / 1000);
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
    const claims = await this.verifySigned(token);
    if (await this.isRevoked(claims.jti)) throw unauthorized('token is invalidated');
    return claims;
  }

  /** Whether the token `jti` was revoked (logout). */
  async isRevoked(jti: string): Promise<boolean> {
    return (await this.db.selectFrom('revoked_tokens').select('jti').where('jti', '=', jti).executeTakeFirst()) !== undefined;
  }

  /**
   * Signature and times, not revocation (the caller checks it: see AuthService.authenticate); throws 401. A token
   * verified before is answered from the cache without a promise (the per-request path).
   */
  verifySigned(token: string): TokenClaims | Promise<TokenClaims> {
    const hit = this.verified.get(token);
    if (!hit) return this.verifyNew(token);
    const now = Math.floor(this.now() / 1000);
    // the same comparisons jose makes (no clock tolerance)
    if (hit.nbf > now) throw unauthorized('token not active yet');
    if (hit.claims.exp <= now) {
      this.verified.delete(token);
      throw unauthorized('token is expired');
    }
    return hit.claims;
  }

  private async verifyNew(token: string): Promise<TokenClaims> {
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(token, this.key, { algorithms: ['HS256'], currentDate: new Date(this.now()) }));
    } catch (e) {
      if (e instanceof joseErrors.JWTExpired) throw unauthorized('token is expired');
      if (e instanceof joseErrors.JWTClaimValidationFailed && e.claim === 'nbf') throw unauthorized('token not active yet');
      throw unauthorized('token is invalid');
    }
    const { username, pwd_ts, jti, exp, nbf } = payload;
    if (typeof username !== 'string' || typeof pwd_ts !== 'number' || typeof jti !== 'string' || typeof exp !== 'number') {
      throw unauthorized('token is invalid');
    }
    const claims = { username, pwd_ts, jti, exp };
    if (this.verified.size >= VERIFIED_CACHE_MAX) this.verified.delete(this.verified.keys().next().value!);
    this.verified.set(token, { claims, nbf: typeof nbf === 'number' ? nbf : 0 });
    return claims;
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
