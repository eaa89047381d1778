// `ferry seed` against the real tools: mktorrent (same info hash), transmission-show (accepts
// it), libtorrent (every piece verifies; a flipped byte does not), coreutils (whole digests).
// A missing tool fails the test with the Debian package to install.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { coreutilsDigest, flipByte, ltcheck, mktorrentHash, need, seedCli, seedOk, transmissionHash, writeTree } from './peers.js';

const L = 15;
const P = 2 ** L;
const ALL_WHOLE = '{"md5":{"whole":true},"sha1":{"whole":true},"sha256":{"whole":true}}';

let tmp = '';
before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'ferry-peers-'));
});
after(() => rmSync(tmp, { recursive: true, force: true }));

/** Creates DIR/case/{data…, out/} and returns the paths. */
function workspace(name: string) {
  const base = join(tmp, name);
  return { base, data: join(base, 'data'), out: join(base, 'out') };
}

/** The escaped form of a path for a RegExp. */
const re = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('single files: same info hash as mktorrent, libtorrent verifies', () => {
  for (const size of [P - 1, P, P + 1, 5 * P + 3]) {
    test(`a ${size}-byte file with 2^${L}-byte pieces`, () => {
      need.mktorrent();
      need.transmission();
      need.libtorrent();
      const ws = workspace(`single-${size}`);
      writeTree(ws.data, { 'file.bin': size });
      const file = join(ws.data, 'file.bin');
      const r = seedOk('create', file, '--format', 'torrent', '--piece-size', `2^${L}`, '-o', ws.out);
      const ours = r.stdout.trim();
      assert.equal(ours, join(ws.out, 'file.torrent'), 'single file: the seed is named after the file without extension');
      assert.equal(transmissionHash(ours), mktorrentHash(file, L, join(ws.base, 'mk.torrent')));
      assert.match(r.stderr, new RegExp(`info hash ${transmissionHash(ours)}`));
      assert.deepEqual(ltcheck(ours, ws.data), { ok: Math.ceil(size / P), total: Math.ceil(size / P), verdict: 'OK' });
      assert.equal(seedCli('verify', ours, ws.data).status, 0);

      const at = size - 1; // the last piece
      const piece = Math.floor(at / P);
      flipByte(file, at);
      try {
        const lt = ltcheck(ours, ws.data);
        assert.equal(lt.verdict, 'BAD');
        assert.equal(lt.ok, lt.total - 1);
        const v = seedCli('verify', ours, ws.data);
        assert.equal(v.status, 1, v.stdout + v.stderr);
        assert.match(v.stdout, new RegExp(`file\\.bin: sha1 piece ${piece} of ${Math.ceil(size / P)} \\(bytes ${piece * P}-`));
      } finally {
        flipByte(file, at);
      }
    });
  }
});

describe('directories: nested folders, empty files, sizes around the piece size', () => {
  const tree: Record<string, number> = {
    'top.bin': P + 1,
    'empty.txt': 0,
    'a/exact.bin': P,
    'a/minus-one.bin': P - 1,
    'a/b/c/deep.bin': 3 * P,
    'a/b/empty-too': 0,
    'a-sibling.txt': 7, // sorts before "a/…" by bytes, as mktorrent orders
    'zz/several.bin': 4 * P + 123,
    'ünïcode name.txt': 33,
    '.hidden': 5,
  };

  test(`a tree with 2^${L}-byte pieces: info hash, transmission-show, libtorrent, verify`, () => {
    need.mktorrent();
    need.transmission();
    need.libtorrent();
    const ws = workspace('tree');
    const dir = join(ws.data, 'My Folder');
    writeTree(dir, tree);
    const r = seedOk('create', dir, '--format', 'torrent', '--piece-size', String(P), '-o', ws.out, '--tracker', 'https://t.example/announce', '--comment', 'hello');
    const ours = r.stdout.trim();
    assert.equal(ours, join(ws.out, 'My Folder.torrent'), 'a directory: the seed is named after it');
    // Trackers and comment live outside info: the info hash still equals mktorrent's.
    assert.equal(transmissionHash(ours), mktorrentHash(dir, L, join(ws.base, 'mk.torrent')));
    const total = Object.values(tree).reduce((a, b) => a + b, 0);
    assert.deepEqual(ltcheck(ours, ws.data), { ok: Math.ceil(total / P), total: Math.ceil(total / P), verdict: 'OK' });
    assert.equal(seedCli('verify', ours, dir).status, 0);
    assert.equal(seedCli('verify', ours, ws.data).status, 0, 'torrent-client layout (DATA_DIR/<name>/…) is found too');

    const victim = join(dir, 'a/b/c/deep.bin');
    flipByte(victim, P + 10); // second piece of that file
    try {
      const lt = ltcheck(ours, ws.data);
      assert.equal(lt.verdict, 'BAD');
      const v = seedCli('verify', ours, dir);
      assert.equal(v.status, 1);
      assert.match(v.stdout, /BAD\s+a\/b\/c\/deep\.bin: sha1 piece 1 of 3 \(bytes 32768-65535\) differs/);
      assert.match(v.stdout, /BAD\s+a\/b\/c\/deep\.bin: md5 differs/);
      assert.match(v.stdout, /BAD\s+torrent piece \d+ of \d+: .*a\/b\/c\/deep\.bin bytes/);
      assert.doesNotMatch(v.stdout, /BAD\s+top\.bin/, 'files whose own digests verify are not blamed');
      // The mktorrent torrent (no per-file digests) also names the file and the piece.
      const mk = seedCli('verify', join(ws.base, 'mk.torrent'), ws.data);
      assert.equal(mk.status, 1);
      assert.match(mk.stdout, /BAD\s+a\/b\/c\/deep\.bin: torrent piece \d+ of \d+ \(bytes \d+-\d+ of this file\) differs/);
    } finally {
      flipByte(victim, P + 10);
    }
    assert.equal(ltcheck(ours, ws.data).verdict, 'OK');
  });

  for (const log2 of [16, 20]) { // mktorrent accepts 15–28
    test(`piece boundaries with 2^${log2}-byte pieces`, () => {
      need.mktorrent();
      need.transmission();
      need.libtorrent();
      const p = 2 ** log2;
      const ws = workspace(`bounds-${log2}`);
      const dir = join(ws.data, 'bounds');
      writeTree(dir, { 'p-1': p - 1, p: p, 'p+1': p + 1, 'x/several': 3 * p + 17, 'x/zero': 0 });
      const ours = seedOk('create', dir, '--format', 'torrent,oss', '--piece-size', `2^${log2}`, '-o', ws.out).stdout.trim().split('\n')[0]!;
      assert.equal(transmissionHash(ours), mktorrentHash(dir, log2, join(ws.base, 'mk.torrent')));
      assert.equal(ltcheck(ours, ws.data).verdict, 'OK');
    });
  }

  test('a folder holding one file is a multi-file torrent, as mktorrent writes it', () => {
    need.mktorrent();
    need.transmission();
    need.libtorrent();
    const ws = workspace('lone');
    const dir = join(ws.data, 'lone');
    writeTree(dir, { 'only.bin': 70_000 });
    const ours = seedOk('create', dir, '--format', 'torrent', '--piece-size', '2^16', '-o', ws.out).stdout.trim().split('\n')[0]!;
    assert.equal(transmissionHash(ours), mktorrentHash(dir, 16, join(ws.base, 'mk.torrent')));
    assert.equal(ltcheck(ours, ws.data).verdict, 'OK');
  });

  test('several PATH arguments: paths relative to their common parent, name of that parent', () => {
    need.transmission();
    need.libtorrent();
    const ws = workspace('multi');
    const parent = join(ws.data, 'parent');
    writeTree(parent, { 'one.bin': P + 5, 'two/inner.bin': 2 * P, 'three.txt': 3 });
    const ours = seedOk('create', join(parent, 'one.bin'), join(parent, 'two'), '--format', 'torrent', '--piece-size', String(P), '-o', ws.out).stdout.trim();
    assert.equal(ours, join(ws.out, 'parent.torrent'));
    transmissionHash(ours);
    assert.equal(ltcheck(ours, ws.data).verdict, 'OK');
    const j = JSON.parse(seedOk('inspect', ours, '--json').stdout) as { seed: { files: { path: string }[] } };
    assert.deepEqual(
      j.seed.files.map((f) => f.path),
      ['one.bin', 'two/inner.bin'],
    );
  });
});

describe('.oss and .cas whole hashes equal coreutils', () => {
  test('a single file and a directory', () => {
    need.coreutils();
    const ws = workspace('sums');
    writeTree(ws.data, { 'solo.dat': 3 * 1024 * 1024 + 17, 'dir/a.bin': 11 * 1024 * 1024 + 1, 'dir/sub/b.bin': 1234, 'dir/empty': 0 });
    // Single file: .oss carries all three; .cas (10 MiB slices) carries the MD5.
    const out1 = seedOk('create', join(ws.data, 'solo.dat'), '--format', 'oss,cas', '--matrix', ALL_WHOLE, '-o', ws.out).stdout.trim().split('\n');
    assert.deepEqual(out1, [join(ws.out, 'solo.oss'), join(ws.out, 'solo.cas')]);
    const oss = JSON.parse(readFileSync(out1[0]!, 'utf8')) as { files: { path: string; hashes: Record<string, string> }[] };
    const file = join(ws.data, 'solo.dat');
    for (const alg of ['md5', 'sha1', 'sha256'] as const) assert.equal(oss.files[0]!.hashes[alg], coreutilsDigest(alg, file), alg);
    const cas = JSON.parse(Buffer.from(readFileSync(out1[1]!, 'utf8'), 'base64').toString('utf8')) as Record<string, unknown>;
    assert.equal(cas.md5, coreutilsDigest('md5', file).toUpperCase());
    assert.equal(cas.name, 'solo.dat');
    assert.equal(cas.size, 3 * 1024 * 1024 + 17);
    assert.equal(cas.sliceMd5, cas.md5, 'one 10 MiB slice: sliceMd5 is the whole MD5');

    // A directory: every file's digests, and the multi-file .cas keeps folders.
    const dir = join(ws.data, 'dir');
    const out2 = seedOk('create', dir, '--format', 'oss,cas', '--matrix', ALL_WHOLE, '-o', ws.out).stdout.trim().split('\n');
    const oss2 = JSON.parse(readFileSync(out2[0]!, 'utf8')) as typeof oss;
    assert.deepEqual(
      oss2.files.map((f) => f.path),
      ['a.bin', 'empty', 'sub/b.bin'],
    );
    for (const f of oss2.files) {
      for (const alg of ['md5', 'sha1', 'sha256'] as const) assert.equal(f.hashes[alg], coreutilsDigest(alg, join(dir, f.path)), `${f.path} ${alg}`);
    }
    const cas2 = JSON.parse(Buffer.from(readFileSync(out2[1]!, 'utf8'), 'base64').toString('utf8')) as { files: { name: string; md5: string; slice_md5s?: string[] }[] };
    for (const e of cas2.files) assert.equal(e.md5, coreutilsDigest('md5', join(dir, e.name)).toUpperCase(), e.name);
    assert.equal(cas2.files.find((e) => e.name === 'a.bin')!.slice_md5s!.length, 2);
  });

  test('seed verify on an .oss with piece hashes names the file and the piece', () => {
    const ws = workspace('verify-oss');
    const dir = join(ws.data, 'v');
    writeTree(dir, { 'x/one.bin': 100_000, 'two.bin': 70_000 });
    const matrix = '{"md5":{"whole":true,"pieces":true},"sha256":{"pieces":true}}';
    const oss = seedOk('create', dir, '--matrix', matrix, '--piece-size', '16KiB', '-o', ws.out).stdout.trim();
    assert.equal(seedCli('verify', oss, dir).status, 0);
    flipByte(join(dir, 'x/one.bin'), 50_000); // piece 3 (49152–65535)
    const v = seedCli('verify', oss, dir);
    assert.equal(v.status, 1);
    assert.match(v.stdout, new RegExp(`BAD\\s+${re('x/one.bin')}: md5 piece 3 of 7 \\(bytes 49152-65535\\) differs`));
    assert.match(v.stdout, new RegExp(`BAD\\s+${re('x/one.bin')}: sha256 piece 3 of 7`));
    assert.match(v.stdout, /OK\s+two\.bin/);
    assert.match(v.stdout, /1 of 2 files failed/);
  });
});
