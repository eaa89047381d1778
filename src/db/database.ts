/**
 * Kysely over SQLite (better-sqlite3, the embedded default) or PostgreSQL (pg).
 * Every query and migration in Ferry runs on both.
 */
import { Kysely, PostgresDialect, SqliteDialect, Migrator } from 'kysely';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { join } from 'node:path';
import type { DB } from './schema.js';
import { migrations } from './migrations/index.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  close(): Promise<void>;
}

/** pg returns BIGINT (int8) as strings by default; our BIGINTs are millisecond times and ids, safe as numbers. */
const pgTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === pg.types.builtins.INT8) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format as 'text');
  },
};

export function openDatabase(opts: { databaseUrl: string | null; dataDir: string; onPoolError?: (e: Error) => void }): Database {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10, types: pgTypes as pg.CustomTypesConfig });
    // An idle connection the server drops (restart, failover, pg_terminate_backend) is an
    // 'error' event on the pool: without a listener it would crash the process. The pool
    // replaces the connection on the next query.
    pool.on('error', (e) => opts.onPoolError?.(e));
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  const sqlite = new SQLite(join(opts.dataDir, 'ferry.db'));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: sqlite }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
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
