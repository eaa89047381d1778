/**
 * Index administration (issue #20), both dialects: build and update are tasks; an update reconciles changes made
 * behind Ferry's back (files added and removed on disk); build honours max_depth and ignore_paths; progress,
 * stop and clear; only admins.
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { before, test } from 'node:test';
import { sql } from 'kysely';
import { pendingTaskRow, TaskState } from '../../src/modules/tasks/task.model.js';
import { TasksRepo } from '../../src/modules/tasks/tasks.repo.js';
import { forEachDialect } from '../support/harness.js';
import { buildIndex, names, runIndexTask, search } from './support.js';

forEachDialect('search: /api/admin/index/*', (h) => {
  let admin: string;
  let user: string;
  const disk = (p: string) => join(h().dataDir, 'files', p);
  const write = (p: string) => {
    mkdirSync(join(disk(p), '..'), { recursive: true });
    writeFileSync(disk(p), p);
  };
  const find = async (kw: string) => names(await search(h, admin, { keywords: kw })).sort();
  const progress = async () => {
    const r = await h().get('/api/admin/index/progress', { token: admin });
    assert.equal(r.status, 200, r.body.message);
    return r.body.data as { obj_count: number; is_done: boolean; last_done_time: string | null; error: string };
  };

  before(async () => {
    admin = await h().adminToken();
    await h().createUser('plain', 'plain-password-1', { base_path: '/', permission: 0xff });
    user = await h().login('plain', 'plain-password-1');
    for (const p of ['/idx/a-kk1.txt', '/idx/sub/b-kk1.txt', '/idx/sub/deeper/c-kk1.txt', '/idx/gone/d-kk1.txt', '/ign/e-kk1.txt']) write(p);
  });

  test('progress before any build; a build indexes everything; progress reports it', async () => {
    const p0 = await progress();
    assert.equal(p0.obj_count, 0);
    assert.equal(p0.is_done, true);
    assert.equal(p0.last_done_time, null);
    assert.deepEqual(await find('kk1'), []);
    const row = await buildIndex(h, admin);
    assert.equal(row.type, 'index_build');
    assert.deepEqual(await find('kk1'), ['/idx/a-kk1.txt', '/idx/gone/d-kk1.txt', '/idx/sub/b-kk1.txt', '/idx/sub/deeper/c-kk1.txt', '/ign/e-kk1.txt']);
    const p = await progress();
    // 2 folders at the top, idx/{sub,gone}, sub/deeper and the five files
    assert.equal(p.obj_count, 10);
    assert.equal(p.is_done, true);
    assert.match(p.last_done_time ?? '', /^\d{4}-\d\d-\d\dT/);
    assert.equal(p.error, '');
  });

  test('update reconciles what changed on disk behind Ferry: new files appear, removed ones and their subtrees go', async () => {
    write('/idx/sub/new-kk1.txt');
    rmSync(disk('/idx/gone'), { recursive: true });
    rmSync(disk('/idx/a-kk1.txt'));
    assert.ok((await find('kk1')).includes('/idx/gone/d-kk1.txt'), 'stale until the update');
    await runIndexTask(h, admin, 'update', { paths: ['/idx'] });
    assert.deepEqual(await find('kk1'), ['/idx/sub/b-kk1.txt', '/idx/sub/deeper/c-kk1.txt', '/idx/sub/new-kk1.txt', '/ign/e-kk1.txt']);
    assert.deepEqual(await find('gone'), []);
  });

  test('build honours max_depth and the ignore_paths setting', async () => {
    const save = await h().post('/api/admin/setting/save', [{ key: 'ignore_paths', value: '/ign\n' }], { token: admin });
    assert.equal(save.status, 200, save.body.message);
    await runIndexTask(h, admin, 'build', { paths: ['/'], max_depth: 2 });
    // depth 1: idx, ign; depth 2: idx/sub (and its siblings); nothing below
    assert.deepEqual(await find('kk1'), []);
    assert.deepEqual(await find('sub'), ['/idx/sub']);
    await runIndexTask(h, admin, 'build', {});
    assert.deepEqual(await find('kk1'), ['/idx/sub/b-kk1.txt', '/idx/sub/deeper/c-kk1.txt', '/idx/sub/new-kk1.txt']);
    if (h().ctx.database.dialect === 'sqlite') {
      // a build over a full index (emptied without its delete trigger) leaves the FTS table in step, its insert trigger back
      await sql`insert into search_fts (search_fts) values ('integrity-check')`.execute(h().ctx.database.db);
      const triggers = await sql<{ name: string }>`select name from sqlite_master where type = 'trigger' and name like 'search_nodes_%' order by name`.execute(h().ctx.database.db);
      assert.deepEqual(triggers.rows.map((r) => r.name), ['search_nodes_ad', 'search_nodes_ai', 'search_nodes_au']);
    }
    await h().post('/api/admin/setting/save', [{ key: 'ignore_paths', value: '' }], { token: admin });
  });

  test('stop leaves no build running; clear empties the index', async () => {
    const r = await h().post('/api/admin/index/build', {}, { token: admin });
    assert.equal(r.status, 200, r.body.message);
    const stop = await h().post('/api/admin/index/stop', undefined, { token: admin });
    assert.equal(stop.status, 200, stop.body.message);
    const row = await h().ctx.tasks.settle(r.body.data.id as string);
    assert.ok([2, 4].includes(row.state), `state ${row.state}`);
    assert.equal((await progress()).is_done, true);
    const clear = await h().post('/api/admin/index/clear', undefined, { token: admin });
    assert.equal(clear.status, 200, clear.body.message);
    assert.equal((await progress()).obj_count, 0);
    assert.deepEqual(await find('kk1'), []);
  });

  test('a build whose runner died (heartbeat lapsed) is taken over here and finishes the index', async () => {
    await h().post('/api/admin/index/clear', undefined, { token: admin });
    const id = randomUUID();
    const payload = JSON.stringify({ paths: ['/'], max_depth: 20 });
    await new TasksRepo(h().ctx.database.db).insert(
      pendingTaskRow({ id, type: 'index_build', name: 'index build /', creator_id: 1, payload, state: TaskState.RUNNING, runner: 'dead-instance', heartbeat_at: Date.now() - 600_000, attempts: 1 }),
    );
    assert.equal((await progress()).is_done, false);
    h().ctx.tasks.kick();
    const row = await h().ctx.tasks.settle(id, 60_000);
    assert.equal(row.state, 2, row.error);
    assert.equal(row.attempts, 2);
    assert.notEqual(row.runner, 'dead-instance');
    assert.deepEqual(await find('kk1'), ['/idx/sub/b-kk1.txt', '/idx/sub/deeper/c-kk1.txt', '/idx/sub/new-kk1.txt', '/ign/e-kk1.txt']);
    assert.equal((await progress()).is_done, true);
  });

  test('OpenList scan: scan/start reconciles one path as a task, scan/progress counts what it walked, a paced scan can be stopped', async () => {
    const scanProgress = async () => {
      const r = await h().get('/api/admin/scan/progress', { token: admin });
      assert.equal(r.status, 200, r.body.message);
      return r.body.data as { obj_count: number; is_done: boolean };
    };
    assert.deepEqual(await scanProgress(), { obj_count: 0, is_done: true });
    write('/idx/sub/scanned-kk2.txt');
    const r = await h().post('/api/admin/scan/start', { path: '/idx/sub', limit: 0 }, { token: admin });
    assert.equal(r.status, 200, r.body.message);
    assert.equal(r.body.data.name, 'index scan /idx/sub');
    assert.equal((await h().ctx.tasks.settle(r.body.data.id as string)).state, 2);
    assert.deepEqual(await find('kk2'), ['/idx/sub/scanned-kk2.txt']);
    const done = await scanProgress();
    assert.equal(done.is_done, true);
    // sub/{b-kk1, deeper, new-kk1, scanned-kk2} and deeper/c-kk1
    assert.equal(done.obj_count, 5);

    // half a listing a second: the second folder waits 2 s, so the scan is still running when asked, and stop ends it
    const slow = await h().post('/api/admin/scan/start', { path: '/idx', limit: 0.5 }, { token: admin });
    assert.equal(slow.status, 200, slow.body.message);
    assert.equal((await scanProgress()).is_done, false);
    const again = await h().post('/api/admin/scan/start', { path: '/' }, { token: admin });
    assert.equal(again.status, 409, 'one index task at a time');
    assert.equal((await h().post('/api/admin/scan/stop', undefined, { token: admin })).status, 200);
    const row = await h().ctx.tasks.settle(slow.body.data.id as string);
    assert.equal(row.state, 4, `canceled, not ${row.state}`);
    assert.equal((await scanProgress()).is_done, true);

    const bad = await h().post('/api/admin/scan/start', { path: '/', limit: -1 }, { token: admin });
    assert.equal(bad.status, 400);
  });

  test('only admins; nothing runs while search is off', async () => {
    for (const [m, p] of [['POST', '/api/admin/index/build'], ['POST', '/api/admin/index/update'], ['POST', '/api/admin/index/stop'], ['POST', '/api/admin/index/clear'], ['GET', '/api/admin/index/progress'], ['POST', '/api/admin/scan/start'], ['POST', '/api/admin/scan/stop'], ['GET', '/api/admin/scan/progress']] as const) {
      const r = await h().call(m, p, { token: user, ...(m === 'POST' ? { body: {} } : {}) });
      assert.equal(r.status, 403, `${m} ${p}`);
    }
    await h().post('/api/admin/setting/save', [{ key: 'search_index', value: 'none' }], { token: admin });
    const r = await h().post('/api/admin/index/build', {}, { token: admin });
    assert.equal(r.status, 404);
    await h().post('/api/admin/setting/save', [{ key: 'search_index', value: 'database' }], { token: admin });
  });
});
