/**
 * Every query on `hash_index`: (storage, path inside it) → size, mtime and the digests Ferry computed or
 * verified for exactly that size+mtime. No rules here (hash-index.service.ts holds them).
 */
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { HASH_NAMES, type HashName, type Hashes } from '../../lib/hashes.js';

export interface HashRow {
  storageId: number;
  path: string;
  size: number;
  mtime: number;
  hashes: Hashes;
}

function hashesOf(r: { md5: string | null; sha1: string | null; sha256: string | null }): Hashes {
  const h: Hashes = {};
  for (const n of HASH_NAMES) if (r[n]) h[n] = r[n]!;
  return h;
}

export class HashIndexRepo {
  constructor(private readonly db: Kysely<DB>) {}

  /** Rows at `path` or below it. Prefix test by substr, so `%`/`_` in names need no escaping. */
  private under(path: string) {
    const prefix = path === '/' ? '/' : path + '/';
    return sql<boolean>`(path = ${path} or substr(path, 1, ${prefix.length}) = ${prefix})`;
  }

  async get(storageId: number, path: string): Promise<HashRow | undefined> {
    const r = await this.db.selectFrom('hash_index').selectAll().where('storage_id', '=', storageId).where('path', '=', path).executeTakeFirst();
    if (!r) return undefined;
    return { storageId, path, size: Number(r.size), mtime: Number(r.mtime), hashes: hashesOf(r) };
  }

  async upsert(storageId: number, path: string, size: number, mtime: number, hashes: Hashes): Promise<void> {
    const row = { md5: hashes.md5 ?? null, sha1: hashes.sha1 ?? null, sha256: hashes.sha256 ?? null };
    await this.db
      .insertInto('hash_index')
      .values({ storage_id: storageId, path, size, mtime, ...row })
      .onConflict((oc) => oc.columns(['storage_id', 'path']).doUpdateSet({ size, mtime, ...row }))
      .execute();
  }

  async deleteUnder(storageId: number, path: string): Promise<void> {
    await this.db.deleteFrom('hash_index').where('storage_id', '=', storageId).where(this.under(path)).execute();
  }

  /** Re-keys `src` and everything below it to `dst` (rows at `dst` go first). */
  async move(storageId: number, src: string, dst: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('hash_index').where('storage_id', '=', storageId).where(this.under(dst)).execute();
      await trx
        .updateTable('hash_index')
        .set({ path: sql`${dst} || substr(path, ${src.length + 1})` })
        .where('storage_id', '=', storageId)
        .where(this.under(src))
        .execute();
    });
  }

  /** Duplicates the rows of `src` and below as `dst` (rows at `dst` go first). */
  async copy(storageId: number, src: string, dst: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('hash_index').where('storage_id', '=', storageId).where(this.under(dst)).execute();
      await trx
        .insertInto('hash_index')
        .columns(['storage_id', 'path', 'size', 'mtime', 'md5', 'sha1', 'sha256'])
        .expression(
          trx
            .selectFrom('hash_index')
            .select(['storage_id', sql<string>`${dst} || substr(path, ${src.length + 1})`.as('path'), 'size', 'mtime', 'md5', 'sha1', 'sha256'])
            .where('storage_id', '=', storageId)
            .where(this.under(src)),
        )
        .execute();
    });
  }

  async deleteStorage(storageId: number): Promise<void> {
    await this.db.deleteFrom('hash_index').where('storage_id', '=', storageId).execute();
  }

  /** Up to `limit` rows whose `alg` digest and size match (any storage). */
  async find(alg: HashName, digest: string, size: number, limit: number): Promise<{ storageId: number; path: string }[]> {
    const rows = await this.db.selectFrom('hash_index').select(['storage_id', 'path']).where(alg, '=', digest).where('size', '=', size).limit(limit).execute();
    return rows.map((r) => ({ storageId: Number(r.storage_id), path: r.path }));
  }
}
