import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seedError } from '../../../../test/fixtures/seeds/helpers.js';
import {
  ALL_HASHES_MATRIX,
  DEFAULT_HASH_MATRIX,
  EMPTY_HASH_MATRIX,
  applyHashMatrix,
  hashMatrixOf,
  normalizeHashMatrix,
  parseHashMatrix,
  parseHashMatrixText,
  planSeedHashes,
  resolvePieceSize,
} from './hash-matrix.js';
import type { HashMatrix } from './hash-matrix.js';

const only = (patch: Partial<HashMatrix>): HashMatrix => ({ ...structuredClone(EMPTY_HASH_MATRIX), ...patch });

describe('parseHashMatrix', () => {
  it('reads the documented shape; missing keys are false', () => {
    assert.deepEqual(parseHashMatrix({ md5: { whole: true }, sha256: { pieces: true } }), only({ md5: { whole: true, pieces: false }, sha256: { whole: false, pieces: true } }));
    assert.deepEqual(parseHashMatrix(undefined), EMPTY_HASH_MATRIX);
    assert.deepEqual(parseHashMatrix(null), EMPTY_HASH_MATRIX);
    assert.deepEqual(parseHashMatrix({}), EMPTY_HASH_MATRIX);
  });

  it('names the field on bad input', () => {
    assert.equal(seedError(() => parseHashMatrix([])).field, 'hash_matrix');
    assert.equal(seedError(() => parseHashMatrix('md5')).field, 'hash_matrix');
    assert.equal(seedError(() => parseHashMatrix({ crc32: { whole: true } })).field, 'hash_matrix.crc32');
    assert.equal(seedError(() => parseHashMatrix({ md5: true })).field, 'hash_matrix.md5');
    assert.equal(seedError(() => parseHashMatrix({ md5: { whole: 'yes' } })).field, 'hash_matrix.md5.whole');
    assert.equal(seedError(() => parseHashMatrix({ sha1: { all: true } })).field, 'hash_matrix.sha1.all');
    assert.equal(seedError(() => parseHashMatrix({ md5: 1 }, 'X-Seed-Hash-Matrix')).field, 'X-Seed-Hash-Matrix.md5');
  });

  it('reads raw and URL-encoded JSON text', () => {
    const json = '{"sha1":{"whole":true,"pieces":true}}';
    const want = only({ sha1: { whole: true, pieces: true } });
    assert.deepEqual(parseHashMatrixText(json), want);
    assert.deepEqual(parseHashMatrixText(encodeURIComponent(json)), want);
    assert.match(seedError(() => parseHashMatrixText('{nope')).message, /hash_matrix: is not valid JSON/);
  });
});

describe('normalizeHashMatrix', () => {
  it('all false → the default matrix', () => {
    assert.deepEqual(normalizeHashMatrix(EMPTY_HASH_MATRIX, ['oss']), DEFAULT_HASH_MATRIX);
    const custom = only({ sha256: { whole: true, pieces: true } });
    assert.deepEqual(normalizeHashMatrix(EMPTY_HASH_MATRIX, ['oss'], custom), custom);
  });

  it('still all false → all six', () => {
    assert.deepEqual(normalizeHashMatrix(EMPTY_HASH_MATRIX, ['oss'], EMPTY_HASH_MATRIX), ALL_HASHES_MATRIX);
  });

  it('keeps a non-empty request', () => {
    const m = only({ md5: { whole: true, pieces: false } });
    assert.deepEqual(normalizeHashMatrix(m, ['oss']), m);
  });

  it('torrent forces sha1 pieces, cas forces md5 whole and pieces', () => {
    const m = only({ sha256: { whole: true, pieces: false } });
    assert.deepEqual(normalizeHashMatrix(m, ['torrent']), only({ sha256: { whole: true, pieces: false }, sha1: { whole: true, pieces: true } }));
    assert.deepEqual(normalizeHashMatrix(m, ['cas']), only({ sha256: { whole: true, pieces: false }, md5: { whole: true, pieces: true } }));
    const both = normalizeHashMatrix(m, ['oss', 'torrent', 'cas']);
    assert.deepEqual(both, { md5: { whole: true, pieces: true }, sha1: { whole: true, pieces: true }, sha256: { whole: true, pieces: false } });
  });
});

describe('piece size and plan', () => {
  it('defaults to 10 MiB, forces 10 MiB for cas, rejects out-of-range sizes', () => {
    assert.equal(resolvePieceSize(undefined, ['oss']), 10485760);
    assert.equal(resolvePieceSize(0, ['oss']), 10485760);
    assert.equal(resolvePieceSize(16384, ['torrent']), 16384);
    assert.equal(resolvePieceSize(16384, ['torrent', 'cas']), 10485760);
    assert.equal(resolvePieceSize(999, ['cas']), 10485760);
    for (const bad of [16383, 64 * 1024 * 1024 + 1, -5, 1.5]) {
      const e = seedError(() => resolvePieceSize(bad, ['oss']));
      assert.equal(e.field, 'piece_size');
      assert.match(e.message, new RegExp(String(bad).replace('.', '\\.')));
    }
  });

  it('plans matrix and piece size together', () => {
    assert.deepEqual(planSeedHashes({ formats: ['cas'], pieceSize: 65536 }), {
      matrix: { md5: { whole: true, pieces: true }, sha1: { whole: true, pieces: false }, sha256: { whole: true, pieces: false } },
      pieceSize: 10485760,
    });
  });
});

describe('applying a matrix', () => {
  it('blanks unselected hashes and drops unselected piece lists', () => {
    const file = { path: 'a', size: 1, hashes: { md5: 'a'.repeat(32), sha1: 'b'.repeat(40), sha256: 'c'.repeat(64), gcid: 'd'.repeat(40), pieces: { md5: ['e'.repeat(32)], sha1: ['f'.repeat(40)] } } };
    const out = applyHashMatrix(file, only({ sha1: { whole: false, pieces: true }, md5: { whole: true, pieces: false } }));
    assert.deepEqual(out.hashes, { md5: 'a'.repeat(32), gcid: 'd'.repeat(40), pieces: { sha1: ['f'.repeat(40)] } });
    assert.deepEqual(applyHashMatrix(file, only({ sha256: { whole: true, pieces: false } })).hashes, { sha256: 'c'.repeat(64), gcid: 'd'.repeat(40) });
    assert.deepEqual(hashMatrixOf(out), only({ md5: { whole: true, pieces: false }, sha1: { whole: false, pieces: true } }));
  });
});
