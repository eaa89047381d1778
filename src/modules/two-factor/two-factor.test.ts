import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, test } from 'node:test';
import { requireCommand, run } from '../../../test/support/commands.js';
import { forEachDialect, type Harness } from '../../../test/support/harness.js';
import { staticHash } from '../auth/password.js';

const PERIOD_MS = 30_000;
const INVALID = 'Invalid 2FA code';

let workDir: string | null = null;
const dir = () => (workDir ??= mkdtempSync(join(tmpdir(), 'ferry-2fa-')));
after(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

/** The TOTP step the wall clock is in right now. */
const stepNow = () => Math.floor(Date.now() / PERIOD_MS);
const msLeftInStep = () => PERIOD_MS - (Date.now() % PERIOD_MS);

/** oathtool's code for `secret` in the given step (the step's first second), or for "now". */
function oathtool(secret: string, step?: number): string {
  requireCommand('oathtool', 'oathtool');
  const args = ['--totp', '-b', secret];
  if (step !== undefined) args.push('-N', `@${step * 30}`);
  const code = run('oathtool', args).trim();
  assert.match(code, /^\d{6}$/);
  return code;
}

/** A six-digit code that is none of the codes valid around now (±2 steps). */
function wrongCode(secret: string): string {
  const s = stepNow();
  const valid = new Set([-2, -1, 0, 1, 2].map((d) => oathtool(secret, s + d)));
  return ['000000', '123456', '999999', '555555'].find((c) => !valid.has(c))!;
}

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Buffer): { width: number; height: number } {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  assert.equal(png.subarray(12, 16).toString('latin1'), 'IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

function decodeQr(dataUrl: string, name: string): string {
  requireCommand('zbarimg', 'zbar-tools');
  const prefix = 'data:image/png;base64,';
  assert.ok(dataUrl.startsWith(prefix), `qr is not a PNG data URL: ${dataUrl.slice(0, 40)}`);
  const png = Buffer.from(dataUrl.slice(prefix.length), 'base64');
  const { width, height } = pngSize(png);
  assert.ok(width >= 256, `QR is only ${width} px wide`);
  assert.equal(height, width);
  const file = join(dir(), `${name}.png`);
  writeFileSync(file, png);
  const out = run('zbarimg', ['-q', '--raw', '--nodbus', file]);
  assert.ok(out.endsWith('\n'));
  const lines = out.slice(0, -1).split('\n');
  assert.equal(lines.length, 1, `expected one symbol, got ${JSON.stringify(out)}`);
  return lines[0]!;
}

forEachDialect('two-factor', (h: () => Harness) => {
  let admin = '';

  /** Creates a user, logs in, generates a secret and enables 2FA with oathtool's current code. */
  async function userWith2fa(name: string): Promise<{ id: number; token: string; secret: string }> {
    const id = await h().createUser(name, `${name}-pw`);
    const token = await h().login(name, `${name}-pw`);
    const g = await h().post('/api/auth/2fa/generate', undefined, { token });
    assert.equal(g.status, 200, g.body.message);
    const secret = g.body.data.secret as string;
    const v = await h().post('/api/auth/2fa/verify', { code: oathtool(secret), secret }, { token });
    assert.equal(v.status, 200, v.body.message);
    return { id, token, secret };
  }
  const me = async (token: string) => {
    const r = await h().get('/api/me', { token });
    assert.equal(r.status, 200, r.body.message);
    return r.body.data as { id: number; username: string; otp: boolean };
  };
  let ip = 0;
  /** A login from a fresh client address, so address lockout never interferes. */
  const login = (username: string, password: string, otp_code?: string) =>
    h().post('/api/auth/login', { username, password, ...(otp_code !== undefined ? { otp_code } : {}) }, { remoteAddress: `10.66.${Math.floor(++ip / 250)}.${(ip % 250) + 1}` });
  const assert402 = (r: Awaited<ReturnType<typeof login>>, label: string) => {
    assert.equal(r.status, 402, `${label}: ${r.status} ${r.body.message}`);
    assert.deepEqual(r.body, { code: 402, message: INVALID, data: null }, label);
  };

  test('setup', async () => {
    admin = await h().adminToken();
    assert.ok(admin);
  });

  // ---- main flow: one user, tests run in order ----
  let token = '';
  let secret = '';
  let verifyStep = 0;
  let verifyCode = '';
  let nextCode = '';

  test('generate: a 32-char base32 secret and a ≥256 px PNG QR of the exact otpauth URI; nothing stored', async () => {
    await h().createUser('totp-alice', 'alice-pw');
    token = await h().login('totp-alice', 'alice-pw');
    const r = await h().post('/api/auth/2fa/generate', undefined, { token });
    assert.equal(r.status, 200, r.body.message);
    assert.deepEqual(Object.keys(r.body.data).sort(), ['qr', 'secret']);
    secret = r.body.data.secret;
    assert.match(secret, /^[A-Z2-7]{32}$/);

    const uri = decodeQr(r.body.data.qr, 'alice');
    const u = new URL(uri);
    assert.equal(u.protocol, 'otpauth:');
    assert.equal(u.host, 'totp');
    assert.equal(decodeURIComponent(u.pathname), '/Ferry:totp-alice');
    assert.deepEqual(
      [...u.searchParams.entries()].sort(),
      [
        ['algorithm', 'SHA1'],
        ['digits', '6'],
        ['issuer', 'Ferry'],
        ['period', '30'],
        ['secret', secret],
      ],
    );
    assert.ok(uri.startsWith('otpauth://totp/'));
    assert.ok(uri.includes(`secret=${secret}`));
    assert.ok(uri.includes('issuer=Ferry'));
    assert.ok(uri.includes('totp-alice'));

    // a second call gives another secret; nothing is stored by either
    const again = await h().post('/api/auth/2fa/generate', undefined, { token });
    assert.equal(again.status, 200);
    assert.notEqual(again.body.data.secret, secret);
    assert.equal((await me(token)).otp, false);
  });

  test('verify: a wrong code or a bad secret is 400 and leaves 2FA off', async () => {
    const wrong = await h().post('/api/auth/2fa/verify', { code: wrongCode(secret), secret }, { token });
    assert.equal(wrong.status, 400);
    assert.deepEqual(wrong.body, { code: 400, message: INVALID, data: null });
    // the right code for another secret
    const other = await h().post('/api/auth/2fa/generate', undefined, { token });
    const crossed = await h().post('/api/auth/2fa/verify', { code: oathtool(other.body.data.secret), secret }, { token });
    assert.equal(crossed.status, 400);
    assert.equal(crossed.body.message, INVALID);
    for (const code of ['', 'abcdef', '12345', '1234567']) {
      const r = await h().post('/api/auth/2fa/verify', { code, secret }, { token });
      assert.equal(r.status, 400, `code ${JSON.stringify(code)}`);
    }
    const badSecret = await h().post('/api/auth/2fa/verify', { code: '123456', secret: 'not base32!' }, { token });
    assert.equal(badSecret.status, 400);
    const missing = await h().post('/api/auth/2fa/verify', { code: '123456' }, { token });
    assert.equal(missing.status, 400);
    assert.match(missing.body.message, /secret/);
    assert.equal((await me(token)).otp, false);
  });

  test('verify with the current code: 200, otp true; again 409', async () => {
    verifyStep = stepNow();
    verifyCode = oathtool(secret, verifyStep);
    const r = await h().post('/api/auth/2fa/verify', { code: verifyCode, secret }, { token });
    assert.equal(r.status, 200, r.body.message);
    assert.deepEqual(r.body, { code: 200, message: 'success', data: null });
    const m = await me(token);
    assert.equal(m.otp, true);
    assert.equal(m.username, 'totp-alice');
    // already on: 409, whatever the code
    const again = await h().post('/api/auth/2fa/verify', { code: oathtool(secret, verifyStep + 1), secret }, { token });
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 409);
    const otherSecret = (await h().post('/api/auth/2fa/generate', undefined, { token })).body.data.secret as string;
    const again2 = await h().post('/api/auth/2fa/verify', { code: oathtool(otherSecret), secret: otherSecret }, { token });
    assert.equal(again2.status, 409);
    assert.equal((await me(token)).otp, true);
  });

  test('login: no code, a wrong code and the code used at verify are 402; the next step\'s code works once', async () => {
    nextCode = oathtool(secret, verifyStep + 1);
    // (at most 4 failures before the success below, which clears the username counter)
    assert402(await login('totp-alice', 'alice-pw'), 'no otp_code');
    assert402(await login('totp-alice', 'alice-pw', wrongCode(secret)), 'wrong code');
    // the verify code is still inside the ±1 window (less than 30 s passed), so only replay protection refuses it
    assert.ok(stepNow() <= verifyStep + 1, 'test too slow: the verify code left its window');
    assert402(await login('totp-alice', 'alice-pw', verifyCode), 'replayed verify code');
    // a wrong password is 401 even with a good code (password before 2FA), and does not burn the code
    const badPw = await login('totp-alice', 'wrong-pw', nextCode);
    assert.equal(badPw.status, 401);
    assert.equal(badPw.body.message, 'Invalid username or password');

    const ok = await login('totp-alice', 'alice-pw', nextCode);
    assert.equal(ok.status, 200, ok.body.message);
    const t = ok.body.data.token as string;
    assert.equal((await me(t)).username, 'totp-alice');

    assert.ok(stepNow() <= verifyStep + 2, 'test too slow: the next code left its window');
    assert402(await login('totp-alice', 'alice-pw', nextCode), 'replayed login code');
    // the hash login shares the same rules
    const hash = await h().post('/api/auth/login/hash', {
      username: 'totp-alice',
      password: staticHash('alice-pw'),
      otp_code: nextCode,
    }, { remoteAddress: '10.67.0.1' });
    assert402(hash, 'replayed code on /login/hash');
    assert402(await login('totp-alice', 'alice-pw', ''), 'empty otp_code');
  });

  test('disable: a wrong or already-used code is 400; a fresh code turns 2FA off; login needs no code', async () => {
    const wrong = await h().post('/api/auth/2fa/disable', { code: wrongCode(secret) }, { token });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.message, INVALID);
    assert.ok(stepNow() <= verifyStep + 2, 'test too slow');
    const replay = await h().post('/api/auth/2fa/disable', { code: nextCode }, { token });
    assert.equal(replay.status, 400, 'a code already accepted at login must not disable 2FA');
    assert.equal(replay.body.message, INVALID);
    assert.equal((await me(token)).otp, true);

    // pick an unused step inside the server's ±1 window; prefer later steps (a step
    // boundary passing meanwhile keeps them valid). Only "now - 30 s" is at risk near a
    // boundary: then wait for the next step (at most ~3 s).
    const used = new Map([[verifyStep, verifyCode], [verifyStep + 1, nextCode]]);
    const pick = () => {
      const m = stepNow();
      for (const s of [m + 1, m, m - 1]) {
        const code = oathtool(secret, s);
        if (!used.has(s) && ![...used.values()].includes(code)) return { s, m, code };
      }
      throw new Error('no unused step');
    };
    let choice = pick();
    if (choice.s === choice.m - 1 && msLeftInStep() < 3000) {
      await sleep(msLeftInStep() + 300);
      choice = pick();
    }
    const r = await h().post('/api/auth/2fa/disable', { code: choice.code }, { token });
    assert.equal(r.status, 200, `${r.status} ${r.body.message} (step ${choice.s - choice.m} from now)`);
    assert.equal((await me(token)).otp, false);
    const plain = await login('totp-alice', 'alice-pw');
    assert.equal(plain.status, 200, plain.body.message);
    // and disabling again is refused: 2FA is off
    const off = await h().post('/api/auth/2fa/disable', { code: oathtool(secret) }, { token });
    assert.notEqual(off.status, 200);
    assert.equal(off.body.code, off.status);
  });

  test('admin cancel_2fa turns it off for another user; non-admin 403, unknown id 404', async () => {
    const bob = await userWith2fa('totp-bob');
    assert.equal((await me(bob.token)).otp, true);
    assert402(await login('totp-bob', 'totp-bob-pw'), 'bob without code');

    await h().createUser('totp-carol', 'carol-pw');
    const carolToken = await h().login('totp-carol', 'carol-pw');
    for (const t of [bob.token, carolToken]) {
      const r = await h().post(`/api/admin/user/cancel_2fa?id=${bob.id}`, undefined, { token: t });
      assert.equal(r.status, 403);
      assert.equal(r.body.code, 403);
    }
    assert.equal((await me(bob.token)).otp, true);

    const unknown = await h().post('/api/admin/user/cancel_2fa?id=999999', undefined, { token: admin });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.code, 404);
    const bad = await h().post('/api/admin/user/cancel_2fa?id=abc', undefined, { token: admin });
    assert.equal(bad.status, 400);

    const r = await h().post(`/api/admin/user/cancel_2fa?id=${bob.id}`, undefined, { token: admin });
    assert.equal(r.status, 200, r.body.message);
    assert.deepEqual(r.body, { code: 200, message: 'success', data: null });
    assert.equal((await me(bob.token)).otp, false);
    const plain = await login('totp-bob', 'totp-bob-pw');
    assert.equal(plain.status, 200, plain.body.message);
    // the admin view agrees
    const got = await h().get(`/api/admin/user/get?id=${bob.id}`, { token: admin });
    assert.equal(got.body.data.otp, false);
  });

  test('2FA failures count toward the lockout: 5 × 402 lock the username (429)', async () => {
    const dave = await userWith2fa('totp-dave');
    for (let i = 0; i < 5; i++) assert402(await login('totp-dave', 'totp-dave-pw', wrongCode(dave.secret)), `attempt ${i + 1}`);
    const locked = await login('totp-dave', 'totp-dave-pw', oathtool(dave.secret, stepNow() + 1));
    assert.equal(locked.status, 429);
    assert.equal(locked.body.code, 429);
  });

  test('guest: 403 on generate/verify/disable while enabled, 401 while disabled', async () => {
    const users = (await h().get('/api/admin/user/list', { token: admin })).body.data.content as Array<{ id: number; role: number }>;
    const guest = users.find((u) => u.role === 1)!;
    const setGuest = async (disabled: boolean) => {
      const r = await h().post('/api/admin/user/update', { id: guest.id, username: 'guest', disabled }, { token: admin });
      assert.equal(r.status, 200, r.body.message);
    };
    const calls = () =>
      Promise.all([
        h().post('/api/auth/2fa/generate'),
        h().post('/api/auth/2fa/verify', { code: '123456', secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP' }),
        h().post('/api/auth/2fa/disable', { code: '123456' }),
      ]);
    for (const r of await calls()) {
      assert.equal(r.status, 401);
      assert.equal(r.body.message, 'Guest user is disabled, login please');
    }
    await setGuest(false);
    try {
      const [gen, ver, dis] = await calls();
      for (const r of [gen!, ver!, dis!]) {
        assert.equal(r.status, 403, `${r.status} ${r.body.message}`);
        assert.equal(r.body.code, 403);
        assert.equal(r.body.data, null);
      }
    } finally {
      await setGuest(true);
    }
    const g = await h().get(`/api/admin/user/get?id=${guest.id}`, { token: admin });
    assert.equal(g.body.data.otp, false);
    assert.equal(g.body.data.disabled, true);
  });
});
