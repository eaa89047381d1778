/**
 * Inputs the fuzzers found, kept as regression tests. Each names what broke and the fix.
 */
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import { helloSeed } from '../fixtures/seeds/helpers.js';
import { convertSeed, decodeAny, decodeCas, decodeTorrent, encodeCas, encodeOss, encodeTorrent } from '../../src/modules/seeds/formats/index.js';
import type { Seed } from '../../src/modules/seeds/formats/index.js';
import { checkInput, FUZZ_NOW } from './oracle.js';

/** hello.txt renamed to `name` (a valid seed path whose base name is no valid seed name). */
function helloAt(path: string): Seed {
  const s = helloSeed();
  s.files[0]!.path = path;
  return s;
}

describe('fuzz regressions', () => {
  // fuzzInput(12345, 435): a torrent whose x-openlist file path is " " was accepted, but
  // re-encoding it wrote info.name " " (base name of the only file), which no decoder accepts.
  // Fix: a single file whose base name is no valid torrent name gets the multi-file layout.
  it('a torrent with a single file named " " re-encodes to a torrent that decodes', () => {
    const original = encodeTorrent(helloSeed());
    const mutated = Buffer.from(original.toString('latin1').replace('4:path9:hello.txt', '4:path1: '), 'latin1');
    assert.notDeepEqual(mutated, original);
    const first = decodeTorrent(mutated, { now: FUZZ_NOW });
    assert.equal(first.seed.files[0]!.path, ' ');
    const again = decodeTorrent(encodeTorrent(first.seed, { pieces: first.piece_stream }), { now: FUZZ_NOW });
    assert.equal(again.seed.files[0]!.path, ' ');
    assert.equal(again.info_name, 'hello.txt');
    assert.doesNotThrow(() => checkInput(mutated));
  });

  it('seeds whose only file is named " " or "a/ " encode to torrents and .cas that decode', () => {
    for (const path of [' ', 'a/ ', '  ']) {
      const seed = helloAt(path);
      assert.equal(decodeTorrent(encodeTorrent(seed)).seed.files[0]!.path, path);
      const cas = decodeCas(encodeCas(seed, { now: FUZZ_NOW }));
      assert.equal(cas.files[0]!.path, path);
      assert.equal(cas.name, 'hello.txt');
      const decoded = decodeAny(encodeOss(seed));
      for (const target of ['torrent', 'cas'] as const) {
        const conv = convertSeed(decoded, target, { now: FUZZ_NOW });
        assert.ok(conv.feasible);
        assert.equal(decodeAny(conv.data, { format: target }).seed.files[0]!.path, path);
      }
      assert.doesNotThrow(() => checkInput(encodeOss(seed)));
    }
  });

  it('ordinary single-file seeds keep the single-file layouts', () => {
    const t = decodeTorrent(encodeTorrent(helloAt('dir/hello.txt')));
    assert.equal(t.info_name, 'hello.txt');
    assert.equal(t.seed.files[0]!.path, 'dir/hello.txt');
    const payload = JSON.parse(Buffer.from(encodeCas(helloAt('dir/hello.txt'), { now: FUZZ_NOW }).toString('latin1'), 'base64').toString('utf8'));
    assert.equal(payload.name, 'hello.txt');
    assert.equal(payload.files, undefined);
  });
});
