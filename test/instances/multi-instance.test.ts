/**
 * Three Ferry processes on one fresh PostgreSQL database, one shared secret and one Ceph bucket:
 * they start together (migrations and first-start rows exactly once), accept each other's
 * tokens, see logouts, password changes, lockouts and settings of the others, run each task
 * exactly once, and take over the task of an instance killed with SIGKILL.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { migrations } from '../../src/db/migrations/index.js';
import { cephForThisFile, s3Addition } from '../support/ceph.js';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';
import { api } from '../support/process.js';
import { objectBytes } from '../fs/helpers.js';
import {
  FAST_TASKS,
  MiB,
  filesBelow,
  hashFile,
  killHard,
  login,
  okData,
  query,
  restart,
  runnerPid,
  startNode,
  taskRow,
  until,
  type Node,
} from '../crash/support.js';

const { ceph, s3 } = cephForThisFile();

describe('several instances on one PostgreSQL database', { timeout: 420_000 }, () => {
  let db: TestDatabase;
  const dirs: string[] = [];
  let nodes: Node[] = [];
  let password = '';
  let admin = '';
  const A = () => nodes[0]!;
  const B = () => nodes[1]!;
  const C = () => nodes[2]!;

  const call = (n: Node, method: string, path: string, body?: unknown, token = admin, headers?: Record<string, string>) =>
    api(n.url, method, path, { token, body, headers });

  before(async () => {
    db = await createTestDatabase('postgres');
    for (let i = 0; i < 3; i++) dirs.push(mkdtempSync(join(tmpdir(), `ferry-mi${i}-`)));
  });
  after(async () => {
    await Promise.all(nodes.map((n) => n.server.stop().catch(() => null)));
    await db?.drop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  test('three simultaneous starts on a fresh database migrate once and create the first-start rows once', async () => {
    const secret = randomBytes(32).toString('base64url');
    const envOf = (i: number) => ({
      FERRY_DATA_DIR: dirs[i]!,
      FERRY_DATABASE_URL: db.url!,
      FERRY_JWT_SECRET: secret,
      FERRY_TRUST_PROXY: 'true',
      ...FAST_TASKS,
    });
    nodes = await Promise.all(['A', 'B', 'C'].map((name, i) => startNode(name, envOf(i))));
    const announced = nodes.map((n) => /initial password: (\S+)/.exec(n.server.stdout())?.[1]).filter((p): p is string => !!p);
    assert.equal(announced.length, 1, 'exactly one instance created the admin and announced its password');
    password = announced[0]!;

    const applied = await query<{ name: string }>(db.url, '', 'SELECT name FROM kysely_migration ORDER BY name');
    assert.deepEqual(applied.map((r) => r.name), Object.keys(migrations('postgres')).sort());
    const roles = await query<{ role: number; n: string }>(db.url, '', 'SELECT role, count(*) AS n FROM users GROUP BY role ORDER BY role');
    assert.deepEqual(roles.map((r) => [Number(r.role), Number(r.n)]), [[1, 1], [2, 1]]);
    const storages = await query<{ mount_path: string }>(db.url, '', 'SELECT mount_path FROM storages');
    assert.deepEqual(storages.map((r) => r.mount_path), ['/']);
    admin = await login(A().url, 'admin', password);
  });

  test('a token from A works on B and C', async () => {
    for (const n of [A(), B(), C()]) {
      const me = await okData(call(n, 'GET', '/api/me'));
      assert.equal(me.username, 'admin', n.name);
    }
  });

  test('logout on A: the token is refused on B and C', async () => {
    const t = await login(A().url, 'admin', password);
    assert.equal((await call(B(), 'GET', '/api/me', undefined, t)).status, 200);
    await okData(call(A(), 'GET', '/api/auth/logout', undefined, t));
    for (const n of [B(), C(), A()]) {
      const r = await call(n, 'GET', '/api/me', undefined, t);
      assert.equal(r.status, 401, n.name);
      assert.equal(r.body.message, 'token is invalidated');
    }
  });

  test('password change on B: the old token is refused on C, the new password works on C', async () => {
    await okData(call(A(), 'POST', '/api/admin/user/create', { username: 'mi-user', password: 'first-pass-1' }));
    const t = await login(A().url, 'mi-user', 'first-pass-1');
    assert.equal((await call(C(), 'GET', '/api/me', undefined, t)).status, 200);
    await okData(call(B(), 'POST', '/api/me/update', { password: 'second-pass-2' }, t));
    const r = await call(C(), 'GET', '/api/me', undefined, t);
    assert.equal(r.status, 401);
    assert.equal(r.body.message, 'Password has been changed, login please');
    assert.equal((await api(C().url, 'POST', '/api/auth/login', { body: { username: 'mi-user', password: 'first-pass-1' } })).status, 401);
    await login(C().url, 'mi-user', 'second-pass-2');
  });

  test('five bad logins spread over A, B and C lock the user on all three', async () => {
    await okData(call(A(), 'POST', '/api/admin/user/create', { username: 'locky', password: 'locky-pass-1' }));
    const order = [A(), B(), C(), A(), B()];
    for (const [i, n] of order.entries()) {
      // A different client address each time: only the username's counter reaches the limit.
      const r = await api(n.url, 'POST', '/api/auth/login', { body: { username: 'locky', password: 'wrong' }, headers: { 'x-forwarded-for': `10.77.0.${i + 1}` } });
      assert.equal(r.status, 401, `attempt ${i + 1} on ${n.name}`);
    }
    for (const n of [A(), B(), C()]) {
      const r = await api(n.url, 'POST', '/api/auth/login', { body: { username: 'locky', password: 'locky-pass-1' }, headers: { 'x-forwarded-for': '10.77.1.1' } });
      assert.equal(r.status, 429, `${n.name}: ${r.body.message}`);
    }
  });

  test('a setting saved on A is seen by B and C within a second', async () => {
    const title = async (n: Node) => (await okData(api(n.url, 'GET', '/api/public/settings'))).site_title as string;
    for (const n of [B(), C()]) assert.equal(await title(n), 'Ferry'); // the old value is cached there now
    await okData(call(A(), 'POST', '/api/admin/setting/save', [{ key: 'site_title', value: 'Ferry cluster' }]));
    const saved = Date.now();
    assert.equal(await title(A()), 'Ferry cluster', 'A sees its own change at once');
    for (const n of [B(), C()]) {
      for (;;) {
        if ((await title(n)) === 'Ferry cluster') break;
        assert.ok(Date.now() - saved <= 1000, `${n.name} still shows the old site_title a second after the save`);
        await new Promise((r) => setTimeout(r, 25));
      }
    }
  });

  test('async seed generation on S3: each task runs exactly once, on any instance, with the right result', async () => {
    const c = await ceph();
    await okData(call(A(), 'POST', '/api/admin/storage/create', { mount_path: '/s3', driver: 's3', addition: s3Addition(c, 'mi') }));
    await okData(call(A(), 'POST', '/api/admin/setting/save', [{ key: 'seed_async_threshold', value: String(MiB) }]));
    // B and C mount the new storage within a second.
    await until(async () => (await call(C(), 'POST', '/api/fs/list', { path: '/s3' })).status === 200, 5000, 'C to see /s3');
    const datas = [1, 2, 3].map((i) => randomBytes(2 * MiB + i));
    for (const [i, data] of datas.entries()) {
      const r = await fetch(`${B().url}/api/fs/put`, { method: 'PUT', headers: { authorization: admin, 'file-path': `/s3/t/f${i}.bin` }, body: data });
      assert.equal(r.status, 200, await r.text());
    }
    const ids: string[] = [];
    for (const [i, n] of [A(), B(), C()].entries()) {
      const d = await okData(call(n, 'POST', '/api/fs/seed/generate', { paths: [`/s3/t/f${i}.bin`], formats: ['oss', 'torrent'], output_path: `/s3/out${i}` }));
      assert.equal(d.async, true);
      ids.push(d.task.id);
    }
    for (const [i, id] of ids.entries()) {
      const t = await until(async () => {
        const r = await taskRow(db.url, '', id);
        return r.state >= 2 ? r : null;
      }, 60_000, `task ${i}`);
      assert.equal(t.state, 2, t.error);
      assert.equal(t.attempts, 1, 'claimed exactly once');
      const oss = JSON.parse((await objectBytes(await s3(), c.bucket, `mi/out${i}/f${i}.oss`)).toString()) as { files: { size: number; hashes: Record<string, string> }[] };
      const data = datas[i]!;
      assert.equal(oss.files[0]!.size, data.length);
      for (const a of ['md5', 'sha1', 'sha256']) assert.equal(oss.files[0]!.hashes[a], createHash(a).update(data).digest('hex'), `${a} of f${i}`);
    }
  });

  test('kill -9 of the instance running a task: another instance takes it over and finishes it correctly', async () => {
    const storages = await okData(call(A(), 'GET', '/api/admin/storage/list'));
    const root = (storages.content as { mount_path: string; addition: string }[]).find((s) => s.mount_path === '/')!;
    const dir = JSON.parse(root.addition).root_folder_path as string;
    // Written straight to the disk: no hashes are known, so the task has to read all of it.
    const file = join(dir, 'big', 'takeover.bin');
    rmSync(join(dir, 'big'), { recursive: true, force: true });
    mkdirSync(join(dir, 'big'));
    const fd = openSync(file, 'w');
    const block = randomBytes(4 * MiB);
    for (let i = 0; i < 48; i++) writeSync(fd, block);
    closeSync(fd);
    const expected = await hashFile(file, ['md5', 'sha1', 'sha256']);

    const d = await okData(call(A(), 'POST', '/api/fs/seed/generate', { paths: ['/big/takeover.bin'], formats: ['oss', 'torrent'], output_path: '/big-out' }));
    const id = d.task.id as string;
    const first = await until(async () => {
      const r = await taskRow(db.url, '', id);
      assert.ok(r.state <= 1, `the task ended before it could be interrupted (state ${r.state}): make the file bigger`);
      return r.state === 1 && r.progress > 0 ? r : null;
    }, 60_000, 'the task to run and report progress', 25);
    const victim = nodes.findIndex((n) => n.pid === runnerPid(first.runner));
    assert.ok(victim >= 0, `runner ${first.runner} is one of ours`);
    await killHard(nodes[victim]!);

    const done = await until(async () => {
      const r = await taskRow(db.url, '', id);
      return r.state >= 2 ? r : null;
    }, 90_000, 'the task to be taken over and finish');
    assert.equal(done.state, 2, done.error);
    assert.equal(done.attempts, 2, 'claimed by the killed instance, then once more by a survivor');
    const survivor = nodes[(victim + 1) % 3]!;
    const got = await okData(call(survivor, 'POST', '/api/fs/get', { path: '/big-out/takeover.oss' }));
    const oss = JSON.parse(readFileSync(join(dir, 'big-out', 'takeover.oss'), 'utf8')) as { files: { size: number; hashes: Record<string, string> }[] };
    assert.equal(got.size, Buffer.byteLength(readFileSync(join(dir, 'big-out', 'takeover.oss'))));
    assert.equal(oss.files[0]!.size, 48 * 4 * MiB);
    assert.deepEqual(Object.fromEntries(['md5', 'sha1', 'sha256'].map((a) => [a, oss.files[0]!.hashes[a]])), expected);
    const left = await filesBelow(dir);
    assert.deepEqual(left.temps, []);
    assert.deepEqual(left.files.filter((f) => f.startsWith('big-out/')).sort(), ['big-out/takeover.oss', 'big-out/takeover.torrent']);
    // The killed instance comes back and serves again.
    nodes[victim] = await restart(nodes[victim]!);
    assert.equal((await call(nodes[victim]!, 'GET', '/api/me')).status, 200);
  });
});
