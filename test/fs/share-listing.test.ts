/**
 * `POST /api/share/public/list`: what a share's visitors (the UI's `/s/<id>` pages) may list. Anonymous;
 * addressed like `/sd/<id>/<path>`; names hidden by metas left out; never leaves the shared item; wrong
 * password 403; listing does not use up a download.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { forEachDialect } from '../support/harness.js';

forEachDialect('share listing for visitors', (h) => {
  let admin: string;
  const put = (path: string, body: string) =>
    h().app.inject({ method: 'PUT', url: '/api/fs/put', headers: { authorization: admin, 'file-path': encodeURIComponent(path), 'content-type': 'application/octet-stream' }, payload: body });
  const list = (body: Record<string, unknown>) => h().post('/api/share/public/list', body);
  const names = (r: { body: { data: { content: { name: string }[] } } }) => r.body.data.content.map((e) => e.name).sort();

  before(async () => {
    admin = await h().adminToken();
    for (const d of ['/pub', '/pub/sub', '/other']) assert.equal((await h().post('/api/fs/mkdir', { path: d }, { token: admin })).status, 200);
    for (const f of ['/pub/a.txt', '/pub/sub/b.txt', '/pub/secret.key', '/other/c.txt']) assert.equal((await put(f, 'x' + f)).statusCode, 200);
    const meta = await h().post('/api/admin/meta/create', { path: '/pub', hide: '\\.key$', h_sub: true }, { token: admin });
    assert.equal(meta.status, 200, meta.body.message);
  });

  test('a shared folder lists its entries without hidden names, subfolders and files by path, and nothing outside', async () => {
    const share = (await h().post('/api/share/create', { files: ['/pub'], max_accessed: 1 }, { token: admin })).body.data as { id: string };
    const top = await list({ id: share.id });
    assert.equal(top.status, 200, top.body.message);
    assert.equal(top.body.data.is_dir, true);
    assert.deepEqual(names(top), ['a.txt', 'sub']);
    const a = top.body.data.content.find((e: { name: string }) => e.name === 'a.txt');
    assert.equal(a.size, 'x/pub/a.txt'.length);
    assert.equal(a.is_dir, false);
    assert.deepEqual(names(await list({ id: share.id, path: '/sub' })), ['b.txt']);
    const file = await list({ id: share.id, path: 'a.txt' });
    assert.equal(file.body.data.is_dir, false);
    assert.deepEqual(names(file), ['a.txt']);
    assert.equal((await list({ id: share.id, path: 'secret.key' })).status, 404);
    assert.equal((await list({ id: share.id, path: 'nope' })).status, 404);
    assert.equal((await list({ id: share.id, path: '../other' })).status, 403);
    assert.equal((await list({ id: share.id, path: '%2e%2e/other' })).status, 403);
    assert.equal((await list({ id: 'no-such-share' })).status, 404);
    // listing used up nothing: the one allowed download still works, then the share is spent
    assert.equal((await h().get(`/sd/${share.id}/a.txt`)).status, 200);
    assert.equal((await list({ id: share.id })).status, 404);
  });

  test('several items list themselves at the top; a password is required and checked', async () => {
    const share = (await h().post('/api/share/create', { files: ['/pub/sub', '/other/c.txt'], pwd: 'harbour' }, { token: admin })).body.data as { id: string };
    assert.equal((await list({ id: share.id })).status, 403);
    assert.equal((await list({ id: share.id, pwd: 'wrong' })).status, 403);
    const top = await list({ id: share.id, pwd: 'harbour' });
    assert.deepEqual(names(top), ['c.txt', 'sub']);
    assert.deepEqual(names(await list({ id: share.id, pwd: 'harbour', path: 'sub' })), ['b.txt']);
    assert.equal((await list({ id: share.id, pwd: 'harbour', path: 'c.txt' })).body.data.is_dir, false);
  });
});
