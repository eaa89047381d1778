import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../database.js';

const INDEXES = [
  ['hash_index_md5', 'md5'],
  ['hash_index_sha1', 'sha1'],
  ['hash_index_sha256', 'sha256'],
] as const;

/**
 * Content lookup by hash (seed rapid upload, contract §10.5): "which stored file has this size
 * and this digest" is answered from `hash_index` through one index per digest kind. The table
 * now also records objects of storages other than `local` (S3 objects Ferry wrote or checked),
 * keyed the same way: (storage, path) → size, mtime, digests.
 */
export function hashLookup(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (const [name, column] of INDEXES) await db.schema.createIndex(name).on('hash_index').columns([column, 'size']).execute();
    },
    async down(db: Kysely<unknown>) {
      for (const [name] of INDEXES) await db.schema.dropIndex(name).execute();
    },
  };
}
