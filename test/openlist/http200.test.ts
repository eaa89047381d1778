/**
 * `api_errors_http_200`: off by default (HTTP status = code); on, every JSON error from every source (no route,
 * validation, auth, permission, storage, folder rules, lockout) goes out as HTTP 200 with the real code in the
 * body — and a wrong login password is code 400 there, which the OpenList web UI shows as a message.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachDialect } from '../support/harness.js';

forEachDialect('api_errors_http_200', (h) => {
  /** [request, expected code] pairs, one per error source. */
  const cases = (admin: string, user: string) =>
    [
      ['no route', () => h().get('/api/public/nope'), 404],
      ['validation', () => h().post('/api/fs/list', { path: 5 }, { token: admin }), 400],
      ['malformed JSON', () => h().call('POST', '/api/fs/list', { token: admin, headers: { 'content-type': 'application/json' }, body: '{' }), 400],
      ['guest disabled', () => h().get('/api/me'), 401],
      ['not an admin', () => h().get('/api/admin/setting/list', { token: user }), 403],
      ['permission bit', () => h().post('/api/fs/mkdir', { path: '/nope' }, { token: user }), 403],
      ['missing object', () => h().post('/api/fs/get', { path: '/does/not/exist' }, { token: admin }), 404],
      ['unsafe path', () => h().post('/api/fs/list', { path: '/../etc' }, { token: admin }), 403],
      ['unknown setting', () => h().get('/api/admin/setting/get?key=nope', { token: admin }), 404],
    ] as const;

  test('off (default): HTTP status equals the code', async () => {
    const admin = await h().adminToken();
    await h().createUser('plain', 'plain-pass-1', { permission: 0 });
    const user = await h().login('plain', 'plain-pass-1');
    for (const [what, send, code] of cases(admin, user)) {
      const r = await send();
      assert.equal(r.status, code, what);
      assert.equal(r.body.code, code, what);
      assert.equal(typeof r.body.message, 'string', what);
    }
    const wrong = await h().post('/api/auth/login', { username: 'plain', password: 'wrong-one' });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.code, 401);
  });

  test('on: every error is HTTP 200 with the real code and message in the body; a wrong password is code 400', async () => {
    const admin = await h().adminToken();
    const user = await h().login('plain', 'plain-pass-1');
    assert.equal((await h().post('/api/admin/setting/save', [{ key: 'api_errors_http_200', value: 'true' }], { token: admin })).status, 200);
    try {
      for (const [what, send, code] of cases(admin, user)) {
        const r = await send();
        assert.equal(r.status, 200, what);
        assert.equal(r.body.code, code, what);
        assert.ok(r.body.message.length > 0 && !/status code/.test(r.body.message), what);
        assert.equal(r.body.data, null, what);
      }
      const wrong = await h().post('/api/auth/login/hash', { username: 'plain', password: '0'.repeat(64) });
      assert.equal(wrong.status, 200);
      assert.equal(wrong.body.code, 400);
      assert.equal(wrong.body.message, 'Invalid username or password');
      // successes are untouched
      const ok = await h().get('/api/public/settings');
      assert.equal(ok.body.code, 200);
    } finally {
      await h().post('/api/admin/setting/save', [{ key: 'api_errors_http_200', value: 'false' }], { token: admin });
    }
    assert.equal((await h().get('/api/me')).status, 401);
  });
});
