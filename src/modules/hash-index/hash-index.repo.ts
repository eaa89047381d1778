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
  /** A client-set modification time (ms) for this size+mtime, or null. */
  clientMtime: number | null;
}

function hashesOf(r: { md5: string | null; sha1: string | null; sha256: string | null }): Hashes {
  const h: Hashes = {};
  for (const n of HASH_NAMES) if (r[n]) h[n] = r[n]!;
  return h;
}

/** Length in Unicode code points (a lone surrogate, stored as U+FFFD, counts one as well). */
const codePoints = (s: string): number => [...s].length;

export class HashIndexRepo {
  constructor(private readonly db: Kysely<DB>) {}

  /**
   * Rows at `path` or below it. Prefix test by substr, so `%`/`_` in names need no escaping and no
   * collation is involved (a range comparison would depend on PostgreSQL's database collation). Lengths
   * are counted in code points: that is what `substr` counts on UTF-8 text in both SQLite and PostgreSQL,
   * whereas a JavaScript `.length` counts UTF-16 units (two for 😀 or 𝔘). Combining marks and NFC/NFD
   * spellings are separate code points on both sides, so they need nothing more.
   */
  private under(path: string) {
    const prefix = path === '/' ? '/' : path + '/';
    return sql<boolean>`(path = ${path} or substr(path, 1, ${codePoints(prefix)}) = ${prefix})`;
  }

  /** `dst` followed by what comes after `src` in a row's path (rows selected by `under(src)`). */
  private rebased(src: string, dst: string) {
    return sql<string>`${dst} || substr(path, ${codePoints(src) + 1})`;
  }

  async get(storageId: number, path: string): Promise<HashRow | undefined> {
    const r = await this.db.selectFrom('hash_index').selectAll().where('storage_id', '=', storageId).where('path', '=', path).executeTakeFirst();
    if (!r) return undefined;
    return { storageId, path, size: Number(r.size), mtime: Number(r.mtime), hashes: hashesOf(r), clientMtime: r.client_mtime === null ? null : Number(r.client_mtime) };
  }

  /** The rows of several paths of one storage (a folder's files), in chunks of 500 per query. */
  async getMany(storageId: number, paths: readonly string[]): Promise<HashRow[]> {
    const out: HashRow[] = [];
    for (let i = 0; i < paths.length; i += 500) {
      const rows = await this.db.selectFrom('hash_index').selectAll().where('storage_id', '=', storageId).where('path', 'in', paths.slice(i, i + 500)).execute();
      for (const r of rows) out.push({ storageId, path: r.path, size: Number(r.size), mtime: Number(r.mtime), hashes: hashesOf(r), clientMtime: r.client_mtime === null ? null : Number(r.client_mtime) });
    }
    return out;
  }

  async upsert(storageId: number, path: string, size: number, mtime: number, hashes: Hashes, clientMtime: number | null = null): Promise<void> {
    const row = { md5: hashes.md5 ?? null, sha1: hashes.sha1 ?? null, sha256: hashes.sha256 ?? null, client_mtime: clientMtime };
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
        .set({ path: this.rebased(src, dst) })
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
        .columns(['storage_id', 'path', 'size', 'mtime', 'md5', 'sha1', 'sha256', 'client_mtime'])
        .expression(
          trx
            .selectFrom('hash_index')
            .select(['storage_id', this.rebased(src, dst).as('path'), 'size', 'mtime', 'md5', 'sha1', 'sha256', 'client_mtime'])
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
