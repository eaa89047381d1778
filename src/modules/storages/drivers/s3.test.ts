/**
 * The driver contract against a real S3 server: a throwaway Ceph RADOS Gateway started by this
 * file (test/support/ceph.ts). Never skipped: without radosgw installed the suite fails with the
 * apt-get line to run.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { HeadObjectCommand, ListMultipartUploadsCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { s3Addition, cephForThisFile, type CephS3 } from '../../../../test/support/ceph.js';
import { chunked, driverContract, readAll, rejectsKind, writeFile } from './contract.js';
import { drivers, type DriverDeps } from './index.js';
import type { HashEngine, StorageDriver } from './types.js';
import { inlineHashEngine } from './util.js';

const { ceph, s3 } = cephForThisFile();

let n = 0;
async function makeDriver(extra: Record<string, unknown> = {}, deps: DriverDeps = {}): Promise<{ driver: StorageDriver; prefix: string; c: CephS3 }> {
  const c = await ceph();
  const prefix = `t${++n}-${randomBytes(4).toString('hex')}`;
  // all three digests on write unless a test says otherwise (the default records SHA-256 alone)
  const driver = await drivers.s3.create({ ...s3Addition(c, prefix), upload_part_size: 5, hash_on_write: 'md5,sha1,sha256', ...extra }, deps);
  return { driver, prefix, c };
}

async function rawKeys(bucket: string, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let token: string | undefined;
  do {
    const r = await (await s3()).send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix + '/', ContinuationToken: token }));
    for (const o of r.Contents ?? []) out.push(o.Key!.slice(prefix.length + 1));
    token = r.IsTruncated ? r.NextContinuationToken : undefined;
  } while (token);
  return out;
}

async function pendingUploads(bucket: string, prefix: string): Promise<number> {
  const r = await (await s3()).send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix + '/' }));
  return r.Uploads?.length ?? 0;
}

driverContract('s3 (Ceph RGW)', async () => {
  const { driver, prefix, c } = await makeDriver();
  return {
    driver,
    raw: () => rawKeys(c.bucket, prefix),
    pendingUploads: () => pendingUploads(c.bucket, prefix),
    cleanup: () => driver.close(),
  };
});

const hex = (algo: string, b: Buffer | string) => createHash(algo).update(b).digest('hex');

describe('s3 driver specifics (Ceph RGW)', () => {
  it('validates options, naming the bad one', async () => {
    const base = { bucket: 'bkt', endpoint: 'http://127.0.0.1:1', access_key_id: 'k', secret_access_key: 's' };
    assert.equal((await rejectsKind(drivers.s3.create({ ...base, bucket: '' }), 'invalid_option', 'bucket')).option, 'bucket');
    assert.equal((await rejectsKind(drivers.s3.create({ ...base, access_key_id: undefined }), 'invalid_option', 'key')).option, 'access_key_id');
    assert.equal((await rejectsKind(drivers.s3.create({ ...base, list_object_version: 'v3' }), 'invalid_option', 'select')).option, 'list_object_version');
    assert.equal((await rejectsKind(drivers.s3.create({ ...base, upload_part_size: 1 }), 'invalid_option', 'part')).option, 'upload_part_size');
    assert.equal((await rejectsKind(drivers.s3.create({ ...base, endpoint: 'http://' }), 'invalid_option', 'endpoint')).option, 'endpoint');
    assert.equal((await rejectsKind(drivers.s3.create({ ...base, root_folder_path: '/a/../b' }), 'invalid_path', 'root')).kind, 'invalid_path');
    const d = await drivers.s3.create({ ...base, root_folder_path: 'x/y/' }, { proxy: false });
    assert.equal(d.options.root_folder_path, '/x/y');
    assert.equal(d.capabilities.streamable, false);
    assert.equal(d.capabilities.presign, true);
    await d.close();
  });

  it('large uploads: metadata carries Ferry hashes (temp key + copy, or direct with declared hashes)', async () => {
    const { driver, prefix, c } = await makeDriver();
    const big = randomBytes(11 * 1024 * 1024);
    const want = { md5: hex('md5', big), sha1: hex('sha1', big), sha256: hex('sha256', big) };
    await writeFile(driver, '/plain.bin', big);
    await writeFile(driver, '/declared.bin', big, { expectedHashes: want });
    for (const name of ['plain.bin', 'declared.bin']) {
      const h = await (await s3()).send(new HeadObjectCommand({ Bucket: c.bucket, Key: `${prefix}/${name}` }));
      assert.equal(h.ContentLength, big.length);
      assert.equal(h.Metadata?.['ferry-sha256'], want.sha256, name);
      assert.deepEqual(await driver.hashes('/' + name), want);
    }
    const direct = await (await s3()).send(new HeadObjectCommand({ Bucket: c.bucket, Key: `${prefix}/declared.bin` }));
    assert.match(direct.ETag ?? '', /-\d+"?$/, 'declared upload is multipart at the final key');
    assert.deepEqual((await rawKeys(c.bucket, prefix)).sort(), ['declared.bin', 'plain.bin']);
    assert.equal(await pendingUploads(c.bucket, prefix), 0);
  });

  it('multipart uploads reuse concurrency + 1 part buffers, whatever the chunking, with or without a declared size', async () => {
    const { driver } = await makeDriver({ upload_concurrency: 2 });
    const part = 5 * 1024 * 1024;
    const data = randomBytes(6 * part + 12_345);
    const big: number[] = [];
    const { allocUnsafe, allocUnsafeSlow } = Buffer;
    const spy = (f: typeof allocUnsafe) => (n: number) => {
      if (n >= part) big.push(n);
      return f(n);
    };
    Buffer.allocUnsafe = spy(allocUnsafe);
    Buffer.allocUnsafeSlow = spy(allocUnsafeSlow);
    try {
      for (const [name, size] of [['undeclared.bin', undefined], ['declared.bin', data.length]] as const) {
        big.length = 0;
        const w = await driver.beginWrite(`/${name}`, size === undefined ? {} : { size });
        await w.pipeFrom(chunked(data, 300_001));
        await w.commit();
        assert.ok(big.length <= 3, `${name}: ${big.length} part-sized buffers allocated for 7 parts (at most 2 in flight + 1 filling)`);
        assert.ok((await readAll(driver, `/${name}`)).equals(data), name);
        assert.deepEqual(await driver.hashes(`/${name}`), { md5: hex('md5', data), sha1: hex('sha1', data), sha256: hex('sha256', data) });
      }
    } finally {
      Buffer.allocUnsafe = allocUnsafe;
      Buffer.allocUnsafeSlow = allocUnsafeSlow;
    }
  });

  it('concurrent multipart writes of the same path: exactly one writer wins, hashes match it', async () => {
    const { driver, prefix, c } = await makeDriver();
    const size = 6 * 1024 * 1024;
    const datas = [randomBytes(size), randomBytes(size), randomBytes(size)];
    const ws = await Promise.all(datas.map(() => driver.beginWrite('/mp-race.bin')));
    await Promise.all(ws.map((w, i) => w.pipeFrom(chunked(datas[i]!, 256 * 1024))));
    await Promise.all(ws.map((w) => w.commit()));
    const got = await readAll(driver, '/mp-race.bin');
    const idx = datas.findIndex((x) => x.equals(got));
    assert.ok(idx >= 0, 'content must equal exactly one writer');
    assert.deepEqual(await driver.hashes('/mp-race.bin'), { md5: hex('md5', got), sha1: hex('sha1', got), sha256: hex('sha256', got) });
    assert.deepEqual(await rawKeys(c.bucket, prefix), ['mp-race.bin']);
    assert.equal(await pendingUploads(c.bucket, prefix), 0);
  });

  it('MD5 from a single-part ETag of an object Ferry did not write; no SHA without checksums/metadata', async () => {
    const { driver, prefix, c } = await makeDriver();
    await (await s3()).send(new PutObjectCommand({ Bucket: c.bucket, Key: `${prefix}/foreign.txt`, Body: 'foreign' }));
    assert.deepEqual(await driver.hashes('/foreign.txt'), { md5: hex('md5', 'foreign') });
    const ls = await driver.list('/');
    assert.equal(ls[0]?.hashes?.md5, hex('md5', 'foreign'));
  });

  it('presigned GET links work and carry the disposition', async () => {
    const { driver } = await makeDriver();
    await writeFile(driver, '/dl/naïve file.txt', 'download me');
    const url = await driver.presign!('/dl/naïve file.txt', { expiresSec: 60 });
    assert.match(url, /X-Amz-Signature=/);
    const r = await fetch(url);
    assert.equal(r.status, 200);
    assert.equal(await r.text(), 'download me');
    assert.match(r.headers.get('content-disposition') ?? '', /attachment; filename\*=UTF-8''na%C3%AFve%20file\.txt/);
    const bad = new URL(url);
    bad.searchParams.set('X-Amz-Signature', '0'.repeat(64));
    assert.equal((await fetch(bad)).status, 403, 'signature is checked');
  });

  it('large copies go through UploadPartCopy and keep hashes', async () => {
    const { driver, prefix, c } = await makeDriver({}, { s3Tuning: { maxCopyObjectSize: 1024 * 1024, copyPartSize: 5 * 1024 * 1024 } });
    const data = randomBytes(12 * 1024 * 1024 + 3);
    const w = await driver.beginWrite('/src.bin', { size: data.length });
    await w.pipeFrom(chunked(data, 1 << 20));
    await w.commit();
    await rejectsKind(driver.copy('/src.bin', '/dir/copy.bin'), 'not_found', 'copy into a missing folder');
    await driver.mkdir('/dir');
    await driver.copy('/src.bin', '/dir/copy.bin');
    assert.ok((await readAll(driver, '/dir/copy.bin')).equals(data));
    const h = await (await s3()).send(new HeadObjectCommand({ Bucket: c.bucket, Key: `${prefix}/dir/copy.bin` }));
    assert.match(h.ETag ?? '', /-3"?$/);
    assert.deepEqual(await driver.hashes('/dir/copy.bin'), { md5: hex('md5', data), sha1: hex('sha1', data), sha256: hex('sha256', data) });
    // a small single-part object copied multipart keeps its ETag MD5 as metadata
    await writeFile(driver, '/small.txt', Buffer.alloc(2 * 1024 * 1024, 9));
    await driver.copy('/small.txt', '/small-copy.txt');
    assert.equal((await driver.hashes('/small-copy.txt')).md5, hex('md5', Buffer.alloc(2 * 1024 * 1024, 9)));
  });

  it('ListObjects v1 works too; placeholder objects are hidden', async () => {
    const { driver } = await makeDriver({ list_object_version: 'v1', placeholder: '.openlist' });
    await driver.mkdir('/folder');
    await writeFile(driver, '/folder/a.txt', 'a');
    assert.deepEqual((await driver.list('/folder')).map((e) => e.name), ['a.txt']);
    assert.deepEqual((await driver.list('/')).map((e) => [e.name, e.isDir]), [['folder', true]]);
  });

  it('bodies are signed UNSIGNED-PAYLOAD but guarded by Content-MD5: a part whose MD5 is wrong is refused, nothing is left', async () => {
    // an engine that lies about the MD5 of a lone-MD5 job (the Content-MD5 of a part or a small PUT)
    const lying: HashEngine = (names, size) => {
      const real = inlineHashEngine(names, size);
      if (names.length !== 1 || names[0] !== 'md5') return real;
      return { ...real, digest: async () => ({ md5: hex('md5', 'not these bytes') }) };
    };
    const { driver, prefix, c } = await makeDriver({}, { hashEngine: lying });
    const messages: string[] = [];
    const { driver: honest } = await makeDriver();
    const big = randomBytes(11 * 1024 * 1024);
    for (const [name, data] of [['big.bin', big], ['small.bin', Buffer.from('small body')]] as const) {
      await assert.rejects(writeFile(driver, `/${name}`, data), (e: Error & { kind?: string }) => {
        messages.push(e.message);
        return e.kind === 'io';
      });
    }
    assert.match(messages.join('\n'), /BadDigest|InvalidDigest|Content-MD5/i);
    assert.deepEqual(await rawKeys(c.bucket, prefix), []);
    assert.equal(await pendingUploads(c.bucket, prefix), 0);
    // the same writes with true MD5s pass
    await writeFile(honest, '/big.bin', big);
    assert.ok((await readAll(honest, '/big.bin')).equals(big));
  });

  it('a wrong secret is refused by the server (signatures are checked)', async () => {
    const { driver } = await makeDriver({ secret_access_key: 'WRONG' });
    await rejectsKind(driver.list('/'), 'permission', 'bad secret');
    await rejectsKind(
      (async () => {
        const w = await driver.beginWrite('/x');
        await w.pipeFrom(Readable.from([Buffer.from('x')]));
        return w.commit();
      })(),
      'permission',
      'bad secret write',
    );
  });
});
