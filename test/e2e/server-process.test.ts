/**
 * End to end: the built server as a process, over real HTTP, on both databases.
 * First start, login, restart survival of tokens, CLI administration on the same data.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/databases.js';
import { requireCommand, run } from '../support/commands.js';
import { api, ferryCli, startServer, type ServerProcess } from '../support/process.js';

for (const dialect of DIALECTS) {
  describe(`server process [${dialect}]`, () => {
    let dataDir: string;
    let db: TestDatabase;
    let env: Record<string, string>;
    let server: ServerProcess | null = null;
    let password: string;
    let token: string;

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'ferry-e2e-'));
      db = await createTestDatabase(dialect);
      env = { FERRY_DATA_DIR: dataDir, ...(db.url ? { FERRY_DATABASE_URL: db.url } : {}) };
    });
    after(async () => {
      await server?.stop();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    test('first start creates the data dir, prints the admin password once, and serves', async () => {
      server = await startServer(env);
      const m = /initial password: (\S+)/.exec(server.stdout());
      assert.ok(m, `password announced in:\n${server.stdout()}`);
      password = m[1]!;
      assert.equal(password.length, 12);
      assert.equal(statSync(join(dataDir, 'secret')).mode & 0o777, 0o600);
      for (const d of ['files', 'ssh', 'tmp']) assert.ok(statSync(join(dataDir, d)).isDirectory(), d);
      const ping = await fetch(`${server.url}/ping`);
      assert.equal(await ping.text(), 'pong');
      const login = await api(server.url, 'POST', '/api/auth/login', { body: { username: 'admin', password } });
      assert.equal(login.status, 200);
      token = login.body.data.token;
      const me = await api(server.url, 'GET', '/api/me', { token });
      assert.equal(me.body.data.username, 'admin');
    });

    test('tokens survive a restart; the password is not printed again', async () => {
      assert.equal(await server!.stop(), 0);
      server = await startServer(env);
      assert.doesNotMatch(server.stdout(), /initial password/);
      const me = await api(server.url, 'GET', '/api/me', { token });
      assert.equal(me.status, 200);
      assert.equal(me.body.data.username, 'admin');
    });

    test('CLI: admin show, set-password (old tokens die), cancel-2fa', async () => {
      requireCommand('oathtool', 'oathtool');
      assert.match(ferryCli(['admin', 'show'], env), /username: admin/);
      // Turn 2FA on over HTTP, then off from the CLI.
      const gen = await api(server!.url, 'POST', '/api/auth/2fa/generate', { token });
      const code = run('oathtool', ['--totp', '-b', gen.body.data.secret]).trim();
      assert.equal((await api(server!.url, 'POST', '/api/auth/2fa/verify', { token, body: { code, secret: gen.body.data.secret } })).status, 200);
      assert.equal((await api(server!.url, 'POST', '/api/auth/login', { body: { username: 'admin', password } })).status, 402);
      ferryCli(['admin', 'cancel-2fa'], env);
      assert.equal((await api(server!.url, 'GET', '/api/me', { token })).body.data.otp, false);

      ferryCli(['admin', 'set-password', 'brand-new-pw'], env);
      const old = await api(server!.url, 'GET', '/api/me', { token });
      assert.equal(old.status, 401);
      assert.equal((await api(server!.url, 'POST', '/api/auth/login', { body: { username: 'admin', password } })).status, 401);
      const fresh = await api(server!.url, 'POST', '/api/auth/login', { body: { username: 'admin', password: 'brand-new-pw' } });
      assert.equal(fresh.status, 200);
    });

    test('CLI: app-password create, list, revoke (the password works over WebDAV until revoked)', async () => {
      const created = ferryCli(['app-password', 'create', 'admin', 'cli laptop'], env);
      const id = /^id: (\d+)$/m.exec(created)?.[1];
      const pw = /^password: (\S+)$/m.exec(created)?.[1];
      assert.ok(id && pw, created);
      const propfind = () =>
        fetch(`${server!.url}/dav/`, { method: 'PROPFIND', headers: { depth: '0', authorization: `Basic ${Buffer.from(`admin:${pw}`).toString('base64')}` } });
      const ok = await propfind();
      assert.equal(ok.status, 207);
      await ok.arrayBuffer();
      assert.match(ferryCli(['app-password', 'list', 'admin'], env), new RegExp(`^${id}\tcli laptop\t`, 'm'));
      assert.match(ferryCli(['app-password', 'revoke', 'admin', id], env), /revoked/);
      const gone = await propfind();
      assert.equal(gone.status, 401);
      await gone.arrayBuffer();
      assert.doesNotMatch(ferryCli(['app-password', 'list', 'admin'], env), /cli laptop/);
    });

    test('bad configuration stops start-up with every problem listed', async () => {
      await assert.rejects(startServer({ ...env, FERRY_PORT: 'abc', FERRY_LOG_LEVEL: 'loud' }, 10_000), (e: Error) => {
        assert.match(e.message, /FERRY_PORT/);
        assert.match(e.message, /FERRY_LOG_LEVEL/);
        return true;
      });
    });
  });
}
