import type { Insertable, Kysely, Selectable } from 'kysely';
import type { DB, MetasTable } from '../../db/schema.js';

export type MetaRow = Selectable<MetasTable>;
export type MetaValues = Omit<Insertable<MetasTable>, 'id'>;

/** Kysely queries for the metas table; no rules. */
export class MetasRepo {
  constructor(
    private readonly db: Kysely<DB>,
    /** Where `all` reads (PostgreSQL: the connection of the cached reads, see Database.cacheDb); else `db`. */
    private readonly reads: Kysely<DB> = db,
  ) {}

  all(): Promise<MetaRow[]> {
    return this.reads.selectFrom('metas').selectAll().orderBy('path').orderBy('id').execute();
  }

  async page(offset: number, limit: number | null): Promise<{ rows: MetaRow[]; total: number }> {
    let q = this.db.selectFrom('metas').selectAll().orderBy('path').orderBy('id');
    // SQLite takes OFFSET only after a LIMIT
    if (limit !== null || offset > 0) q = q.limit(limit ?? Number.MAX_SAFE_INTEGER).offset(offset);
    const { n } = await this.db.selectFrom('metas').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { rows: await q.execute(), total: Number(n) };
  }

  async byId(id: number): Promise<MetaRow | null> {
    return (await this.db.selectFrom('metas').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
  }

  async byPath(path: string): Promise<MetaRow | null> {
    return (await this.db.selectFrom('metas').selectAll().where('path', '=', path).executeTakeFirst()) ?? null;
  }

  async insert(v: MetaValues): Promise<MetaRow> {
    const r = await this.db.insertInto('metas').values(v).returning('id').executeTakeFirstOrThrow();
    return (await this.byId(Number(r.id)))!;
  }

  async update(id: number, v: MetaValues): Promise<void> {
    await this.db.updateTable('metas').set(v).where('id', '=', id).execute();
  }

  async delete(id: number): Promise<number> {
    const r = await this.db.deleteFrom('metas').where('id', '=', id).executeTakeFirst();
    return Number(r.numDeletedRows);
  }
}
