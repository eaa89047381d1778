import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, stat, utimes, writeFile as fsWrite } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { chunked, driverContract, readAll, rejectsKind, writeFile } from './contract.js';
import { createDriver, drivers } from './index.js';
import { LocalDriver } from './local.js';
import { MemoryHashIndex, type HashEngine, type HashName } from './types.js';

const made: string[] = [];
after(async () => {
  for (const d of made) await rm(d, { recursive: true, force: true });
});

async function tempRoot(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'ferry-local-'));
  made.push(d);
  return d;
}

async function walk(root: string, rel = ''): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(join(root, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    out.push(r);
    if (e.isDirectory()) out.push(...(await walk(root, r)));
  }
  return out;
}

driverContract('local', async () => {
  const root = await tempRoot();
  // the contract checks every digest a write computes: all three (the default records SHA-256 alone)
  const driver = await createDriver('local', { root_folder_path: root, hash_on_write: 'md5,sha1,sha256' }, { hashIndex: new MemoryHashIndex() });
  return {
    driver,
    raw: () => walk(root),
    pendingUploads: async () => 0,
    cleanup: async () => {
      await driver.close();
      await rm(root, { recursive: true, force: true });
    },
  };
});

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

describe('local driver specifics', () => {
  it('validates options', async () => {
    await rejectsKind(drivers.local.create({}), 'invalid_option', 'missing root');
    const e = await rejectsKind(drivers.local.create({ root_folder_path: '/definitely/not/here' }), 'invalid_option', 'missing dir');
    assert.equal(e.option, 'root_folder_path');
    const root = await tempRoot();
    const e2 = await rejectsKind(drivers.local.create({ root_folder_path: root, mkdir_perm: '9z' }), 'invalid_option', 'bad perm');
    assert.equal(e2.option, 'mkdir_perm');
    const e3 = await rejectsKind(drivers.local.create({ root_folder_path: root, show_hidden: 'maybe' }), 'invalid_option', 'bad bool');
    assert.equal(e3.option, 'show_hidden');
    const d = await drivers.local.create({ root_folder_path: root, show_hidden: 'false', unknown: 1 });
    assert.equal(d.options.show_hidden, false);
    assert.equal('unknown' in d.options, false);
    assert.equal(d.options.root_folder_path, root);
  });

  it('hash_on_write: parsed case- and space-insensitively, "" or none = none, unknown names refused naming the option', async () => {
    const root = await tempRoot();
    assert.equal((await drivers.local.create({ root_folder_path: root })).options.hash_on_write, 'sha256');
    assert.equal((await drivers.local.create({ root_folder_path: root, hash_on_write: ' SHA256;md5 ' })).options.hash_on_write, 'md5,sha256');
    assert.equal((await drivers.local.create({ root_folder_path: root, hash_on_write: 'none' })).options.hash_on_write, '');
    assert.equal((await drivers.local.create({ root_folder_path: root, hash_on_write: '' })).options.hash_on_write, '');
    const e = await rejectsKind(drivers.local.create({ root_folder_path: root, hash_on_write: 'sha512' }), 'invalid_option', 'unknown hash');
    assert.equal(e.option, 'hash_on_write');
    assert.ok(drivers.s3.options.some((o) => o.name === 'hash_on_write'), 's3 has the option too');
  });

  it('default hash_on_write: a write records SHA-256 alone; a whole read teaches MD5 and SHA-1 and keeps SHA-256', async () => {
    const root = await tempRoot();
    const d = await drivers.local.create({ root_folder_path: root }, { hashIndex: new MemoryHashIndex() });
    const data = Buffer.from('default digests');
    const e = await writeFile(d, '/f.bin', data);
    assert.deepEqual(e.hashes, { sha256: sha256(data) });
    assert.deepEqual(await d.hashes('/f.bin'), { sha256: sha256(data) });
    assert.ok((await readAll(d, '/f.bin')).equals(data));
    const hex = (alg: string) => createHash(alg).update(data).digest('hex');
    assert.deepEqual(await d.hashes('/f.bin'), { md5: hex('md5'), sha1: hex('sha1'), sha256: sha256(data) });
  });

  it('a declared digest is checked even when hash_on_write does not record it (none, default)', async () => {
    const root = await tempRoot();
    const data = Buffer.from('declared digests');
    const hex = (alg: string, b: Buffer | string = data) => createHash(alg).update(b).digest('hex');
    for (const hash_on_write of ['', 'sha256']) {
      const d = await drivers.local.create({ root_folder_path: root, hash_on_write }, { hashIndex: new MemoryHashIndex() });
      await rejectsKind(writeFile(d, '/bad.bin', data, { expectedHashes: { sha1: hex('sha1', 'other') } }), 'hash_mismatch', `wrong sha1, hash_on_write ${JSON.stringify(hash_on_write)}`);
      await rejectsKind(d.stat('/bad.bin'), 'not_found', 'nothing stored');
      const e = await writeFile(d, '/good.bin', data, { expectedHashes: { md5: hex('md5') } });
      assert.deepEqual(e.hashes, hash_on_write ? { md5: hex('md5'), sha256: sha256(data) } : { md5: hex('md5') });
    }
    assert.deepEqual(await readdir(root), ['good.bin']);
  });

  it('writes hash through the injected engine: the names hash_on_write selects, unless the caller chooses', async () => {
    const root = await tempRoot();
    const jobs: { names: readonly HashName[]; size: number | undefined; bytes: number }[] = [];
    const engine: HashEngine = (names, size) => {
      const job = { names, size, bytes: 0 };
      jobs.push(job);
      return {
        update: async (c) => void (job.bytes += c.length),
        digest: async () => Object.fromEntries(names.map((n) => [n, `${n}-of-${job.bytes}`])),
        abort: () => undefined,
      };
    };
    const d = await drivers.local.create({ root_folder_path: root, hash_on_write: 'sha1' }, { hashEngine: engine });
    const data = Buffer.alloc(3 * 1024 * 1024 + 5, 7);
    const w = await d.beginWrite('/a.bin', { size: data.length });
    await w.pipeFrom(chunked(data, 65_531));
    const e = await w.commit();
    assert.deepEqual(jobs.map((j) => [j.names, j.size, j.bytes]), [[['sha1'], data.length, data.length]]);
    assert.deepEqual(e.hashes, { sha1: `sha1-of-${data.length}` });
    assert.deepEqual(await d.hashes('/a.bin'), { sha1: `sha1-of-${data.length}` });
    assert.ok((await readAll(d, '/a.bin')).equals(data), 'bytes intact across batches');
    // a whole read hashes what the index lacks through the same engine, and the index learns it
    assert.deepEqual([jobs[1]!.names, jobs[1]!.size, jobs[1]!.bytes], [['md5', 'sha256'], data.length, data.length]);
    assert.deepEqual(await d.hashes('/a.bin'), { md5: `md5-of-${data.length}`, sha1: `sha1-of-${data.length}`, sha256: `sha256-of-${data.length}` });
    await readAll(d, '/a.bin');
    assert.equal(jobs.length, 2, 'no job once the index knows every digest');
    await writeFile(d, '/b.txt', 'b', { computeHashes: ['md5', 'sha256'] });
    assert.deepEqual(jobs[2]!.names, ['md5', 'sha256']);
    // reads at once: one job per file (the second read of b.txt learns nothing), at most two in all
    for (const n of ['x', 'y', 'z']) await writeFile(d, `/${n}.txt`, n);
    const reads = [];
    for (const p of ['/b.txt', '/b.txt', '/x.txt', '/y.txt']) reads.push(await d.read(p));
    assert.deepEqual(jobs.slice(6).map((j) => j.names), [['sha1'], ['md5', 'sha256']], 'b.txt (made with md5+sha256) once, x.txt; y.txt over the limit');
    for (const r of reads) for await (const _ of r);
    await readAll(d, '/y.txt');
    assert.equal(jobs.length, 9, 'once those ended, the next read learns');
    assert.ok((await d.hashes('/y.txt')).md5);
    const none = await drivers.local.create({ root_folder_path: root, hash_on_write: '' }, { hashEngine: engine });
    await writeFile(none, '/c.txt', 'c');
    assert.equal(jobs.length, 9, 'no job when nothing is recorded');
    assert.deepEqual(await none.hashes('/c.txt'), {});
  });

  it('an engine failure fails the write and leaves nothing behind', async () => {
    const root = await tempRoot();
    const engine: HashEngine = () => ({
      update: async () => {
        throw new Error('engine broke');
      },
      digest: async () => ({}),
      abort: () => undefined,
    });
    const d = await drivers.local.create({ root_folder_path: root }, { hashEngine: engine });
    await writeFile(d, '/keep.txt', 'old', { computeHashes: [] });
    const w = await d.beginWrite('/keep.txt');
    await assert.rejects(w.pipeFrom(chunked(Buffer.alloc(2 * 1024 * 1024, 1), 65_536)));
    await assert.rejects(w.commit());
    assert.deepEqual(await readdir(root), ['keep.txt']);
    assert.equal((await readAll(d, '/keep.txt')).toString(), 'old');
  });

  it('temp files live in the target folder and are hidden from listings', async () => {
    const root = await tempRoot();
    const d = await drivers.local.create({ root_folder_path: root });
    await d.mkdir('/sub');
    const w = await d.beginWrite('/sub/f.txt');
    w.stream.write('partial');
    await new Promise((r) => setTimeout(r, 20));
    const raw = await readdir(join(root, 'sub'));
    assert.equal(raw.length, 1);
    assert.ok(raw[0]!.startsWith('.ferry-tmp-'));
    assert.deepEqual(await d.list('/sub'), []);
    await w.commit();
    assert.deepEqual(await readdir(join(root, 'sub')), ['f.txt']);
  });

  it('sets mtime when asked', async () => {
    const root = await tempRoot();
    const d = await drivers.local.create({ root_folder_path: root });
    const mtime = new Date('2024-02-03T04:05:06.789Z');
    const e = await writeFile(d, '/m.txt', 'm', { mtime });
    assert.equal(e.modified.getTime(), mtime.getTime());
    assert.equal((await d.stat('/m.txt')).modified.getTime(), mtime.getTime());
  });

  it('hash index: filled by whole-file reads, ignored after size/mtime change, follows moves', async () => {
    const root = await tempRoot();
    const index = new MemoryHashIndex();
    const d = await drivers.local.create({ root_folder_path: root }, { hashIndex: index });
    await fsWrite(join(root, 'ext.txt'), 'external');
    assert.deepEqual(await d.hashes('/ext.txt'), {});
    await readAll(d, '/ext.txt', { start: 1 }); // partial reads do not fill
    assert.deepEqual(await d.hashes('/ext.txt'), {});
    await readAll(d, '/ext.txt');
    assert.equal((await d.hashes('/ext.txt')).sha256, sha256('external'));
    // changed behind Ferry's back: same size, new mtime → not trusted
    await fsWrite(join(root, 'ext.txt'), 'EXTERNAL');
    const t = new Date(Date.now() + 5000);
    await utimes(join(root, 'ext.txt'), t, t);
    assert.deepEqual(await d.hashes('/ext.txt'), {});
    await readAll(d, '/ext.txt');
    assert.equal((await d.hashes('/ext.txt')).sha256, sha256('EXTERNAL'));
    await d.mkdir('/dir');
    await d.move('/ext.txt', '/dir/ext.txt');
    assert.equal((await d.hashes('/dir/ext.txt')).sha256, sha256('EXTERNAL'));
    assert.equal(await index.get('/ext.txt', 8, 0), undefined);
    await d.remove('/dir');
    assert.equal(index.entries.size, 0);
  });

  it('show_hidden=false hides dot names', async () => {
    const root = await tempRoot();
    const d = await drivers.local.create({ root_folder_path: root, show_hidden: false });
    await writeFile(d, '/.hidden', 'h');
    await writeFile(d, '/shown', 's');
    assert.deepEqual((await d.list('/')).map((e) => e.name), ['shown']);
    assert.equal((await readAll(d, '/.hidden')).toString(), 'h');
  });

  it('recycle bin moves removed items instead of deleting them', async () => {
    const root = await tempRoot();
    const bin = await tempRoot();
    const d = await drivers.local.create({ root_folder_path: root, recycle_bin_path: bin });
    await writeFile(d, '/a/b.txt', 'b');
    await d.remove('/a/b.txt');
    await writeFile(d, '/a/b.txt', 'b2');
    await d.remove('/a/b.txt');
    const names = (await readdir(join(bin, 'a'))).sort();
    assert.equal(names.length, 2);
    assert.equal(names[0], 'b.txt');
    assert.match(names[1]!, /^b\.txt_\d{14}$/);
  });

  it('copy preserves mtime and carries hashes; writes are fsynced files with content', async () => {
    const root = await tempRoot();
    const d = (await drivers.local.create({ root_folder_path: root })) as LocalDriver;
    await writeFile(d, '/src.bin', Buffer.alloc(1000, 7), { mtime: new Date('2020-01-01T00:00:00.123Z') });
    await d.copy('/src.bin', '/dst.bin');
    const a = await stat(join(root, 'src.bin'));
    const b = await stat(join(root, 'dst.bin'));
    assert.equal(Math.floor(a.mtimeMs), Math.floor(b.mtimeMs));
    assert.equal((await d.hashes('/dst.bin')).sha256, sha256(Buffer.alloc(1000, 7)));
  });

  it('pipeFrom accepts async iterables and reports the byte count', async () => {
    const root = await tempRoot();
    const d = await drivers.local.create({ root_folder_path: root });
    const w = await d.beginWrite('/it.txt');
    async function* gen() {
      yield Buffer.from('ab');
      yield Buffer.from('cd');
    }
    assert.equal(await w.pipeFrom(gen()), 4);
    assert.equal(w.bytesWritten, 4);
    await w.commit();
    assert.equal((await readAll(d, '/it.txt')).toString(), 'abcd');
    const w2 = await d.beginWrite('/it2.txt');
    await w2.pipeFrom(Readable.from([]));
    assert.equal((await w2.commit()).size, 0);
  });

  it('usage reports the file system', async () => {
    const root = await tempRoot();
    const d = await drivers.local.create({ root_folder_path: root });
    const u = await d.usage!();
    assert.ok(u.total > 0 && u.free >= 0 && u.used >= 0);
  });
});
