/**
 * The exact request sequences of clients that cannot run here (Windows Explorer, macOS Finder), seed
 * sidecars through WebDAV, and the heavy inputs (overlong paths, a 10,000-entry folder), on both databases.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ADMIN_PASSWORD, forEachDialect, type Harness } from '../support/harness.js';
import { basic, dav, hrefs, propfindProps } from './support.js';

const ADMIN = basic('admin', ADMIN_PASSWORD);

forEachDialect('webdav client sequences', (h: () => Harness) => {
  const files = () => join(h().dataDir, 'files');
  const req = (method: string, url: string, o: { headers?: Record<string, string>; body?: string | Buffer } = {}) => dav(h(), method, url, { auth: ADMIN, ...o });

  test('Windows Explorer: empty PUT, LOCK, PUT with the token, PROPPATCH Win32 times, UNLOCK', async () => {
    await req('MKCOL', '/dav/win');
    const translate = { translate: 'f', 'user-agent': 'Microsoft-WebDAV-MiniRedir/10.0.19045' };
    assert.equal((await req('PROPFIND', '/dav/win', { headers: { ...translate, depth: '0' } })).status, 207);
    assert.equal((await req('PUT', '/dav/win/New%20Text%20Document.txt', { headers: { ...translate, 'content-length': '0' }, body: '' })).status, 201);
    const lock = await req('LOCK', '/dav/win/New%20Text%20Document.txt', {
      headers: { ...translate, timeout: 'Second-3600' },
      body: '<?xml version="1.0" encoding="utf-8" ?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner><D:href>DOMAIN\\user</D:href></D:owner></D:lockinfo>',
    });
    assert.equal(lock.status, 200);
    const token = String(lock.headers['lock-token']);
    const put = await req('PUT', '/dav/win/New%20Text%20Document.txt', { headers: { ...translate, if: `(${token})` }, body: 'from windows' });
    assert.equal(put.status, 204);
    const when = 'Mon, 15 Jan 2024 08:30:00 GMT';
    const pp = await req('PROPPATCH', '/dav/win/New%20Text%20Document.txt', {
      headers: { ...translate, if: `(${token})` },
      body:
        '<?xml version="1.0" encoding="utf-8" ?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:schemas-microsoft-com:"><D:set><D:prop>' +
        `<Z:Win32CreationTime>${when}</Z:Win32CreationTime><Z:Win32LastAccessTime>${when}</Z:Win32LastAccessTime>` +
        `<Z:Win32LastModifiedTime>${when}</Z:Win32LastModifiedTime><Z:Win32FileAttributes>00000020</Z:Win32FileAttributes>` +
        '</D:prop></D:set></D:propertyupdate>',
    });
    assert.equal(pp.status, 207);
    assert.doesNotMatch(pp.body, /HTTP\/1.1 (4|5)\d\d/);
    assert.equal((await req('UNLOCK', '/dav/win/New%20Text%20Document.txt', { headers: { ...translate, 'lock-token': token } })).status, 204);
    assert.equal(readFileSync(join(files(), 'win', 'New Text Document.txt'), 'utf8'), 'from windows');
    assert.equal(statSync(join(files(), 'win', 'New Text Document.txt')).mtime.toUTCString(), when);
    const pf = await req('PROPFIND', '/dav/win/', { headers: { depth: '1' }, body: propfindProps('<D:getlastmodified/><Z:Win32FileAttributes xmlns:Z="urn:schemas-microsoft-com:"/>') });
    assert.match(pf.body, new RegExp(when));
    assert.match(pf.body, /00000020/);
  });

  test('macOS Finder: PROPFIND with quota props, LOCK, chunked PUT with X-Expected-Entity-Length, AppleDouble files are ordinary', async () => {
    await req('MKCOL', '/dav/mac');
    const ua = { 'user-agent': 'WebDAVFS/3.0.0 (03008000) Darwin/22.1.0' };
    const pf = await req('PROPFIND', '/dav/mac/', {
      headers: { ...ua, depth: '1' },
      body: propfindProps('<D:getlastmodified/><D:getcontentlength/><D:creationdate/><D:resourcetype/><D:quota-available-bytes/><D:quota-used-bytes/>'),
    });
    assert.equal(pf.status, 207);
    assert.match(pf.body, /<D:collection\/>/);
    const lock = await req('LOCK', '/dav/mac/photo.jpg', {
      headers: { ...ua, timeout: 'Second-600', depth: '0' },
      body: '<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype><D:owner><D:href>http://www.apple.com/webdav_fs/</D:href></D:owner></D:lockinfo>',
    });
    assert.equal(lock.status, 201);
    const token = String(lock.headers['lock-token']);
    const body = Buffer.alloc(70_000, 7);
    const put = await h().app.inject({
      method: 'PUT',
      url: '/dav/mac/photo.jpg',
      headers: { authorization: ADMIN, ...ua, if: `(${token})`, 'transfer-encoding': 'chunked', 'x-expected-entity-length': String(body.length) },
      payload: body,
    });
    assert.equal(put.statusCode, 204, put.body);
    assert.equal(statSync(join(files(), 'mac', 'photo.jpg')).size, body.length);
    assert.equal((await req('PUT', '/dav/mac/._photo.jpg', { headers: { if: `</dav/mac/photo.jpg> (${token})` }, body: 'resource fork' })).status, 201);
    assert.equal((await req('UNLOCK', '/dav/mac/photo.jpg', { headers: { 'lock-token': token } })).status, 204);
    const list = await req('PROPFIND', '/dav/mac/', { headers: { depth: '1' } });
    assert.deepEqual(hrefs(list.body).sort(), ['/dav/mac/', '/dav/mac/._photo.jpg', '/dav/mac/photo.jpg']);
  });

  test('a PUT into a storage whose seed policy is on writes the sidecar in the same read; MOVE and DELETE carry it', async () => {
    const admin = await h().adminToken();
    const save = await h().post(
      '/api/admin/setting/save',
      [
        { key: 'seed_auto_generate_policy', value: 'on' },
        { key: 'seed_format_policies', value: JSON.stringify({ oss: 'on', torrent: 'off', cas: 'off' }) },
      ],
      { token: admin },
    );
    assert.equal(save.status, 200, save.body.message);
    try {
      await req('MKCOL', '/dav/seeded');
      assert.equal((await req('PUT', '/dav/seeded/movie.bin', { body: Buffer.alloc(10_000, 3) })).status, 201);
      assert.ok(existsSync(join(files(), 'seeded', 'movie.bin.oss')));
      const oss = JSON.parse(readFileSync(join(files(), 'seeded', 'movie.bin.oss'), 'utf8'));
      assert.ok(JSON.stringify(oss).includes('movie.bin'));
      assert.equal((await req('MOVE', '/dav/seeded/movie.bin', { headers: { destination: '/dav/seeded/film.bin' } })).status, 201);
      assert.ok(existsSync(join(files(), 'seeded', 'film.bin.oss')));
      assert.equal(existsSync(join(files(), 'seeded', 'movie.bin.oss')), false);
      assert.equal((await req('DELETE', '/dav/seeded/film.bin')).status, 204);
      assert.equal(existsSync(join(files(), 'seeded', 'film.bin.oss')), false);
    } finally {
      await h().post('/api/admin/setting/save', [{ key: 'seed_auto_generate_policy', value: 'off' }], { token: admin });
    }
  });

  test('overlong names and paths are a clear 400 and create nothing', async () => {
    const long = 'x'.repeat(300);
    assert.equal((await req('PUT', `/dav/${long}`, { body: 'a' })).status, 400);
    assert.equal((await req('MKCOL', `/dav/${long}`)).status, 400);
    assert.equal((await req('PUT', `/dav/${'d/'.repeat(3000)}f`, { body: 'a' })).status, 400);
    assert.equal(existsSync(join(files(), long)), false);
  });

  test('PROPFIND Depth 1 of a 10,000-entry folder lists every entry, and the server keeps answering', async () => {
    const dir = join(files(), 'many');
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < 10_000; i++) writeFileSync(join(dir, `f${i}.txt`), '');
    const [big, ping] = await Promise.all([req('PROPFIND', '/dav/many/', { headers: { depth: '1' } }), req('OPTIONS', '/dav/')]);
    assert.equal(big.status, 207);
    assert.equal(hrefs(big.body).length, 10_001);
    assert.equal(ping.status, 200);
  });
});
