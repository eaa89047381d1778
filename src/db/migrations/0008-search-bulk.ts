import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Bulk loads of the search index (issue #20 build speed). SQLite: `search_fts_pending(from_id)` holds, while a
 * build loads rows, the first `search_nodes.id` of the load; the FTS triggers leave rows with an id at or above
 * it alone, and the build adds them to `search_fts` in one statement at its end (and a start-up heals a load a
 * crash interrupted). Rows below it stay in step row by row, as before. The FTS table is made again without
 * per-row token counts (`columnsize=0`). PostgreSQL: nothing to change.
 */
export function searchBulk(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (dialect !== 'sqlite') return;
      await sql`create table search_fts_pending (from_id integer not null)`.execute(db);
      await sql`drop trigger search_nodes_ai`.execute(db);
      await sql`drop trigger search_nodes_ad`.execute(db);
      await sql`drop trigger search_nodes_au`.execute(db);
      // no per-row token counts (nothing ranks by bm25): one write less per indexed name
      await sql`drop table search_fts`.execute(db);
      await sql`create virtual table search_fts using fts5(name_lc, content='search_nodes', content_rowid='id', tokenize='trigram', columnsize=0)`.execute(db);
      await sql`insert into search_fts (search_fts) values ('rebuild')`.execute(db);
      const live = (row: 'new' | 'old') => sql.raw(`not exists (select 1 from search_fts_pending where ${row}.id >= from_id)`);
      await sql`create trigger search_nodes_ai after insert on search_nodes when ${live('new')} begin
        insert into search_fts(rowid, name_lc) values (new.id, new.name_lc); end`.execute(db);
      await sql`create trigger search_nodes_ad after delete on search_nodes when ${live('old')} begin
        insert into search_fts(search_fts, rowid, name_lc) values ('delete', old.id, old.name_lc); end`.execute(db);
      await sql`create trigger search_nodes_au after update of name_lc on search_nodes when ${live('old')} begin
        insert into search_fts(search_fts, rowid, name_lc) values ('delete', old.id, old.name_lc);
        insert into search_fts(rowid, name_lc) values (new.id, new.name_lc); end`.execute(db);
    },
    async down(db: Kysely<unknown>) {
      if (dialect !== 'sqlite') return;
      await sql`drop trigger search_nodes_ai`.execute(db);
      await sql`drop trigger search_nodes_ad`.execute(db);
      await sql`drop trigger search_nodes_au`.execute(db);
      await sql`create trigger search_nodes_ai after insert on search_nodes begin
        insert into search_fts(rowid, name_lc) values (new.id, new.name_lc); end`.execute(db);
      await sql`create trigger search_nodes_ad after delete on search_nodes begin
        insert into search_fts(search_fts, rowid, name_lc) values ('delete', old.id, old.name_lc); end`.execute(db);
      await sql`create trigger search_nodes_au after update of name_lc on search_nodes begin
        insert into search_fts(search_fts, rowid, name_lc) values ('delete', old.id, old.name_lc);
        insert into search_fts(rowid, name_lc) values (new.id, new.name_lc); end`.execute(db);
      await sql`drop table search_fts_pending`.execute(db);
      await sql`drop table search_fts`.execute(db);
      await sql`create virtual table search_fts using fts5(name_lc, content='search_nodes', content_rowid='id', tokenize='trigram')`.execute(db);
      await sql`insert into search_fts (search_fts) values ('rebuild')`.execute(db);
    },
  };
}
