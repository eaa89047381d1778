/** The first missing piece of a download and the files it spans (named in a stalled download's error). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bitSet, firstMissingPiece } from './tool.js';

const FILES = [
  { name: 'pack/a.bin', length: 10 },
  { name: 'pack/empty.txt', length: 0 },
  { name: 'pack/b.bin', length: 25 },
  { name: 'pack/c.bin', length: 5 },
];

test('bitSet reads a BitTorrent bitfield most significant bit first', () => {
  const field = Buffer.from([0b1010_0000, 0b0000_0001]);
  assert.deepEqual([0, 1, 2, 3, 15, 16].map((i) => bitSet(field, i)), [true, false, true, false, true, false]);
});

test('firstMissingPiece: the first absent piece and every non-empty file with bytes in it', () => {
  // 16-byte pieces over 40 bytes: piece 0 = a.bin + b.bin[0..6), piece 1 = b.bin[6..22), piece 2 = b.bin[22..25) + c.bin
  assert.deepEqual(firstMissingPiece(() => false, 3, 16, FILES), { index: 0, count: 3, files: ['pack/a.bin', 'pack/b.bin'] });
  assert.deepEqual(firstMissingPiece((i) => i === 0, 3, 16, FILES), { index: 1, count: 3, files: ['pack/b.bin'] });
  assert.deepEqual(firstMissingPiece((i) => i < 2, 3, 16, FILES), { index: 2, count: 3, files: ['pack/b.bin', 'pack/c.bin'] });
});

test('firstMissingPiece: null when every piece is there or the layout is unknown (metadata not fetched yet)', () => {
  assert.equal(firstMissingPiece(() => true, 3, 16, FILES), null);
  assert.equal(firstMissingPiece(() => false, 0, 0, []), null);
  assert.equal(firstMissingPiece(() => false, 3, Number.NaN, FILES), null);
});
