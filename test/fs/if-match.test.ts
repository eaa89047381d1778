/**
 * `If-Match` on uploads (`PUT /api/fs/put`): the editor's guard against overwriting a file changed since it
 * was opened. The ETag is the one `/d/` answers with; a stale one is a 412 and the file keeps its content.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { forEachDialect } from '../support/harness.js';

forEachDialect('uploads with If-Match', (h) => {
  let admin: string;
  const put = (path: string, body: string, headers: Record<string, string> = {}) =>
    h().app.inject({ method: 'PUT', url: '/api/fs/put', headers: { authorization: admin, 'file-path': encodeURIComponent(path), 'content-type': 'application/octet-stream', ...headers }, payload: body });
  const read = async (path: string) => {
    const sign = (await h().post('/api/fs/get', { path }, { token: admin })).body.data.sign as string;
    const r = await h().app.inject({ method: 'GET', url: `/d${path}?sign=${encodeURIComponent(sign)}` });
    return { body: r.body, etag: String(r.headers.etag) };
  };

  before(async () => {
    admin = await h().adminToken();
    assert.equal((await put('/notes.txt', 'first')).statusCode, 200);
  });

  test('the current ETag saves; a stale one is refused with 412 and changes nothing', async () => {
    const opened = await read('/notes.txt');
    assert.equal(opened.body, 'first');
    const saved = await put('/notes.txt', 'second', { 'if-match': opened.etag });
    assert.equal(saved.statusCode, 200, saved.body);
    assert.equal((await read('/notes.txt')).body, 'second');
    const stale = await put('/notes.txt', 'third', { 'if-match': opened.etag });
    assert.equal(stale.statusCode, 412);
    assert.equal(stale.json().message, 'the file changed since you opened it (If-Match does not match)');
    assert.equal((await read('/notes.txt')).body, 'second');
  });

  test('If-Match on a missing file is a 412 and creates nothing; * matches any existing file', async () => {
    const r = await put('/missing.txt', 'x', { 'if-match': '"abc"' });
    assert.equal(r.statusCode, 412);
    assert.equal((await h().post('/api/fs/get', { path: '/missing.txt' }, { token: admin })).status, 404);
    assert.equal((await put('/notes.txt', 'fourth', { 'if-match': '*' })).statusCode, 200);
    assert.equal((await put('/missing.txt', 'x', { 'if-match': '*' })).statusCode, 412);
  });
});
