import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { DB, SharesTable } from '../../db/schema.js';

export type ShareRow = Selectable<SharesTable>;
export type SharePatch = Updateable<SharesTable>;

/** Rows of `shares` with numbers normalised (pg returns BIGINT via the int8 parser, SQLite as numbers). */
function normalise(r: ShareRow): ShareRow {
  return {
    ...r,
    creator_id: Number(r.creator_id),
    expires_at: r.expires_at === null ? null : Number(r.expires_at),
    max_accessed: Number(r.max_accessed),
    accessed: Number(r.accessed),
    disabled: Number(r.disabled),
    created_at: Number(r.created_at),
  };
}

/** Kysely queries for shares; no rules. */
export class SharesRepo {
  constructor(private readonly db: Kysely<DB>) {}

  async byId(id: string): Promise<ShareRow | null> {
    const r = await this.db.selectFrom('shares').selectAll().where('id', '=', id).executeTakeFirst();
    return r ? normalise(r) : null;
  }

  /** Shares ordered by id; `creatorId` null = everyone's. */
  async list(creatorId: number | null, offset: number, limit: number | null): Promise<{ rows: ShareRow[]; total: number }> {
    let q = this.db.selectFrom('shares').selectAll();
    let c = this.db.selectFrom('shares').select((eb) => eb.fn.countAll<number>().as('n'));
    if (creatorId !== null) {
      q = q.where('creator_id', '=', creatorId);
      c = c.where('creator_id', '=', creatorId);
    }
    // SQLite needs a LIMIT before an OFFSET.
    const [rows, count] = await Promise.all([
      q.orderBy('id').limit(limit ?? Number.MAX_SAFE_INTEGER).offset(offset).execute(),
      c.executeTakeFirstOrThrow(),
    ]);
    return { rows: rows.map(normalise), total: Number(count.n) };
  }

  /** Inserts; throws the driver's unique violation when the id exists (see isUniqueViolation). */
  async insert(row: ShareRow): Promise<void> {
    await this.db.insertInto('shares').values(row).execute();
  }

  /** Updates by id (a patch may carry a new `id`); false when no row matched. */
  async update(id: string, patch: SharePatch): Promise<boolean> {
    if (Object.keys(patch).length === 0) return (await this.byId(id)) !== null;
    const r = await this.db.updateTable('shares').set(patch).where('id', '=', id).executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  async delete(id: string): Promise<boolean> {
    const r = await this.db.deleteFrom('shares').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows) > 0;
  }

  /**
   * Claims one access atomically: increments `accessed` only while the share is enabled,
   * unexpired and under its limit. False = no slot (so concurrent downloads never exceed it).
   */
  async claimAccess(id: string, now: number): Promise<boolean> {
    const r = await this.db
      .updateTable('shares')
      .set({ accessed: sql<number>`accessed + 1` })
      .where('id', '=', id)
      .where('disabled', '=', 0)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
      .where((eb) => eb.or([eb('max_accessed', '=', 0), eb('accessed', '<', eb.ref('max_accessed'))]))
      .executeTakeFirst();
    return Number(r.numUpdatedRows) > 0;
  }

  /** Gives back a claimed access whose request did not end in a download. */
  async refundAccess(id: string): Promise<void> {
    await this.db.updateTable('shares').set({ accessed: sql<number>`accessed - 1` }).where('id', '=', id).where('accessed', '>', 0).execute();
  }
}
