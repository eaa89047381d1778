/**
 * The `hash_on_write` storage option (issue #17): which digests a storage records in its hash
 * index for every file written. Uploads through `PUT /api/fs/put` hash on the worker pool while
 * the bytes arrive (a streamed body of many chunks, bigger than the hashing ring); the digests
 * must equal coreutils' (and come from the worker pool). The default records SHA-256 alone. With none recorded, rapid upload finds nothing and seed generation reads
 * the file (`download`) — that read teaches the index, after which both work without reading.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { before, test } from 'node:test';
import { defaultHashPool } from '../../src/modules/seeds/hashing/index.js';
import { forEachDialect, type Harness } from '../support/harness.js';
import { WHOLE_ONLY, bytes, coreutils, driverOf, filesDir, generated, hex, probeReads, seedOk } from '../seeds-ops/helpers.js';
import { seedData, seedFileOf } from '../seeds-ops/transfer-helpers.js';

const MiB = 1024 * 1024;
/** Several times the hashing ring (UPLOAD_RING_BYTES) and not a multiple of any chunk or segment size. */
const BIG = bytes(21 * MiB + 12_345, 71);
const SMALL = bytes(300_001, 72);
/** Content no other test stores (rapid upload would find that copy). */
const FRESH = bytes(9 * MiB + 777, 73);

/** The body as many odd-sized chunks, as a socket delivers it. */
function chunked(data: Buffer, size = 65_531): Readable {
  return Readable.from(
    (function* () {
      for (let off = 0; off < data.length; off += size) yield data.subarray(off, Math.min(off + size, data.length));
    })(),
  );
}

async function put(h: () => Harness, token: string, path: string, data: Buffer): Promise<void> {
  const r = await h().app.inject({
    method: 'PUT',
    url: '/api/fs/put',
    headers: { authorization: token, 'file-path': encodeURIComponent(path), 'content-length': String(data.length), 'content-type': 'application/octet-stream' },
    payload: chunked(data),
  });
  assert.equal(r.statusCode, 200, r.body);
}

forEachDialect('hash_on_write: the digests a storage records on write', (hh) => {
  let admin: string;
  let noneDir: string;
  let subDir: string;
  let allDir: string;

  const storage = async (mount_path: string, addition: Record<string, unknown>) => {
    const r = await hh().post('/api/admin/storage/create', { mount_path, driver: 'local', addition }, { token: admin });
    return r;
  };

  before(async () => {
    admin = await hh().adminToken();
    noneDir = join(hh().dataDir, 'none-root');
    subDir = join(hh().dataDir, 'sub-root');
    mkdirSync(noneDir);
    mkdirSync(subDir);
    allDir = join(hh().dataDir, 'all-root');
    mkdirSync(allDir);
    assert.equal((await storage('/all', { root_folder_path: allDir, hash_on_write: 'md5,sha1,sha256' })).status, 200);
    assert.equal((await storage('/none', { root_folder_path: noneDir, hash_on_write: '' })).status, 200);
    assert.equal((await storage('/sub', { root_folder_path: subDir, hash_on_write: ' SHA256 ' })).status, 200);
  });

  test('the option is listed for both drivers, read case- and space-insensitively, and a bad name is a 400 that creates nothing', async () => {
    const list = await hh().get('/api/admin/driver/list', { token: admin });
    assert.equal(list.status, 200);
    const text = JSON.stringify(list.body.data);
    assert.equal(text.split('"hash_on_write"').length - 1, 2, 'local and s3 both describe hash_on_write');
    const stores = (await hh().get('/api/admin/storage/list', { token: admin })).body.data.content as { mount_path: string; addition: string }[];
    const saved = (m: string) => JSON.parse(stores.find((s) => s.mount_path === m)!.addition) as Record<string, unknown>;
    assert.equal(saved('/none').hash_on_write, '', 'saved as given');
    assert.equal(driverOf(hh(), '/sub').options.hash_on_write, 'sha256', 'the driver reads " SHA256 " as sha256');
    assert.equal(driverOf(hh(), '/none').options.hash_on_write, '');
    assert.equal(driverOf(hh(), '/').options.hash_on_write, 'sha256', 'default: SHA-256 alone');
    assert.equal(driverOf(hh(), '/all').options.hash_on_write, 'md5,sha1,sha256');
    mkdirSync(join(hh().dataDir, 'bad-root'));
    const bad = await storage('/bad', { root_folder_path: join(hh().dataDir, 'bad-root'), hash_on_write: 'md5,crc32' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /hash_on_write/);
    assert.equal(bad.body.data?.option, 'hash_on_write');
    const after = (await hh().get('/api/admin/storage/list', { token: admin })).body.data.content as { mount_path: string }[];
    assert.ok(!after.some((s) => s.mount_path === '/bad'), 'nothing created');
  });

  test('all three: a streamed upload records md5, sha1 and sha256 from one job on the workers, equal to coreutils (big and empty files)', async () => {
    // the digests are computed by the worker pool the sidecars use, not on the event loop
    const pool = defaultHashPool();
    const pick = pool.pick.bind(pool);
    let picked = 0;
    pool.pick = (n) => (picked++, pick(n));
    try {
      await put(hh, admin, '/all/big.bin', BIG);
    } finally {
      pool.pick = pick;
    }
    assert.equal(picked, 1, 'one job on the hashing workers');
    await put(hh, admin, '/all/empty.bin', Buffer.alloc(0));
    const d = driverOf(hh(), '/all');
    for (const name of ['big.bin', 'empty.bin']) {
      const host = join(allDir, name);
      const got = await d.hashes(`/${name}`);
      assert.deepEqual(got, { md5: coreutils('md5', host), sha1: coreutils('sha1', host), sha256: coreutils('sha256', host) }, name);
    }
  });

  test('default storage: an upload records SHA-256 alone; fs/get shows just that; a rapid upload of a seed with all three finds it, an MD5-only seed does not until a whole read teaches MD5', async () => {
    await put(hh, admin, '/how/big.bin', FRESH);
    const host = join(filesDir(hh()), 'how', 'big.bin');
    assert.deepEqual(await driverOf(hh(), '/').hashes('/how/big.bin'), { sha256: coreutils('sha256', host) });
    const got = await hh().post('/api/fs/get', { path: '/how/big.bin' }, { token: admin });
    assert.deepEqual(got.body.data.hash_info, { sha256: hex('sha256', FRESH) });
    assert.equal(got.body.data.hashinfo, JSON.stringify({ sha256: hex('sha256', FRESH) }));
    for (const dir of ['/rapid-all', '/rapid-md5', '/rapid-md5-later']) assert.equal((await hh().post('/api/fs/mkdir', { path: dir }, { token: admin })).status, 200);
    const md5Only = seedData('big.bin', [seedFileOf('big.bin', FRESH, { algs: ['md5'] })]);
    const miss = await seedOk(hh(), admin, 'rapid_upload', { seed_data: md5Only, path: '/rapid-md5' });
    assert.equal(miss.results[0].method, 'unavailable', JSON.stringify(miss.results));
    // found by SHA-256; the copy is verified against all three (a read of the copy)
    const all = await seedOk(hh(), admin, 'rapid_upload', { seed_data: seedData('big.bin', [seedFileOf('big.bin', FRESH)]), path: '/rapid-all' });
    assert.equal(all.results[0].method, 'rapid_upload', JSON.stringify(all.results));
    // generating a default seed (all three whole digests) reads the file once: that read records MD5 and SHA-1
    const p = probeReads(hh(), '/');
    try {
      const g = await generated(hh(), admin, { paths: ['/how/big.bin'], formats: ['oss'], hash_matrix: WHOLE_ONLY, output_path: '/out-default' });
      assert.equal(g.files[0].mode, 'download');
      assert.equal(p.count, 1);
      assert.equal(g.seed.files[0].hashes.md5, hex('md5', FRESH));
    } finally {
      p.restore();
    }
    assert.deepEqual(await driverOf(hh(), '/').hashes('/how/big.bin'), { md5: coreutils('md5', host), sha1: coreutils('sha1', host), sha256: coreutils('sha256', host) });
    const hit = await seedOk(hh(), admin, 'rapid_upload', { seed_data: md5Only, path: '/rapid-md5-later' });
    assert.equal(hit.results[0].method, 'rapid_upload', JSON.stringify(hit.results));
  });

  test('hash_on_write "sha256": only SHA-256 is recorded; generation of it alone is direct, with MD5 it reads', async () => {
    await put(hh, admin, '/sub/big.bin', BIG);
    assert.deepEqual(await driverOf(hh(), '/sub').hashes('/big.bin'), { sha256: coreutils('sha256', join(subDir, 'big.bin')) });
    const p = probeReads(hh(), '/sub');
    try {
      const direct = await generated(hh(), admin, { paths: ['/sub/big.bin'], formats: ['oss'], hash_matrix: { sha256: { whole: true, pieces: false } }, output_path: '/out-sub1' });
      assert.equal(direct.files[0].mode, 'direct');
      assert.equal(p.count, 0, 'no read for what the index knows');
      const read = await generated(hh(), admin, { paths: ['/sub/big.bin'], formats: ['oss'], hash_matrix: { md5: { whole: true, pieces: false }, sha256: { whole: true, pieces: false } }, output_path: '/out-sub2' });
      assert.equal(read.files[0].mode, 'download');
      assert.equal(p.count, 1);
      assert.equal(read.seed.files[0].hashes.md5, hex('md5', BIG));
    } finally {
      p.restore();
    }
  });

  test('hash_on_write "": nothing recorded; rapid upload finds nothing and generation reads, until that read teaches the index', async () => {
    await put(hh, admin, '/none/f.bin', SMALL);
    const d = driverOf(hh(), '/none');
    assert.deepEqual(await d.hashes('/f.bin'), {});
    assert.equal((await d.stat('/f.bin')).hashes, undefined);
    const seed = seedData('f.bin', [seedFileOf('f.bin', SMALL)]);
    assert.equal((await hh().post('/api/fs/mkdir', { path: '/rapid' }, { token: admin })).status, 200);
    const miss = await seedOk(hh(), admin, 'rapid_upload', { seed_data: seed, path: '/rapid' });
    assert.equal(miss.results[0].method, 'unavailable', JSON.stringify(miss.results));
    assert.match(miss.results[0].error, /no stored file you can read has this size and hash/);

    const p = probeReads(hh(), '/none');
    try {
      const g = await generated(hh(), admin, { paths: ['/none/f.bin'], formats: ['oss'], hash_matrix: WHOLE_ONLY, output_path: '/out-none' });
      assert.equal(g.files[0].mode, 'download');
      assert.equal(p.count, 1);
      assert.equal(g.seed.files[0].hashes.sha1, hex('sha1', SMALL));
    } finally {
      p.restore();
    }
    // the whole read recorded the digests: now rapid upload copies without reading
    assert.equal((await d.hashes('/f.bin')).sha256, hex('sha256', SMALL));
    const hit = await seedOk(hh(), admin, 'rapid_upload', { seed_data: seed, path: '/rapid' });
    assert.equal(hit.results[0].method, 'rapid_upload', JSON.stringify(hit.results));
  });
});
