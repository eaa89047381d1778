/**
 * Bursts against the sign-in paths (issue #16, items 5, 6 and 10):
 * - however many guesses arrive at once, at most five are checked per key and window (passwords, login codes,
 *   and codes sent to 2FA disable);
 * - a burst of logins hashes on its own worker, so a file read in the middle of it is not queued behind it;
 * - a seed listing 100,000 files is parsed off the event loop, and `seed_max_files` caps what is accepted.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import * as OTPAuth from 'otpauth';
import { forEachDialect, type Harness } from '../support/harness.js';
import { encodeBencode } from '../../src/modules/seeds/formats/index.js';

const totp = (secret: string) => new OTPAuth.TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) });

/** `n` six-digit codes none of which is valid for `secret` in the ±1 window around now. */
function wrongCodes(secret: string, n: number): string[] {
  const t = totp(secret);
  const valid = new Set([-1, 0, 1, 2].map((d) => t.generate({ timestamp: Date.now() + d * 30_000 })));
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    const c = String(100_000 + i * 7919).slice(-6).padStart(6, '1');
    if (!valid.has(c) && !out.includes(c)) out.push(c);
  }
  return out;
}

const count = (statuses: number[], s: number) => statuses.filter((x) => x === s).length;

async function withTwoFactor(h: Harness, name: string): Promise<{ token: string; secret: string }> {
  await h.createUser(name, `${name}-pass-1`);
  const token = await h.login(name, `${name}-pass-1`);
  const g = await h.post('/api/auth/2fa/generate', {}, { token });
  assert.equal(g.status, 200, g.body.message);
  const secret = g.body.data.secret as string;
  const v = await h.post('/api/auth/2fa/verify', { code: totp(secret).generate(), secret }, { token });
  assert.equal(v.status, 200, v.body.message);
  return { token, secret };
}

/** A torrent listing `n` one-byte files. */
function torrentListing(n: number): Buffer {
  const files = [];
  for (let i = 0; i < n; i++) files.push(new Map<string, unknown>([['length', 1], ['path', [Buffer.from(`d${i % 100}`), Buffer.from(`f${i}`)]]]));
  const pieceLength = 16384;
  const info = new Map<string, unknown>([
    ['files', files],
    ['name', Buffer.from('many')],
    ['piece length', pieceLength],
    ['pieces', Buffer.alloc(20 * Math.ceil(n / pieceLength), 1)],
  ]);
  return Buffer.from(encodeBencode(new Map<string, unknown>([['info', info]]) as never));
}

forEachDialect('bursts against sign-in and seeds', (h) => {
  let admin = '';
  before(async () => {
    admin = await h().adminToken();
  });

  test('40 wrong passwords at once: five are checked, the rest are 429, and then the right password is refused', async () => {
    await h().createUser('burst', 'burst-pass-1');
    const statuses = (
      await Promise.all(Array.from({ length: 40 }, (_, i) => h().post('/api/auth/login', { username: 'burst', password: `wrong-${i}` }, { remoteAddress: `10.77.0.${i + 1}` })))
    ).map((r) => r.status);
    assert.equal(count(statuses, 401), 5, statuses.join());
    assert.equal(count(statuses, 429), 35, statuses.join());
    assert.equal((await h().post('/api/auth/login', { username: 'burst', password: 'burst-pass-1' }, { remoteAddress: '10.77.1.1' })).status, 429);
  });

  test('100 wrong login codes at once: five are checked, then the right code is refused', async () => {
    const { secret } = await withTwoFactor(h(), 'otpburst');
    const codes = wrongCodes(secret, 100);
    const statuses = (
      await Promise.all(codes.map((otp_code, i) => h().post('/api/auth/login', { username: 'otpburst', password: 'otpburst-pass-1', otp_code }, { remoteAddress: `10.78.${i >> 6}.${(i & 63) + 1}` })))
    ).map((r) => r.status);
    assert.equal(count(statuses, 402), 5, statuses.join());
    assert.equal(count(statuses, 429), 95, statuses.join());
    const right = await h().post('/api/auth/login', { username: 'otpburst', password: 'otpburst-pass-1', otp_code: totp(secret).generate() }, { remoteAddress: '10.78.9.9' });
    assert.equal(right.status, 429);
  });

  test('100 wrong codes at once to 2FA disable: five are checked, the rest 429; 2FA stays on', async () => {
    const { token, secret } = await withTwoFactor(h(), 'otpoff');
    const statuses = (await Promise.all(wrongCodes(secret, 100).map((code) => h().post('/api/auth/2fa/disable', { code }, { token })))).map((r) => r.status);
    assert.equal(count(statuses, 400), 5, statuses.join());
    assert.equal(count(statuses, 429), 95, statuses.join());
    const right = await h().post('/api/auth/2fa/disable', { code: totp(secret).generate() }, { token });
    assert.equal(right.status, 429);
    assert.equal((await h().get('/api/me', { token })).body.data.otp, true);
  });

  test('a file read in the middle of 60 logins is not queued behind their password hashing', async () => {
    const put = await h().app.inject({ method: 'PUT', url: '/api/fs/put', headers: { authorization: admin, 'file-path': '/burst.txt' }, payload: 'during the burst' });
    assert.equal(put.statusCode, 200, put.body);
    const get = await h().post('/api/fs/get', { path: '/burst.txt' }, { token: admin });
    const rawUrl = new URL(get.body.data.raw_url as string);
    let pending = 60;
    const logins = Array.from({ length: 60 }, (_, i) =>
      h()
        .post('/api/auth/login', { username: `nobody-${i}`, password: 'wrong' }, { remoteAddress: `10.79.0.${i + 1}` })
        .finally(() => pending--),
    );
    await new Promise((r) => setImmediate(r));
    const read = await h().app.inject({ method: 'GET', url: rawUrl.pathname + rawUrl.search });
    const pendingAtRead = pending;
    assert.equal(read.statusCode, 200);
    assert.equal(read.body, 'during the burst');
    const done = await Promise.all(logins);
    assert.ok(done.every((r) => r.status === 401));
    assert.ok(pendingAtRead >= 30, `the read finished with only ${pendingAtRead} of 60 logins still hashing`);
  });

  test('a seed of 100,000 files is parsed off the event loop; seed_max_files caps what is accepted', async () => {
    const huge = torrentListing(100_000).toString('base64');
    let previewDone = false;
    const preview = h()
      .post('/api/fs/seed/parse', { seed_data: huge, format: 'torrent' }, { token: admin })
      .finally(() => (previewDone = true));
    let pings = 0;
    for (let i = 0; i < 200 && !previewDone; i++) {
      assert.equal((await h().app.inject({ method: 'GET', url: '/ping' })).statusCode, 200);
      if (!previewDone) pings++;
    }
    const r = await preview;
    assert.equal(r.status, 200, r.body.message);
    assert.equal(r.body.data.files.length ?? r.body.data.file_count, 100_000);
    assert.ok(pings >= 10, `only ${pings} pings were answered while the seed was parsed`);

    const saved = await h().post('/api/admin/setting/save', [{ key: 'seed_max_files', value: '1000' }], { token: admin });
    assert.equal(saved.status, 200, saved.body.message);
    const over = await h().post('/api/fs/seed/parse', { seed_data: torrentListing(1001).toString('base64'), format: 'torrent' }, { token: admin });
    assert.equal(over.status, 400);
    assert.match(over.body.message, /1001 files, more than this server accepts \(seed_max_files = 1000\)/);
    const at = await h().post('/api/fs/seed/parse', { seed_data: torrentListing(1000).toString('base64'), format: 'torrent' }, { token: admin });
    assert.equal(at.status, 200, at.body.message);
  });
});
