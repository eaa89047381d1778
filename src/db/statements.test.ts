import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { compiledOnce } from './compiled-once.js';
import { STATEMENT_CACHE_MAX, withStatementCache } from './database.js';

const dir = mkdtempSync(join(tmpdir(), 'ferry-statements-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function open(name: string) {
  const raw = new SQLite(join(dir, name));
  raw.exec('create table t (id integer primary key, name text not null)');
  const insert = raw.prepare('insert into t (name) values (?)');
  for (const n of ['a', 'b', 'c']) insert.run(n);
  return raw;
}

test('SQLite statements are prepared once per text; a busy (streaming) one is not shared; the cache is bounded', () => {
  const raw = open('cache.db');
  const cached = withStatementCache(raw);
  const q = 'select name from t where id > ?';
  const first = cached.prepare(q);
  assert.equal(cached.prepare(q), first, 'the same text gets the same statement');
  assert.notEqual(cached.prepare('create table u (x)'), cached.prepare('create table u (x)'), 'DDL is not kept');
  const it = first.iterate([0]);
  assert.deepEqual(it.next().value, { name: 'a' });
  const second = cached.prepare(q);
  assert.notEqual(second, first, 'a statement still iterating is not handed out again');
  assert.deepEqual(second.all([1]), [{ name: 'b' }, { name: 'c' }]);
  assert.deepEqual([...it].map((r) => (r as { name: string }).name), ['b', 'c']);
  assert.equal(cached.prepare(q), first, 'free again once the iteration ended');
  for (let i = 0; i < STATEMENT_CACHE_MAX; i++) cached.prepare(`select ${i}`);
  assert.notEqual(cached.prepare(q), first, 'the oldest statement was dropped');
  cached.close();
});

test('a query compiled once runs with each call\'s values; a stand-in used twice is refused', async () => {
  const db = new Kysely<{ t: { id: number; name: string } }>({ dialect: new SqliteDialect({ database: withStatementCache(open('compiled.db')) }) });
  try {
    const byName = compiledOnce(db, 2, (name: string, other: string) => db.selectFrom('t').select('id').where('name', '=', name).where('name', '!=', other));
    assert.deepEqual(await byName('b', 'x'), [{ id: 2 }]);
    assert.deepEqual(await byName('c', 'x'), [{ id: 3 }]);
    assert.deepEqual(await byName('c', 'c'), []);
    const twice = compiledOnce(db, 1, (name: string) => db.selectFrom('t').select('id').where('name', '=', name).where(sql<boolean>`${name} = ${name}`));
    await assert.rejects(twice('a'), /exactly once/);
  } finally {
    await db.destroy();
  }
});
