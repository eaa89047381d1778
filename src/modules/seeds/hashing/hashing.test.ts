import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { getPriority, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, test } from 'node:test';
import { HashPool, createHasher, hashFiles, hashInput } from './index.js';
import type { FileHashes, HashName, HashOptions } from './index.js';
import { normalizeSelection, planLanes } from './job-plan.js';
import { HASH_WORKER_NICE_OFFSET } from './protocol.js';

const ALGS: HashName[] = ['md5', 'sha1', 'sha256'];
const ALL = { whole: ALGS, pieces: ALGS } as const;
const hex = (alg: string, b: Uint8Array) => createHash(alg).update(b).digest('hex');

/** Straightforward node:crypto reference for one file. */
function reference(data: Buffer, pieceSize: number): FileHashes {
  const pieces: Record<string, string[]> = {};
  for (const alg of ALGS) {
    pieces[alg] = [];
    for (let off = 0; off < data.length; off += pieceSize) pieces[alg]!.push(hex(alg, data.subarray(off, off + pieceSize)));
  }
  return { size: data.length, md5: hex('md5', data), sha1: hex('sha1', data), sha256: hex('sha256', data), pieces };
}

/** BitTorrent v1 pieces over the concatenation of all files. */
function referenceTorrent(files: Buffer[], pieceSize: number): Buffer {
  const all = Buffer.concat(files);
  const out: Buffer[] = [];
  for (let off = 0; off < all.length; off += pieceSize) out.push(createHash('sha1').update(all.subarray(off, off + pieceSize)).digest());
  return Buffer.concat(out);
}

/** Yields `data` in chunks of pseudo-random sizes (1 byte … 3 × max). */
function* chunked(data: Buffer, max: number, seed: number): Generator<Buffer> {
  let s = seed;
  for (let off = 0; off < data.length; ) {
    s = (s * 1103515245 + 12345) >>> 0;
    const n = 1 + (s % (3 * max));
    yield data.subarray(off, off + n);
    off += n;
  }
}

const pool = new HashPool({ size: 2 });
const modes: [string, Partial<HashOptions>][] = [
  ['workers', { inlineThreshold: 0, pool }],
  ['inline', { inlineThreshold: Number.MAX_SAFE_INTEGER, pool }],
];

after(() => pool.destroy());

describe('hashing engine: equality with coreutils and node:crypto', () => {
  let dir = '';
  let file = '';
  let data = Buffer.alloc(0);
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ferry-hash-'));
    file = join(dir, 'data.bin');
    data = randomBytes(37 * 1024 * 1024 + 4321);
    await writeFile(file, data);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  for (const tool of ['md5sum', 'sha1sum', 'sha256sum'] as const) {
    test(`whole digests of a file equal ${tool}`, async () => {
      const r = spawnSync(tool, [file], { encoding: 'utf8' });
      assert.equal(r.error, undefined, `${tool} is missing: apt-get install coreutils`);
      const expected = r.stdout.split(' ')[0];
      const alg = tool.replace('sum', '') as HashName;
      const got = await hashInput(file, { whole: [alg], pool, inlineThreshold: 0 });
      assert.equal(got.files[0]![alg], expected);
      assert.equal(got.files[0]!.size, data.length);
    });
  }

  for (const [mode, extra] of modes) {
    test(`${mode}: all six digests and torrent pieces of a path, a stream and a buffer equal node:crypto`, async () => {
      const P = 1024 * 1024 + 17;
      const expected = reference(data, P);
      const torrent = referenceTorrent([data], 1 << 18);
      for (const input of [file, Readable.from(chunked(data, 64 * 1024, 7)), data]) {
        const got = await hashInput(input, { ...ALL, pieceSize: P, torrentPieceSize: 1 << 18, ...extra });
        assert.deepEqual(got.files, [expected]);
        assert.equal(got.totalBytes, data.length);
        assert.ok(got.torrentPieces!.equals(torrent), 'torrent pieces');
      }
    });
  }
});

describe('piece boundaries', () => {
  const P = 16 * 1024;
  const sizes = [0, 1, P - 1, P, P + 1, 2 * P, 3 * P + 7, 5 * P - 1];
  for (const [mode, extra] of modes) {
    for (const size of sizes) {
      test(`${mode}: a ${size}-byte file with ${P}-byte pieces`, async () => {
        const data = randomBytes(size);
        const got = await hashInput(chunked(data, 5000, size + 1), { ...ALL, pieceSize: P, torrentPieceSize: P, ...extra });
        const expected = reference(data, P);
        assert.deepEqual(got.files, [expected]);
        assert.equal(got.files[0]!.pieces!.sha1!.length, Math.ceil(size / P));
        assert.ok(got.torrentPieces!.equals(referenceTorrent([data], P)));
      });
    }

    test(`${mode}: torrent pieces span files while per-file pieces restart`, async () => {
      const files = sizes.map((s) => randomBytes(s));
      const got = await hashFiles(
        files.map((f, i) => () => chunked(f, 3000, i)),
        { ...ALL, pieceSize: P, torrentPieceSize: P, ...extra },
      );
      assert.deepEqual(
        got.files,
        files.map((f) => reference(f, P)),
      );
      assert.ok(got.torrentPieces!.equals(referenceTorrent(files, P)));
      assert.equal(got.torrentPieces!.length, 20 * Math.ceil(files.reduce((a, f) => a + f.length, 0) / P));
    });
  }

  test('piece sizes that are not powers of two or that exceed the chunk size', async () => {
    const data = randomBytes(3 * 1024 * 1024 + 5);
    for (const P of [1, 1000, 3 * 1024 * 1024, 3 * 1024 * 1024 + 5, 64 * 1024 * 1024]) {
      const opts = P === 1 ? { pieces: ['md5'] as HashName[] } : ALL;
      const got = await hashInput(data.subarray(0, P === 1 ? 3000 : data.length), { ...opts, pieceSize: P, inlineThreshold: 0, pool });
      const want = reference(data.subarray(0, P === 1 ? 3000 : data.length), P);
      assert.deepEqual(got.files[0]!.pieces!.md5, want.pieces!.md5, `piece size ${P}`);
    }
  });

  test('an empty job and an empty selection', async () => {
    assert.deepEqual(await hashFiles([], { ...ALL, pool }), { files: [], totalBytes: 0 });
    const got = await hashFiles([Buffer.from('abc'), Buffer.alloc(0)], { pool });
    assert.deepEqual(got.files, [{ size: 3 }, { size: 0 }]);
    const t = await hashFiles([], { torrentPieceSize: 1 << 18, pool });
    assert.equal(t.torrentPieces!.length, 0);
  });

  test('the known vectors for "abc"', async () => {
    const got = await hashInput(Buffer.from('abc'), { ...ALL, pool });
    assert.deepEqual(got.files[0], {
      size: 3,
      md5: '900150983cd24fb0d6963f7d28e17f72',
      sha1: 'a9993e364706816aba3e25717850c26c9cd0d89d',
      sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      pieces: {
        md5: ['900150983cd24fb0d6963f7d28e17f72'],
        sha1: ['a9993e364706816aba3e25717850c26c9cd0d89d'],
        sha256: ['ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
      },
    });
  });

  test('invalid options are refused', () => {
    assert.throws(() => createHasher({ pieceSize: 0 }), RangeError);
    assert.throws(() => createHasher({ torrentPieceSize: 1.5 }), RangeError);
    assert.throws(() => createHasher({ whole: ['crc32' as HashName] }), RangeError);
  });
});

describe('many files, pools and plans', () => {
  test('500 files of assorted sizes in sequence, through the workers and inline', async () => {
    let s = 42;
    const files = Array.from({ length: 500 }, (_, i) => {
      s = (s * 1103515245 + 12345) >>> 0;
      return randomBytes(i % 50 === 0 ? 0 : s % 70_000);
    });
    const P = 32 * 1024;
    const want = files.map((f) => reference(f, P));
    for (const [, extra] of modes) {
      const got = await hashFiles(files, { ...ALL, pieceSize: P, torrentPieceSize: P, ...extra });
      assert.deepEqual(got.files, want);
      assert.ok(got.torrentPieces!.equals(referenceTorrent(files, P)));
    }
  });

  test('a one-worker and a three-worker pool give the same digests', async () => {
    const data = randomBytes(9 * 1024 * 1024 + 1);
    const want = reference(data, 1 << 20);
    for (const size of [1, 3]) {
      const p = new HashPool({ size });
      try {
        const got = await hashInput(data, { ...ALL, pieceSize: 1 << 20, torrentPieceSize: 1 << 16, pool: p, inlineThreshold: 0 });
        assert.deepEqual(got.files, [want]);
        assert.ok(got.torrentPieces!.equals(referenceTorrent([data], 1 << 16)));
      } finally {
        await p.destroy();
      }
    }
  });

  test('concurrent jobs share the pool without mixing their bytes', async () => {
    const inputs = Array.from({ length: 6 }, (_, i) => randomBytes(3 * 1024 * 1024 + i * 1000));
    const results = await Promise.all(
      inputs.map((d, i) => hashInput(chunked(d, 50_000, i), { ...ALL, pieceSize: 1 << 20, torrentPieceSize: 1 << 18, pool, inlineThreshold: 0 })),
    );
    results.forEach((r, i) => {
      assert.deepEqual(r.files, [reference(inputs[i]!, 1 << 20)]);
      assert.ok(r.torrentPieces!.equals(referenceTorrent([inputs[i]!], 1 << 18)));
    });
  });

  test('idle workers exit after idleMs; the next job starts new ones and hashes right', async () => {
    const p = new HashPool({ size: 2, idleMs: 200 });
    try {
      const data = randomBytes(3 * 1024 * 1024 + 7);
      const want = reference(data, 1 << 20);
      const first = await hashInput(data, { ...ALL, pieceSize: 1 << 20, torrentPieceSize: 1 << 18, pool: p, inlineThreshold: 0 });
      assert.deepEqual(first.files, [want]);
      assert.ok(p.started >= 1);
      for (let waited = 0; p.started > 0 && waited < 20_000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      assert.equal(p.started, 0, 'no worker left once idle');
      const again = await hashInput(data, { ...ALL, pieceSize: 1 << 20, torrentPieceSize: 1 << 18, pool: p, inlineThreshold: 0 });
      assert.deepEqual(again.files, [want]);
      assert.ok(again.torrentPieces!.equals(referenceTorrent([data], 1 << 18)));
    } finally {
      await p.destroy();
    }
  });

  test('a worker dying mid-job fails that job with a clear error', async () => {
    const p = new HashPool({ size: 2 });
    const block = randomBytes(1024 * 1024);
    async function* endless() {
      for (;;) yield block;
    }
    const job = hashInput(endless(), { whole: ALGS, pool: p, inlineThreshold: 0, onProgress: (n) => n > 8 * 1024 * 1024 && void p.destroy() });
    await assert.rejects(job, /hash worker exited/);
  });

  test('plans balance the algorithms over the workers', () => {
    const costs = { md5: 2.4, sha1: 1, sha256: 1.1 };
    const a = planLanes(normalizeSelection({ whole: ALGS }), 2, costs);
    assert.deepEqual(
      a.map((l) => l.map((x) => (x.kind === 'whole' ? x.alg : x.kind)).sort()),
      [['sha1', 'sha256'], ['md5']],
    );
    const c = planLanes(normalizeSelection({ torrentPieceSize: 1 << 18 }), 2, costs);
    assert.deepEqual(c, [
      [{ kind: 'torrent', pieceSize: 1 << 18, share: [0, 0.5] }],
      [{ kind: 'torrent', pieceSize: 1 << 18, share: [0.5, 1] }],
    ]);
  });
});

describe('streaming API: back-pressure, tee, progress, cancel, responsiveness', () => {
  test('update() resolves only as the ring drains, and the tee passes bytes through unchanged', async () => {
    const data = randomBytes(20 * 1024 * 1024 + 3);
    const h = createHasher({ whole: ALGS, pool, inlineThreshold: 0, ringBytes: 2 << 20, segmentBytes: 256 << 10 });
    const seen: Buffer[] = [];
    await pipeline(
      Readable.from(chunked(data, 100_000, 3)),
      h.tee(),
      new Writable({
        write(chunk: Buffer, _e, cb) {
          seen.push(chunk);
          cb();
        },
      }),
    );
    const r = await h.finish();
    assert.ok(Buffer.concat(seen).equals(data));
    assert.deepEqual(r.files[0], { size: data.length, md5: hex('md5', data), sha1: hex('sha1', data), sha256: hex('sha256', data) });
  });

  test('writable() hashes what is written; push-style files', async () => {
    const h = createHasher({ whole: ['sha256'], pool, inlineThreshold: 0 });
    await pipeline(Readable.from([Buffer.from('hello '), Buffer.from('world')]), h.writable());
    await h.startFile();
    await h.update(Buffer.from('second'));
    const r = await h.finish();
    assert.deepEqual(r.files, [
      { size: 11, sha256: hex('sha256', Buffer.from('hello world')) },
      { size: 6, sha256: hex('sha256', Buffer.from('second')) },
    ]);
  });

  test('progress is monotonic and ends at the total', async () => {
    const data = randomBytes(12 * 1024 * 1024);
    const seen: number[] = [];
    await hashInput(data, { whole: ALGS, pool, inlineThreshold: 0, segmentBytes: 1 << 20, onProgress: (n) => seen.push(n) });
    assert.ok(seen.length > 3, `progress called ${seen.length} times`);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! > seen[i - 1]!);
    assert.equal(seen.at(-1), data.length);
  });

  test('a slow producer still sees progress while it writes (partial segments are flushed)', async () => {
    let hashed = 0;
    let seenWhileFeeding = 0;
    const h = createHasher({ whole: ['md5'], pool, inlineThreshold: 0, segmentBytes: 4 << 20, onProgress: (n) => (hashed = n) });
    const chunk = randomBytes(32 * 1024);
    for (let i = 0; i < 40; i++) {
      // Progress seen before the last chunk is fed (after it, everything may be hashed already).
      seenWhileFeeding = Math.max(seenWhileFeeding, hashed);
      await h.update(chunk);
      await new Promise((r) => setTimeout(r, 5));
    }
    const r = await h.finish();
    assert.equal(r.files[0]!.size, 40 * 32 * 1024);
    assert.ok(seenWhileFeeding > 0 && seenWhileFeeding < 40 * 32 * 1024, `progress while feeding: ${seenWhileFeeding}`);
  });

  test('abort stops an endless stream promptly and frees the workers', async () => {
    const block = randomBytes(1024 * 1024);
    let produced = 0;
    async function* endless() {
      for (;;) {
        produced += block.length;
        yield block;
      }
    }
    const ac = new AbortController();
    let progressed = 0;
    const job = hashInput(endless(), {
      ...ALL,
      torrentPieceSize: 1 << 18,
      pool,
      signal: ac.signal,
      onProgress: (n) => {
        progressed = n;
        if (n >= 64 * 1024 * 1024) ac.abort();
      },
    });
    const t0 = Date.now();
    await assert.rejects(job, (e: Error) => e.name === 'AbortError');
    assert.ok(progressed >= 64 * 1024 * 1024);
    const stopped = produced;
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(produced, stopped, 'the source is no longer read');
    for (let i = 0; i < 100 && pool.busy > 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(pool.busy, 0, 'workers released');
    // The pool still works afterwards.
    const again = await hashInput(randomBytes(2 << 20), { whole: ['md5'], pool, inlineThreshold: 0 });
    assert.equal(again.files[0]!.size, 2 << 20);
  });

  test('an already-aborted signal and abort() reject every call', async () => {
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(hashInput(Buffer.from('x'), { whole: ['md5'], pool, signal: ac.signal }), (e: Error) => e.name === 'AbortError');
    const h = createHasher({ whole: ['md5'], pool, inlineThreshold: 0 });
    await h.update(randomBytes(1 << 20));
    h.abort(new Error('stop'));
    await assert.rejects(h.update(Buffer.from('x')), /stop/);
    await assert.rejects(h.finish(), /stop/);
  });

  test('the event loop keeps turning while 200 MB are hashed', async () => {
    const block = randomBytes(1024 * 1024);
    async function* source() {
      for (let i = 0; i < 200; i++) yield block;
    }
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const t0 = Date.now();
    try {
      const r = await hashInput(source(), { ...ALL, torrentPieceSize: 1 << 18, pool });
      assert.equal(r.files[0]!.size, 200 * 1024 * 1024);
    } finally {
      clearInterval(timer);
    }
    // Hashing 200 MB with all six digests takes well over 200 ms here; blocking the loop would give ~0 ticks.
    assert.ok(ticks >= 15, `only ${ticks} timer ticks in ${Date.now() - t0} ms`);
  });
});

describe('scheduling', () => {
  /** Thread id → nice value of every thread of this process (Linux: field 19 of /proc/self/task/<tid>/stat). */
  function threadNices(): Map<string, number> {
    const out = new Map<string, number>();
    for (const tid of readdirSync('/proc/self/task')) {
      try {
        const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        out.set(tid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
      } catch {
        // the thread ended meanwhile
      }
    }
    return out;
  }

  test('hashing workers run at the process priority: the loop waits on their ring, so starving them stalls it (Linux)', { skip: process.platform !== 'linux' && 'thread priorities are set on Linux only' }, async () => {
    const before = threadNices();
    const p = new HashPool({ size: 2 });
    try {
      // md5 on one worker, sha1 and sha256 on the other: both threads start and take their priority
      const got = await hashInput(randomBytes(1 << 20), { whole: ['md5', 'sha1', 'sha256'], pool: p, inlineThreshold: 0 });
      assert.equal(got.files[0]!.size, 1 << 20);
      const fresh = [...threadNices()].filter(([tid]) => !before.has(tid));
      assert.ok(fresh.length >= 2, `expected the pool's 2 worker threads, saw ${fresh.length} new threads`);
      const want = Math.min(19, getPriority() + HASH_WORKER_NICE_OFFSET);
      assert.equal(HASH_WORKER_NICE_OFFSET, 0);
      for (const [tid, nice] of fresh) assert.equal(nice, want, `thread ${tid} runs at nice ${nice}, the process at ${getPriority()}`);
    } finally {
      await p.destroy();
    }
  });
});
