/**
 * Queries on the search index (`search_nodes`, migration 0005) for both dialects; no rules. Paths are inside a
 * storage (`/a/b.txt`); a subtree is the row at its root plus one bytewise range of `path` (`<root>/` up to
 * `<root>0`, `0` being the character after `/`), so subtree deletes and moves use the unique (storage, path) index.
 */
import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { Database, Dialect } from '../../db/database.js';
import type { DB } from '../../db/schema.js';
import { baseName, parentOf } from '../../lib/paths.js';

type SqliteHandle = NonNullable<Database['sqlite']>;
type Statement = import('better-sqlite3').Statement<unknown[]>;

export interface IndexedNode {
  storageId: number;
  path: string;
  name: string;
  /** The folder holding `path`, when the caller knows it (else computed). */
  parent?: string;
  isDir: boolean;
  size: number;
  modified: number;
}

/** A part of the index a search covers: one storage's subtree, minus nested mounts. */
export interface SearchArea {
  storageId: number;
  /** Strict descendants of this path are searched (`/` = the whole storage). */
  under: string;
  /** Subtrees left out, their roots included (folders where other storages are mounted, hidden objects). */
  excludes: string[];
  /** Subtrees left out, their roots kept (folders a password guards). */
  below?: string[];
}

export interface SearchQuery {
  areas: SearchArea[];
  /** Lower-cased words, all required. */
  words: string[];
  /** 0 all, 1 folders, 2 files. */
  scope: number;
  offset: number;
  limit: number;
}

/** Words at least this long (code points) go through the trigram index; shorter ones are a LIKE scan. */
export const TRIGRAM = 3;
/** A query made only of 1–2 character words (no index helps) looks at no more than this many matches. */
export const SHORT_QUERY_CAP = 10_000;
/** Rows per INSERT (8 columns: far under both dialects' parameter limits). */
const BATCH = 500;
/** Rows a SQLite load's end indexes per transaction (about 0.15 s of one core at 50,000 names). */
const FILL_STEP = 50_000;
/** FTS5's default `automerge`, set again after a load. */
const FTS_AUTOMERGE = 4;
/** Rows at or above a pending load's first id are not in the FTS table yet (search_fts_pending, migration 0008). */
const live = (row: 'new' | 'old') => `not exists (select 1 from search_fts_pending where ${row}.id >= from_id)`;
/** The FTS triggers a load drops for a while (as migration 0008 made them). */
const INSERT_TRIGGER = `create trigger if not exists search_nodes_ai after insert on search_nodes when ${live('new')} begin
  insert into search_fts(rowid, name_lc) values (new.id, new.name_lc); end`;
const DELETE_TRIGGER = `create trigger if not exists search_nodes_ad after delete on search_nodes when ${live('old')} begin
  insert into search_fts(search_fts, rowid, name_lc) values ('delete', old.id, old.name_lc); end`;

export const codePoints = (s: string): number => [...s].length;

/** `s` as a literal inside a LIKE pattern with ESCAPE '\'. */
export function likeLiteral(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `s` as one FTS5 string (a phrase of its trigrams): every metacharacter, `NEAR`, `*`, `-` stays literal. */
export function ftsString(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

/** Bounds of the strict descendants of `p`: [low, high). */
function descendants(p: string): [string, string] {
  const prefix = p === '/' ? '/' : `${p}/`;
  return [prefix, `${prefix.slice(0, -1)}0`];
}

type Eb = ExpressionBuilder<DB, 'search_nodes'>;

/**
 * `path` within `p`. `unindexed` (SQLite, when the FTS match drives the query): `+path`, so the planner does not
 * scan the (storage, path) index over a whole storage and probe the match for each row (745 ms against 0.8 ms
 * at 1,000,000 rows).
 */
function within(eb: Eb, p: string, self: boolean, unindexed = false): Expression<SqlBool> {
  const [lo, hi] = descendants(p);
  const path = unindexed ? sql<string>`+path` : sql.ref<string>('path');
  const range = eb.and([eb(path, '>=', lo), eb(path, '<', hi)]);
  return self && p !== '/' ? eb.or([eb(path, '=', p), range]) : range;
}

function toRow(n: IndexedNode) {
  return {
    storage_id: n.storageId,
    path: n.path,
    parent: n.parent ?? parentOf(n.path),
    name: n.name,
    name_lc: n.name.toLowerCase(),
    is_dir: n.isDir ? 1 : 0,
    size: n.isDir ? 0 : n.size,
    modified: n.modified,
  };
}

export interface FoundRow {
  storage_id: number;
  path: string;
  name: string;
  is_dir: number;
  size: number;
}

export class SearchRepo {
  private insertStmt?: Statement;
  /** Rows `insert` added since its last fill step (SQLite). */
  private loaded = 0;

  constructor(
    private readonly db: Kysely<DB>,
    readonly dialect: Dialect,
    /** SQLite: the raw handle for `insert` (see Database.sqlite). */
    private readonly sqlite?: SqliteHandle,
    /** PostgreSQL: the pool searches read through (see Database.searchDb); else `db`. */
    searchDb?: Kysely<DB>,
  ) {
    this.reads = searchDb ?? db;
  }

  private readonly reads: Kysely<DB>;

  /** Inserts or refreshes rows (by storage and path), in one transaction. */
  async upsert(nodes: readonly IndexedNode[]): Promise<void> {
    if (nodes.length === 0) return;
    await this.db.transaction().execute(async (tx) => {
      for (let i = 0; i < nodes.length; i += BATCH) await this.upsertBatch(tx, nodes.slice(i, i + BATCH));
    });
  }

  private async upsertBatch(db: Kysely<DB>, nodes: readonly IndexedNode[]): Promise<void> {
    await db
        .insertInto('search_nodes')
        .values(nodes.map(toRow))
        .onConflict((oc) =>
          oc.columns(['storage_id', 'path']).doUpdateSet((eb) => ({
            name: eb.ref('excluded.name'),
            name_lc: eb.ref('excluded.name_lc'),
            is_dir: eb.ref('excluded.is_dir'),
            size: eb.ref('excluded.size'),
            modified: eb.ref('excluded.modified'),
          })),
        )
        .execute();
  }

  /** Inserts rows that are not there yet (folders a write created on the way), leaving existing ones alone. */
  async insertMissing(nodes: readonly IndexedNode[]): Promise<void> {
    if (nodes.length === 0) return;
    await this.db.insertInto('search_nodes').values(nodes.map(toRow)).onConflict((oc) => oc.columns(['storage_id', 'path']).doNothing()).execute();
  }

  /** Batched inserts (one transaction) into a subtree that was just emptied (a build); rows already there are kept. */
  async insert(nodes: readonly IndexedNode[]): Promise<void> {
    if (nodes.length === 0) return;
    const raw = this.sqlite;
    if (raw) {
      // one prepared statement, run per row: half the cost of multi-row statements prepared per batch
      await this.db.connection().execute(async () => {
        const stmt = (this.insertStmt ??= raw.prepare(
          `insert into search_nodes (storage_id, path, parent, name, name_lc, is_dir, size, modified) values (?, ?, ?, ?, ?, ?, ?, ?)
           on conflict (storage_id, path) do nothing`,
        ));
        // No fsync at each batch's commit (WAL, synchronous=NORMAL for these transactions only): the next commit
        // made with the connection's own setting syncs the log, these rows included. A power cut may lose the last
        // batches of the build, never a row of anything else (the log is replayed in order).
        const sync = raw.pragma('synchronous', { simple: true }) as number;
        raw.pragma('synchronous = NORMAL');
        try {
          raw.transaction(() => {
            for (const n of nodes) {
              stmt.run(n.storageId, n.path, n.parent ?? parentOf(n.path), n.name, n.name.toLowerCase(), n.isDir ? 1 : 0, n.isDir ? 0 : n.size, n.modified);
            }
          })();
        } finally {
          raw.pragma(`synchronous = ${sync}`);
        }
      });
      // a build's rows become matchable in steps while it walks on (its listings run on other threads meanwhile)
      this.loaded += nodes.length;
      if (this.loaded >= FILL_STEP) {
        this.loaded = 0;
        await this.fillStep(FILL_STEP, false);
      }
      return;
    }
    // PostgreSQL: the whole batch as eight array parameters, one statement (a 500-row VALUES list is 4,000
    // parameters to bind and a statement to plan for every 500 rows)
    const rows = nodes.map(toRow);
    const col = <K extends keyof (typeof rows)[number]>(k: K) => rows.map((r) => r[k]);
    await sql`insert into search_nodes (storage_id, path, parent, name, name_lc, is_dir, size, modified)
      select * from unnest(${col('storage_id')}::bigint[], ${col('path')}::text[], ${col('parent')}::text[], ${col('name')}::text[],
        ${col('name_lc')}::text[], ${col('is_dir')}::integer[], ${col('size')}::bigint[], ${col('modified')}::bigint[])
      on conflict (storage_id, path) do nothing`.execute(this.db);
  }

  /** Removes `path` and everything below it (`/` = the storage's whole index). */
  async removeTree(storageId: number, path: string): Promise<void> {
    await this.db.deleteFrom('search_nodes').where('storage_id', '=', storageId).where((eb) => within(eb, path, true)).execute();
  }

  /** Moves `from` (and its subtree) to `to` inside one storage, replacing whatever `to` held. */
  async moveTree(storageId: number, from: string, to: string): Promise<void> {
    const cut = codePoints(from) + 1;
    await this.db.transaction().execute(async (tx) => {
      await tx.deleteFrom('search_nodes').where('storage_id', '=', storageId).where((eb) => within(eb, to, true)).execute();
      await tx
        .updateTable('search_nodes')
        .set({ path: sql<string>`${to} || substr(path, ${cut})`, parent: sql<string>`${to} || substr(parent, ${cut})` })
        .where('storage_id', '=', storageId)
        .where((eb) => within(eb, from, false))
        .execute();
      const name = baseName(to);
      await tx
        .updateTable('search_nodes')
        .set({ path: to, parent: parentOf(to), name, name_lc: name.toLowerCase() })
        .where('storage_id', '=', storageId)
        .where('path', '=', from)
        .execute();
    });
  }

  /** The direct children recorded under `parent`: name → is_dir. */
  async children(storageId: number, parent: string): Promise<Map<string, boolean>> {
    const rows = await this.db.selectFrom('search_nodes').select(['name', 'is_dir']).where('storage_id', '=', storageId).where('parent', '=', parent).execute();
    return new Map(rows.map((r) => [r.name, Number(r.is_dir) === 1]));
  }

  /**
   * Starts a bulk load (a build). SQLite: rows inserted from now on are left out of the FTS table until
   * `finishLoad` indexes them (migration 0008: `search_fts_pending` holds the load's first id); `all` first empties
   * the index in one go (FTS `delete-all`, then the table without its delete trigger, so SQLite truncates it instead
   * of running the trigger once per row). While a load runs, the insert trigger is dropped (every row it would see
   * is at or above the load's first id, so it would do nothing, at half the cost of an insert) and FTS automerge is
   * off (the fill writes segments once; merging them as they come doubled its cost at 1,000,000 rows).
   * PostgreSQL, `all`: the table is emptied and its trigram index dropped, to be created again after the load.
   * A load a crash interrupted is finished by `finishLoad` at the next start.
   */
  async beginLoad(all: boolean): Promise<void> {
    if (this.dialect === 'postgres') {
      if (!all) return;
      await this.db.transaction().execute(async (tx) => {
        await sql`drop index if exists search_nodes_trgm`.execute(tx);
        await sql`truncate search_nodes`.execute(tx);
      });
      return;
    }
    await this.db.transaction().execute(async (tx) => {
      await sql`drop trigger if exists search_nodes_ai`.execute(tx);
      await sql`insert into search_fts (search_fts, rank) values ('automerge', 0)`.execute(tx);
      if (all) {
        await sql`delete from search_fts_pending`.execute(tx);
        await sql`insert into search_fts_pending (from_id) values (0)`.execute(tx);
        await sql`insert into search_fts (search_fts) values ('delete-all')`.execute(tx);
        await sql`drop trigger search_nodes_ad`.execute(tx);
        await tx.deleteFrom('search_nodes').execute();
        await sql.raw(DELETE_TRIGGER).execute(tx);
        return;
      }
      // the oldest pending load wins: rows between it and now are not in search_fts either
      await sql`insert into search_fts_pending (from_id)
        select coalesce((select seq from sqlite_sequence where name = 'search_nodes'), 0) + 1
        where not exists (select 1 from search_fts_pending)`.execute(tx);
    });
  }

  /**
   * Ends a bulk load (see `beginLoad`): the loaded rows become searchable through the trigram index. SQLite: in
   * steps of `FILL_STEP` rows, each one transaction that also moves the load's first id past it, with the event
   * loop free between steps (a crash in between leaves the rest for the next start).
   */
  async finishLoad(): Promise<void> {
    if (this.dialect === 'postgres') {
      const { rows } = await sql`select 1 from pg_indexes where tablename = 'search_nodes' and indexname = 'search_nodes_trgm'`.execute(this.db);
      if (rows.length > 0) return;
      await sql`create index if not exists search_nodes_trgm on search_nodes using gin (name_lc gin_trgm_ops)`.execute(this.db);
      // statistics for the table a build just filled (before autovacuum gets to it, queries planned without them
      // took 60–110 ms at 100,000 rows instead of 3–50 ms)
      await sql`analyze search_nodes`.execute(this.db);
      return;
    }
    // bounded: each step indexes FILL_STEP ids or ends the load; rows Ferry adds meanwhile only extend it
    while (!(await this.fillStep(FILL_STEP))) await new Promise((r) => setImmediate(r));
  }

  /**
   * One step of a SQLite load: indexes the pending rows with ids in [first, first + `rows`) that exist now and
   * moves the load's first id past them (never past the last row: a row added later gets a higher id and stays
   * pending). With `end`, when none are left, ends the load (insert trigger back, automerge on; also when no
   * load was pending, which costs one small write). True once no load is pending.
   */
  async fillStep(rows: number, end = true): Promise<boolean> {
    return this.db.transaction().execute(async (tx) => {
      const { rows: [r] } = await sql<{ from_id: number | null; last: number | null }>`select (select min(from_id) from search_fts_pending) as from_id,
        (select max(id) from search_nodes) as last`.execute(tx);
      const from = r?.from_id === null || r?.from_id === undefined ? null : Number(r.from_id);
      const last = Number(r?.last ?? 0);
      if (from !== null && from <= last) {
        const to = Math.min(from + rows, last + 1);
        await sql`insert into search_fts (rowid, name_lc) select id, name_lc from search_nodes where id >= ${from} and id < ${to}`.execute(tx);
        await sql`update search_fts_pending set from_id = ${to}`.execute(tx);
        return false;
      }
      if (!end) return from === null;
      await sql`delete from search_fts_pending`.execute(tx);
      await sql.raw(INSERT_TRIGGER).execute(tx);
      await sql`insert into search_fts (search_fts, rank) values ('automerge', ${sql.lit(FTS_AUTOMERGE)})`.execute(tx);
      return true;
    });
  }

  /** Empties the index (in one go: an empty bulk load). */
  async clear(): Promise<void> {
    await this.beginLoad(true);
    await this.finishLoad();
  }

  async count(): Promise<number> {
    const r = await this.db.selectFrom('search_nodes').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return Number(r.n);
  }

  private matching(eb: Eb, q: SearchQuery): Expression<SqlBool> {
    const conds: Expression<SqlBool>[] = [];
    const long = this.dialect === 'sqlite' ? q.words.filter((w) => codePoints(w) >= TRIGRAM) : [];
    const u = long.length > 0;
    conds.push(
      eb.or(
        q.areas.map((a) =>
          eb.and([
            eb(u ? sql<number>`+storage_id` : sql.ref<number>('storage_id'), '=', a.storageId),
            within(eb, a.under, false, u),
            ...a.excludes.map((x) => eb.not(within(eb, x, true, u))),
            ...(a.below ?? []).map((x) => eb.not(within(eb, x, false, u))),
          ]),
        ),
      ),
    );
    if (q.scope === 1) conds.push(eb('is_dir', '=', 1));
    if (q.scope === 2) conds.push(eb('is_dir', '=', 0));
    if (long.length) {
      const match = long.map(ftsString).join(' AND ');
      conds.push(sql<SqlBool>`search_nodes.id in (select rowid from search_fts where search_fts match ${match})`);
    }
    for (const w of q.words) if (!long.includes(w)) conds.push(sql<SqlBool>`name_lc like ${`%${likeLiteral(w)}%`} escape '\\'`);
    return eb.and(conds);
  }

  /**
   * The search condition. A query of short words only is a scan: it is bounded to the first SHORT_QUERY_CAP
   * matches (in storage order), so one-letter queries cost at most one pass over the searched rows.
   */
  private where(eb: Eb, q: SearchQuery): Expression<SqlBool> {
    if (q.words.some((w) => codePoints(w) >= TRIGRAM)) return this.matching(eb, q);
    return eb('id', 'in', this.db.selectFrom('search_nodes').select('id').where((inner) => this.matching(inner, q)).limit(SHORT_QUERY_CAP));
  }

  /** Every match (storage and path), in no order: the candidates a hide rule must look at before paging. */
  async matches(q: Omit<SearchQuery, 'offset' | 'limit'>): Promise<{ storage_id: number; path: string }[]> {
    if (q.areas.length === 0 || q.words.length === 0) return [];
    const rows = await this.reads
      .selectFrom('search_nodes')
      .select(['storage_id', 'path'])
      .where((eb) => this.where(eb, { ...q, offset: 0, limit: 0 }))
      .execute();
    return rows.map((r) => ({ storage_id: Number(r.storage_id), path: r.path }));
  }

  /**
   * One page of matches, best first (exact name, then name prefix, then the rest), then by path; and the total
   * (at most SHORT_QUERY_CAP for a query of 1–2 character words only). One statement (the total as a window
   * count over the matches) unless the page lies past the last match: on PostgreSQL each statement waits for a
   * pooled connection, behind every other request's queries under load.
   */
  async search(q: SearchQuery): Promise<{ rows: FoundRow[]; total: number }> {
    if (q.areas.length === 0 || q.words.length === 0) return { rows: [], total: 0 };
    const phrase = q.words.join(' ');
    const first = q.words[0]!;
    const rows = await this.reads
      .selectFrom('search_nodes')
      .select(['storage_id', 'path', 'name', 'is_dir', 'size', sql<number>`count(*) over ()`.as('total')])
      .where((eb) => this.where(eb, q))
      .orderBy(sql`case when name_lc = ${phrase} then 0 when name_lc like ${`${likeLiteral(first)}%`} escape '\\' then 1 else 2 end`)
      .orderBy('path')
      .orderBy('storage_id')
      .limit(q.limit)
      .offset(q.offset)
      .execute();
    const total = rows.length > 0 ? Number(rows[0]!.total) : q.offset === 0 && q.limit > 0 ? 0 : await this.total(q);
    return { rows: rows.map((r) => ({ storage_id: Number(r.storage_id), path: r.path, name: r.name, is_dir: Number(r.is_dir), size: Number(r.size) })), total };
  }

  private async total(q: SearchQuery): Promise<number> {
    const r = await this.reads
      .selectFrom('search_nodes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where((eb) => this.where(eb, q))
      .executeTakeFirstOrThrow();
    return Number(r.n);
  }
}
