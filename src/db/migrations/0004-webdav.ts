import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../database.js';
import { notNull, withId } from './helpers.js';

/** WebDAV: dead properties and locks per full virtual path; app passwords for mount clients and SFTP. */
export function webdav(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('dav_props')
        .addColumn('path', 'text', notNull)
        .addColumn('ns', 'text', notNull)
        .addColumn('name', 'text', notNull)
        .addColumn('value', 'text', notNull)
        .addPrimaryKeyConstraint('dav_props_pk', ['path', 'ns', 'name'])
        .execute();
      await db.schema
        .createTable('dav_locks')
        .addColumn('token', 'text', (c) => c.primaryKey())
        .addColumn('path', 'text', notNull)
        .addColumn('deep', 'integer', notNull)
        .addColumn('exclusive', 'integer', notNull)
        .addColumn('owner', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('user_id', 'bigint', notNull)
        .addColumn('timeout_s', 'bigint', notNull)
        .addColumn('expires_at', 'bigint', notNull)
        .addColumn('created_at', 'bigint', notNull)
        .execute();
      await db.schema.createIndex('dav_locks_path').on('dav_locks').column('path').execute();
      await withId(db.schema.createTable('app_passwords'), dialect)
        .addColumn('user_id', 'bigint', notNull)
        .addColumn('name', 'text', notNull)
        .addColumn('pwd_hash', 'text', notNull)
        .addColumn('salt', 'text', notNull)
        .addColumn('created_at', 'bigint', notNull)
        .addColumn('last_used_time', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('app_passwords_user').on('app_passwords').column('user_id').execute();
    },
    async down(db: Kysely<unknown>) {
      for (const t of ['app_passwords', 'dav_locks', 'dav_props']) await db.schema.dropTable(t).execute();
    },
  };
}
