import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../database.js';
import { notNull, withId } from './helpers.js';

/**
 * Metas: per-folder rules with OpenList's fields (folder password, write bypass, hidden names, readme, header),
 * each with its "applies to subfolders" flag. One row per folder path (full virtual path, unique).
 */
export function metas(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await withId(db.schema.createTable('metas'), dialect)
        .addColumn('path', 'text', (c) => c.notNull().unique())
        .addColumn('password', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('p_sub', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('write', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('w_sub', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('hide', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('h_sub', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('readme', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('r_sub', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('header', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('header_sub', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('modified', 'bigint', notNull)
        .execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('metas').execute();
    },
  };
}
