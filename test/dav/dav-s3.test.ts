/**
 * WebDAV over an S3 storage (a real Ceph RGW), on both databases: modification times set by clients
 * (X-OC-Mtime on PUT, PROPPATCH of getlastmodified / Win32LastModifiedTime) show in PROPFIND listings and in
 * fs/list, although S3 keeps its own LastModified: the time lives in the object's metadata
 * (x-amz-meta-ferry-mtime) and, for listings, in the hash index. rclone (vendor owncloud, which compares
 * times) syncs into the S3 storage and a second sync transfers nothing.
 */
import assert from 'node:assert/strict';
import { createHash, randomFillSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { cephForThisFile, s3Addition } from '../support/ceph.js';
import { ADMIN_PASSWORD, forEachDialect, requireCommand, type Harness } from '../support/harness.js';
import { basic, dav, propfindProps, propText, rcloneEnv, runClient } from './support.js';

const T = { timeout: 300_000 };
const ADMIN = basic('admin', ADMIN_PASSWORD);
const { ceph, s3 } = cephForThisFile();

let work: string | null = null;
const scratch = () => (work ??= mkdtempSync(join(tmpdir(), 'ferry-dav-s3-')));
after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** getlastmodified of each response of a multistatus, by the last segment of its href. */
function modifiedByName(xml: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of xml.matchAll(/<D:response>([\s\S]*?)<\/D:response>/g)) {
    const href = /<D:href>([^<]*)<\/D:href>/.exec(m[1]!)![1]!;
    const name = decodeURIComponent(href.replace(/\/$/, '').split('/').pop()!);
    const t = propText(m[1]!, 'getlastmodified');
    if (t) out.set(name, t);
  }
  return out;
}

forEachDialect('webdav on S3 (Ceph RGW)', (h: () => Harness) => {
  let prefix = '';
  before(async () => {
    const c = await ceph();
    prefix = `dav-${h().dialect}-${Date.now().toString(36)}`;
    const r = await h().post('/api/admin/storage/create', { mount_path: '/s3', driver: 's3', addition: s3Addition(c, prefix) }, { token: await h().adminToken() });
    assert.equal(r.status, 200, JSON.stringify(r.body));
  });

  const listed = async (name: string) => {
    const r = await h().post('/api/fs/list', { path: '/s3' }, { token: await h().adminToken() });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const m = (r.body.data.content as Array<{ name: string; modified: string }>).find((e) => e.name === name)?.modified;
    return m === undefined ? undefined : new Date(m).toISOString();
  };

  test('PUT with X-OC-Mtime: PROPFIND (Depth 0 and 1), GET Last-Modified and fs/list show the client time; it is in the object metadata', T, async () => {
    const put = await dav(h(), 'PUT', '/dav/s3/timed.txt', { auth: ADMIN, body: 'on s3', headers: { 'x-oc-mtime': '1500000000' } });
    assert.equal(put.status, 201, put.body);
    const want = new Date(1500000000_000).toUTCString();
    const d1 = await dav(h(), 'PROPFIND', '/dav/s3/', { auth: ADMIN, headers: { depth: '1' } });
    assert.equal(d1.status, 207, d1.body);
    assert.equal(modifiedByName(d1.body).get('timed.txt'), want);
    const d0 = await dav(h(), 'PROPFIND', '/dav/s3/timed.txt', { auth: ADMIN, headers: { depth: '0' } });
    assert.equal(propText(d0.body, 'getlastmodified'), want);
    const get = await dav(h(), 'GET', '/dav/s3/timed.txt', { auth: ADMIN });
    assert.equal(get.body, 'on s3');
    assert.equal(get.headers['last-modified'], want);
    assert.equal(await listed('timed.txt'), new Date(1500000000_000).toISOString());
    const head = await (await s3()).send(new HeadObjectCommand({ Bucket: (await ceph()).bucket, Key: `${prefix}/timed.txt` }));
    assert.equal(head.Metadata?.['ferry-mtime'], '1500000000000');
  });

  test('PROPPATCH getlastmodified and Win32LastModifiedTime change what PROPFIND listings and fs/list show; content and type stay', T, async () => {
    assert.equal((await dav(h(), 'PUT', '/dav/s3/patched.json', { auth: ADMIN, body: '{"a":1}' })).status, 201);
    for (const [ns, prop, when] of [
      ['DAV:', 'getlastmodified', new Date(Date.UTC(2011, 1, 3, 4, 5, 6))],
      ['urn:schemas-microsoft-com:', 'Win32LastModifiedTime', new Date(Date.UTC(2012, 6, 8, 9, 10, 11))],
    ] as const) {
      const body = `<?xml version="1.0" encoding="utf-8"?><D:propertyupdate xmlns:D="DAV:" xmlns:Z="${ns}"><D:set><D:prop><Z:${prop}>${when.toUTCString()}</Z:${prop}></D:prop></D:set></D:propertyupdate>`;
      const r = await dav(h(), 'PROPPATCH', '/dav/s3/patched.json', { auth: ADMIN, body });
      assert.equal(r.status, 207, r.body);
      assert.match(r.body, /HTTP\/1.1 200 OK/);
      const d1 = await dav(h(), 'PROPFIND', '/dav/s3/', { auth: ADMIN, headers: { depth: '1' } });
      assert.equal(modifiedByName(d1.body).get('patched.json'), when.toUTCString(), `${prop}: ${d1.body}`);
      assert.equal(await listed('patched.json'), when.toISOString());
    }
    const get = await dav(h(), 'GET', '/dav/s3/patched.json', { auth: ADMIN });
    assert.equal(get.body, '{"a":1}');
    assert.match(String(get.headers['content-type']), /json/);
  });

  test('PROPFIND Depth 1 oc:checksums of a whole S3 folder: from the index, from object metadata where the listed time is a client one, the ETag MD5 for a foreign object', T, async () => {
    const sum = (alg: string, b: string) => createHash(alg).update(b).digest('hex');
    assert.equal((await dav(h(), 'PUT', '/dav/s3/sums/plain.txt', { auth: ADMIN, body: 'plain' })).status, 409, 'no folder yet');
    assert.equal((await dav(h(), 'MKCOL', '/dav/s3/sums', { auth: ADMIN })).status, 201);
    assert.equal((await dav(h(), 'PUT', '/dav/s3/sums/plain.txt', { auth: ADMIN, body: 'plain' })).status, 201);
    assert.equal((await dav(h(), 'PUT', '/dav/s3/sums/timed.txt', { auth: ADMIN, body: 'timed', headers: { 'x-oc-mtime': '1500000000' } })).status, 201);
    await (await s3()).send(new PutObjectCommand({ Bucket: (await ceph()).bucket, Key: `${prefix}/sums/foreign.txt`, Body: 'foreign' }));
    const pf = await dav(h(), 'PROPFIND', '/dav/s3/sums/', { auth: ADMIN, headers: { depth: '1' }, body: propfindProps('<oc:checksums/>') });
    assert.equal(pf.status, 207);
    const of = (name: string) => pf.body.split('<D:response>').find((r) => r.includes(`/sums/${name}<`)) ?? '';
    // what the storage recorded on write (hash_on_write: SHA-256 by default)
    for (const [name, body] of [['plain.txt', 'plain'], ['timed.txt', 'timed']] as const) {
      assert.match(of(name), new RegExp(`SHA256:${sum('sha256', body)}`), name);
    }
    // an object another client wrote: only what S3 itself vouches for (a single-part ETag is the MD5)
    assert.match(of('foreign.txt'), new RegExp(`MD5:${sum('md5', 'foreign')}`));
    assert.doesNotMatch(of('foreign.txt'), /SHA1:/);
  });

  test('rclone (vendor owncloud) syncs into the S3 storage; check passes and a second sync transfers nothing', T, async () => {
    requireCommand('rclone', 'rclone');
    const src = join(scratch(), `tree-${h().dialect}`);
    for (const d of ['a b/ü', 'c']) mkdirSync(join(src, d), { recursive: true });
    const old = new Date('2020-05-06T07:08:09Z');
    for (let i = 0; i < 30; i++) {
      const f = join(src, i % 2 ? 'a b/ü' : 'c', `f ${i}.bin`);
      writeFileSync(f, randomFillSync(Buffer.alloc(200 + i * 37)));
      utimesSync(f, old, old);
    }
    writeFileSync(join(src, 'big.bin'), randomFillSync(Buffer.alloc(6 * 1024 * 1024 + 3)));
    const url = await (async () => {
      await h().app.listen({ host: '127.0.0.1', port: 0 });
      const a = h().app.server.address();
      assert.ok(a && typeof a === 'object');
      return `http://127.0.0.1:${a.port}/dav/s3/`;
    })();
    const env = await rcloneEnv(url, 'owncloud', scratch());
    const first = await runClient('rclone', ['sync', src, 'd:synced', '--transfers', '4', '-v'], { env });
    assert.equal(first.status, 0, first.out.slice(-4000));
    const check = await runClient('rclone', ['check', src, 'd:synced'], { env });
    assert.equal(check.status, 0, check.out.slice(-4000));
    assert.match(check.out, /0 differences found/);
    const second = await runClient('rclone', ['sync', src, 'd:synced', '-v'], { env });
    assert.equal(second.status, 0, second.out.slice(-4000));
    assert.doesNotMatch(second.out, /Copied|Updated/, second.out.slice(-4000));
    assert.match(second.out, /Transferred:\s+0 B \/ 0 B/);
    // and the times rclone set are the ones listed
    const d1 = await dav(h(), 'PROPFIND', '/dav/s3/synced/c/', { auth: ADMIN, headers: { depth: '1' } });
    assert.equal(modifiedByName(d1.body).get('f 0.bin'), old.toUTCString());
  });
});
