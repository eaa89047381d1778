/**
 * The hash index against names whose characters are not one UTF-16 unit each (issue #16 item 3): astral
 * characters (😀, 𝔘), combining marks, and the NFC and NFD spellings of one name (two names on Linux).
 *  - the repository's "at or under this folder" queries agree with the in-memory model on both dialects
 *    (property test over random path sets and moves/copies/removals);
 *  - rename/move/copy/remove of such folders through the API answer 200 and the index follows exactly;
 *  - a failing index update never turns a done disk change into a 500, and the rows it could not fix are
 *    never trusted;
 *  - a row never vouches for bytes it was not computed over, so rapid upload never lands other content.
 */
import assert from 'node:assert/strict';
import fs, { utimesSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { before, test } from 'node:test';
import fc from 'fast-check';
import { forEachDialect } from '../support/harness.js';
import { HashIndexRepo } from '../../src/modules/hash-index/hash-index.repo.js';
import { MemoryHashIndex } from '../../src/modules/storages/drivers/types.js';
import { writeFile as driverWrite } from '../../src/modules/storages/drivers/contract.js';
import { bytes, driverOf, filesDir, hex, putRaw, seedOk } from '../seeds-ops/helpers.js';
import { landed, seedData, seedFileOf } from '../seeds-ops/transfer-helpers.js';

const NFC = 'caf\u00e9';
const NFD = 'cafe\u0301';
/** Segments chosen so that paths share prefixes in code units, code points and bytes. */
const SEGS = ['😀', '𝔘', 'a', 'a😀', '😀a', NFC, NFD, `${NFC}😀`, 'x\u0301\u0327', '%', '_', '.', '-', '0', 'a.b', 'ab', '\u{10FFFF}', '\uFFFF'];
const isUnder = (root: string, p: string) => p === root || p.startsWith(root + '/');
/** What an upload records in the index (the default hash_on_write: SHA-256 alone). */
const sha = (b: Buffer) => ({ sha256: hex('sha256', b) });

forEachDialect('hash index and non-BMP names', (h) => {
  let admin: string;
  let storageId: number;

  before(async () => {
    admin = await h().adminToken();
    storageId = h().ctx.storages.list().find((s) => s.record.mountPath === '/')!.record.id;
  });

  const call = (url: string, body: unknown) => h().post(url, body, { token: admin });
  const ok = async (url: string, body: unknown) => {
    const r = await call(url, body);
    assert.equal(r.status, 200, `${url} ${JSON.stringify(body)}: ${r.status} ${r.body.message}`);
    return r.body.data;
  };
  const hashInfo = async (path: string) => (await ok('/api/fs/get', { path })).hash_info as Record<string, string> | null;
  /** Index rows of the root storage at or under `root`: path → sha256. */
  const rows = async (root: string) => {
    const all = await h().ctx.database.db.selectFrom('hash_index').select(['path', 'sha256']).where('storage_id', '=', storageId).execute();
    return Object.fromEntries(all.filter((r) => isUnder(root, r.path)).map((r) => [r.path, r.sha256]));
  };
  const put = (path: string, data: Buffer, mtime: Date) => driverWrite(driverOf(h()), path, data, { mtime });
  /** Rapid upload of a one-file seed of `data` into `dir`; returns what landed there (or null). */
  const rapid = async (dir: string, data: Buffer) => {
    await ok('/api/fs/mkdir', { path: dir });
    await seedOk(h(), admin, 'rapid_upload', { seed_data: seedData('f.bin', [seedFileOf('f.bin', data)]), path: dir });
    return landed(h(), join(dir, 'f.bin').slice(1));
  };

  test('property: deleteUnder/move/copy on the database agree with the in-memory index, for any names', async () => {
    const repo = new HashIndexRepo(h().ctx.database.db);
    const well = (s: string) => !/[/\0]|[\uD800-\uDFFF]/u.test(s) && s !== '.' && s !== '..';
    const seg = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...SEGS) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }).filter(well) });
    const path = fc.array(seg, { minLength: 1, maxLength: 3 }).map((s) => '/' + s.join('/'));
    const op = fc.record({ kind: fc.constantFrom('invalidate', 'move', 'copy'), a: path, b: path });
    let sid = 1_000_000;
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(path, { minLength: 1, maxLength: 10 }), fc.array(op, { minLength: 1, maxLength: 5 }), async (paths, ops) => {
        const id = sid++;
        const mem = new MemoryHashIndex();
        const dump = async () =>
          (await h().ctx.database.db.selectFrom('hash_index').select(['path', 'size', 'mtime', 'md5']).where('storage_id', '=', id).execute())
            .map((r) => `${r.path}|${Number(r.size)}|${Number(r.mtime)}|${r.md5}`)
            .sort();
        const model = () => [...mem.entries].map(([p, e]) => `${p}|${e.size}|${e.mtimeMs}|${e.hashes.md5}`).sort();
        try {
          for (const [i, p] of paths.entries()) {
            await repo.upsert(id, p, i, 1000 + i, { md5: `m${i}` });
            await mem.put(p, i, 1000 + i, { md5: `m${i}` });
          }
          for (const o of ops) {
            if (o.kind === 'invalidate') {
              await repo.deleteUnder(id, o.a);
              await mem.invalidate(o.a);
            } else {
              // what the drivers allow: distinct, neither inside the other
              if (isUnder(o.a, o.b) || isUnder(o.b, o.a)) continue;
              await repo[o.kind](id, o.a, o.b);
              await mem[o.kind](o.a, o.b);
            }
            assert.deepEqual(await dump(), model(), `after ${o.kind}(${JSON.stringify(o.a)}, ${JSON.stringify(o.b)})`);
          }
        } finally {
          await repo.deleteStorage(id);
        }
      }),
      { numRuns: 60 },
    );
  });

  test('the issue: an emoji folder renamed answers 200, the index follows, and rapid upload lands the right content', async () => {
    const T = new Date(1_700_000_000_000);
    const A = bytes(5000, 21);
    const B = bytes(5000, 22);
    await put('/😀 box/f.bin', A, T);
    await ok('/api/fs/rename', { path: '/😀 box', name: 'plain box' });
    assert.deepEqual(await hashInfo('/plain box/f.bin'), sha(A), 'the hashes followed the rename');
    assert.deepEqual(await rows('/😀 box'), {}, 'nothing left at the old name');
    // other content of the same size and mtime takes the old name
    await put('/staging/f.bin', B, T);
    await ok('/api/fs/rename', { path: '/staging', name: '😀 box' });
    assert.deepEqual(await hashInfo('/😀 box/f.bin'), sha(B));
    assert.deepEqual(await rows('/😀 box'), { '/😀 box/f.bin': sha(B).sha256 });
    assert.deepEqual(await rapid('/landing1', A), A, 'the seed of A lands A');
  });

  test('remove of an astral folder forgets its rows: content arriving there later is not vouched for', async () => {
    const T = new Date(1_700_000_100_000);
    const A = bytes(6000, 31);
    const B = bytes(6000, 32);
    await put('/𝔘 gone/f.bin', A, T);
    await ok('/api/fs/remove', { dir: '/', names: ['𝔘 gone'] });
    assert.deepEqual(await rows('/𝔘 gone'), {});
    // a file Ferry never hashed, same size and mtime, moved in under the old name
    utimesSync(putRaw(filesDir(h()), 'side/f.bin', B), T, T);
    await ok('/api/fs/rename', { path: '/side', name: '𝔘 gone' });
    const got = await hashInfo('/𝔘 gone/f.bin');
    assert.ok(got === null || got.sha256 === sha(B).sha256, `stale hashes for /𝔘 gone/f.bin: ${JSON.stringify(got)}`);
    const l = await rapid('/landing2', A);
    assert.ok(l === null || l.equals(A), 'the seed of A never lands other bytes');
  });

  test('NFC/NFD twins, combining marks and astral prefixes: move, copy, rename, remove touch exactly their own rows', async () => {
    const T = new Date(1_700_000_200_000);
    const C = [bytes(700, 41), bytes(700, 42), bytes(700, 43), bytes(700, 44)];
    const combo = 'x\u0301\u0327 😀𝔘';
    await put(`/nf/${NFC}/f.bin`, C[0]!, T);
    await put(`/nf/${NFD}/f.bin`, C[1]!, T);
    await put(`/nf/${NFC}😀/f.bin`, C[2]!, T);
    await put(`/nf/${combo}/𝔘/f.bin`, C[3]!, T);
    await ok('/api/fs/mkdir', { path: '/nf2' });

    await ok('/api/fs/move', { src_dir: '/nf', dst_dir: '/nf2', names: [NFD] });
    assert.deepEqual(await rows('/nf2'), { [`/nf2/${NFD}/f.bin`]: sha(C[1]!).sha256 });
    assert.deepEqual(await rows(`/nf/${NFD}`), {});
    assert.equal((await hashInfo(`/nf/${NFC}/f.bin`))?.sha256, sha(C[0]!).sha256, 'the NFC twin is untouched');

    // a copy hashes what it copies (all three digests): compare the SHA-256 every row has
    await ok('/api/fs/copy', { src_dir: '/nf', dst_dir: '/nf2', names: [NFC, `${NFC}😀`] });
    assert.equal((await hashInfo(`/nf2/${NFC}/f.bin`))?.sha256, sha(C[0]!).sha256);
    assert.equal((await hashInfo(`/nf2/${NFC}😀/f.bin`))?.sha256, sha(C[2]!).sha256);

    await ok('/api/fs/rename', { path: `/nf/${combo}`, name: `${combo}2` });
    assert.equal((await hashInfo(`/nf/${combo}2/𝔘/f.bin`))?.sha256, sha(C[3]!).sha256);
    assert.deepEqual(await rows(`/nf/${combo}`), {});

    await ok('/api/fs/rename', { path: `/nf/${NFC}😀`, name: `😀${NFC}` });
    assert.equal((await hashInfo(`/nf/😀${NFC}/f.bin`))?.sha256, sha(C[2]!).sha256);
    assert.equal((await hashInfo(`/nf/${NFC}/f.bin`))?.sha256, sha(C[0]!).sha256, 'a name that is a prefix of the renamed one keeps its rows');

    await ok('/api/fs/remove', { dir: '/', names: ['nf'] });
    assert.deepEqual(await rows('/nf'), {});
    assert.equal(Object.keys(await rows('/nf2')).length, 3, 'the copies and the moved folder keep their rows');
  });

  test('a failing index update: the rename answers 200, and the row it could not fix is never trusted', async () => {
    const T = new Date(1_700_000_300_000);
    const A = bytes(7000, 51);
    const B = bytes(7000, 52);
    await put('/fail 😀/f.bin', A, T);
    const repo = (h().ctx.hashes as unknown as { repo: HashIndexRepo }).repo;
    const saved = { move: repo.move, deleteUnder: repo.deleteUnder };
    const down = async () => {
      throw new Error('database unavailable');
    };
    repo.move = down;
    repo.deleteUnder = down;
    try {
      await ok('/api/fs/rename', { path: '/fail 😀', name: 'fail moved' });
      const moved = await hashInfo('/fail moved/f.bin');
      assert.ok(moved === null || moved.sha256 === sha(A).sha256, 'the moved file is forgotten or right');
      // other bytes of the same size and mtime appear where the row still is
      utimesSync(putRaw(filesDir(h()), 'fail 😀/f.bin', B), T, T);
      const got = await hashInfo('/fail 😀/f.bin');
      assert.ok(got === null || got.sha256 === sha(B).sha256, `stale hashes for /fail 😀/f.bin: ${JSON.stringify(got)}`);
      const l = await rapid('/landing3', A);
      assert.ok(l === null || l.equals(A), 'the seed of A never lands other bytes');
    } finally {
      Object.assign(repo, saved);
    }
    // once the database answers again, the forgotten rows are gone from it
    await hashInfo('/fail 😀/f.bin');
    assert.deepEqual(await rows('/fail 😀'), {});
  });

  test('copy: a source that changes while it is copied gives the copy no row for the old content', async () => {
    const T = new Date(1_700_000_400_000);
    const A = bytes(8000, 61);
    const B = bytes(8000, 62);
    await put('/race 😀/f.bin', A, T);
    await ok('/api/fs/mkdir', { path: '/race2' });
    const src = join(filesDir(h()), 'race 😀', 'f.bin');
    const orig = fs.promises.copyFile;
    (fs.promises as { copyFile: typeof orig }).copyFile = async (a, b, mode) => {
      if (String(a) === src) fs.writeFileSync(src, B); // another writer, between Ferry's stat and its copy
      return orig(a, b, mode);
    };
    syncBuiltinESMExports();
    try {
      await ok('/api/fs/copy', { src_dir: '/race 😀', dst_dir: '/race2', names: ['f.bin'] });
    } finally {
      (fs.promises as { copyFile: typeof orig }).copyFile = orig;
      syncBuiltinESMExports();
    }
    assert.deepEqual(landed(h(), 'race2/f.bin'), B);
    const got = await hashInfo('/race2/f.bin');
    assert.ok(got === null || got.sha256 === sha(B).sha256, `the copy vouches for A: ${JSON.stringify(got)}`);
    const l = await rapid('/landing4', A);
    assert.ok(l === null || l.equals(A), 'the seed of A never lands other bytes');
  });
});
