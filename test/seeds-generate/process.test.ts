/**
 * The built server as a process (`npm run build` first): a seed_generate task survives the
 * server being killed (SIGKILL) mid-hash. The restarted server takes the task over once its
 * heartbeat has lapsed and runs it to success; the sidecars are then checked by libtorrent
 * and coreutils. Both database dialects.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { run } from '../support/commands.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/databases.js';
import { api, startServer, type ServerProcess } from '../support/process.js';
import { decodeOss } from '../../src/modules/seeds/formats/index.js';
import { ALL_SIX, coreutils, ltcheck, until } from './helpers.js';

const PASSWORD = 'seed-proc-pass-1';
const SIZE = '512M';

for (const dialect of DIALECTS) {
  describe(`seed generation: killed server [${dialect}]`, () => {
    let dataDir: string;
    let db: TestDatabase;
    let env: Record<string, string>;
    let server: ServerProcess | null = null;

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'ferry-seedproc-'));
      db = await createTestDatabase(dialect);
      env = {
        FERRY_DATA_DIR: dataDir,
        FERRY_ADMIN_PASSWORD: PASSWORD,
        FERRY_LOG_LEVEL: 'info',
        FERRY_TASK_HEARTBEAT_MS: '300',
        FERRY_TASK_STALE_MS: '1500',
        FERRY_TASK_POLL_MS: '200',
        ...(db.url ? { FERRY_DATABASE_URL: db.url } : {}),
      };
    });
    after(async () => {
      await server?.stop();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    test('SIGKILL during a task, restart: the task completes and the sidecars are correct', { timeout: 240_000 }, async () => {
      server = await startServer(env);
      const login = await api(server.url, 'POST', '/api/auth/login', { body: { username: 'admin', password: PASSWORD } });
      const token = login.body.data.token as string;
      const call = (method: string, path: string, body?: unknown) => api(server!.url, method, path, { token, body });
      assert.equal((await call('POST', '/api/admin/setting/save', [{ key: 'seed_async_threshold', value: String(1024 * 1024) }])).status, 200);

      const src = join(dataDir, 'files/big');
      mkdirSync(src, { recursive: true });
      run('truncate', ['-s', SIZE, join(src, 'disk.img')]);
      run('sh', ['-c', `printf 'tail bytes' >> '${join(src, 'disk.img')}'`]);

      const g = await call('POST', '/api/fs/seed/generate', { paths: ['/big/disk.img'], formats: ['oss', 'torrent'], hash_matrix: ALL_SIX, output_path: '/out' });
      assert.equal(g.status, 200, g.body.message);
      assert.equal(g.body.data.async, true);
      const tid = g.body.data.task.id as string;
      const info = () => call('POST', `/api/task/seed_generate/info?tid=${tid}`).then((r) => r.body.data);
      await until(async () => {
        const t = await info();
        return t.state === 1 && t.done_bytes > 0;
      }, 20_000, 'the task to be hashing');

      server.child.kill('SIGKILL');
      await once(server.child, 'exit');
      assert.equal(existsSync(join(dataDir, 'files/out/disk.oss')), false, 'nothing written before the kill');

      server = await startServer(env);
      const done = await until(async () => {
        const r = await api(server!.url, 'POST', `/api/task/seed_generate/info?tid=${tid}`, { token });
        const t = r.body.data;
        if (t.state === 7 || t.state === 4) throw new Error(`task ended in state ${t.state}: ${t.error}`);
        return t.state === 2 ? t : null;
      }, 90_000, 'the task to succeed after the restart');
      assert.equal(done.attempts, 2);
      assert.equal(done.progress, 100);

      const out = join(dataDir, 'files/out');
      assert.deepEqual(readdirSync(out).sort(), ['disk.oss', 'disk.torrent']);
      const seed = decodeOss(readFileSync(join(out, 'disk.oss')));
      assert.equal(seed.files[0]!.hashes.md5, coreutils('md5', join(src, 'disk.img')));
      assert.equal(seed.files[0]!.hashes.sha256, coreutils('sha256', join(src, 'disk.img')));
      assert.match(ltcheck(join(out, 'disk.torrent'), src), /pieces ok (\d+) \/ \1 OK/);
    });
  });
}
