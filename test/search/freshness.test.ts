/**
 * Search freshness (issue #20) on both dialects: each kind of write Ferry makes is in the index for the very next
 * search, with no rebuild: mkdir, HTTP upload (and the folders it creates), upload sidecars, rename, move and copy
 * (same storage and across storages), remove, SFTP uploads, renames and removals, and WebDAV PUT, MKCOL, MOVE,
 * COPY and DELETE.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { SFTPWrapper } from 'ssh2';
import { ADMIN_PASSWORD, forEachDialect, type Harness } from '../support/harness.js';
import { call, ssh2Sftp } from '../sftp/support.js';
import { basic, dav } from '../dav/support.js';
import { buildIndex, names, search } from './support.js';

async function put(h: () => Harness, token: string, path: string, data: string, headers: Record<string, string> = {}): Promise<void> {
  const r = await h().app.inject({
    method: 'PUT',
    url: '/api/fs/put',
    headers: { authorization: token, 'file-path': encodeURIComponent(path), 'content-length': String(Buffer.byteLength(data)), 'content-type': 'application/octet-stream', ...headers },
    payload: data,
  });
  assert.equal(r.statusCode, 200, r.body);
}

forEachDialect('search: the index follows every write Ferry makes', (h) => {
  let admin: string;
  let sftp: SFTPWrapper;
  let closeSftp: () => void;
  const find = async (kw: string) => names(await search(h, admin, { keywords: kw })).sort();
  const ok = async (path: string, body: unknown) => {
    const r = await h().post(path, body, { token: admin });
    assert.equal(r.status, 200, `${path}: ${r.body.message}`);
    return r;
  };

  before(async () => {
    admin = await h().adminToken();
    mkdirSync(join(h().dataDir, 'other'), { recursive: true });
    await ok('/api/admin/storage/create', { mount_path: '/other', driver: 'local', addition: { root_folder_path: join(h().dataDir, 'other') } });
    await buildIndex(h, admin);
    const s = await ssh2Sftp(h().sftp!.address.port, { username: 'admin', password: ADMIN_PASSWORD });
    sftp = s.sftp;
    closeSftp = () => s.client.end();
  });
  after(() => closeSftp?.());

  test('mkdir', async () => {
    await ok('/api/fs/mkdir', { path: '/fresh/made-qqa/deeper' });
    assert.deepEqual(await find('qqa'), ['/fresh/made-qqa']);
    assert.deepEqual(await find('deeper'), ['/fresh/made-qqa/deeper']);
  });

  test('HTTP upload, with the folders it creates on the way', async () => {
    await put(h, admin, '/fresh/auto-qqb/up-qqb.txt', 'hello');
    assert.deepEqual(await find('qqb'), ['/fresh/auto-qqb', '/fresh/auto-qqb/up-qqb.txt']);
    const hit = (await search(h, admin, { keywords: 'up-qqb' })).body.data.content[0];
    assert.equal(hit.size, 5);
    await put(h, admin, '/fresh/auto-qqb/up-qqb.txt', 'hello again');
    assert.equal((await search(h, admin, { keywords: 'up-qqb' })).body.data.content[0].size, 11);
  });

  test('upload sidecars are indexed with their file', async () => {
    await put(h, admin, '/fresh/seeded-qqc.bin', 'some bytes', { 'x-seed-sidecars': 'oss,torrent' });
    assert.deepEqual(await find('seeded-qqc'), ['/fresh/seeded-qqc.bin', '/fresh/seeded-qqc.bin.oss', '/fresh/seeded-qqc.bin.torrent']);
  });

  test('rename (a file, and a folder with its contents)', async () => {
    await put(h, admin, '/fresh/rn/old-qqd.txt', 'x');
    await ok('/api/fs/rename', { path: '/fresh/rn/old-qqd.txt', name: 'new-qqe.txt' });
    assert.deepEqual(await find('qqd'), []);
    assert.deepEqual(await find('qqe'), ['/fresh/rn/new-qqe.txt']);
    await ok('/api/fs/rename', { path: '/fresh/rn', name: 'renamed-qqf' });
    assert.deepEqual(await find('qqe'), ['/fresh/renamed-qqf/new-qqe.txt']);
    assert.deepEqual(await find('qqf'), ['/fresh/renamed-qqf']);
  });

  test('move and copy inside a storage and across storages', async () => {
    await put(h, admin, '/fresh/mv/src-qqg/inner-qqg.txt', 'x');
    await ok('/api/fs/mkdir', { path: '/fresh/dst' });
    await ok('/api/fs/move', { src_dir: '/fresh/mv', dst_dir: '/fresh/dst', names: ['src-qqg'] });
    assert.deepEqual(await find('qqg'), ['/fresh/dst/src-qqg', '/fresh/dst/src-qqg/inner-qqg.txt']);
    await ok('/api/fs/copy', { src_dir: '/fresh/dst', dst_dir: '/fresh/mv', names: ['src-qqg'] });
    assert.deepEqual(await find('qqg'), ['/fresh/dst/src-qqg', '/fresh/dst/src-qqg/inner-qqg.txt', '/fresh/mv/src-qqg', '/fresh/mv/src-qqg/inner-qqg.txt']);
    await ok('/api/fs/move', { src_dir: '/fresh/mv', dst_dir: '/other', names: ['src-qqg'] });
    assert.deepEqual(await find('qqg'), ['/fresh/dst/src-qqg', '/fresh/dst/src-qqg/inner-qqg.txt', '/other/src-qqg', '/other/src-qqg/inner-qqg.txt']);
    await ok('/api/fs/copy', { src_dir: '/other/src-qqg', dst_dir: '/fresh', names: ['inner-qqg.txt'] });
    assert.ok((await find('inner-qqg')).includes('/fresh/inner-qqg.txt'));
  });

  test('remove (a file, and a folder with everything below it)', async () => {
    await put(h, admin, '/fresh/rm-qqh/a/b-qqh.txt', 'x');
    await put(h, admin, '/fresh/rm-qqh/c-qqh.txt', 'x');
    assert.deepEqual(await find('qqh'), ['/fresh/rm-qqh', '/fresh/rm-qqh/a/b-qqh.txt', '/fresh/rm-qqh/c-qqh.txt']);
    await ok('/api/fs/remove', { dir: '/fresh/rm-qqh', names: ['c-qqh.txt'] });
    assert.deepEqual(await find('qqh'), ['/fresh/rm-qqh', '/fresh/rm-qqh/a/b-qqh.txt']);
    await ok('/api/fs/remove', { dir: '/fresh', names: ['rm-qqh'] });
    assert.deepEqual(await find('qqh'), []);
  });

  test('SFTP: upload, rename, mkdir, remove', async () => {
    const w = await call<void>((cb) => sftp.writeFile('/fresh/sftp-qqi.txt', 'over sftp', cb));
    assert.equal(w.err, null, w.err?.message);
    assert.deepEqual(await find('qqi'), ['/fresh/sftp-qqi.txt']);
    const r = await call<void>((cb) => sftp.rename('/fresh/sftp-qqi.txt', '/fresh/sftp-qqj.txt', cb));
    assert.equal(r.err, null, r.err?.message);
    assert.deepEqual(await find('qqi'), []);
    assert.deepEqual(await find('qqj'), ['/fresh/sftp-qqj.txt']);
    const m = await call<void>((cb) => sftp.mkdir('/fresh/sftp-dir-qqk', cb));
    assert.equal(m.err, null, m.err?.message);
    assert.deepEqual(await find('qqk'), ['/fresh/sftp-dir-qqk']);
    const u = await call<void>((cb) => sftp.unlink('/fresh/sftp-qqj.txt', cb));
    assert.equal(u.err, null, u.err?.message);
    assert.deepEqual(await find('qqj'), []);
  });

  test('WebDAV: PUT, MKCOL, MOVE, COPY, DELETE', async () => {
    const req = async (method: string, url: string, status: number, o: { headers?: Record<string, string>; body?: string } = {}) => {
      const r = await dav(h(), method, url, { auth: basic('admin', ADMIN_PASSWORD), ...o });
      assert.equal(r.status, status, `${method} ${url}: ${r.body}`);
    };
    await req('MKCOL', '/dav/dav-qql', 201);
    assert.deepEqual(await find('qql'), ['/dav-qql']);
    await req('PUT', '/dav/dav-qql/put-qqm.txt', 201, { body: 'over dav' });
    assert.deepEqual(await find('qqm'), ['/dav-qql/put-qqm.txt']);
    assert.equal((await search(h, admin, { keywords: 'put-qqm' })).body.data.content[0].size, 8);
    await req('MOVE', '/dav/dav-qql/put-qqm.txt', 201, { headers: { destination: '/dav/dav-qql/moved-qqn.txt' } });
    assert.deepEqual(await find('qqm'), []);
    assert.deepEqual(await find('qqn'), ['/dav-qql/moved-qqn.txt']);
    await req('COPY', '/dav/dav-qql', 201, { headers: { destination: '/dav/other/copied-qqo' } });
    assert.deepEqual(await find('qqn'), ['/dav-qql/moved-qqn.txt', '/other/copied-qqo/moved-qqn.txt']);
    await req('DELETE', '/dav/dav-qql', 204);
    assert.deepEqual(await find('qql'), []);
    assert.deepEqual(await find('qqn'), ['/other/copied-qqo/moved-qqn.txt']);
  });
}, { FERRY_SFTP_LISTEN: '127.0.0.1:0' });
