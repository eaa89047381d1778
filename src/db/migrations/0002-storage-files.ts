import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../database.js';
import { notNull } from './helpers.js';

/** Hash index of local storages, shares, and the task table (grown by later migrations). */
export function storageFiles(_dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('hash_index')
        .addColumn('storage_id', 'bigint', notNull)
        .addColumn('path', 'text', notNull)
        .addColumn('size', 'bigint', notNull)
        .addColumn('mtime', 'bigint', notNull)
        .addColumn('md5', 'text')
        .addColumn('sha1', 'text')
        .addColumn('sha256', 'text')
        .addPrimaryKeyConstraint('hash_index_pk', ['storage_id', 'path'])
        .execute();

      await db.schema
        .createTable('shares')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('creator_id', 'bigint', notNull)
        .addColumn('files', 'text', notNull)
        .addColumn('password', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('expires_at', 'bigint')
        .addColumn('max_accessed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('accessed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('disabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('remark', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', 'bigint', notNull)
        .execute();
      await db.schema.createIndex('shares_creator').on('shares').column('creator_id').execute();

      await db.schema
        .createTable('tasks')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('type', 'text', notNull)
        .addColumn('name', 'text', notNull)
        .addColumn('creator_id', 'bigint', notNull)
        .addColumn('state', 'integer', notNull)
        .addColumn('status', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('progress', 'real', (c) => c.notNull().defaultTo(0))
        .addColumn('total_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('done_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('error', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('payload', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('result', 'text', (c) => c.notNull().defaultTo('null'))
        .addColumn('runner', 'text')
        .addColumn('heartbeat_at', 'bigint')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', notNull)
        .addColumn('start_time', 'bigint')
        .addColumn('end_time', 'bigint')
        .execute();
      await db.schema.createIndex('tasks_type_state').on('tasks').columns(['type', 'state']).execute();
    },
    async down(db: Kysely<unknown>) {
      for (const t of ['tasks', 'shares', 'hash_index']) await db.schema.dropTable(t).execute();
    },
  };
}
