import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';

/** Kysely queries for the settings table; no rules. */
export class SettingsRepo {
  constructor(
    private readonly db: Kysely<DB>,
    /** Where `all` reads (PostgreSQL: the connection of the cached reads, see Database.cacheDb); else `db`. */
    private readonly reads: Kysely<DB> = db,
  ) {}

  async all(): Promise<Map<string, string>> {
    const rows = await this.reads.selectFrom('settings').select(['key', 'value']).execute();
    return new Map(rows.map((r) => [r.key, r.value]));
  }

  /** Upserts in one transaction: all or nothing. */
  async save(entries: { key: string; value: string }[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      for (const e of entries) {
        await trx
          .insertInto('settings')
          .values({ key: e.key, value: e.value })
          .onConflict((oc) => oc.column('key').doUpdateSet({ value: e.value }))
          .execute();
      }
    });
  }

  async remove(key: string): Promise<void> {
    await this.db.deleteFrom('settings').where('key', '=', key).execute();
  }

  /** Inserts only the keys that are missing (first start, or a new setting after an upgrade). */
  async insertMissing(entries: { key: string; value: string }[]): Promise<void> {
    for (const e of entries) {
      await this.db.insertInto('settings').values(e).onConflict((oc) => oc.column('key').doNothing()).execute();
    }
  }
}
