import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exampleSeed, helloSeed, seedError } from '../../../../test/fixtures/seeds/helpers.js';
import {
  SeedFormatError,
  canonicalizeSeed,
  compareSeedPaths,
  createSeed,
  formatSeedTime,
  parseSeedFormat,
  pieceCount,
  seedNameProblem,
  seedPathProblem,
  validateSeed,
} from './model.js';
import type { Seed } from './model.js';

const withFile = (patch: Partial<Seed['files'][number]>): Seed => {
  const s = exampleSeed();
  s.files[0] = { ...s.files[0]!, ...patch };
  return s;
};

describe('validateSeed', () => {
  it('accepts the reference seeds', () => {
    validateSeed(helloSeed());
    validateSeed(exampleSeed());
  });

  it('rejects unsafe paths ([TST2])', () => {
    const cases: [string, RegExp][] = [
      ['../secret', /"\.\." segment/],
      ['a/../../secret', /"\.\." segment/],
      ['/etc/passwd', /absolute/],
      ['', /empty/],
      ['.', /"\." segment/],
      ['a\0b', /NUL/],
      ['..\\secret', /backslash/],
      ['a//b', /empty segment/],
      ['a/', /empty segment/],
      ['./a', /"\." segment/],
      ['a/./b', /"\." segment/],
      ['bad\uD800', /UTF-8/],
    ];
    for (const [path, reason] of cases) {
      const e = seedError(() => validateSeed(withFile({ path })));
      assert.equal(e.field, 'files[0].path', path);
      assert.equal(e.file, path);
      assert.match(e.message, reason, path);
      assert.equal(e.status, 400);
    }
  });

  it('rejects duplicate paths, naming the file', () => {
    const s = helloSeed();
    s.files.push({ ...s.files[0]! });
    const e = seedError(() => validateSeed(s));
    assert.equal(e.field, 'files[1].path');
    assert.equal(e.file, 'hello.txt');
    assert.match(e.message, /duplicate/);
  });

  it('rejects bad seed names', () => {
    for (const name of ['', '  ', '.', '..', ' .. ', 'a/b', 'a\\b', 'a\0b']) {
      const s = helloSeed();
      s.name = name;
      const e = seedError(() => validateSeed(s));
      assert.equal(e.field, 'name', JSON.stringify(name));
      assert.match(e.message, /invalid seed name/);
    }
    assert.equal(seedNameProblem('movie'), null);
    assert.equal(seedNameProblem(' spaced name '), null);
  });

  it('checks hash widths and accepts either case', () => {
    const e = seedError(() => validateSeed(withFile({ hashes: { md5: 'not-a-hash' } })));
    assert.equal(e.field, 'files[0].hashes.md5');
    assert.equal(e.file, 'example.bin');
    assert.match(e.message, /32 hexadecimal/);
    assert.equal(seedError(() => validateSeed(withFile({ hashes: { sha1: 'a'.repeat(32) } }))).field, 'files[0].hashes.sha1');
    assert.equal(seedError(() => validateSeed(withFile({ hashes: { sha256: 'a'.repeat(40) } }))).field, 'files[0].hashes.sha256');
    assert.equal(seedError(() => validateSeed(withFile({ hashes: { gcid: 'z'.repeat(40) } }))).field, 'files[0].hashes.gcid');
    validateSeed(withFile({ hashes: { md5: 'ABCDEF'.padEnd(32, '0'), sha1: 'F'.repeat(40), sha256: 'aB'.repeat(32) } }));
    const bad = seedError(() => validateSeed(withFile({ hashes: { pieces: { sha1: ['c'.repeat(40), 'd'.repeat(39)] } } })));
    assert.equal(bad.field, 'files[0].hashes.pieces.sha1[1]');
  });

  it('checks piece-list lengths against ceil(size / piece_size)', () => {
    const e = seedError(() => validateSeed(withFile({ hashes: { pieces: { md5: ['a'.repeat(32)] } } })));
    assert.equal(e.field, 'files[0].hashes.pieces.md5');
    assert.match(e.message, /expected 2 piece hashes/);
    assert.match(e.message, /got 1/);
    // An empty file has zero pieces; one entry is wrong.
    assert.match(seedError(() => validateSeed(withFile({ size: 0, hashes: { pieces: { sha1: ['c'.repeat(40)] } } }))).message, /expected 0/);
    // As in OpenList, an empty list means "not computed" and is accepted.
    validateSeed(withFile({ hashes: { pieces: { sha1: [] } } }));
  });

  it('checks piece size, sizes, times, format and version', () => {
    for (const piece_size of [16383, 64 * 1024 * 1024 + 1, 0, 1.5]) {
      assert.equal(seedError(() => validateSeed({ ...exampleSeed(), piece_size })).field, 'piece_size');
    }
    validateSeed({ ...helloSeed(), piece_size: 16384 });
    validateSeed({ ...helloSeed(), piece_size: 64 * 1024 * 1024 });
    assert.equal(seedError(() => validateSeed(withFile({ size: -1 }))).field, 'files[0].size');
    assert.equal(seedError(() => validateSeed({ ...helloSeed(), created_at: '' })).field, 'created_at');
    assert.equal(seedError(() => validateSeed({ ...helloSeed(), created_by: ' ' })).field, 'created_by');
    assert.equal(seedError(() => validateSeed({ ...helloSeed(), format: 'x' as 'openlist-sharing-seed' })).field, 'format');
    assert.equal(seedError(() => validateSeed({ ...helloSeed(), version: 2 as 1 })).field, 'version');
    assert.equal(seedError(() => validateSeed({ ...helloSeed(), files: [] })).field, 'files');
  });

  it('rejects 100 001 files and accepts 100 000', () => {
    const files = Array.from({ length: 100_001 }, (_, i) => ({ path: `f${i}`, size: 0, hashes: {} }));
    const e = seedError(() => validateSeed({ ...helloSeed(), files }));
    assert.equal(e.field, 'files');
    assert.match(e.message, /100001/);
    validateSeed({ ...helloSeed(), files: files.slice(0, 100_000) });
  });

  it('checks sources, channels and missing channels', () => {
    const src = (url: string, type = 'openlist-direct'): Seed => withFile({ sources: [{ type, url }] });
    assert.equal(seedError(() => validateSeed(src('/d/relative'))).field, 'files[0].sources[0].url');
    assert.equal(seedError(() => validateSeed(src('https://x/d/a', ''))).field, 'files[0].sources[0].type');
    assert.equal(seedError(() => validateSeed({ ...helloSeed(), channels: [{ driver: ' ' }] })).field, 'channels[0].driver');
    assert.equal(seedError(() => validateSeed({ ...helloSeed(), channels: [{ driver: 'Local', mount_path: '/a?b' }] })).field, 'channels[0].mount_path');
    assert.equal(seedError(() => validateSeed(withFile({ missing_channels: ['a/b'] }))).field, 'files[0].missing_channels[0]');
    assert.equal(seedError(() => validateSeed(withFile({ cas_slice_md5: 'xyz' }))).field, 'files[0].cas_slice_md5');
  });
});

describe('model helpers', () => {
  it('pieceCount is exact', () => {
    assert.equal(pieceCount(0, 16384), 0);
    assert.equal(pieceCount(1, 16384), 1);
    assert.equal(pieceCount(16384, 16384), 1);
    assert.equal(pieceCount(16385, 16384), 2);
    assert.equal(pieceCount(Number.MAX_SAFE_INTEGER, 16384), 549755813888);
  });

  it('canonicalizeSeed lowercases hashes and drops empty optionals without touching the input', () => {
    const s = withFile({ comment: '', sources: [], hashes: { md5: 'A'.repeat(32), pieces: { sha1: [], md5: ['B'.repeat(32), 'C'.repeat(32)] } } });
    s.trackers = [];
    const c = canonicalizeSeed(s);
    assert.deepEqual(c.files[0], { path: 'example.bin', size: 10 * 1024 * 1024 + 1, hashes: { md5: 'a'.repeat(32), pieces: { md5: ['b'.repeat(32), 'c'.repeat(32)] } } });
    assert.equal('trackers' in c, false);
    assert.equal(s.files[0]!.hashes.md5, 'A'.repeat(32));
  });

  it('createSeed builds a valid canonical seed', () => {
    const s = createSeed({ name: 'x', createdBy: 'Ferry 0.1.0', createdAt: new Date(Date.UTC(2026, 0, 1)), files: [{ path: 'x', size: 0, hashes: {} }] });
    assert.deepEqual(s, {
      format: 'openlist-sharing-seed',
      version: 1,
      name: 'x',
      created_at: '2026-01-01T00:00:00Z',
      created_by: 'Ferry 0.1.0',
      piece_size: 10485760,
      files: [{ path: 'x', size: 0, hashes: {} }],
    });
    assert.throws(() => createSeed({ name: '..', createdBy: 'Ferry', files: [{ path: 'x', size: 0, hashes: {} }] }), SeedFormatError);
  });

  it('orders paths by UTF-8 bytes like mktorrent', () => {
    const paths = ['é', 'a/b', 'Z', 'a-c', 'B/x', '\uFFFD', '\u{1F600}'];
    assert.deepEqual([...paths].sort(compareSeedPaths), ['B/x', 'Z', 'a-c', 'a/b', 'é', '\uFFFD', '\u{1F600}']);
  });

  it('formats and parses small values', () => {
    assert.equal(formatSeedTime(new Date(1000)), '1970-01-01T00:00:01Z');
    assert.equal(parseSeedFormat('.TORRENT'), 'torrent');
    assert.equal(seedError(() => parseSeedFormat('does-not-exist', 'target_format')).field, 'target_format');
    assert.equal(seedPathProblem('a/b/c.txt'), null);
  });
});
