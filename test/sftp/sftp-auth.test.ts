/**
 * SFTP logins driven with ssh2's own Client (sshpass is not available for OpenSSH password
 * logins, and a hand-made agent lets a test offer a key without proving possession):
 * passwords and the shared lockout, `sftp_disable_password_login`, 2FA users, bit 10,
 * disabled users, and the public-key query stage. Both databases.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, test } from 'node:test';
import * as OTPAuth from 'otpauth';
import type { ParsedKey } from 'ssh2';
import { forEachDialect, type Harness } from '../support/harness.js';
import { call, keygen, SFTP_READ, SFTP_WRITE, ssh2, ssh2Connect, ssh2Sftp, type Key } from './support.js';

const T = { timeout: 120_000 };

/** An agent that offers `offered` and signs with `signer` (or refuses to sign). */
class TestAgent extends ssh2.BaseAgent {
  signCalls = 0;
  constructor(
    private readonly offered: ParsedKey,
    private readonly signer: ParsedKey | null,
  ) {
    super();
  }
  override getIdentities(cb: (err: Error | undefined, keys?: ParsedKey[]) => void): void {
    cb(undefined, [this.offered]);
  }
  override sign(_pub: ParsedKey, data: Buffer, options: unknown, cb?: (err: Error | undefined, signature?: Buffer) => void): void {
    const done = (typeof options === 'function' ? options : cb) as (err: Error | undefined, signature?: Buffer) => void;
    this.signCalls++;
    if (!this.signer) return done(new Error('this agent does not hold the private key'));
    done(undefined, this.signer.sign(data));
  }
}

function publicOf(k: Key): ParsedKey {
  const p = ssh2.utils.parseKey(k.pub);
  if (p instanceof Error || Array.isArray(p)) throw new Error('cannot parse public key');
  return p;
}

forEachDialect('sftp logins (ssh2 client)', (h: () => Harness) => {
  const port = () => h().sftp!.address.port;
  const ids: Record<string, number> = {};
  const pw = (u: string) => `${u}-password-1`;
  const tokens: Record<string, string> = {};

  async function setSetting(key: string, value: string): Promise<void> {
    const r = await h().post('/api/admin/setting/save', [{ key, value }], { token: await h().adminToken() });
    assert.equal(r.status, 200, r.body.message);
  }
  async function keyList(user: string) {
    const r = await h().get('/api/me/sshkey/list', { token: tokens[user] });
    assert.equal(r.status, 200, r.body.message);
    return r.body.data.content as Array<{ id: number; title: string; last_used_time: string }>;
  }

  before(async () => {
    for (const [name, perm, extra] of [
      ['pat', SFTP_READ | SFTP_WRITE, {}],
      ['locky', SFTP_READ, {}],
      ['otpuser', SFTP_READ, {}],
      ['nob10', 0xffff & ~SFTP_READ, {}],
      ['offline', SFTP_READ, {}],
      ['keyq', SFTP_READ, {}],
    ] as const) {
      ids[name] = await h().createUser(name, pw(name), { permission: perm, base_path: '/', ...extra });
      tokens[name] = await h().login(name, pw(name));
    }
    for (const u of ['otpuser', 'keyq', 'pat']) {
      const r = await h().post('/api/me/sshkey/add', { title: 'k', key: keygen(`${u}-auth-ed25519`, 'ed25519').pub }, { token: tokens[u] });
      assert.equal(r.status, 200, r.body.message);
    }
  });

  test('the right password logs in and opens SFTP; a wrong one is refused', T, async () => {
    const { client, sftp } = await ssh2Sftp(port(), { username: 'pat', password: pw('pat'), localAddress: '127.0.0.2' });
    try {
      const r = await call<string>((cb) => sftp.realpath('.', cb));
      assert.equal(r.err, null);
      assert.equal(r.value, '/');
      const list = await call<Array<{ filename: string }>>((cb) => sftp.readdir('/', cb));
      assert.equal(list.err, null);
      assert.ok(Array.isArray(list.value));
    } finally {
      client.end();
    }
    const wrong = await ssh2Connect(port(), { username: 'pat', password: 'not-the-password', localAddress: '127.0.0.2' });
    assert.equal(wrong.ok, false);
    assert.equal(wrong.error?.level, 'client-authentication');
    const nobody = await ssh2Connect(port(), { username: 'no-such-user', password: 'x', localAddress: '127.0.0.2' });
    assert.equal(nobody.ok, false);
    assert.equal(nobody.error?.level, 'client-authentication');
  });

  test('wrong SFTP passwords count toward the lockout: HTTP login answers 429 (username and address)', T, async () => {
    // Before: both logins work.
    assert.equal((await h().post('/api/auth/login', { username: 'locky', password: pw('locky') })).status, 200);
    assert.equal((await h().post('/api/auth/login', { username: 'pat', password: pw('pat') }, { remoteAddress: '127.0.0.3' })).status, 200);
    for (let i = 0; i < 5; i++) {
      const r = await ssh2Connect(port(), { username: 'locky', password: `wrong-${i}`, localAddress: '127.0.0.3' });
      assert.equal(r.ok, false, `attempt ${i}`);
    }
    // The username is locked, from any address …
    const http = await h().post('/api/auth/login', { username: 'locky', password: pw('locky') });
    assert.equal(http.status, 429, http.body.message);
    // … and so is the SFTP client's address, for any user (the server passed it on).
    const byAddr = await h().post('/api/auth/login', { username: 'pat', password: pw('pat') }, { remoteAddress: '127.0.0.3' });
    assert.equal(byAddr.status, 429, byAddr.body.message);
    assert.equal((await h().post('/api/auth/login', { username: 'pat', password: pw('pat') }, { remoteAddress: '127.0.0.1' })).status, 200);
    // The right password over SFTP is refused while locked.
    const right = await ssh2Connect(port(), { username: 'locky', password: pw('locky'), localAddress: '127.0.0.4' });
    assert.equal(right.ok, false);
  });

  test('sftp_disable_password_login refuses passwords; keys still work', T, async () => {
    const before = await ssh2Connect(port(), { username: 'pat', password: pw('pat'), localAddress: '127.0.0.5' });
    assert.equal(before.ok, true, before.error?.message);
    before.client.end();
    await setSetting('sftp_disable_password_login', 'true');
    try {
      const r = await ssh2Connect(port(), { username: 'pat', password: pw('pat'), localAddress: '127.0.0.5' });
      assert.equal(r.ok, false);
      assert.equal(r.error?.level, 'client-authentication');
      const key = await ssh2Connect(port(), { username: 'pat', privateKey: readFileSync(keygen('pat-auth-ed25519', 'ed25519').file), localAddress: '127.0.0.5' });
      assert.equal(key.ok, true, key.error?.message);
      key.client.end();
    } finally {
      await setSetting('sftp_disable_password_login', 'false');
    }
    const after = await ssh2Connect(port(), { username: 'pat', password: pw('pat'), localAddress: '127.0.0.5' });
    assert.equal(after.ok, true, after.error?.message);
    after.client.end();
  });

  test('a user with 2FA cannot log in by password over SFTP, only with a key', T, async () => {
    const gen = await h().post('/api/auth/2fa/generate', undefined, { token: tokens.otpuser });
    assert.equal(gen.status, 200, gen.body.message);
    const secret = gen.body.data.secret as string;
    const code = new OTPAuth.TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) }).generate();
    const v = await h().post('/api/auth/2fa/verify', { code, secret }, { token: tokens.otpuser });
    assert.equal(v.status, 200, v.body.message);
    const byPassword = await ssh2Connect(port(), { username: 'otpuser', password: pw('otpuser'), localAddress: '127.0.0.6' });
    assert.equal(byPassword.ok, false);
    const byKey = await ssh2Connect(port(), { username: 'otpuser', privateKey: readFileSync(keygen('otpuser-auth-ed25519', 'ed25519').file), localAddress: '127.0.0.6' });
    assert.equal(byKey.ok, true, byKey.error?.message);
    byKey.client.end();
  });

  test('the right password without bit 10, or of a disabled user, is refused', T, async () => {
    const nob10 = await ssh2Connect(port(), { username: 'nob10', password: pw('nob10'), localAddress: '127.0.0.7' });
    assert.equal(nob10.ok, false);
    const ok = await ssh2Connect(port(), { username: 'offline', password: pw('offline'), localAddress: '127.0.0.7' });
    assert.equal(ok.ok, true, ok.error?.message);
    ok.client.end();
    const r = await h().post('/api/admin/user/update', { id: ids.offline, username: 'offline', disabled: true }, { token: await h().adminToken() });
    assert.equal(r.status, 200, r.body.message);
    const disabled = await ssh2Connect(port(), { username: 'offline', password: pw('offline'), localAddress: '127.0.0.7' });
    assert.equal(disabled.ok, false);
  });

  test('offering a key without proving possession: answered, but no login and last_used_time untouched', T, async () => {
    const mine = keygen('keyq-auth-ed25519', 'ed25519');
    const before = (await keyList('keyq'))[0]!;
    await new Promise((r) => setTimeout(r, 10));
    // The query stage: the server says the key would do (the agent is then asked to sign) …
    const noSigner = new TestAgent(publicOf(mine), null);
    const q = await ssh2Connect(port(), { username: 'keyq', agent: noSigner, localAddress: '127.0.0.8' });
    assert.equal(q.ok, false);
    assert.equal(noSigner.signCalls, 1, 'the server must answer the query (PK_OK) for a registered key');
    assert.equal((await keyList('keyq'))[0]!.last_used_time, before.last_used_time);
    // … a signature made with another private key is refused …
    const forger = new TestAgent(publicOf(mine), keygen('forger-ed25519', 'ed25519').parsed);
    const f = await ssh2Connect(port(), { username: 'keyq', agent: forger, localAddress: '127.0.0.8' });
    assert.equal(f.ok, false);
    assert.equal(forger.signCalls, 1);
    assert.equal((await keyList('keyq'))[0]!.last_used_time, before.last_used_time);
    // … an unregistered key is not even answered …
    const stranger = new TestAgent(publicOf(keygen('forger-ed25519', 'ed25519')), keygen('forger-ed25519', 'ed25519').parsed);
    const s = await ssh2Connect(port(), { username: 'keyq', agent: stranger, localAddress: '127.0.0.8' });
    assert.equal(s.ok, false);
    assert.equal(stranger.signCalls, 0);
    // … and the real signature logs in and records the time.
    const real = new TestAgent(publicOf(mine), mine.parsed);
    const ok = await ssh2Connect(port(), { username: 'keyq', agent: real, localAddress: '127.0.0.8' });
    assert.equal(ok.ok, true, ok.error?.message);
    ok.client.end();
    const after = (await keyList('keyq'))[0]!;
    assert.ok(Date.parse(after.last_used_time) > Date.parse(before.last_used_time), `${before.last_used_time} → ${after.last_used_time}`);
  });

  test('shell and exec are refused; only the sftp subsystem is served', T, async () => {
    const login = await ssh2Connect(port(), { username: 'pat', password: pw('pat'), localAddress: '127.0.0.9' });
    assert.equal(login.ok, true, login.error?.message);
    try {
      const exec = await new Promise<Error | undefined>((resolve) => login.client.exec('id', (e) => resolve(e)));
      assert.ok(exec instanceof Error, 'exec must be refused');
      const shell = await new Promise<Error | undefined>((resolve) => login.client.shell((e) => resolve(e)));
      assert.ok(shell instanceof Error, 'shell must be refused');
    } finally {
      login.client.end();
    }
  });
}, { FERRY_SFTP_LISTEN: '127.0.0.1:0' });
