/**
 * Upload sidecars on S3 (a throwaway Ceph RGW): the sidecars land beside the object with the
 * right hashes (single-part and multipart uploads), a failing sidecar write leaves the old
 * object and its old sidecars and no multipart upload behind, and sidecars follow a rename.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { before, test } from 'node:test';
import { cephForThisFile, s3Addition, type CephS3 } from '../support/ceph.js';
import { forEachDialect } from '../support/harness.js';
import { keysOf, objectBytes, uploadsOf } from '../fs/helpers.js';
import { driverOf } from '../seeds-generate/helpers.js';
import { DriverError, type PendingWrite } from '../../src/modules/storages/drivers/index.js';
import { decodeAny } from '../../src/modules/seeds/formats/index.js';
import { bytes, MiB, put, putOk } from './helpers.js';

const { ceph, s3 } = cephForThisFile();
const ALL = { 'x-seed-sidecars': 'oss,torrent,cas' };
const hex = (alg: string, b: Buffer) => createHash(alg).update(b).digest('hex');

forEachDialect('upload sidecars on S3', (h) => {
  let admin: string;
  let c: CephS3;
  const prefix = `usc-${randomBytes(4).toString('hex')}`;
  const object = async (key: string) => objectBytes(await s3(), c.bucket, `${prefix}/${key}`);

  before(async () => {
    c = await ceph();
    admin = await h().adminToken();
    const r = await h().post('/api/admin/storage/create', { mount_path: '/s3', driver: 's3', addition: s3Addition(c, prefix) }, { token: admin });
    assert.equal(r.status, 200, r.body.message);
  });

  for (const [label, size] of [['single-part', 300_000], ['multipart', 21 * MiB]] as const) {
    test(`${label}: the sidecars beside the object carry its hashes`, async () => {
      const data = bytes(size, size % 97);
      await putOk(h(), admin, `/s3/up/${label}.bin`, data, ALL);
      assert.ok((await object(`up/${label}.bin`)).equals(data));
      for (const format of ['oss', 'torrent', 'cas'] as const) {
        const seed = decodeAny(await object(`up/${label}.bin.${format}`), { format }).seed;
        assert.equal(seed.files[0]!.size, size, format);
        assert.equal(seed.files[0]!.hashes.md5?.toLowerCase(), hex('md5', data), `${format} md5`);
        if (format !== 'cas') assert.equal(seed.files[0]!.hashes.sha1, hex('sha1', data), `${format} sha1`);
      }
    });
  }

  test('a failing sidecar write: old object and old sidecars intact, no multipart upload left', async () => {
    const old = bytes(50_000, 5);
    await putOk(h(), admin, '/s3/keep/f.bin', old, ALL);
    const oldCas = await object('keep/f.bin.cas');
    const d = driverOf(h(), '/s3');
    const orig = d.beginWrite.bind(d);
    d.beginWrite = async (p, opts) => {
      const w = await orig(p, opts);
      if (!p.endsWith('.torrent')) return w;
      return new Proxy(w, {
        get: (t, k) =>
          k === 'commit'
            ? async () => {
                await t.abort();
                throw new DriverError('io', 'injected: bucket refused the sidecar');
              }
            : Reflect.get(t, k),
      }) as PendingWrite;
    };
    try {
      const r = await put(h(), admin, '/s3/keep/f.bin', bytes(12 * MiB, 6), ALL);
      assert.notEqual(r.status, 200);
      assert.match(r.body.message, /injected/);
    } finally {
      d.beginWrite = orig;
    }
    assert.ok((await object('keep/f.bin')).equals(old), 'old object intact');
    assert.ok((await object('keep/f.bin.cas')).equals(oldCas), 'old .cas restored');
    assert.deepEqual(await uploadsOf(await s3(), c.bucket, prefix), [], 'no multipart upload left');
  });

  test('sidecars follow a rename on S3', async () => {
    await putOk(h(), admin, '/s3/ren/a.bin', 'rename me', ALL);
    const r = await h().post('/api/fs/rename', { path: '/s3/ren/a.bin', name: 'b.bin' }, { token: admin });
    assert.equal(r.status, 200, r.body.message);
    const keys = (await keysOf(await s3(), c.bucket, prefix)).filter((k) => k.startsWith("ren/"));
    assert.deepEqual(keys.map((k) => k.slice(k.lastIndexOf('/') + 1)).filter((n) => n !== '').sort(), ['b.bin', 'b.bin.cas', 'b.bin.oss', 'b.bin.torrent']);
  });
});
