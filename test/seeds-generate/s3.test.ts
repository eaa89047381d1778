/**
 * Direct and download modes on S3 (a throwaway Ceph RGW, test/support/ceph.ts): hashes from
 * Ferry's object metadata or a single-part ETag mean zero content reads; a storage with
 * `proxy: false` cannot be streamed by the server, so a needed download is refused with a hint.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { after, before, test } from 'node:test';
import { s3Addition, cephForThisFile, type CephS3 } from '../support/ceph.js';
import { forEachDialect } from '../support/harness.js';
import { WHOLE_ONLY, bytes, generate, generated, hex, probeReads, putIndexed } from './helpers.js';

const { ceph, s3 } = cephForThisFile();

forEachDialect('seed generation on S3', (h) => {
  let token: string;
  let c: CephS3;
  const prefixes = { on: `sg-on-${randomBytes(4).toString('hex')}`, off: `sg-off-${randomBytes(4).toString('hex')}` };
  const foreign = async (prefix: string, key: string, body: Buffer) => {
    await (await s3()).send(new PutObjectCommand({ Bucket: c.bucket, Key: `${prefix}/${key}`, Body: body }));
  };

  before(async () => {
    c = await ceph();
    token = await h().adminToken();
    for (const [mount, prefix, proxy] of [['/s3', prefixes.on, true], ['/s3np', prefixes.off, false]] as const) {
      const addition = s3Addition(c, prefix);
      const r = await h().post('/api/admin/storage/create', { mount_path: mount, driver: 's3', proxy, addition }, { token });
      assert.equal(r.status, 200, r.body.message);
    }
    await putIndexed(h(), '/meta/a.bin', bytes(200_000, 61), '/s3');
    await foreign(prefixes.on, 'foreign/b.bin', bytes(150_000, 62));
    await putIndexed(h(), '/meta/a.bin', bytes(200_000, 63), '/s3np');
    await foreign(prefixes.off, 'foreign/b.bin', bytes(150_000, 64));
  });

  test('objects written by Ferry carry all three hashes in metadata: direct, zero reads', async () => {
    const p = probeReads(h(), '/s3');
    try {
      const d = await generated(h(), token, { paths: ['/s3/meta/a.bin'], formats: ['oss'], hash_matrix: WHOLE_ONLY, output_path: '/s3-out/1' });
      assert.equal(p.count, 0);
      assert.equal(d.files[0].mode, 'direct');
      assert.equal(d.seed.files[0].hashes.sha256, hex('sha256', bytes(200_000, 61)));
    } finally {
      p.restore();
    }
  });

  test('a foreign single-part object: its ETag gives md5 (direct); asking for sha1 too means one read', async () => {
    const p = probeReads(h(), '/s3');
    try {
      const md5 = await generated(h(), token, { paths: ['/s3/foreign/b.bin'], formats: ['oss'], hash_matrix: { md5: { whole: true, pieces: false } }, output_path: '/s3-out/2' });
      assert.equal(p.count, 0);
      assert.equal(md5.seed.files[0].hashes.md5, hex('md5', bytes(150_000, 62)));
      const both = await generated(h(), token, { paths: ['/s3/foreign/b.bin'], formats: ['oss'], hash_matrix: { md5: { whole: true }, sha1: { whole: true } }, output_path: '/s3-out/3' });
      assert.equal(p.count, 1);
      assert.equal(both.files[0].mode, 'download');
      assert.equal(both.seed.files[0].hashes.sha1, hex('sha1', bytes(150_000, 62)));
    } finally {
      p.restore();
    }
  });

  test('proxy off: a needed download → 400 with a hint naming what the drive provides; no read', async () => {
    const p = probeReads(h(), '/s3np');
    try {
      const r = await generate(h(), token, { paths: ['/s3np/foreign/b.bin'], formats: ['oss'], hash_matrix: WHOLE_ONLY, output_path: '/s3-out/4' });
      assert.equal(r.status, 400);
      assert.match(r.body.message, /\/s3np\/foreign\/b\.bin.*\/s3np/);
      assert.match(r.body.data.hint, /provides md5 .*proxy for the storage \/s3np.*select only those whole-file hashes \(md5/);
      assert.deepEqual(r.body.data.provided_hashes, ['md5']);
      assert.equal(p.count, 0);
    } finally {
      p.restore();
    }
  });

  test('proxy off: selecting only what the drive provides works without a read', async () => {
    const p = probeReads(h(), '/s3np');
    try {
      const d = await generated(h(), token, { paths: ['/s3np/foreign/b.bin', '/s3np/meta/a.bin'], formats: ['oss'], hash_matrix: { md5: { whole: true, pieces: false } }, output_path: '/s3-out/5' });
      assert.equal(p.count, 0);
      assert.deepEqual(d.files.map((f: { mode: string }) => f.mode), ['direct', 'direct']);
    } finally {
      p.restore();
    }
  });

  test('capabilities on S3: streamable false with proxy off, and the matrix every file supports', async () => {
    const r = await h().post('/api/fs/seed/capabilities', { paths: ['/s3np/foreign/b.bin', '/s3np/meta/a.bin'] }, { token });
    assert.equal(r.status, 200, r.body.message);
    assert.deepEqual(r.body.data.common_hashes, ['md5']);
    assert.deepEqual(r.body.data.default_matrix, { md5: { whole: true, pieces: false }, sha1: { whole: false, pieces: false }, sha256: { whole: false, pieces: false } });
    for (const f of r.body.data.files) {
      assert.equal(f.streamable, false);
      assert.equal(f.requires_download, false);
    }
  });
});
