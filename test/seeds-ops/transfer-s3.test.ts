/**
 * Seed transfers with S3 (a throwaway Ceph RGW): rapid upload from the local storage onto S3
 * (bytes streamed between Ferry's own storages, verified before commit), S3 → S3 on the same
 * bucket by CopyObject (zero reads), an object Ferry never wrote found through its single-part
 * ETag by an MD5-only `.cas` seed (and recorded in the hash index), and an offline download onto
 * S3 whose bytes do not match: no object, no multipart upload left behind.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { GetObjectCommand, HeadObjectCommand, ListMultipartUploadsCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { cephForThisFile, s3Addition, type CephS3 } from '../support/ceph.js';
import { forEachDialect } from '../support/harness.js';
import { ALL_SIX, bytes, generateSeeds, hex, probeReads, putIndexed, seedOk, setSettings, type Artifact } from './helpers.js';
import { landed, listen, seedData, seedFileOf, settledTask, type Listener } from './transfer-helpers.js';

const { ceph, s3 } = cephForThisFile();

const A = bytes(60_000, 41);
const B = bytes(7_000, 42);
const FOREIGN = bytes(90_000, 43);
const BIG = bytes(6 * 1024 * 1024 + 123, 44);

forEachDialect('seed transfers with S3', (h) => {
  let admin: string;
  let c: CephS3;
  let seed: Record<string, Artifact>;
  let src: Listener;
  const p1 = `st1-${randomBytes(4).toString('hex')}`;
  const p2 = `st2-${randomBytes(4).toString('hex')}`;
  const object = async (key: string) => {
    const r = await (await s3()).send(new GetObjectCommand({ Bucket: c.bucket, Key: key }));
    return Buffer.from(await r.Body!.transformToByteArray());
  };
  const keys = async (prefix: string) =>
    ((await (await s3()).send(new ListObjectsV2Command({ Bucket: c.bucket, Prefix: `${prefix}/` }))).Contents ?? []).map((o) => o.Key!.slice(prefix.length + 1)).sort();

  before(async () => {
    c = await ceph();
    admin = await h().adminToken();
    for (const [mount, prefix] of [['/s3', p1], ['/s3b', p2]] as const) {
      const r = await h().post('/api/admin/storage/create', { mount_path: mount, driver: 's3', addition: s3Addition(c, prefix) }, { token: admin });
      assert.equal(r.status, 200, r.body.message);
    }
    await putIndexed(h(), '/A/a.bin', A);
    await putIndexed(h(), '/A/sub/b.bin', B);
    seed = await generateSeeds(h(), admin, { paths: ['/A'], formats: ['oss'], hash_matrix: ALL_SIX, piece_size: 16 * 1024, output_path: '/seeds' });
    src = await listen();
    src.routes.set('/d/big.bin', { body: BIG });
    const bad = Buffer.from(BIG);
    bad[BIG.length - 1] = bad[BIG.length - 1]! ^ 1;
    src.routes.set('/d/bad.bin', { body: bad });
    await setSettings(h(), admin, { seed_trusted_source_hosts: src.host });
    await h().post('/api/fs/mkdir', { path: '/s3/in' }, { token: admin });
  });
  after(() => src.close());

  test('local → S3: rapid upload (bytes only from Ferry\'s own storage), verified, hashes stored with the object', async () => {
    const d = await seedOk(h(), admin, 'rapid_upload', { seed_data: seed.oss!.seed_data, path: '/s3/in' });
    assert.deepEqual(d.results.map((r: any) => [r.path, r.method, r.error]).sort(), [['a.bin', 'rapid_upload', undefined], ['sub/b.bin', 'rapid_upload', undefined]]);
    assert.deepEqual(await object(`${p1}/in/a.bin`), A);
    assert.deepEqual(await object(`${p1}/in/sub/b.bin`), B);
    const head = await (await s3()).send(new HeadObjectCommand({ Bucket: c.bucket, Key: `${p1}/in/a.bin` }));
    assert.equal(head.Metadata?.['ferry-sha256'], hex('sha256', A));
  });

  test('S3 → S3 on the same bucket: CopyObject, zero reads on either storage', async () => {
    await h().post('/api/fs/mkdir', { path: '/A2' }, { token: admin });
    // only the S3 copy may serve as the source now: remove the local originals
    const only = seedData('s', [seedFileOf('a.bin', A, { algs: ['sha256'] })]);
    const p = [probeReads(h(), '/s3'), probeReads(h(), '/s3b')];
    try {
      await h().post('/api/fs/remove', { dir: '/A', names: ['a.bin'] }, { token: admin });
      const d = await seedOk(h(), admin, 'rapid_upload', { seed_data: only, path: '/s3b' });
      assert.equal(d.results[0].method, 'rapid_upload', JSON.stringify(d.results));
      assert.deepEqual(p.map((x) => x.count), [0, 0]);
    } finally {
      p.forEach((x) => x.restore());
      await putIndexed(h(), '/A/a.bin', A);
    }
    assert.deepEqual(await object(`${p2}/a.bin`), A);
  });

  test('an object Ferry never wrote, found by its ETag through an MD5-only .cas seed (scan), and recorded in the hash index', async () => {
    await (await s3()).send(new PutObjectCommand({ Bucket: c.bucket, Key: `${p2}/foreign/f.bin`, Body: FOREIGN }));
    const cas = seedData('f.bin', [seedFileOf('f.bin', FOREIGN, { algs: ['md5'] })], 'cas', 10 * 1024 * 1024);
    await h().post('/api/fs/mkdir', { path: '/L1' }, { token: admin });
    const d = await seedOk(h(), admin, 'rapid_upload', { seed_data: cas, path: '/L1' });
    assert.equal(d.results[0].method, 'rapid_upload', JSON.stringify(d.results));
    assert.deepEqual(landed(h(), 'L1/f.bin'), FOREIGN);
    const s3b = h().ctx.storages.list().find((m) => m.record.mountPath === '/s3b')!;
    const row = await h().ctx.database.db.selectFrom('hash_index').selectAll().where('storage_id', '=', s3b.record.id).where('path', '=', '/foreign/f.bin').executeTakeFirst();
    assert.equal(row?.md5, hex('md5', FOREIGN), 'the object is recorded in the hash index');
  });

  test('a seed whose MD5 matches a stored object but whose SHA-256 does not: every copy is checked, nothing stays', async () => {
    const liar = { ...seedFileOf('f.bin', FOREIGN, { algs: ['md5'] }), hashes: { md5: hex('md5', FOREIGN), sha256: hex('sha256', 'something else') } };
    for (const d of ['/L2', '/s3b/copies']) await h().post('/api/fs/mkdir', { path: d }, { token: admin });
    // cross-storage (S3 → local): streamed, checked before commit
    const x = await seedOk(h(), admin, 'rapid_upload', { seed_data: seedData('liar', [liar]), path: '/L2' });
    assert.equal(x.results[0].method, 'rapid_upload');
    assert.match(x.results[0].error, /^rapid upload from \/s3b\/foreign\/f\.bin failed: hash mismatch: \/L2\/f\.bin: sha256 is/);
    assert.equal(landed(h(), 'L2/f.bin'), null);
    // same storage (CopyObject): the storage cannot vouch for SHA-256, so the copy is re-hashed once and removed
    const y = await seedOk(h(), admin, 'rapid_upload', { seed_data: seedData('liar', [liar]), path: '/s3b/copies' });
    assert.match(y.results[0].error, /hash mismatch: \/s3b\/copies\/f\.bin: sha256 is/);
    assert.deepEqual((await keys(p2)).filter((k) => k.startsWith('copies/') && k !== 'copies/'), []);
  });

  test('offline download onto S3: good bytes land with their hashes; bad bytes leave no object and no multipart upload', async () => {
    const [ok] = (await seedOk(h(), admin, 'offline_download', { seed_data: seedData('g', [seedFileOf('big.bin', BIG, { sources: [{ type: 'openlist-direct', url: `${src.url}/d/big.bin` }] })]), path: '/s3/in' })).results;
    assert.equal((await settledTask(h(), admin, ok.task.id)).state, 2);
    assert.deepEqual(await object(`${p1}/in/big.bin`), BIG);
    const [ko] = (await seedOk(h(), admin, 'offline_download', { seed_data: seedData('b', [seedFileOf('bad.bin', BIG, { algs: ['md5'], sources: [{ type: 'openlist-direct', url: `${src.url}/d/bad.bin` }] })]), path: '/s3/in' })).results;
    const t = await settledTask(h(), admin, ko.task.id);
    assert.equal(t.state, 7);
    assert.match(t.error, /^hash mismatch: \/s3\/in\/bad\.bin/);
    assert.ok(!(await keys(p1)).some((k) => k.includes('bad.bin') || k.includes('.ferry-tmp-')), (await keys(p1)).join(', '));
    const mp = await (await s3()).send(new ListMultipartUploadsCommand({ Bucket: c.bucket, Prefix: `${p1}/` }));
    assert.deepEqual(mp.Uploads ?? [], []);
  });
});
