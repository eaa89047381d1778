/**
 * The task system (contract §9): rows in the database, a runner loop that claims pending and
 * stale tasks, heartbeats, cancel (here and elsewhere), retry, shutdown release, the claim's
 * exclusivity, the API's visibility rules, and the existing callers (copy, upload as task).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { forEachDialect, type Harness } from '../../../test/support/harness.js';
import { pendingTaskRow, TaskState, type TaskRow } from './task.model.js';
import { TasksRepo } from './tasks.repo.js';
import { followUpTaskId, type TaskRunContext } from './tasks.service.js';
import { defineTask, taskKind } from './task-definition.js';
import { Type } from 'typebox';

/** A task type of the test's own (the app registers none of this name). */
const TYPE = 'test_echo';
const KIND = taskKind(TYPE, Type.Record(Type.String(), Type.Unknown()));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A controllable handler: records calls; `gate` decides how each run ends. */
function install(h: Harness) {
  const calls: { payload: Record<string, unknown>; run: TaskRunContext }[] = [];
  let gate: (payload: Record<string, unknown>, run: TaskRunContext) => Promise<unknown> = async (p) => ({ echo: p });
  h.ctx.tasks.configure({ pollMs: 50, heartbeatMs: 100, staleMs: 600 });
  h.ctx.tasks.register(
    defineTask(KIND, (payload, run) => {
      calls.push({ payload, run });
      return gate(payload, run);
    }),
  );
  return {
    calls,
    setGate(g: typeof gate) {
      gate = g;
    },
  };
}

/** Resolves when aborted; never otherwise. */
const untilAborted = (run: TaskRunContext) =>
  new Promise<never>((_, reject) => run.signal.addEventListener('abort', () => reject(run.signal.reason), { once: true }));

async function rawRow(h: Harness, patch: Partial<TaskRow>): Promise<string> {
  const id = randomUUID();
  await new TasksRepo(h.ctx.database.db).insert(
    pendingTaskRow({ id, type: TYPE, name: 'manual', creator_id: 1, status: '', payload: '{"n":1}', ...patch }),
  );
  return id;
}

async function waitState(h: Harness, id: string, state: number, ms = 5000): Promise<TaskRow> {
  const end = Date.now() + ms;
  for (;;) {
    const r = await h.ctx.tasks.get(id);
    if (r.state === state) return r;
    if (Date.now() > end) throw new Error(`task ${id} stayed in state ${r.state} (${r.status}), wanted ${state}`);
    await sleep(20);
  }
}

forEachDialect('tasks', (h) => {
  let t: ReturnType<typeof install>;
  before(() => {
    t = install(h());
  });

  test('create inserts a pending row; the runner loop runs it from the stored payload and stores the result', async () => {
    t.setGate(async (p, run) => {
      run.progress(5, 10);
      return { echo: p, attempt: run.attempt };
    });
    const row = await h().ctx.tasks.create(KIND, { name: 'echo', creatorId: 1, payload: { x: 42 }, totalBytes: 10 });
    assert.equal(row.state, TaskState.PENDING);
    const done = await h().ctx.tasks.settle(row.id, 5000);
    assert.equal(done.state, TaskState.SUCCEEDED);
    assert.equal(done.progress, 100);
    assert.deepEqual(JSON.parse(done.result), { echo: { x: 42 }, attempt: 1 });
    assert.equal(done.runner, null);
    assert.ok(done.start_time && done.end_time);
  });

  test('a follow-up task created again with its id (the creating task re-run) is the first one, not a second', async () => {
    const id = followUpTaskId(randomUUID(), 'transfer');
    assert.equal(followUpTaskId('parent', 'transfer'), followUpTaskId('parent', 'transfer'));
    assert.notEqual(followUpTaskId('parent', 'transfer'), followUpTaskId('other', 'transfer'));
    const first = await h().ctx.tasks.create(KIND, { id, name: 'first', creatorId: 1, payload: { n: 1 } });
    const again = await h().ctx.tasks.create(KIND, { id, name: 'again', creatorId: 1, payload: { n: 2 } });
    assert.equal(first.id, id);
    assert.equal(again.id, id);
    assert.equal(again.name, 'first');
    assert.equal((await h().ctx.tasks.find(id))?.name, 'first');
    assert.equal(await h().ctx.tasks.find(randomUUID()), null);
    await h().ctx.tasks.settle(id, 5000);
    assert.equal(t.calls.filter((c) => c.payload.n === 2).length, 0, 'the second create queued nothing');
  });

  test('a failing handler → failed (7) with its error; retry runs it again', async () => {
    let n = 0;
    t.setGate(async () => {
      if (++n === 1) throw new Error('boom');
      return 'fine';
    });
    const row = await h().ctx.tasks.create(KIND, { name: 'fails once', creatorId: 1, payload: {} });
    const failed = await h().ctx.tasks.settle(row.id, 5000);
    assert.equal(failed.state, TaskState.FAILED);
    assert.equal(failed.error, 'boom');
    await h().ctx.tasks.retry(row.id);
    const ok = await h().ctx.tasks.settle(row.id, 5000);
    assert.equal(ok.state, TaskState.SUCCEEDED);
    assert.equal(ok.error, '');
  });

  test('cancel of a running task aborts its signal at once → canceled (4)', async () => {
    t.setGate((_, run) => untilAborted(run));
    const row = await h().ctx.tasks.create(KIND, { name: 'blocks', creatorId: 1, payload: {} });
    await waitState(h(), row.id, TaskState.RUNNING);
    const started = Date.now();
    await h().ctx.tasks.cancel(row.id);
    assert.ok(Date.now() - started < 1000);
    const r = await h().ctx.tasks.get(row.id);
    assert.equal(r.state, TaskState.CANCELED);
    assert.equal(t.calls.at(-1)!.run.signal.aborted, true);
  });

  test('cancel of a pending task: canceled without ever running', async () => {
    h().ctx.tasks.configure({ concurrency: 1 });
    t.setGate((_, run) => untilAborted(run));
    try {
      const blocker = await h().ctx.tasks.create(KIND, { name: 'blocker', creatorId: 1, payload: {} });
      await waitState(h(), blocker.id, TaskState.RUNNING);
      const calls = t.calls.length;
      const queued = await h().ctx.tasks.create(KIND, { name: 'queued', creatorId: 1, payload: {} });
      await sleep(200);
      assert.equal((await h().ctx.tasks.get(queued.id)).state, TaskState.PENDING);
      await h().ctx.tasks.cancel(queued.id);
      assert.equal((await h().ctx.tasks.get(queued.id)).state, TaskState.CANCELED);
      await h().ctx.tasks.cancel(blocker.id);
      await sleep(200);
      assert.equal(t.calls.length, calls, 'the queued task never ran');
    } finally {
      h().ctx.tasks.configure({ concurrency: 4 });
    }
  });

  test('cancel from another instance (state set to canceling in the database) stops the runner at its next heartbeat', async () => {
    t.setGate((_, run) => untilAborted(run));
    const row = await h().ctx.tasks.create(KIND, { name: 'remote cancel', creatorId: 1, payload: {} });
    await waitState(h(), row.id, TaskState.RUNNING);
    await new TasksRepo(h().ctx.database.db).update(row.id, { state: TaskState.CANCELING });
    await waitState(h(), row.id, TaskState.CANCELED, 2000);
  });

  test('a running task whose runner died (heartbeat lapsed) is taken over and run again; a live one is left alone', async () => {
    t.setGate(async (_, run) => ({ attempt: run.attempt }));
    const live = await rawRow(h(), { state: TaskState.RUNNING, runner: 'other-live', heartbeat_at: Date.now() + 60_000, attempts: 1 });
    const dead = await rawRow(h(), { state: TaskState.RUNNING, runner: 'other-dead', heartbeat_at: Date.now() - 60_000, attempts: 1 });
    h().ctx.tasks.kick();
    const r = await h().ctx.tasks.settle(dead, 5000);
    assert.equal(r.state, TaskState.SUCCEEDED);
    assert.deepEqual(JSON.parse(r.result), { attempt: 2 });
    await sleep(300);
    const l = await h().ctx.tasks.get(live);
    assert.equal(l.state, TaskState.RUNNING);
    assert.equal(l.runner, 'other-live');
    await new TasksRepo(h().ctx.database.db).delete(live);
  });

  test('a task started too often without finishing is failed instead of run again', async () => {
    const id = await rawRow(h(), { state: TaskState.RUNNING, runner: 'crashy', heartbeat_at: Date.now() - 60_000, attempts: 5 });
    h().ctx.tasks.kick();
    const r = await h().ctx.tasks.settle(id, 5000);
    assert.equal(r.state, TaskState.FAILED);
    assert.match(r.error, /started 5 times without finishing/);
  });

  test('a stored payload that is not JSON, or does not match its schema, fails that task with a clear error; the runner goes on', async () => {
    let ran = 0;
    t.setGate(async () => ({ ran: ++ran }));
    const strict = taskKind('test_strict', Type.Object({ n: Type.Integer() }));
    h().ctx.tasks.register(defineTask(strict, async (p) => ({ doubled: p.n * 2 })));
    const notJson = await rawRow(h(), { type: 'test_strict', payload: '{not json' });
    const wrongShape = await rawRow(h(), { type: 'test_strict', payload: '{"n":"seven"}' });
    const fine = await rawRow(h(), { type: 'test_strict', payload: '{"n":7}' });
    h().ctx.tasks.kick();
    const a = await h().ctx.tasks.settle(notJson, 5000);
    const b = await h().ctx.tasks.settle(wrongShape, 5000);
    const c = await h().ctx.tasks.settle(fine, 5000);
    assert.equal(a.state, TaskState.FAILED);
    assert.match(a.error, /stored test_strict task payload is not JSON/);
    assert.equal(b.state, TaskState.FAILED);
    assert.match(b.error, /stored test_strict task payload is malformed: \/n /);
    assert.equal(c.state, TaskState.SUCCEEDED);
    assert.deepEqual(JSON.parse(c.result), { doubled: 14 });
    // creating a task checks its payload too (a programming error, not a stored row)
    await assert.rejects(h().ctx.tasks.create(strict, { name: 'bad', creatorId: 1, payload: { n: 'x' } as never }), /test_strict task payload: \/n/);
  });

  test('start-up refuses a declared task type without a definition', () => {
    assert.throws(() => h().ctx.tasks.requireDefinitions(['upload', 'no_such_type']), /task types without a definition: no_such_type/);
    h().ctx.tasks.requireDefinitions(['upload', 'copy', 'move', 'seed_generate', 'offline_download']);
  });

  test('a canceling task whose runner died ends canceled', async () => {
    const id = await rawRow(h(), { state: TaskState.CANCELING, runner: 'gone', heartbeat_at: Date.now() - 60_000, attempts: 1 });
    h().ctx.tasks.kick();
    await waitState(h(), id, TaskState.CANCELED, 3000);
  });

  test('claims are exclusive: concurrent runners take each pending task exactly once', async () => {
    const repo = new TasksRepo(h().ctx.database.db);
    const ids = new Set<string>();
    for (let i = 0; i < 30; i++) {
      const id = randomUUID();
      ids.add(id);
      await repo.insert({ ...(await h().ctx.tasks.get(await rawRow(h(), { state: TaskState.SUCCEEDED }))), id, type: 'claim_test', state: TaskState.PENDING, created_at: Date.now() + i });
    }
    const claimed: string[] = [];
    await Promise.all(
      Array.from({ length: 6 }, async (_, r) => {
        for (;;) {
          const now = Date.now();
          const row = await repo.claim(['claim_test'], `runner-${r}`, now, now - 60_000);
          if (!row) return;
          assert.equal(row.runner, `runner-${r}`);
          claimed.push(row.id);
        }
      }),
    );
    assert.equal(claimed.length, 30);
    assert.deepEqual(new Set(claimed), ids);
  });

  test('shutdown puts a running task back to pending; the next start resumes it to success', async () => {
    t.setGate((_, run) => untilAborted(run));
    const row = await h().ctx.tasks.create(KIND, { name: 'survives restart', creatorId: 1, payload: { keep: true } });
    await waitState(h(), row.id, TaskState.RUNNING);
    await h().close();
    await h().open();
    const r = await new TasksRepo(h().ctx.database.db).byId(row.id);
    assert.ok(r);
    // The new instance claims it as soon as a handler for the type is registered.
    assert.ok([TaskState.PENDING, TaskState.RUNNING].includes(r.state as 0 | 1), `state ${r.state}`);
    t = install(h());
    t.setGate(async (_, run) => ({ attempt: run.attempt }));
    const done = await h().ctx.tasks.settle(row.id, 5000);
    assert.equal(done.state, TaskState.SUCCEEDED);
    assert.deepEqual(JSON.parse(done.result), { attempt: 2 });
  });

  test('API: a task of another user answers 404 like a missing one; lists show only own tasks (admins all)', async () => {
    t.setGate(async () => null);
    const uid = await h().createUser(`tu-${randomUUID().slice(0, 6)}`, 'task-user-1');
    const users = await h().ctx.usersRepo.byId(uid);
    const user = await h().login(users!.username, 'task-user-1');
    const admin = await h().adminToken();
    const mine = await h().ctx.tasks.create(KIND, { name: 'admin task', creatorId: 1, payload: {} });
    const theirs = await h().ctx.tasks.create(KIND, { name: 'user task', creatorId: uid, payload: {} });
    await h().ctx.tasks.settle(mine.id);
    await h().ctx.tasks.settle(theirs.id);
    const base = `/api/task/${TYPE}`;
    for (const method of ['GET', 'POST']) {
      const r = await h().call(method, `${base}/info?tid=${mine.id}`, { token: user });
      assert.equal(r.status, 404, method);
      assert.equal(r.body.message, 'task not found');
    }
    assert.equal((await h().post(`${base}/delete?tid=${mine.id}`, undefined, { token: user })).status, 404);
    const own = await h().get(`${base}/done`, { token: user });
    assert.deepEqual(own.body.data.map((x: { id: string }) => x.id), [theirs.id]);
    const info = await h().post(`${base}/info?tid=${theirs.id}`, undefined, { token: user });
    assert.equal(info.body.data.creator, users!.username);
    assert.equal(info.body.data.state, 2);
    const all = await h().get(`${base}/done`, { token: admin });
    assert.ok(all.body.data.some((x: { id: string }) => x.id === mine.id));
    const some = await h().post(`${base}/delete_some`, [theirs.id, mine.id], { token: user });
    assert.deepEqual(some.body.data, { [mine.id]: 'task not found' });
    assert.equal((await h().post(`${base}/delete_some`, { not: 'array' }, { token: user })).status, 400);
    await h().post(`${base}/clear_done`, undefined, { token: admin });
    assert.deepEqual((await h().get(`${base}/done`, { token: admin })).body.data, []);
  });

  test('existing callers: a cross-storage copy task and an as-task upload run to success', async () => {
    const admin = await h().adminToken();
    const other = join(h().dataDir, 'other-store');
    mkdirSync(other, { recursive: true });
    const st = await h().post('/api/admin/storage/create', { mount_path: '/other', driver: 'local', addition: { root_folder_path: other } }, { token: admin });
    assert.equal(st.status, 200, st.body.message);
    const big = Buffer.alloc(17 * 1024 * 1024, 7);
    mkdirSync(join(h().dataDir, 'files/cp'), { recursive: true });
    writeFileSync(join(h().dataDir, 'files/cp/big.bin'), big);
    const cp = await h().post('/api/fs/copy', { src_dir: '/cp', dst_dir: '/other', names: ['big.bin'] }, { token: admin });
    assert.equal(cp.status, 200, cp.body.message);
    assert.equal(cp.body.data.tasks.length, 1);
    const done = await h().ctx.tasks.settle(cp.body.data.tasks[0].id, 20_000);
    assert.equal(done.state, TaskState.SUCCEEDED, done.error);
    assert.ok(readFileSync(join(other, 'big.bin')).equals(big));

    const up = await h().app.inject({ method: 'PUT', url: '/api/fs/put', headers: { authorization: admin, 'file-path': '/cp/up.txt', 'as-task': 'true' }, payload: 'uploaded as task' });
    assert.equal(up.statusCode, 200, up.body);
    const task = JSON.parse(up.body).data.task;
    assert.equal((await h().ctx.tasks.settle(task.id, 10_000)).state, TaskState.SUCCEEDED);
    assert.equal(readFileSync(join(h().dataDir, 'files/cp/up.txt'), 'utf8'), 'uploaded as task');
  });
});
