/**
 * Share passwords (issue #16, item 7): wrong codes are limited per share and per client address like logins
 * (5 per 15 minutes, then 429); a request without a code is no guess; the right code gives its attempt back.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { forEachDialect } from '../support/harness.js';

forEachDialect('share password guesses', (h) => {
  let admin = '';
  const sd = (id: string, pwd: string | null, ip: string) =>
    h().app.inject({ method: 'GET', url: `/sd/${id}${pwd === null ? '' : `?pwd=${encodeURIComponent(pwd)}`}`, remoteAddress: ip });
  const share = async (file: string, pwd: string): Promise<string> => {
    const r = await h().post('/api/share/create', { files: [file], pwd }, { token: admin });
    assert.equal(r.status, 200, r.body.message);
    return r.body.data.id;
  };

  before(async () => {
    admin = await h().adminToken();
    for (const f of ['a', 'b', 'c']) {
      const r = await h().app.inject({ method: 'PUT', url: '/api/fs/put', headers: { authorization: admin, 'file-path': `/s/${f}.txt` }, payload: `file ${f}` });
      assert.equal(r.statusCode, 200, r.body);
    }
  });

  test('five wrong codes lock the share (429, even for the right code from elsewhere); missing codes do not count', async () => {
    const id = await share('/s/a.txt', 'open sesame');
    for (let i = 0; i < 8; i++) assert.equal((await sd(id, null, '198.51.100.1')).statusCode, 403, 'no code: asked for one, not counted');
    assert.equal((await sd(id, 'open sesame', '198.51.100.1')).statusCode, 200);
    // the right code gives its attempt back: five wrong ones are still allowed after it
    const wrong = [];
    for (let i = 0; i < 6; i++) wrong.push((await sd(id, `guess-${i}`, `198.51.100.${10 + i}`)).statusCode);
    assert.deepEqual(wrong, [403, 403, 403, 403, 403, 429]);
    const locked = await sd(id, 'open sesame', '198.51.100.99');
    assert.equal(locked.statusCode, 429);
    assert.match(locked.json().message, /too many wrong share codes/);
  });

  test('five wrong codes from one address lock that address for every share, not other addresses', async () => {
    const b = await share('/s/b.txt', 'bee');
    const c = await share('/s/c.txt', 'sea');
    const wrong = [];
    for (let i = 0; i < 5; i++) wrong.push((await sd(i % 2 ? b : c, `nope-${i}`, '203.0.113.5')).statusCode);
    assert.deepEqual(wrong, [403, 403, 403, 403, 403]);
    assert.equal((await sd(b, 'bee', '203.0.113.5')).statusCode, 429);
    assert.equal((await sd(b, 'bee', '203.0.113.6')).statusCode, 200);
    // a login from the locked address is not affected: share guesses count apart from sign-ins
    const login = await h().post('/api/auth/login', { username: 'admin', password: 'wrong' }, { remoteAddress: '203.0.113.5' });
    assert.equal(login.status, 401);
  });
});
