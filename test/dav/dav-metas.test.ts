/**
 * Metas over WebDAV (the issue #18 rule, for every protocol), on both databases: names hidden by a meta are
 * absent from PROPFIND listings (and the GET folder page) for users without bit 0, and GET, PROPFIND, COPY,
 * MOVE and DELETE of a hidden path are refused (403) as the HTTP API refuses them. A folder password cannot be
 * sent over WebDAV: a protected folder (and a file in it) is refused to users without bit 1.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { forEachDialect, type Harness } from '../support/harness.js';
import { basic, dav, FS_WRITE_BITS, hrefs, WEBDAV_MANAGE, WEBDAV_READ } from './support.js';

const bit = (n: number) => 1 << n;
const SEE_HIDDEN = bit(0);
const NO_PASSWORD = bit(1);

forEachDialect('webdav and metas', (h: () => Harness) => {
  const files = () => join(h().dataDir, 'files');
  const VICTOR = basic('victor', 'victor-pass-1');
  const HELGA = basic('helga', 'helga-pass-1');

  before(async () => {
    // victor: WebDAV read and manage with every fs write bit, not 0 (see hidden) nor 1 (no folder password)
    await h().createUser('victor', 'victor-pass-1', { permission: WEBDAV_READ | WEBDAV_MANAGE | FS_WRITE_BITS });
    await h().createUser('helga', 'helga-pass-1', { permission: WEBDAV_READ | WEBDAV_MANAGE | FS_WRITE_BITS | SEE_HIDDEN | NO_PASSWORD });
    for (const d of ['mh/sub', 'mh/secret dir', 'mp/inner', 'mq']) mkdirSync(join(files(), d), { recursive: true });
    for (const f of ['mh/open.txt', 'mh/secret.txt', 'mh/secret dir/in.txt', 'mh/sub/secret-too.txt', 'mh/sub/plain.txt', 'mp/locked.txt', 'mp/inner/deep.txt']) writeFileSync(join(files(), f), f);
    const admin = await h().adminToken();
    for (const body of [
      { path: '/mh', hide: '^secret', h_sub: true },
      { path: '/mp', password: 'folder-pw', p_sub: false },
    ]) {
      const r = await h().post('/api/admin/meta/create', body, { token: admin });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
  });

  const names = (xml: string) => hrefs(xml).map((x) => x.replace(/\/$/, '').split('/').pop()!);

  test('hide: hidden names are absent from PROPFIND Depth 1 and the folder page for users without bit 0 (h_sub reaches subfolders)', async () => {
    const r = await dav(h(), 'PROPFIND', '/dav/mh/', { auth: VICTOR, headers: { depth: '1' } });
    assert.equal(r.status, 207, r.body);
    assert.deepEqual(names(r.body).sort(), ['mh', 'open.txt', 'sub']);
    const sub = await dav(h(), 'PROPFIND', '/dav/mh/sub/', { auth: VICTOR, headers: { depth: '1' } });
    assert.deepEqual(names(sub.body).sort(), ['plain.txt', 'sub']);
    const page = await dav(h(), 'GET', '/dav/mh/', { auth: VICTOR });
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.body, /secret/);
    assert.match(page.body, /open\.txt/);
    // bit 0 sees everything
    const all = await dav(h(), 'PROPFIND', '/dav/mh/', { auth: HELGA, headers: { depth: '1' } });
    assert.deepEqual(names(all.body).sort(), ['mh', 'open.txt', 'secret dir', 'secret.txt', 'sub']);
  });

  test('hide: GET, PROPFIND, COPY, MOVE and DELETE of a hidden path are refused (403) and change nothing', async () => {
    const host = { host: 'localhost' };
    for (const [method, url, headers] of [
      ['GET', '/dav/mh/secret.txt', {}],
      ['HEAD', '/dav/mh/secret.txt', {}],
      ['PROPFIND', '/dav/mh/secret.txt', { depth: '0' }],
      ['PROPFIND', '/dav/mh/secret%20dir/', { depth: '1' }],
      ['GET', '/dav/mh/secret%20dir/in.txt', {}],
      ['GET', '/dav/mh/sub/secret-too.txt', {}],
      ['DELETE', '/dav/mh/secret.txt', {}],
      ['COPY', '/dav/mh/secret.txt', { ...host, destination: 'http://localhost/dav/mh/copied.txt' }],
      ['MOVE', '/dav/mh/secret%20dir/', { ...host, destination: 'http://localhost/dav/mh/moved/' }],
      // nor may a visible file overwrite or become a hidden name
      ['COPY', '/dav/mh/open.txt', { ...host, destination: 'http://localhost/dav/mh/secret.txt' }],
      ['MOVE', '/dav/mh/open.txt', { ...host, destination: 'http://localhost/dav/mh/secret-new.txt' }],
      ['PUT', '/dav/mh/secret.txt', {}],
    ] as const) {
      const r = await dav(h(), method, url, { auth: VICTOR, headers: headers as Record<string, string>, ...(method === 'PUT' ? { body: 'overwritten' } : {}) });
      assert.equal(r.status, 403, `${method} ${url}: ${r.status} ${r.body}`);
    }
    for (const f of ['mh/secret.txt', 'mh/secret dir/in.txt', 'mh/open.txt']) assert.ok(existsSync(join(files(), f)), f);
    for (const f of ['mh/copied.txt', 'mh/moved', 'mh/secret-new.txt']) assert.ok(!existsSync(join(files(), f)), f);
    // the same requests work for a user with bit 0
    const g = await dav(h(), 'GET', '/dav/mh/secret.txt', { auth: HELGA });
    assert.equal(g.status, 200);
    assert.equal(g.body, 'mh/secret.txt');
  });

  test('folder password: the protected folder and its files are refused without bit 1 (no way to send the password); bit 1 opens them', async () => {
    for (const [method, url] of [
      ['PROPFIND', '/dav/mp/'],
      ['GET', '/dav/mp/'],
      ['GET', '/dav/mp/locked.txt'],
      ['PROPFIND', '/dav/mp/locked.txt'],
      ['PUT', '/dav/mp/new.txt'],
      ['DELETE', '/dav/mp/locked.txt'],
    ] as const) {
      const r = await dav(h(), method, url, { auth: VICTOR, headers: { depth: '1' }, ...(method === 'PUT' ? { body: 'x' } : {}) });
      assert.equal(r.status, 403, `${method} ${url}: ${r.status} ${r.body}`);
    }
    const mv = await dav(h(), 'MOVE', '/dav/mq/', { auth: VICTOR, headers: { host: 'localhost', destination: 'http://localhost/dav/mp/mq/' } });
    assert.equal(mv.status, 403);
    assert.ok(existsSync(join(files(), 'mp/locked.txt')));
    assert.ok(!existsSync(join(files(), 'mp/new.txt')));
    assert.ok(existsSync(join(files(), 'mq')));
    // the folder holding it still lists it (as the HTTP API does), and p_sub off leaves subfolders open
    const root = await dav(h(), 'PROPFIND', '/dav/', { auth: VICTOR, headers: { depth: '1' } });
    assert.ok(names(root.body).includes('mp'));
    const inner = await dav(h(), 'GET', '/dav/mp/inner/deep.txt', { auth: VICTOR });
    assert.equal(inner.status, 200);
    // bit 1 needs no password
    const ok = await dav(h(), 'PROPFIND', '/dav/mp/', { auth: HELGA, headers: { depth: '1' } });
    assert.equal(ok.status, 207);
    assert.deepEqual(names(ok.body).sort(), ['inner', 'locked.txt', 'mp']);
  });
});
