import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { decodeJwt } from 'jose';
import { ADMIN_PASSWORD, forEachDialect } from '../../../test/support/harness.js';
import { LOCKED_MESSAGE } from './auth.service.js';

const hashOf = (pw: string) => createHash('sha256').update(`${pw}-https://github.com/alist-org/alist`).digest('hex');

forEachDialect('login and tokens', (h) => {
  test('plain login returns a JWT with the contract claims and a 48 h default lifetime', async () => {
    const r = await h().post('/api/auth/login', { username: 'admin', password: ADMIN_PASSWORD });
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body), ['code', 'message', 'data']);
    assert.equal(r.body.message, 'success');
    const claims = decodeJwt(r.body.data.token);
    for (const k of ['username', 'pwd_ts', 'jti', 'iat', 'nbf', 'exp']) assert.ok(k in claims, `claim ${k}`);
    assert.equal(claims.username, 'admin');
    assert.equal(claims.exp! - claims.iat!, 48 * 3600);
  });

  test('hash login accepts the static hash in lower and upper case, refuses the plain password', async () => {
    await h().createUser('hasher', 'p4ss-word');
    for (const pw of [hashOf('p4ss-word'), hashOf('p4ss-word').toUpperCase()]) {
      const r = await h().post('/api/auth/login/hash', { username: 'hasher', password: pw });
      assert.equal(r.status, 200, r.body.message);
    }
    const plain = await h().post('/api/auth/login/hash', { username: 'hasher', password: 'p4ss-word' });
    assert.equal(plain.status, 401);
  });

  test('unknown user and wrong password give the same 401', async () => {
    const a = await h().post('/api/auth/login', { username: 'nobody-here', password: 'x' }, { remoteAddress: '10.0.0.1' });
    const b = await h().post('/api/auth/login', { username: 'admin', password: 'wrong' }, { remoteAddress: '10.0.0.2' });
    assert.equal(a.status, 401);
    assert.deepEqual(a.body, b.body);
    assert.equal(a.body.message, 'Invalid username or password');
  });

  test('a disabled user is refused at login with 403 after the password check', async () => {
    const id = await h().createUser('sleeper', 'pw-sleeper', { disabled: true });
    const good = await h().post('/api/auth/login', { username: 'sleeper', password: 'pw-sleeper' });
    assert.equal(good.status, 403);
    assert.equal(good.body.message, 'user is disabled');
    const bad = await h().post('/api/auth/login', { username: 'sleeper', password: 'nope' });
    assert.equal(bad.status, 401);
    assert.ok(id > 0);
  });

  test('validation: missing field, wrong type, malformed JSON are 400 naming the field', async () => {
    const missing = await h().post('/api/auth/login', { username: 'admin' });
    assert.equal(missing.status, 400);
    assert.match(missing.body.message, /password/);
    const wrongType = await h().post('/api/auth/login', { username: 42, password: 'x' });
    assert.equal(wrongType.status, 400);
    assert.match(wrongType.body.message, /username/);
    const malformed = await h().call('POST', '/api/auth/login', { body: '{"username":', headers: { 'content-type': 'application/json' } });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.code, 400);
    assert.match(malformed.body.message, /JSON/);
  });

  test('Authorization accepts the raw token and a Bearer prefix; garbage is 401', async () => {
    const t = await h().adminToken();
    assert.equal((await h().get('/api/me', { token: t })).status, 200);
    assert.equal((await h().get('/api/me', { token: `Bearer ${t}` })).status, 200);
    const bad = await h().get('/api/me', { token: 'not-a-token' });
    assert.equal(bad.status, 401);
    assert.equal(bad.body.code, 401);
  });

  test('a token signed with another key is refused', async () => {
    const t = await h().adminToken();
    const [head, payload] = t.split('.');
    const forged = `${head}.${payload}.${Buffer.from('x'.repeat(32)).toString('base64url')}`;
    assert.equal((await h().get('/api/me', { token: forged })).status, 401);
  });

  test('logout revokes exactly that token', async () => {
    const t1 = await h().adminToken();
    const t2 = await h().adminToken();
    assert.equal((await h().get('/api/auth/logout', { token: t1 })).status, 200);
    const after = await h().get('/api/me', { token: t1 });
    assert.equal(after.status, 401);
    assert.equal(after.body.message, 'token is invalidated');
    assert.equal((await h().get('/api/me', { token: t2 })).status, 200);
  });

  test('a logged-out token of a user deleted since is still "token is invalidated"', async () => {
    const id = await h().createUser('leaver', 'leaver-pw');
    const t = await h().login('leaver', 'leaver-pw');
    assert.equal((await h().get('/api/auth/logout', { token: t })).status, 200);
    assert.equal((await h().post(`/api/admin/user/delete?id=${id}`, undefined, { token: await h().adminToken() })).status, 200);
    const r = await h().get('/api/me', { token: t });
    assert.equal(r.status, 401);
    assert.equal(r.body.message, 'token is invalidated');
  });

  test('a password change kills older tokens', async () => {
    await h().createUser('changer', 'old-password');
    const t = await h().login('changer', 'old-password');
    const upd = await h().post('/api/me/update', { password: 'new-password' }, { token: t });
    assert.equal(upd.status, 200);
    const r = await h().get('/api/me', { token: t });
    assert.equal(r.status, 401);
    assert.equal(r.body.message, 'Password has been changed, login please');
    assert.equal((await h().post('/api/auth/login', { username: 'changer', password: 'old-password' })).status, 401);
    const t2 = await h().login('changer', 'new-password');
    assert.equal((await h().get('/api/me', { token: t2 })).status, 200);
  });

  test('disabling or deleting a user kills their tokens', async () => {
    const id = await h().createUser('doomed', 'doomed-pw');
    const t = await h().login('doomed', 'doomed-pw');
    const admin = await h().adminToken();
    const upd = await h().post('/api/admin/user/update', { id, username: 'doomed', disabled: true }, { token: admin });
    assert.equal(upd.status, 200, upd.body.message);
    assert.equal((await h().get('/api/me', { token: t })).status, 401);
    await h().post('/api/admin/user/update', { id, username: 'doomed', disabled: false }, { token: admin });
    assert.equal((await h().get('/api/me', { token: t })).status, 200);
    assert.equal((await h().post(`/api/admin/user/delete?id=${id}`, undefined, { token: admin })).status, 200);
    assert.equal((await h().get('/api/me', { token: t })).status, 401);
  });

  test('the admin API token setting authenticates as admin', async () => {
    const admin = await h().adminToken();
    const token = (await h().get('/api/admin/setting/get?key=token', { token: admin })).body.data.value as string;
    assert.ok(token.length > 32);
    const me = await h().get('/api/me', { token });
    assert.equal(me.status, 200);
    assert.equal(me.body.data.username, 'admin');
  });

  test('no header means the guest: 401 while disabled', async () => {
    const r = await h().get('/api/me');
    assert.equal(r.status, 401);
    assert.equal(r.body.message, 'Guest user is disabled, login please');
  });

  test('api_errors_http_200 sends errors with HTTP 200 and the real code in the body', async () => {
    const admin = await h().adminToken();
    await h().post('/api/admin/setting/save', [{ key: 'api_errors_http_200', value: 'true' }], { token: admin });
    try {
      const r = await h().get('/api/me');
      assert.equal(r.status, 200);
      assert.equal(r.body.code, 401);
    } finally {
      await h().post('/api/admin/setting/save', [{ key: 'api_errors_http_200', value: 'false' }], { token: admin });
    }
    assert.equal((await h().get('/api/me')).status, 401);
  });

  test('short token_expires_in: the token expires', async () => {
    const admin = await h().adminToken();
    await h().post('/api/admin/setting/save', [{ key: 'token_expires_in', value: '0.0003' }], { token: admin });
    await sleep(1100); // settings are cached for up to a second
    let t: string;
    try {
      t = await h().adminToken();
    } finally {
      await h().post('/api/admin/setting/save', [{ key: 'token_expires_in', value: '48' }], { token: admin });
    }
    const claims = decodeJwt(t);
    assert.ok(claims.exp! - claims.iat! <= 2);
    await sleep(2200);
    const r = await h().get('/api/me', { token: t });
    assert.equal(r.status, 401);
    assert.equal(r.body.message, 'token is expired');
  });
});

forEachDialect('login lockout', (h) => {
  test('5 failures for one username lock it for every address, even with the right password', async () => {
    await h().createUser('victim', 'victim-pw');
    for (let i = 0; i < 5; i++) {
      const r = await h().post('/api/auth/login', { username: 'victim', password: 'bad' }, { remoteAddress: `10.1.0.${i + 1}` });
      assert.equal(r.status, 401, `attempt ${i + 1}`);
    }
    const locked = await h().post('/api/auth/login', { username: 'victim', password: 'victim-pw' }, { remoteAddress: '10.1.9.9' });
    assert.equal(locked.status, 429);
    assert.equal(locked.body.message, LOCKED_MESSAGE);
    // The lock lives in the database: expire it there and the right password works again.
    await h().ctx.database.db.updateTable('auth_locks').set({ until: Date.now() - 1 }).execute();
    assert.equal((await h().post('/api/auth/login', { username: 'victim', password: 'victim-pw' }, { remoteAddress: '10.1.9.9' })).status, 200);
  });

  test('5 failures arriving at the same moment still lock (counted one after the other)', async () => {
    for (let round = 0; round < 5; round++) {
      const name = `racer${round}`;
      await h().createUser(name, `${name}-pw`);
      const rs = await Promise.all(
        Array.from({ length: 5 }, (_, i) => h().post('/api/auth/login', { username: name, password: 'bad' }, { remoteAddress: `10.4.${round}.${i + 1}` })),
      );
      for (const r of rs) assert.equal(r.status, 401);
      const locked = await h().post('/api/auth/login', { username: name, password: `${name}-pw` }, { remoteAddress: '10.4.9.9' });
      assert.equal(locked.status, 429, `round ${round}: not locked after 5 simultaneous failures`);
    }
  });

  test('5 failures from one address lock that address for every username', async () => {
    await h().createUser('bystander', 'bystander-pw');
    for (let i = 0; i < 5; i++) {
      const r = await h().post('/api/auth/login', { username: `ghost${i}`, password: 'bad' }, { remoteAddress: '10.2.0.1' });
      assert.equal(r.status, 401);
    }
    const fromBad = await h().post('/api/auth/login', { username: 'bystander', password: 'bystander-pw' }, { remoteAddress: '10.2.0.1' });
    assert.equal(fromBad.status, 429);
    const elsewhere = await h().post('/api/auth/login', { username: 'bystander', password: 'bystander-pw' }, { remoteAddress: '10.2.0.2' });
    assert.equal(elsewhere.status, 200);
  });

  test('failures older than 15 minutes do not count; a success clears the username counter', async () => {
    await h().createUser('forgetful', 'forgetful-pw');
    const { db } = h().ctx.database;
    await db.insertInto('auth_failures').values([1, 2, 3, 4].map(() => ({ key: 'user:forgetful', at: Date.now() - 16 * 60_000 }))).execute();
    const r1 = await h().post('/api/auth/login', { username: 'forgetful', password: 'bad' }, { remoteAddress: '10.3.0.1' });
    assert.equal(r1.status, 401);
    assert.equal((await h().post('/api/auth/login', { username: 'forgetful', password: 'forgetful-pw' }, { remoteAddress: '10.3.0.2' })).status, 200);
    for (let i = 0; i < 4; i++) await h().post('/api/auth/login', { username: 'forgetful', password: 'bad' }, { remoteAddress: `10.3.1.${i}` });
    assert.equal((await h().post('/api/auth/login', { username: 'forgetful', password: 'forgetful-pw' }, { remoteAddress: '10.3.2.1' })).status, 200);
  });
});
