/**
 * Login lockout (contract §3): 5 failed attempts for the same username or the same
 * client address within 15 minutes lock that key for 5 minutes. Counters live in the
 * database so every instance sharing it agrees.
 */
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

export const MAX_FAILURES = 5;
export const FAILURE_WINDOW_MS = 15 * 60_000;
export const LOCK_MS = 5 * 60_000;

export const userKey = (username: string) => `user:${username}`;
export const addressKey = (ip: string) => `addr:${ip}`;

export class Lockout {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when any of the keys is locked right now. */
  async isLocked(keys: string[]): Promise<boolean> {
    const row = await this.db
      .selectFrom('auth_locks')
      .select('key')
      .where('key', 'in', keys)
      .where('until', '>', this.now())
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Records one failure against each key; locks a key that reaches the limit in the window. */
  async recordFailure(keys: string[]): Promise<void> {
    const now = this.now();
    const postgres = this.db.getExecutor().adapter instanceof PostgresAdapter;
    await this.db.transaction().execute(async (trx) => {
      // PostgreSQL: concurrent failures for one key (any instance) are counted one after the
      // other, or two could each count 4 and neither lock. SQLite has a single writer anyway.
      if (postgres) for (const key of [...keys].sort()) await sql`SELECT pg_advisory_xact_lock(hashtext(${'ferry-lockout:' + key}))`.execute(trx);
      await trx.deleteFrom('auth_failures').where('at', '<=', now - FAILURE_WINDOW_MS).execute();
      await trx.deleteFrom('auth_locks').where('until', '<=', now).execute();
      for (const key of keys) {
        await trx.insertInto('auth_failures').values({ key, at: now }).execute();
        const { n } = await trx
          .selectFrom('auth_failures')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('key', '=', key)
          .where('at', '>', now - FAILURE_WINDOW_MS)
          .executeTakeFirstOrThrow();
        if (Number(n) >= MAX_FAILURES) {
          // The lock replaces the counted failures: after it lapses the key starts afresh.
          await trx.deleteFrom('auth_failures').where('key', '=', key).execute();
          await trx
            .insertInto('auth_locks')
            .values({ key, until: now + LOCK_MS })
            .onConflict((oc) => oc.column('key').doUpdateSet({ until: now + LOCK_MS }))
            .execute();
        }
      }
    });
  }

  /** A successful login clears the username's counter (not the address's). */
  async clear(key: string): Promise<void> {
    await this.db.deleteFrom('auth_failures').where('key', '=', key).execute();
  }
}
