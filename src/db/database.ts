/**
 * Kysely over SQLite (better-sqlite3, the embedded default) or PostgreSQL (pg).
 * Every query and migration in Ferry runs on both.
 */
import { Kysely, PostgresDialect, SqliteDialect, Migrator, sql } from 'kysely';
import { join } from 'node:path';
import type { DB } from './schema.js';
import { migrations } from './migrations/index.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  /**
   * SQLite only: the better-sqlite3 handle, for bulk loads with one cached prepared statement (Kysely prepares
   * each query again). Use it only inside `db.connection().execute(...)`, which holds the one connection, and
   * only synchronously there.
   */
  sqlite?: import('better-sqlite3').Database;
  /**
   * PostgreSQL only: a small pool of its own for name searches (`SEARCH_POOL` connections), so a search's
   * statements do not queue behind every other request's under load, nor a burst of searches hold the main
   * pool's connections. Read-only statements outside transactions only.
   */
  searchDb?: Kysely<DB>;
  /**
   * PostgreSQL only: one connection of its own for the reloads of the small cached tables (settings, metas,
   * storage versions: SharedCache), so they never queue behind the main pool's requests and a cache that is due
   * never makes a request wait for the whole queue. Read-only statements outside transactions only.
   */
  cacheDb?: Kysely<DB>;
  close(): Promise<void>;
}


/** PostgreSQL connections: the main pool, the search pool and the cached reads' (see Database.searchDb, cacheDb). */
export const POOL = 10;
const SEARCH_POOL = 3;
const CACHE_POOL = 1;

/** Opens the database; each engine's driver is loaded only when used (pg alone costs ~15 MB). */
export async function openDatabase(opts: { databaseUrl: string | null; dataDir: string; onPoolError?: (e: Error) => void }): Promise<Database> {
  if (opts.databaseUrl) {
    const { default: pg } = await import('pg');
    // pg returns BIGINT (int8) as strings by default; our BIGINTs are millisecond times and ids, safe as numbers.
    const types = {
      getTypeParser(oid: number, format?: 'text' | 'binary') {
        if (oid === pg.types.builtins.INT8) return (v: string) => Number(v);
        return pg.types.getTypeParser(oid, format as 'text');
      },
    };
    const open = (max: number) => {
      const pool = new pg.Pool({ connectionString: opts.databaseUrl!, max, types: types as import('pg').CustomTypesConfig });
      // An idle connection the server drops (restart, failover, pg_terminate_backend) is an
      // 'error' event on the pool: without a listener it would crash the process. The pool
      // replaces the connection on the next query.
      pool.on('error', (e) => opts.onPoolError?.(e));
      return new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    };
    const db = open(POOL);
    const searchDb = open(SEARCH_POOL);
    const cacheDb = open(CACHE_POOL);
    return { db, dialect: 'postgres', searchDb, cacheDb, close: async () => void (await Promise.all([db.destroy(), searchDb.destroy(), cacheDb.destroy()])) };
  }
  const { default: SQLite } = await import('better-sqlite3');
  const sqlite = new SQLite(join(opts.dataDir, 'ferry.db'));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db, dialect: 'sqlite', sqlite, close: () => db.destroy() };
}

/** Prepared statements kept per SQL text (the oldest is dropped beyond this). */
export const STATEMENT_CACHE_MAX = 256;

/**
 * The better-sqlite3 handle as Kysely sees it, with its prepared statements reused: Kysely prepares every query
 * again, and preparing costs as much as running a primary-key lookup (most of an authenticated request's
 * database time). Only data statements are kept (a migration's DDL is prepared once anyway). A statement still
 * iterating (a streamed query) is busy: a second use of the same text gets a fresh one.
 */
export function withStatementCache(sqlite: import('better-sqlite3').Database): { prepare(sql: string): import('better-sqlite3').Statement; close(): void } {
  const cache = new Map<string, import('better-sqlite3').Statement>();
  return {
    prepare(text: string) {
      const hit = cache.get(text);
      if (hit && !hit.busy) return hit;
      const stmt = sqlite.prepare(text);
      if (hit || !/^\s*(select|insert|update|delete|with)\b/i.test(text)) return stmt;
      if (cache.size >= STATEMENT_CACHE_MAX) cache.delete(cache.keys().next().value!);
      cache.set(text, stmt);
      return stmt;
    },
    close() {
      cache.clear();
      sqlite.close();
    },
  };
}

/** Applies every pending migration; throws with the failing migration's name. */
export async function migrate(database: Database): Promise<void> {
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations(database.dialect) },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === 'Error');
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}

export interface DatabaseHealth {
  ok: boolean;
  dialect: Dialect;
  latency_ms: number;
  error?: string;
}

/** One round trip to the database, timed. */
export async function pingDatabase(database: Database): Promise<DatabaseHealth> {
  const started = Date.now();
  try {
    await sql`select 1`.execute(database.db);
    return { ok: true, dialect: database.dialect, latency_ms: Date.now() - started };
  } catch (e) {
    return { ok: false, dialect: database.dialect, latency_ms: Date.now() - started, error: String(e) };
  }
}
