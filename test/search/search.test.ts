/**
 * Search (issue #20) on both dialects: matching rules (case-insensitive substrings, all words, metacharacters
 * literal, short words), bad input (clear 400s, never an SQL/FTS error), visibility before paging (another user's
 * base path never leaks into results or totals; disabled/unindexed storages and shadowed mounts stay out), and
 * the search_index setting.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { POOL } from '../../src/db/database.js';
import { MAX_STALE_MS } from '../../src/lib/shared-cache.js';
import { SearchRepo, SHORT_QUERY_CAP } from '../../src/modules/search/search.repo.js';
import { forEachDialect, type Harness } from '../support/harness.js';
import { buildIndex, names, runIndexTask, search } from './support.js';

const TREE: Record<string, string[]> = {
  '/docs': ['Report-2024.PDF', 'report draft.txt', '100%_done.txt', '100xxdone.txt', 'a_b.md', 'axb.md', 'say "hi".txt', 'star*.log', 'NEAR me.txt', '-dash-.txt', 'AND OR NOT.txt', '中文文件名.txt', 'İstanbul.jpg', 'ab', 'x'],
  '/docs/Reports': ['q1 report.xlsx'],
  '/alice': ['alice-secret-xyz.txt', 'shared-name.txt'],
  '/bob': ['bob-notes-xyz.txt', 'shared-name.txt'],
  '/bob/deep/er': ['bob-deep-xyz.bin'],
};

function makeTree(h: Harness): void {
  for (const [dir, files] of Object.entries(TREE)) {
    mkdirSync(join(h.dataDir, 'files', dir), { recursive: true });
    for (const f of files) writeFileSync(join(h.dataDir, 'files', dir, f), f);
  }
}

forEachDialect('search: matching, bad input, visibility', (h) => {
  let admin: string;
  let bob: string;

  before(async () => {
    admin = await h().adminToken();
    makeTree(h());
    await h().createUser('bob', 'bob-password-1', { base_path: '/bob', permission: 0 });
    bob = await h().login('bob', 'bob-password-1');
    await buildIndex(h, admin);
  });

  test('case-insensitive substrings; every word is required; folders and files; relevance then path', async () => {
    const r = await search(h, admin, { keywords: 'REPORT' });
    assert.equal(r.status, 200, r.body.message);
    assert.deepEqual(names(r).sort(), ['/docs/Report-2024.PDF', '/docs/Reports', '/docs/Reports/q1 report.xlsx', '/docs/report draft.txt'].sort());
    assert.equal(r.body.data.total, 4);
    // names starting with the word come before names that only contain it
    assert.equal(names(r).at(-1), '/docs/Reports/q1 report.xlsx');
    const both = await search(h, admin, { keywords: 'report  DRAFT' });
    assert.deepEqual(names(both), ['/docs/report draft.txt']);
    const none = await search(h, admin, { keywords: 'report nothere' });
    assert.deepEqual(names(none), []);
    assert.equal(none.body.data.total, 0);
    const folders = await search(h, admin, { keywords: 'report', scope: 1 });
    assert.deepEqual(names(folders), ['/docs/Reports']);
    assert.equal(folders.body.data.content[0].is_dir, true);
    assert.equal(folders.body.data.content[0].type, 1);
    const files = await search(h, admin, { keywords: 'report', scope: 2 });
    assert.equal(files.body.data.total, 3);
    const hit = files.body.data.content.find((c: { name: string }) => c.name === 'report draft.txt');
    assert.deepEqual(hit, { parent: '/docs', name: 'report draft.txt', is_dir: false, size: 'report draft.txt'.length, type: 4 });
    const cjk = await search(h, admin, { keywords: '文件' });
    assert.deepEqual(names(cjk), ['/docs/中文文件名.txt']);
    const below = await search(h, admin, { keywords: 'report', parent: '/docs/Reports' });
    assert.deepEqual(names(below), ['/docs/Reports/q1 report.xlsx']);
  });

  test('LIKE and FTS metacharacters match literally', async () => {
    const cases: [string, string[]][] = [
      ['100%_done', ['/docs/100%_done.txt']],
      ['%', ['/docs/100%_done.txt']],
      ['a_b', ['/docs/a_b.md']],
      ['_', ['/docs/100%_done.txt', '/docs/a_b.md']],
      ['"hi"', ['/docs/say "hi".txt']],
      ['"', ['/docs/say "hi".txt']],
      ['star*', ['/docs/star*.log']],
      ['*', ['/docs/star*.log']],
      ['near me', ['/docs/NEAR me.txt']],
      ['-dash-', ['/docs/-dash-.txt']],
      ['-', ['/docs/-dash-.txt', '/docs/Report-2024.PDF']],
      ['and or not', ['/docs/AND OR NOT.txt']],
      ['\\', []],
      ['(a OR b)', []],
      ['^x:y', []],
    ];
    for (const [kw, want] of cases) {
      const r = await search(h, admin, { keywords: kw });
      assert.equal(r.status, 200, `${kw}: ${r.body.message}`);
      const got = names(r).filter((n) => n.startsWith('/docs/'));
      assert.deepEqual(got.sort(), want.sort(), kw);
    }
  });

  test('one- and two-character words match as substrings too', async () => {
    const ab = await search(h, admin, { keywords: 'ab' });
    assert.deepEqual(names(ab), ['/docs/ab']);
    const x = await search(h, admin, { keywords: 'x', parent: '/docs' });
    assert.ok(names(x).includes('/docs/x'));
    assert.ok(names(x).includes('/docs/Reports/q1 report.xlsx'));
    assert.ok(names(x).includes('/docs/100xxdone.txt'));
    const mixed = await search(h, admin, { keywords: 'xx done' });
    assert.deepEqual(names(mixed), ['/docs/100xxdone.txt']);
  });

  test('a query of 1–2 character words only is bounded; longer words count every match', async () => {
    const repo = new SearchRepo(h().ctx.database.db, h().ctx.database.dialect, h().ctx.database.sqlite);
    const root = h().ctx.storages.list().find((m) => m.record.mountPath === '/')!.record.id;
    const n = SHORT_QUERY_CAP + 50;
    await repo.insert(Array.from({ length: n }, (_, i) => ({ storageId: root, path: `/capdir/k7-${i}`, name: `k7-${i}`, isDir: false, size: 1, modified: 0 })));
    try {
      const short = await search(h, admin, { keywords: 'k7', parent: '/capdir', per_page: 10 });
      assert.equal(short.status, 200, short.body.message);
      assert.equal(short.body.data.total, SHORT_QUERY_CAP);
      assert.equal(short.body.data.content.length, 10);
      const long = await search(h, admin, { keywords: 'k7-', parent: '/capdir', per_page: 10 });
      assert.equal(long.body.data.total, n);
      const one = await search(h, admin, { keywords: 'k7-1234' });
      assert.deepEqual(names(one), ['/capdir/k7-1234']);
    } finally {
      await repo.removeTree(root, '/capdir');
    }
  });

  test('a bulk load (build): rows loaded, removed, moved or written meanwhile are matched as the table says once it ends', async () => {
    const { db, dialect, sqlite } = h().ctx.database;
    const repo = new SearchRepo(db, dialect, sqlite);
    const root = h().ctx.storages.list().find((m) => m.record.mountPath === '/')!.record.id;
    const row = (path: string) => ({ storageId: root, path, name: path.slice(path.lastIndexOf('/') + 1), isDir: false, size: 1, modified: 0 });
    await repo.upsert([row('/bulk/before-b9q'), row('/bulk/kept-b9q')]);
    await repo.beginLoad(false);
    await repo.insert([row('/bulk/during-b9q'), row('/bulk/gone-b9q')]);
    await repo.upsert([row('/bulk/fresh-b9q')]); // a write Ferry made meanwhile
    await repo.removeTree(root, '/bulk/gone-b9q');
    await repo.removeTree(root, '/bulk/before-b9q');
    await repo.moveTree(root, '/bulk/during-b9q', '/bulk/moved-b9r');
    await repo.moveTree(root, '/bulk/kept-b9q', '/bulk/kept-b9s');
    // as after a crash: the start-up finishes the load
    await h().ctx.search.finishLoad();
    try {
      assert.deepEqual(names(await search(h, admin, { keywords: 'b9q' })), ['/bulk/fresh-b9q']);
      assert.deepEqual(names(await search(h, admin, { keywords: 'b9r' })), ['/bulk/moved-b9r']);
      assert.deepEqual(names(await search(h, admin, { keywords: 'b9s' })), ['/bulk/kept-b9s']);
      if (dialect === 'sqlite') await sql`insert into search_fts (search_fts) values ('integrity-check')`.execute(db);
    } finally {
      await repo.removeTree(root, '/bulk');
    }
  });

  test('a load whose end was cut short after one step (a crash) is finished at the next start, each row matched once', async (t) => {
    const { db, dialect, sqlite } = h().ctx.database;
    if (dialect !== 'sqlite') return t.skip('the stepped end of a load is SQLite only (PostgreSQL creates one index)');
    const repo = new SearchRepo(db, dialect, sqlite);
    const root = h().ctx.storages.list().find((m) => m.record.mountPath === '/')!.record.id;
    const row = (path: string) => ({ storageId: root, path, name: path.slice(path.lastIndexOf('/') + 1), isDir: false, size: 1, modified: 0 });
    await repo.upsert([row('/steps/old-s4q')]);
    await repo.beginLoad(false);
    await repo.insert(Array.from({ length: 5 }, (_, i) => row(`/steps/load${i}-s4q`)));
    assert.deepEqual(names(await search(h, admin, { keywords: 's4q' })), ['/steps/old-s4q']);
    assert.equal(await repo.fillStep(2), false); // two rows indexed, then the process dies
    const partial = names(await search(h, admin, { keywords: 's4q' }));
    assert.equal(partial.length, 3, partial.join());
    await repo.upsert([row('/steps/later-s4q')]); // a write after the crash, before the start-up ends the load
    await h().ctx.search.finishLoad();
    try {
      const all = ['/steps/old-s4q', '/steps/later-s4q', ...Array.from({ length: 5 }, (_, i) => `/steps/load${i}-s4q`)];
      assert.deepEqual(names(await search(h, admin, { keywords: 's4q', per_page: 100 })).sort(), all.sort());
      await repo.upsert([row('/steps/after-s4q')]); // the insert trigger is back: found at once
      assert.deepEqual(names(await search(h, admin, { keywords: 'after-s4q' })), ['/steps/after-s4q']);
      await sql`insert into search_fts (search_fts) values ('integrity-check')`.execute(db);
      assert.equal((await sql<{ n: number }>`select count(*) as n from search_fts_pending`.execute(db)).rows[0]!.n, 0);
    } finally {
      await repo.removeTree(root, '/steps');
    }
  });

  test('metas: hidden names (and what lies below them) and password-guarded folders\' contents stay out before paging', async () => {
    const files = ['/mq/visible-m7.txt', '/mq/secret-m7.txt', '/mq/secretdir-m7/inner-m7.txt', '/mq/sub/secret-sub-m7.txt', '/mq/locked-m7/in-locked-m7.txt', '/mq/locked-m7/deeper/deep-m7.txt'];
    for (const f of files) {
      mkdirSync(join(h().dataDir, 'files', f, '..'), { recursive: true });
      writeFileSync(join(h().dataDir, 'files', f), 'x');
    }
    await runIndexTask(h, admin, 'update', { paths: ['/mq'] });
    const meta = (path: string, o: Record<string, unknown>) =>
      h().post('/api/admin/meta/create', { path, password: '', p_sub: false, write: false, w_sub: false, hide: '', h_sub: false, readme: '', r_sub: false, header: '', header_sub: false, ...o }, { token: admin });
    assert.equal((await meta('/mq', { hide: '^secret', h_sub: true })).status, 200);
    assert.equal((await meta('/mq/locked-m7', { password: 'pw-m7' })).status, 200);
    await h().createUser('carol', 'carol-password-1', { base_path: '/', permission: 0 });
    await h().createUser('dave', 'dave-password-1', { base_path: '/', permission: 0b11 });
    const carol = await h().login('carol', 'carol-password-1');
    const dave = await h().login('dave', 'dave-password-1');
    const seen = ['/mq/locked-m7', '/mq/visible-m7.txt'];
    const r = await search(h, carol, { keywords: 'm7' });
    assert.deepEqual(names(r).sort(), seen);
    assert.equal(r.body.data.total, 2);
    const paged = await search(h, carol, { keywords: 'm7', per_page: 1, page: 2 });
    assert.equal(paged.body.data.total, 2);
    assert.equal(paged.body.data.content.length, 1);
    assert.deepEqual(names(await search(h, carol, { keywords: 'secret', parent: '/mq' })), []);
    assert.equal((await search(h, carol, { keywords: 'm7', parent: '/mq/locked-m7' })).body.data.total, 0);
    const all = [...files, '/mq/locked-m7', '/mq/secretdir-m7'].sort();
    for (const who of [dave, admin]) {
      const d = await search(h, who, { keywords: 'm7' });
      assert.deepEqual(names(d).filter((n) => n.includes('m7')).sort(), all);
    }
  });

  test('bad input: empty, 10,000 characters, bad paging: a clear 400, never a database error', async () => {
    const long = await search(h, admin, { keywords: 'a'.repeat(10_000) });
    assert.equal(long.status, 400);
    assert.match(long.body.message, /keywords: too long/);
    const manyQuotes = await search(h, admin, { keywords: '"'.repeat(200) });
    assert.equal(manyQuotes.status, 200);
    for (const kw of ['', '   ']) {
      const r = await search(h, admin, { keywords: kw });
      assert.equal(r.status, 400, JSON.stringify(kw));
      assert.match(r.body.message, /keywords: empty/);
    }
    const words = await search(h, admin, { keywords: Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ') });
    assert.equal(words.status, 400);
    assert.match(words.body.message, /too many words/);
    for (const bad of [{ page: 0 }, { per_page: 0 }, { scope: 3 }, { page: 'x' }]) {
      const r = await search(h, admin, { keywords: 'report', ...bad });
      assert.equal(r.status, 400, JSON.stringify(bad));
    }
    const up = await search(h, admin, { keywords: 'report', parent: '/../etc' });
    assert.equal(up.status, 403);
  });

  test('paging slices one order; total counts every match', async () => {
    const all = names(await search(h, admin, { keywords: 'xyz' }));
    assert.equal(all.length, 3);
    const paged: string[] = [];
    for (let page = 1; page <= 3; page++) {
      const r = await search(h, admin, { keywords: 'xyz', page, per_page: 1 });
      assert.equal(r.body.data.total, 3);
      paged.push(...names(r));
    }
    assert.deepEqual(paged, all);
    const past = await search(h, admin, { keywords: 'xyz', page: 9, per_page: 1 });
    assert.deepEqual(past.body.data.content, []);
    assert.equal(past.body.data.total, 3);
  });

  /**
   * Runs `work` while every main-pool connection is held, and asserts the main pool stayed busy meanwhile. Were
   * `work` to need that pool it would wait for ever: a deadlock guard (not a timing assertion) fails it instead.
   */
  async function whileMainPoolHeld<T>(db: Kysely<any>, work: () => Promise<T>): Promise<T> {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let held = 0;
    let taken!: () => void;
    const allTaken = new Promise<void>((r) => (taken = r));
    const holders = Array.from({ length: POOL }, () =>
      db.connection().execute(async () => {
        if (++held === POOL) taken();
        await gate;
      }),
    );
    try {
      await allTaken;
      let queued = false;
      const waiting = sql`select 1`.execute(db).then(() => (queued = true));
      let guard: NodeJS.Timeout | undefined;
      const stuck = new Promise<never>((_, reject) => (guard = setTimeout(() => reject(new Error('the search waited for the main pool')), 30_000)));
      const r = await Promise.race([work(), stuck]).finally(() => clearTimeout(guard));
      assert.equal(queued, false, 'the main pool was busy meanwhile');
      release();
      await waiting;
      return r;
    } finally {
      release();
      await Promise.all(holders);
    }
  }

  test('PostgreSQL: a search answers while every connection of the main pool is taken (searches have a pool of their own)', async (t) => {
    const { db, dialect, sqlite, searchDb } = h().ctx.database;
    if (dialect !== 'postgres') return t.skip('SQLite has one connection and no pool');
    assert.ok(searchDb, 'PostgreSQL opens a search pool');
    const repo = new SearchRepo(db, dialect, sqlite, searchDb);
    const root = h().ctx.storages.list().find((m) => m.record.mountPath === '/')!.record.id;
    const areas = [{ storageId: root, under: '/', excludes: [] }];
    const r = await whileMainPoolHeld(db, () => repo.search({ areas, words: ['xyz'], scope: 0, offset: 0, limit: 10 }));
    assert.deepEqual(r.rows.map((x) => x.path).sort(), ['/alice/alice-secret-xyz.txt', '/bob/bob-notes-xyz.txt', '/bob/deep/er/bob-deep-xyz.bin']);
    assert.equal(r.total, 3);
  });

  test('PostgreSQL: a search whose settings, metas and storages are due for a reload answers while the main pool is taken (those reloads have a connection of their own)', async (t) => {
    const { db, dialect } = h().ctx.database;
    if (dialect !== 'postgres') return t.skip('SQLite has one connection and no pool');
    const user = (await h().ctx.usersRepo.byUsername('bob'))!;
    assert.equal((await h().ctx.search.search(user, { parent: '/', keywords: 'xyz', page: 1, per_page: 10 })).total, 2);
    // every cached table older than the hard bound: the next search must wait for their reloads
    await new Promise((r) => setTimeout(r, MAX_STALE_MS + 100));
    const r = await whileMainPoolHeld(db, () => h().ctx.search.search(user, { parent: '/', keywords: 'xyz', page: 1, per_page: 10 }));
    assert.equal(r.total, 2);
  });

  test("another user's base path never leaks into results or totals; paths are relative to the base path", async () => {
    const r = await search(h, bob, { keywords: 'xyz' });
    assert.equal(r.status, 200, r.body.message);
    assert.deepEqual(names(r).sort(), ['/bob-notes-xyz.txt', '/deep/er/bob-deep-xyz.bin']);
    assert.equal(r.body.data.total, 2);
    const shared = await search(h, bob, { keywords: 'shared-name' });
    assert.deepEqual(names(shared), ['/shared-name.txt']);
    assert.equal(shared.body.data.total, 1);
    const secret = await search(h, bob, { keywords: 'alice' });
    assert.equal(secret.body.data.total, 0);
    const outside = await search(h, bob, { keywords: 'secret', parent: '/' });
    assert.equal(outside.body.data.total, 0);
    const deep = await search(h, bob, { keywords: 'xyz', parent: '/deep' });
    assert.deepEqual(names(deep), ['/deep/er/bob-deep-xyz.bin']);
    assert.equal(deep.body.data.content[0].parent, '/deep/er');
  });

  test('nested mounts shadow what lies below them; disable_index and disabled storages stay out', async () => {
    const extra = join(h().dataDir, 'extra');
    mkdirSync(join(extra, 'inner'), { recursive: true });
    writeFileSync(join(extra, 'inner', 'mounted-zzq.txt'), 'm');
    // the / storage's own folder /docs/Reports is hidden by a storage mounted there
    const mnt = await h().post('/api/admin/storage/create', { mount_path: '/docs/Reports', driver: 'local', addition: { root_folder_path: extra } }, { token: admin });
    assert.equal(mnt.status, 200, mnt.body.message);
    assert.equal(mnt.body.data.disable_index, false);
    await buildIndex(h, admin);
    assert.deepEqual(names(await search(h, admin, { keywords: 'zzq' })), ['/docs/Reports/inner/mounted-zzq.txt']);
    assert.deepEqual(names(await search(h, admin, { keywords: 'q1 report' })), []);
    const id = mnt.body.data.id as number;
    const input = { id, mount_path: '/docs/Reports', driver: 'local', addition: { root_folder_path: extra } };
    const upd = await h().post(`/api/admin/storage/update`, { ...input, disable_index: true }, { token: admin });
    assert.equal(upd.status, 200, upd.body.message);
    assert.equal((await search(h, admin, { keywords: 'zzq' })).body.data.total, 0);
    await h().post(`/api/admin/storage/update`, { ...input, disable_index: false }, { token: admin });
    assert.equal((await search(h, admin, { keywords: 'zzq' })).body.data.total, 1);
    const off = await h().post(`/api/admin/storage/disable?id=${id}`, undefined, { token: admin });
    assert.equal(off.status, 200, off.body.message);
    assert.equal((await search(h, admin, { keywords: 'zzq' })).body.data.total, 0);
    await h().post(`/api/admin/storage/delete?id=${id}`, undefined, { token: admin });
    await buildIndex(h, admin);
  });

  test('search_index "none" turns search off with a clear error; the UI reads it from the public settings', async () => {
    const pub = await h().get('/api/public/settings');
    assert.equal(pub.body.data.search_index, 'database');
    const save = await h().post('/api/admin/setting/save', [{ key: 'search_index', value: 'none' }], { token: admin });
    assert.equal(save.status, 200, save.body.message);
    try {
      const r = await search(h, admin, { keywords: 'report' });
      assert.equal(r.status, 404);
      assert.match(r.body.message, /search not available/);
      assert.equal((await h().get('/api/public/settings')).body.data.search_index, 'none');
    } finally {
      await h().post('/api/admin/setting/save', [{ key: 'search_index', value: 'database' }], { token: admin });
    }
    assert.equal((await search(h, admin, { keywords: 'report' })).status, 200);
  });
});
