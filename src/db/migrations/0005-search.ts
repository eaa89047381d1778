import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../database.js';
import { notNull } from './helpers.js';

/**
 * The search index (issue #20): one row per indexed object, keyed by (storage, path inside the storage), with
 * the lower-cased name for matching. SQLite: an FTS5 trigram table over `name_lc`, external content kept in step
 * by triggers. PostgreSQL: a pg_trgm GIN index on `name_lc`. `path`/`parent` compare bytewise on both (COLLATE
 * "C" on PostgreSQL), so a subtree is one range of the primary key. Storages gain `disable_index`.
 */
export function search(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const bytewise = (c: Parameters<typeof notNull>[0]) => (dialect === 'postgres' ? c.notNull().modifyEnd(sql`collate "C"`) : c.notNull());
      let t = db.schema.createTable('search_nodes');
      t = dialect === 'postgres' ? t.addColumn('id', 'bigserial', notNull) : t.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
      await t
        .addColumn('storage_id', 'bigint', notNull)
        .addColumn('path', 'text', bytewise)
        .addColumn('parent', 'text', bytewise)
        .addColumn('name', 'text', notNull)
        .addColumn('name_lc', 'text', notNull)
        .addColumn('is_dir', 'integer', notNull)
        .addColumn('size', 'bigint', notNull)
        .addColumn('modified', 'bigint', notNull)
        .execute();
      await db.schema.createIndex('search_nodes_path').unique().on('search_nodes').columns(['storage_id', 'path']).execute();
      await db.schema.createIndex('search_nodes_parent').on('search_nodes').columns(['storage_id', 'parent']).execute();
      if (dialect === 'postgres') {
        await sql`create extension if not exists pg_trgm`.execute(db);
        await sql`alter table search_nodes add primary key (id)`.execute(db);
        await sql`create index search_nodes_trgm on search_nodes using gin (name_lc gin_trgm_ops)`.execute(db);
      } else {
        await sql`create virtual table search_fts using fts5(name_lc, content='search_nodes', content_rowid='id', tokenize='trigram')`.execute(db);
        await sql`create trigger search_nodes_ai after insert on search_nodes begin
          insert into search_fts(rowid, name_lc) values (new.id, new.name_lc); end`.execute(db);
        await sql`create trigger search_nodes_ad after delete on search_nodes begin
          insert into search_fts(search_fts, rowid, name_lc) values ('delete', old.id, old.name_lc); end`.execute(db);
        await sql`create trigger search_nodes_au after update of name_lc on search_nodes begin
          insert into search_fts(search_fts, rowid, name_lc) values ('delete', old.id, old.name_lc);
          insert into search_fts(rowid, name_lc) values (new.id, new.name_lc); end`.execute(db);
      }
      await db.schema.alterTable('storages').addColumn('disable_index', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    },
    async down(db: Kysely<unknown>) {
      if (dialect === 'sqlite') await sql`drop table if exists search_fts`.execute(db);
      await db.schema.dropTable('search_nodes').execute();
      await db.schema.alterTable('storages').dropColumn('disable_index').execute();
    },
  };
}
