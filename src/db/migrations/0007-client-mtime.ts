import type { Kysely, Migration } from 'kysely';

/**
 * `hash_index.client_mtime`: the modification time a client set (X-OC-Mtime, PROPPATCH, the API's
 * Last-Modified) for exactly the row's size+mtime, on storages that cannot set one (S3 keeps its own
 * LastModified; the time itself also lives in the object's metadata). Listings read it in one query.
 */
export function clientMtime(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('hash_index').addColumn('client_mtime', 'bigint').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.alterTable('hash_index').dropColumn('client_mtime').execute();
    },
  };
}
