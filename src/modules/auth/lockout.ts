/**
 * Login lockout (contract §3): 5 failed attempts for the same username or the same client address within 15
 * minutes lock that key for 5 minutes. Counters live in the database so every instance sharing it agrees.
 *
 * An attempt is reserved BEFORE the password is checked: the reservation counts as a failure until the attempt
 * succeeds (then it is given back). So however many attempts arrive at once, on however many instances, at most
 * MAX_FAILURES are ever checked per key and window; the rest are refused (429) without hashing anything.
 */
import { PostgresAdapter, sql, type Kysely, type Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';

export const MAX_FAILURES = 5;
export const FAILURE_WINDOW_MS = 15 * 60_000;
export const LOCK_MS = 5 * 60_000;

export const userKey = (username: string) => `user:${username}`;
export const addressKey = (ip: string) => `addr:${ip}`;
/** Guesses of a user's one-time codes outside the login (2FA verify and disable). */
export const otpKey = (userId: number) => `otp:${userId}`;
/** Guesses of a share's password, per share and per client address (apart from the address's logins). */
export const shareKey = (id: string) => `share:${id}`;
export const shareAddressKey = (ip: string) => `share-addr:${ip}`;

/** An attempt that may go ahead; `settle` says how it ended. */
export interface Reservation {
  /** Success gives the attempt back; failure keeps it counted (and locks a key that reached the limit). */
  settle(outcome: 'success' | 'failure'): Promise<void>;
}

export class Lockout {
  private readonly postgres: boolean;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly now: () => number = Date.now,
  ) {
    this.postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  }

  /** True when any of the keys is locked right now. */
  async isLocked(keys: string[]): Promise<boolean> {
    const row = await this.db.selectFrom('auth_locks').select('key').where('key', 'in', keys).where('until', '>', this.now()).executeTakeFirst();
    return row !== undefined;
  }

  /** Runs `fn` alone for these keys (PostgreSQL: per-key advisory locks, every instance; SQLite: one writer). */
  private locked<T>(keys: string[], fn: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(async (trx) => {
      if (this.postgres) for (const key of [...keys].sort()) await sql`SELECT pg_advisory_xact_lock(hashtext(${'ferry-lockout:' + key}))`.execute(trx);
      return fn(trx);
    });
  }

  /**
   * Reserves one attempt against every key; null when a key is locked or has no attempt left in its window
   * (counting the attempts in flight), so the caller refuses with 429 without checking anything.
   */
  async reserve(keys: string[]): Promise<Reservation | null> {
    const now = this.now();
    const ids = await this.locked(keys, async (trx) => {
      await trx.deleteFrom('auth_failures').where('at', '<=', now - FAILURE_WINDOW_MS).execute();
      await trx.deleteFrom('auth_locks').where('until', '<=', now).execute();
      const lock = await trx.selectFrom('auth_locks').select('key').where('key', 'in', keys).executeTakeFirst();
      if (lock) return null;
      const counts = await trx.selectFrom('auth_failures').select(['key', (eb) => eb.fn.countAll<number>().as('n')]).where('key', 'in', keys).groupBy('key').execute();
      if (counts.some((c) => Number(c.n) >= MAX_FAILURES)) return null;
      const out: number[] = [];
      for (const key of keys) {
        const r = await trx.insertInto('auth_failures').values({ key, at: now }).returning('id').executeTakeFirstOrThrow();
        out.push(Number(r.id));
      }
      return out;
    });
    if (!ids) return null;
    return {
      settle: (outcome) => (outcome === 'success' ? this.release(ids) : this.lockIfFull(keys)),
    };
  }

  private async release(ids: number[]): Promise<void> {
    await this.db.deleteFrom('auth_failures').where('id', 'in', ids).execute();
  }

  /** After a failure: a key whose failures reached the limit is locked, and its counted failures go. */
  private async lockIfFull(keys: string[]): Promise<void> {
    const now = this.now();
    await this.locked(keys, async (trx) => {
      for (const key of keys) {
        const { n } = await trx
          .selectFrom('auth_failures')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('key', '=', key)
          .where('at', '>', now - FAILURE_WINDOW_MS)
          .executeTakeFirstOrThrow();
        if (Number(n) < MAX_FAILURES) continue;
        // The lock replaces the counted failures: after it lapses the key starts afresh.
        await trx.deleteFrom('auth_failures').where('key', '=', key).execute();
        await trx
          .insertInto('auth_locks')
          .values({ key, until: now + LOCK_MS })
          .onConflict((oc) => oc.column('key').doUpdateSet({ until: now + LOCK_MS }))
          .execute();
      }
    });
  }

  /** Records one failure against each key outside a reservation (e.g. an SFTP key probe that counts). */
  async recordFailure(keys: string[]): Promise<void> {
    const r = await this.reserve(keys);
    await r?.settle('failure');
  }

  /** A successful login clears the username's counter (not the address's). */
  async clear(key: string): Promise<void> {
    await this.db.deleteFrom('auth_failures').where('key', '=', key).execute();
  }
}
