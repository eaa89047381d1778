/**
 * The two database dialects every database test runs on: a fresh SQLite file, and a
 * fresh PostgreSQL database created on the server of FERRY_TEST_DATABASE_URL
 * (default postgres://postgres@127.0.0.1:5432/test) and dropped afterwards.
 * A PostgreSQL test that cannot connect fails, saying so: it never skips.
 */
import pg from 'pg';
import { randomBytes } from 'node:crypto';

export type DialectName = 'sqlite' | 'postgres';
export const DIALECTS: DialectName[] = ['sqlite', 'postgres'];

export const PG_URL = process.env.FERRY_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  /** FERRY_DATABASE_URL for the app: null = SQLite in the data dir. */
  url: string | null;
  drop(): Promise<void>;
}

async function adminClient(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (e) {
    throw new Error(
      `PostgreSQL is not reachable at ${PG_URL} (${(e as Error).message}). ` +
        'Start it (Debian: apt-get install postgresql; pg_ctlcluster <version> main start) or set FERRY_TEST_DATABASE_URL.',
    );
  }
  return client;
}

export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  if (dialect === 'sqlite') return { url: null, drop: async () => {} };
  const name = `ferry_t_${randomBytes(6).toString('hex')}`;
  const client = await adminClient();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = await adminClient();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
