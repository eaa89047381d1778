/**
 * Issue #16, items 1 and 2. A retried as-task upload whose spooled bytes are gone fails with a clear error and
 * the server keeps running (it used to take the process down, and every restart crashed again). Retrying a task
 * and claiming it re-check its creator as they are now: deleted, disabled, a lost permission bit or a base path
 * that no longer covers the task's paths fail it, writing nothing.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { COPY_TASK } from '../../src/modules/fs/fs.task.js';
import { UPLOAD_TASK } from '../../src/modules/fs/upload.service.js';
import { TaskState } from '../../src/modules/tasks/task.model.js';
import { Perm } from '../../src/modules/users/user.model.js';
import { forEachDialect } from '../support/harness.js';
import { api, startServer, type ServerProcess } from '../support/process.js';

const WRITE_ONLY = 1 << Perm.WRITE;
const WRONG_MD5 = '0'.repeat(32);

describe('a retried as-task upload whose spool is gone (built server)', { timeout: 120_000 }, () => {
  let dataDir: string;
  let server: ServerProcess;
  let admin: string;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ferry-task-retry-'));
    server = await startServer({ FERRY_DATA_DIR: dataDir, FERRY_ADMIN_PASSWORD: 'retry-admin-1', FERRY_TASK_POLL_MS: '100' });
    admin = (await api(server.url, 'POST', '/api/auth/login', { body: { username: 'admin', password: 'retry-admin-1' } })).body.data.token;
  });
  after(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const taskOf = async (token: string, id: string) => {
    const end = Date.now() + 30_000;
    for (;;) {
      const r = await api(server.url, 'POST', `/api/task/upload/info?tid=${id}`, { token });
      assert.equal(r.status, 200, r.body.message);
      if (r.body.data.state >= TaskState.SUCCEEDED || Date.now() > end) return r.body.data;
      await new Promise((res) => setTimeout(res, 100));
    }
  };

  test('the task fails with a clear error, the process stays up and nothing is written', async () => {
    const created = await api(server.url, 'POST', '/api/admin/user/create', { token: admin, body: { username: 'writer', password: 'writer-pass-1', permission: WRITE_ONLY } });
    assert.equal(created.status, 200, created.body.message);
    const token = (await api(server.url, 'POST', '/api/auth/login', { body: { username: 'writer', password: 'writer-pass-1' } })).body.data.token;
    const put = await fetch(`${server.url}/api/fs/put`, {
      method: 'PUT',
      headers: { authorization: token, 'File-Path': encodeURIComponent('/retry/x.bin'), 'As-Task': 'true', 'X-File-Md5': WRONG_MD5 },
      body: 'these bytes do not have that md5',
    });
    const reply = (await put.json()) as { code: number; message: string; data: { task: { id: string } } };
    assert.equal(reply.code, 200, reply.message);
    const id = reply.data.task.id;
    const first = await taskOf(token, id);
    assert.equal(first.state, TaskState.FAILED, first.error);
    assert.match(first.error, /md5/i);

    const retry = await api(server.url, 'POST', `/api/task/upload/retry?tid=${id}`, { token });
    assert.equal(retry.status, 200, retry.body.message);
    const second = await taskOf(token, id);
    assert.equal(second.state, TaskState.FAILED);
    assert.match(second.error, /no longer kept.*upload the file again/);

    const ping = await fetch(`${server.url}/ping`);
    assert.equal(await ping.text(), 'pong');
    assert.equal(server.child.exitCode, null, `the server exited:\n${server.stdout()}`);
    assert.equal(existsSync(join(dataDir, 'files', 'retry', 'x.bin')), false);
  });
});

forEachDialect('tasks re-check their creator at retry and claim', (h) => {
  let admin: string;
  before(async () => {
    admin = await h().adminToken();
  });

  const settled = (id: string) => h().ctx.tasks.settle(id, 30_000);
  const updateUser = async (id: number, username: string, fields: Record<string, unknown>) => {
    const r = await h().post('/api/admin/user/update', { id, username, ...fields }, { token: admin });
    assert.equal(r.status, 200, r.body.message);
  };

  test('retry of a failed upload by a user who lost the write bit: 403, the task stays failed', async () => {
    const uid = await h().createUser('lost-write', 'lost-write-1', { permission: WRITE_ONLY });
    const token = await h().login('lost-write', 'lost-write-1');
    const r = await h().call('PUT', '/api/fs/put', {
      token,
      headers: { 'file-path': encodeURIComponent('/lost/a.bin'), 'as-task': 'true', 'x-file-md5': WRONG_MD5, 'content-type': 'application/octet-stream' },
      body: 'not that md5',
    });
    assert.equal(r.status, 200, r.body.message);
    const id = r.body.data.task.id as string;
    assert.equal((await settled(id)).state, TaskState.FAILED);

    await updateUser(uid, 'lost-write', { permission: 0 });
    const retry = await h().post(`/api/task/upload/retry?tid=${id}`, undefined, { token: admin });
    assert.equal(retry.status, 403);
    assert.match(retry.body.message, /permission denied/);
    assert.equal((await h().ctx.tasks.get(id)).state, TaskState.FAILED);
  });

  for (const [why, change, error] of [
    ['disabled', { disabled: true }, /disabled/],
    ['without the copy bit', { permission: WRITE_ONLY }, /permission denied/],
    ['moved to another base path', { base_path: '/elsewhere' }, /outside the user's base path/],
  ] as const) {
    test(`a queued copy whose creator is now ${why} fails at its claim and copies nothing`, async () => {
      const name = `copier-${why.replace(/\W+/g, '-')}`;
      const uid = await h().createUser(name, 'copier-pass-1', { permission: (1 << Perm.COPY) | WRITE_ONLY });
      const token = await h().login(name, 'copier-pass-1');
      const put = await h().call('PUT', '/api/fs/put', { token, headers: { 'file-path': encodeURIComponent(`/${name}/src.txt`), 'content-type': 'application/octet-stream' }, body: 'copy me' });
      assert.equal(put.status, 200, put.body.message);
      await updateUser(uid, name, change);
      const row = await h().ctx.tasks.create(COPY_TASK, { name: 'copy', creatorId: uid, payload: { src: `/${name}/src.txt`, dst: `/${name}/dst.txt`, overwrite: false } });
      const done = await settled(row.id);
      assert.equal(done.state, TaskState.FAILED);
      assert.match(done.error, error);
      assert.equal(existsSync(join(h().dataDir, 'files', name, 'dst.txt')), false);
    });
  }

  test('a queued upload of a deleted user fails at its claim and writes nothing', async () => {
    const uid = await h().createUser('gone-soon', 'gone-soon-1', { permission: WRITE_ONLY });
    const del = await h().post(`/api/admin/user/delete?id=${uid}`, undefined, { token: admin });
    assert.equal(del.status, 200, del.body.message);
    const row = await h().ctx.tasks.create(UPLOAD_TASK, {
      name: 'upload',
      creatorId: uid,
      payload: { tmp: join(h().dataDir, 'tmp', 'never-there'), spec: { full: '/gone/x.txt', overwrite: true, size: 0, expectedHashes: {} } },
    });
    const done = await settled(row.id);
    assert.equal(done.state, TaskState.FAILED);
    assert.match(done.error, /no longer exists/);
    assert.equal(existsSync(join(h().dataDir, 'files', 'gone')), false);
  });
});
