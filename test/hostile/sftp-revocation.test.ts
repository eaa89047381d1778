/**
 * Revocation reaches open SFTP sessions (issue #16 item 9), on every instance: the sessions
 * here are opened on a SECOND Ferry instance sharing the harness's database and data dir,
 * and the rights are withdrawn over the first instance's HTTP API, so nothing but the
 * database carries the news.
 *
 * For each way of losing the right to use SFTP (disabled, deleted, bit 10 removed, password
 * changed, login key deleted, app password revoked, base path changed) an already-open session's next requests
 * are refused or the connection closes, within a bounded wait, and nothing is written — an
 * upload open at the time is not committed. Losing only bit 11 turns the session read-only.
 * A session whose rights are unchanged keeps working. Both databases.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import type { SFTPWrapper } from 'ssh2';
import { closeApp, openApp, type App } from '../../src/app/bootstrap.js';
import { startSftp } from '../../src/app/serve.js';
import type { SftpServer } from '../../src/modules/sftp/sftp.server.js';
import { forEachDialect, type ApiReply, type Harness } from '../support/harness.js';
import { call, keygen, SFTP_READ, SFTP_WRITE, ssh2Sftp, type Key, type SftpErr } from '../sftp/support.js';

const T = { timeout: 120_000 };
const STATUS = { PERMISSION_DENIED: 3 };
const FLAGS = { WRITE: 0x02, CREAT: 0x08, TRUNC: 0x10 };
/** How long a revoked session may keep going before the test gives up on it. */
const REVOKE_WAIT_MS = 3_000;
/** Longer than the guard's re-check interval (sftp.guard.ts: 500 ms). */
const PAST_RECHECK_MS = 1_200;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Open {
  client: Awaited<ReturnType<typeof ssh2Sftp>>['client'];
  sftp: SFTPWrapper;
  closed: () => boolean;
}

/** One request, bounded; a closed channel or connection counts as an error. */
async function req<T>(o: Open, fn: (cb: (err: SftpErr | null | undefined, value?: T) => void) => void) {
  if (o.closed()) return { err: new Error('connection closed') as SftpErr, value: undefined };
  try {
    return await call<T>(fn, 10_000);
  } catch (e) {
    return { err: e as SftpErr, value: undefined };
  }
}

forEachDialect('sftp: revocation reaches open sessions', (h: () => Harness) => {
  describe('sessions on a second instance', () => {
    let other: App;
    let otherSftp: SftpServer;
    const ids: Record<string, number> = {};
    const tokens: Record<string, string> = {};
    const keys: Record<string, Key> = {};
    const keyIds: Record<string, number[]> = {};
    const pw = (u: string) => `${u}-password-1`;
    const files = () => join(h().dataDir, 'files');
    const opened: Open[] = [];

    async function admin(path: string, body: unknown): Promise<void> {
      const r = await h().post(path, body, { token: await h().adminToken() });
      assert.equal(r.status, 200, `${path}: ${r.body.message}`);
    }
    async function updateUser(name: string, patch: Record<string, unknown>): Promise<void> {
      const cur = await h().get(`/api/admin/user/get?id=${ids[name]}`, { token: await h().adminToken() });
      assert.equal(cur.status, 200, cur.body.message);
      const u = cur.body.data;
      await admin('/api/admin/user/update', { id: u.id, username: u.username, base_path: u.base_path, permission: u.permission, disabled: u.disabled, ...patch });
    }

    async function connect(name: string, how: 'key' | 'password' | { appPassword: string }): Promise<Open> {
      const cfg =
        how === 'key' ? { username: name, privateKey: readFileSync(keys[name]!.file) }
        : how === 'password' ? { username: name, password: pw(name) }
        : { username: name, password: how.appPassword };
      const { client, sftp } = await ssh2Sftp(otherSftp.address.port, cfg);
      let closed = false;
      client.on('close', () => (closed = true));
      sftp.on('close', () => (closed = true));
      const o = { client, sftp, closed: () => closed };
      opened.push(o);
      const list = await req(o, (cb) => sftp.readdir('/', cb));
      assert.equal(list.err, null, `${name} lists before the change: ${list.err?.message}`);
      return o;
    }

    /**
     * Lists `/` until a listing is refused (or the connection is gone), for at most
     * REVOKE_WAIT_MS; returns the refusal.
     */
    async function refusedListing(o: Open): Promise<SftpErr> {
      const deadline = Date.now() + REVOKE_WAIT_MS;
      for (let i = 0; i < 200 && Date.now() < deadline; i++) {
        const r = await req(o, (cb) => o.sftp.readdir('/', cb));
        if (r.err) return r.err;
        await sleep(50);
      }
      assert.fail(`the session still lists after ${REVOKE_WAIT_MS} ms`);
    }

    /** The refusal is a permission denial, or the connection was ended. */
    function assertRefusal(err: SftpErr, o: Open): void {
      assert.ok(err.code === STATUS.PERMISSION_DENIED || o.closed(), `unexpected refusal: ${err.message} (code ${err.code})`);
    }

    async function waitClosed(o: Open): Promise<void> {
      const deadline = Date.now() + REVOKE_WAIT_MS;
      while (!o.closed() && Date.now() < deadline) await sleep(20);
      assert.ok(o.closed(), 'the server ended the connection');
    }

    /** A fresh upload is refused and leaves nothing. */
    async function writeRefused(o: Open, name: string): Promise<void> {
      const open = await req<Buffer>(o, (cb) => o.sftp.open(`/${name}`, FLAGS.WRITE | FLAGS.CREAT | FLAGS.TRUNC, cb));
      if (!open.err) {
        const handle = open.value!;
        await req(o, (cb) => o.sftp.write(handle, Buffer.from('late'), 0, 4, 0, cb));
        const close = await req(o, (cb) => o.sftp.close(handle, cb));
        assert.ok(close.err, 'the upload is not committed');
      }
      assert.equal(existsSync(join(files(), name)), false, `${name} was not written`);
    }

    /** Opens an upload and writes a first chunk: it is in progress when the rights change. */
    async function startUpload(o: Open, name: string): Promise<{ handle: Buffer; offset: number }> {
      const open = await req<Buffer>(o, (cb) => o.sftp.open(`/${name}`, FLAGS.WRITE | FLAGS.CREAT | FLAGS.TRUNC, cb));
      assert.equal(open.err, null, open.err?.message);
      const first = Buffer.alloc(1000, 1);
      const w = await req(o, (cb) => o.sftp.write(open.value!, first, 0, first.length, 0, cb));
      assert.equal(w.err, null, w.err?.message);
      return { handle: open.value!, offset: first.length };
    }

    /** Keeps writing to the upload until a write is refused (bounded), then CLOSE must fail too. */
    async function uploadRefused(o: Open, up: { handle: Buffer; offset: number }, name: string): Promise<SftpErr> {
      const chunk = Buffer.alloc(1000, 2);
      const deadline = Date.now() + REVOKE_WAIT_MS;
      let refusal: SftpErr | null = null;
      for (let i = 0; i < 200 && Date.now() < deadline && !refusal; i++) {
        const r = await req<void>(o, (cb) => o.sftp.write(up.handle, chunk, 0, chunk.length, up.offset, cb));
        if (r.err) refusal = r.err;
        else {
          up.offset += chunk.length;
          await sleep(50);
        }
      }
      assert.ok(refusal, `the upload still takes writes after ${REVOKE_WAIT_MS} ms`);
      const close = await req(o, (cb) => o.sftp.close(up.handle, cb));
      assert.ok(close.err, 'closing the upload fails');
      assert.equal(existsSync(join(files(), name)), false, `${name} was not committed`);
      return refusal;
    }

    before(async () => {
      // The second instance: same database, same data dir, its own SFTP listener.
      other = await openApp(h().ctx.config, { logger: pino({ level: 'silent' }), announce: () => {} });
      otherSftp = await startSftp(other, { host: '127.0.0.1', port: 0 });
      for (const name of ['dis', 'del', 'nob10', 'nob11', 'pwch', 'keydel', 'based', 'steady', 'apppw']) {
        ids[name] = await h().createUser(name, pw(name), { permission: SFTP_READ | SFTP_WRITE, base_path: '/' });
        tokens[name] = await h().login(name, pw(name));
        const main = keygen(`revoke-${name}`, 'ed25519');
        keys[name] = main;
        const pairs: Array<[string, Key]> = [['main', main], ['spare', keygen(`revoke-${name}-spare`, 'ed25519')]];
        for (const [title, k] of pairs) {
          const added: ApiReply = await h().post('/api/me/sshkey/add', { title, key: k.pub }, { token: tokens[name] });
          assert.equal(added.status, 200, added.body.message);
        }
        const list = await h().get('/api/me/sshkey/list', { token: tokens[name] });
        keyIds[name] = (list.body.data.content as Array<{ id: number; title: string }>).sort((a, b) => (a.title < b.title ? -1 : 1)).map((k) => k.id);
      }
    });

    after(async () => {
      for (const o of opened) o.client.end();
      await otherSftp?.close();
      if (other) await closeApp(other);
    });

    test('disabling the user: the open upload is refused and not committed, listing is refused, the connection ends', T, async () => {
      const o = await connect('dis', 'key');
      const up = await startUpload(o, 'dis-upload.bin');
      await updateUser('dis', { disabled: true });
      assertRefusal(await uploadRefused(o, up, 'dis-upload.bin'), o);
      const err = await req(o, (cb) => o.sftp.readdir('/', cb));
      assert.ok(err.err, 'listing is refused');
      await writeRefused(o, 'dis-after.txt');
      await waitClosed(o);
    });

    test('deleting the user (password login): listing is refused, nothing is written, the connection ends', T, async () => {
      const o = await connect('del', 'password');
      await admin(`/api/admin/user/delete?id=${ids.del}`, undefined);
      assertRefusal(await refusedListing(o), o);
      await writeRefused(o, 'del-after.txt');
      await waitClosed(o);
    });

    test('removing bit 10: listing is refused, nothing is written, the connection ends', T, async () => {
      const o = await connect('nob10', 'key');
      await updateUser('nob10', { permission: SFTP_WRITE });
      assertRefusal(await refusedListing(o), o);
      await writeRefused(o, 'nob10-after.txt');
      await waitClosed(o);
    });

    test('removing bit 11 only: the open upload is refused and not committed; the session stays, read-only', T, async () => {
      const o = await connect('nob11', 'key');
      const up = await startUpload(o, 'nob11-upload.bin');
      await updateUser('nob11', { permission: SFTP_READ });
      const refusal = await uploadRefused(o, up, 'nob11-upload.bin');
      assert.match(refusal.message, /write/);
      const open = await req<Buffer>(o, (cb) => o.sftp.open('/nob11-after.txt', FLAGS.WRITE | FLAGS.CREAT | FLAGS.TRUNC, cb));
      assert.equal(open.err?.code, STATUS.PERMISSION_DENIED, open.err?.message);
      assert.equal(existsSync(join(files(), 'nob11-after.txt')), false);
      const list = await req(o, (cb) => o.sftp.readdir('/', cb));
      assert.equal(list.err, null, `reading still works: ${list.err?.message}`);
      assert.equal(o.closed(), false);
    });

    test('changing the password (password login): listing is refused, nothing is written, the connection ends', T, async () => {
      const o = await connect('pwch', 'password');
      const r = await h().post('/api/me/update', { password: 'pwch-password-2' }, { token: tokens.pwch });
      assert.equal(r.status, 200, r.body.message);
      assertRefusal(await refusedListing(o), o);
      await writeRefused(o, 'pwch-after.txt');
      await waitClosed(o);
    });

    test('deleting the key the session logged in with: listing is refused, nothing is written, the connection ends', T, async () => {
      const o = await connect('keydel', 'key');
      const r = await h().post(`/api/me/sshkey/delete?id=${keyIds.keydel![0]}`, undefined, { token: tokens.keydel });
      assert.equal(r.status, 200, r.body.message);
      assertRefusal(await refusedListing(o), o);
      await writeRefused(o, 'keydel-after.txt');
      await waitClosed(o);
    });

    test('revoking the app password the session logged in with ends it; revoking another one does not', T, async () => {
      const create = async (title: string) => {
        const r = await h().post('/api/me/app_password/create', { name: title }, { token: tokens.apppw });
        assert.equal(r.status, 200, r.body.message);
        return r.body.data as { id: number; password: string };
      };
      const used = await create('laptop');
      const spare = await create('phone');
      const o = await connect('apppw', { appPassword: used.password });
      const bySpare = await connect('apppw', { appPassword: spare.password });
      const up = await startUpload(o, 'apppw-upload.bin');
      const r = await h().post(`/api/me/app_password/delete?id=${used.id}`, undefined, { token: tokens.apppw });
      assert.equal(r.status, 200, r.body.message);
      assertRefusal(await uploadRefused(o, up, 'apppw-upload.bin'), o);
      await writeRefused(o, 'apppw-after.txt');
      await waitClosed(o);
      const list = await req(bySpare, (cb) => bySpare.sftp.readdir('/', cb));
      assert.equal(list.err, null, `the other app password's session goes on: ${list.err?.message}`);
      assert.equal(bySpare.closed(), false);
      // and the revoked password no longer logs in
      await assert.rejects(ssh2Sftp(otherSftp.address.port, { username: 'apppw', password: used.password }));
    });

    test('changing the base path: the session ends rather than keep the old root', T, async () => {
      const o = await connect('based', 'key');
      await updateUser('based', { base_path: '/elsewhere' });
      assertRefusal(await refusedListing(o), o);
      await writeRefused(o, 'based-after.txt');
      await waitClosed(o);
    });

    test('a session whose rights are unchanged keeps working (another key deleted, other bits changed)', T, async () => {
      const o = await connect('steady', 'key');
      const pwSession = await connect('steady', 'password');
      const r = await h().post(`/api/me/sshkey/delete?id=${keyIds.steady![1]}`, undefined, { token: tokens.steady });
      assert.equal(r.status, 200, r.body.message);
      await updateUser('steady', { permission: SFTP_READ | SFTP_WRITE | 1 });
      // Past the re-check interval, so the sessions have re-read their rights.
      const until = Date.now() + PAST_RECHECK_MS;
      for (let i = 0; i < 100 && Date.now() < until; i++) {
        for (const s of [o, pwSession]) {
          const list = await req(s, (cb) => s.sftp.readdir('/', cb));
          assert.equal(list.err, null, list.err?.message);
        }
        await sleep(50);
      }
      for (const [s, name] of [[o, 'steady-key.txt'], [pwSession, 'steady-pw.txt']] as const) {
        const open = await req<Buffer>(s, (cb) => s.sftp.open(`/${name}`, FLAGS.WRITE | FLAGS.CREAT | FLAGS.TRUNC, cb));
        assert.equal(open.err, null, open.err?.message);
        assert.equal((await req(s, (cb) => s.sftp.write(open.value!, Buffer.from('kept'), 0, 4, 0, cb))).err, null);
        assert.equal((await req(s, (cb) => s.sftp.close(open.value!, cb))).err, null);
        assert.equal(readFileSync(join(files(), name), 'utf8'), 'kept');
      }
      assert.equal(o.closed() || pwSession.closed(), false);
    });
  });
}, { FERRY_SFTP_LISTEN: '127.0.0.1:0' });
