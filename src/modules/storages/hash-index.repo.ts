/**
 * The local driver's hash index in the database: (storage, path) → size, mtime and the
 * hashes Ferry computed while streaming the whole file. Valid only for that size+mtime.
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { HashIndex, Hashes } from './drivers/index.js';

export class DbHashIndex implements HashIndex {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly storageId: number,
  ) {}

  /** Rows at `path` or below it. Prefix test by substr, so `%`/`_` in names need no escaping. */
  private under(path: string) {
    const prefix = path === '/' ? '/' : path + '/';
    return sql<boolean>`(path = ${path} or substr(path, 1, ${prefix.length}) = ${prefix})`;
  }

  async get(path: string, size: number, mtimeMs: number): Promise<Hashes | undefined> {
    const r = await this.db
      .selectFrom('hash_index')
      .select(['md5', 'sha1', 'sha256'])
      .where('storage_id', '=', this.storageId)
      .where('path', '=', path)
      .where('size', '=', size)
      .where('mtime', '=', mtimeMs)
      .executeTakeFirst();
    if (!r) return undefined;
    const h: Hashes = {};
    if (r.md5) h.md5 = r.md5;
    if (r.sha1) h.sha1 = r.sha1;
    if (r.sha256) h.sha256 = r.sha256;
    return h;
  }

  async put(path: string, size: number, mtimeMs: number, hashes: Hashes): Promise<void> {
    const known = (await this.get(path, size, mtimeMs)) ?? {};
    const merged = { ...known, ...hashes };
    const row = { md5: merged.md5 ?? null, sha1: merged.sha1 ?? null, sha256: merged.sha256 ?? null };
    await this.db
      .insertInto('hash_index')
      .values({ storage_id: this.storageId, path, size, mtime: mtimeMs, ...row })
      .onConflict((oc) => oc.columns(['storage_id', 'path']).doUpdateSet({ size, mtime: mtimeMs, ...row }))
      .execute();
  }

  async invalidate(path: string): Promise<void> {
    await this.db.deleteFrom('hash_index').where('storage_id', '=', this.storageId).where(this.under(path)).execute();
  }

  async move(src: string, dst: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('hash_index').where('storage_id', '=', this.storageId).where(this.under(dst)).execute();
      await trx
        .updateTable('hash_index')
        .set({ path: sql`${dst} || substr(path, ${src.length + 1})` })
        .where('storage_id', '=', this.storageId)
        .where(this.under(src))
        .execute();
    });
  }

  async copy(src: string, dst: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('hash_index').where('storage_id', '=', this.storageId).where(this.under(dst)).execute();
      await trx
        .insertInto('hash_index')
        .columns(['storage_id', 'path', 'size', 'mtime', 'md5', 'sha1', 'sha256'])
        .expression(
          trx
            .selectFrom('hash_index')
            .select([
              'storage_id',
              sql<string>`${dst} || substr(path, ${src.length + 1})`.as('path'),
              'size',
              'mtime',
              'md5',
              'sha1',
              'sha256',
            ])
            .where('storage_id', '=', this.storageId)
            .where(this.under(src)),
        )
        .execute();
    });
  }

  /** Drops the whole index of this storage (storage deleted). */
  async clear(): Promise<void> {
    await this.db.deleteFrom('hash_index').where('storage_id', '=', this.storageId).execute();
  }
}
