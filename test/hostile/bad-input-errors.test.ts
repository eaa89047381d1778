/**
 * Smaller defects of issue #16 (item 11): a malformed multipart body and an over-long name are the client's
 * fault (400, nothing created), and no reply to a user shows a host path (the data dir, a storage root).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { forEachDialect } from '../support/harness.js';

const ALL_BITS = 0x3fff;

forEachDialect('bad input: multipart and over-long names', (h) => {
  let user = '';
  let admin = '';
  const files = () => join(h().dataDir, 'files');

  before(async () => {
    admin = await h().adminToken();
    assert.equal((await h().post('/api/fs/mkdir', { path: '/home' }, { token: admin })).status, 200);
    await h().createUser('walter', 'walter-pass-1', { base_path: '/home', permission: ALL_BITS });
    user = await h().login('walter', 'walter-pass-1');
  });

  test('a multipart body without a boundary or with broken part headers is 400, and creates nothing', async () => {
    const cases: [string, string][] = [
      ['multipart/form-data', 'garbage'],
      ['multipart/form-data; boundary=abc', '--abc\r\nno headers here\r\n\r\n'],
    ];
    for (const [type, payload] of cases) {
      const r = await h().app.inject({ method: 'PUT', url: '/api/fs/form', headers: { authorization: user, 'file-path': '/m.txt', 'content-type': type }, payload });
      assert.equal(r.statusCode, 400, `${type}: ${r.body}`);
      assert.match(r.json().message, /multipart/);
    }
    assert.equal(existsSync(join(files(), 'home', 'm.txt')), false);
  });

  test('an over-long name is 400 on every route, names no host path, and creates nothing', async () => {
    const long = 'n'.repeat(300);
    const before = readdirSync(join(files(), 'home')).sort();
    const replies = [
      await h().post('/api/fs/mkdir', { path: `/${long}` }, { token: user }),
      await h().post('/api/fs/list', { path: `/${long}` }, { token: user }),
      await h().post('/api/fs/get', { path: `/${long}` }, { token: user }),
      await h().post('/api/fs/mkdir', { path: `/ok/${long}/deeper` }, { token: user }),
    ];
    const put = await h().app.inject({ method: 'PUT', url: '/api/fs/put', headers: { authorization: user, 'file-path': encodeURIComponent(`/${long}.txt`) }, payload: 'x' });
    replies.push({ status: put.statusCode, body: put.json(), headers: {} });
    for (const r of replies) {
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.match(r.body.message, /name too long/);
      assert.ok(!r.body.message.includes(h().dataDir), `no host path: ${r.body.message}`);
      assert.ok(!r.body.message.includes('/home/'), `no base path: ${r.body.message}`);
    }
    assert.ok(replies.every((r) => r.body.message.includes(long.slice(0, 20))), 'the user sees the name it sent');
    assert.deepEqual(readdirSync(join(files(), 'home')).filter((n) => !n.startsWith('.')).sort(), before.filter((n) => !n.startsWith('.')).sort());
  });

  test('the rename of an existing file to an over-long name is 400 and the file stays', async () => {
    const put = await h().app.inject({ method: 'PUT', url: '/api/fs/put', headers: { authorization: user, 'file-path': '/keep.txt' }, payload: 'kept' });
    assert.equal(put.statusCode, 200, put.body);
    const r = await h().post('/api/fs/rename', { path: '/keep.txt', name: 'k'.repeat(300) }, { token: user });
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.ok(!r.body.message.includes(h().dataDir), r.body.message);
    assert.equal(existsSync(join(files(), 'home', 'keep.txt')), true);
  });
});
