/**
 * The BUILT server (`node dist/src/app/bin.js serve`) with FERRY_SFTP_LISTEN, on both
 * databases: SFTP starts with the server, `sftp` exits at `bye`, SIGTERM ends open
 * sessions (aborting unfinished uploads) and the process exits; the host key survives the
 * restart. Needs `npm run build` (npm test does it).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/databases.js';
import { api, startServer, type ServerProcess } from '../support/process.js';
import { call, keygen, scanHostKeys, scratchDir, sftpBatch, ssh2Sftp, waitFor } from './support.js';

const T = { timeout: 120_000 };
const PASSWORD = 'process-admin-pw';

function sftpPort(server: ServerProcess): number {
  const m = /"sftp":"[^"]*:(\d+)"/.exec(server.stdout());
  assert.ok(m, `no "SFTP is listening" line in:\n${server.stdout()}`);
  return Number(m[1]);
}

for (const dialect of DIALECTS) {
  describe(`SFTP in the built server [${dialect}]`, () => {
    let dataDir: string;
    let db: TestDatabase;
    let env: Record<string, string>;
    let server: ServerProcess | null = null;
    const key = () => keygen('process-ed25519', 'ed25519');

    before(async () => {
      dataDir = scratchDir('ferry-sftp-e2e-');
      db = await createTestDatabase(dialect);
      env = {
        FERRY_DATA_DIR: dataDir,
        FERRY_ADMIN_PASSWORD: PASSWORD,
        FERRY_SFTP_LISTEN: '127.0.0.1:0',
        ...(db.url ? { FERRY_DATABASE_URL: db.url } : {}),
      };
    });
    after(async () => {
      await server?.stop();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    test('SFTP starts with the server; a key added over HTTP logs in; bye exits at once', T, async () => {
      server = await startServer(env);
      const login = await api(server.url, 'POST', '/api/auth/login', { body: { username: 'admin', password: PASSWORD } });
      assert.equal(login.status, 200);
      const add = await api(server.url, 'POST', '/api/me/sshkey/add', { token: login.body.data.token, body: { title: 'k', key: key().pub } });
      assert.equal(add.status, 200, add.body.message);
      const r = await sftpBatch(sftpPort(server), key(), 'admin', ['mkdir /e2e', 'ls -l /', 'bye'], 20_000);
      assert.equal(r.timedOut, false, 'sftp hung');
      assert.equal(r.code, 0, r.stderr);
      assert.ok(r.ms < 10_000, `sftp took ${r.ms} ms`);
      assert.match(r.stdout, /^drwxr-xr-x .* e2e$/m);
    });

    test('SIGTERM ends open sessions, aborts unfinished uploads and exits 0; the host key survives', T, async () => {
      const port = sftpPort(server!);
      const hostKeys = await scanHostKeys(port);
      const { client, sftp } = await ssh2Sftp(port, { username: 'admin', privateKey: readFileSync(key().file) });
      let closed = false;
      client.on('close', () => (closed = true));
      const o = await call<Buffer>((cb) => sftp.open('/e2e/unfinished.bin', 'w', cb));
      assert.equal(o.err, null);
      assert.equal((await call<void>((cb) => sftp.write(o.value!, Buffer.alloc(100_000, 9), 0, 100_000, 0, cb))).err, null);
      const dir = join(dataDir, 'files', 'e2e');
      await waitFor(() => readdirSync(dir).some((n) => n.startsWith('.ferry-tmp')), 10_000, 'the upload to reach the storage');
      assert.equal(await server!.stop(), 0);
      await waitFor(() => closed, 5000, 'the SFTP client to be disconnected');
      assert.deepEqual(readdirSync(dir), [], 'nothing of the unfinished upload is left');

      server = await startServer(env);
      assert.deepEqual(await scanHostKeys(sftpPort(server)), hostKeys);
      const r = await sftpBatch(sftpPort(server), key(), 'admin', ['ls /e2e', 'bye'], 20_000);
      assert.equal(r.code, 0, r.stderr);
    });
  });
}
