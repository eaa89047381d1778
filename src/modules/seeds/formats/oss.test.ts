import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import { ABC, exampleSeed, helloSeed, seedError } from '../../../../test/fixtures/seeds/helpers.js';
import { canonicalizeSeed } from './model.js';
import { decodeOss, encodeOss, seedFromJson } from './oss.js';

/** The §2.1 example, as OpenList writes it (Go indented JSON). */
const EXAMPLE_OSS = JSON.stringify(helloSeed(), null, 2);

describe('.oss', () => {
  it('decodes the §2.1 example', () => {
    const seed = decodeOss(Buffer.from(EXAMPLE_OSS));
    assert.equal(seed.name, 'hello.txt');
    assert.equal(seed.piece_size, 10485760);
    assert.deepEqual(seed.trackers, ['https://tracker.example.org/announce']);
    assert.deepEqual(seed.channels, [{ driver: 'Local', mount_path: '/local' }]);
    assert.equal(seed.files[0]!.hashes.sha256, ABC.sha256);
    assert.deepEqual(seed.files[0]!.hashes.pieces?.sha1, [ABC.sha1]);
    assert.deepEqual(seed.files[0]!.sources, [{ type: 'openlist-direct', url: 'https://pan.example.com/d/local/hello.txt' }]);
  });

  it('encodes the §2.1 example byte for byte, in the documented key order', () => {
    assert.equal(encodeOss(helloSeed()).toString('utf8'), EXAMPLE_OSS);
    const keys = Object.keys(JSON.parse(EXAMPLE_OSS) as object);
    assert.deepEqual(keys, ['format', 'version', 'name', 'comment', 'created_at', 'created_by', 'piece_size', 'trackers', 'channels', 'files']);
  });

  it('round-trips ([TST1] OSS round trip)', () => {
    const seed = exampleSeed();
    const back = decodeOss(encodeOss(seed));
    assert.equal(back.name, 'example.bin');
    assert.equal(back.files.length, 1);
    assert.equal(back.files[0]!.hashes.sha256, '3'.repeat(64));
    assert.deepEqual(back, canonicalizeSeed(seed));
  });

  it('writes created_by given by the caller and lowercase hashes; hashes is always present', () => {
    const seed = helloSeed();
    seed.files[0]!.hashes = { md5: ABC.md5.toUpperCase() };
    seed.files.push({ path: 'empty', size: 0, hashes: {} });
    const json = JSON.parse(encodeOss(seed, { createdBy: 'Ferry 0.1.0' }).toString()) as { created_by: string; files: { hashes: object }[] };
    assert.equal(json.created_by, 'Ferry 0.1.0');
    assert.deepEqual(json.files[0]!.hashes, { md5: ABC.md5 });
    assert.deepEqual(json.files[1]!.hashes, {});
    assert.equal(seed.created_by, 'OpenList');
  });

  it('reads upper-case hashes and stores them lowercase', () => {
    const text = EXAMPLE_OSS.replace(ABC.md5, ABC.md5.toUpperCase()).replace(`"${ABC.sha1}"`, `"${ABC.sha1.toUpperCase()}"`);
    const seed = decodeOss(Buffer.from(text));
    assert.equal(seed.files[0]!.hashes.md5, ABC.md5);
    assert.deepEqual(seed.files[0]!.hashes.pieces?.sha1, [ABC.sha1]);
  });

  it('tolerates a BOM and ignores unknown keys', () => {
    const obj = { ...JSON.parse(EXAMPLE_OSS), future: { x: 1 } } as Record<string, unknown>;
    (obj.files as Record<string, unknown>[])[0]!.extra = [1, 2];
    const seed = decodeOss(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(obj))]));
    assert.equal(seed.name, 'hello.txt');
    assert.equal('future' in seed, false);
    assert.equal('extra' in seed.files[0]!, false);
    assert.equal(decodeOss('\uFEFF' + EXAMPLE_OSS).name, 'hello.txt');
  });

  it('refuses trailing data, invalid UTF-8, non-JSON and oversized documents', () => {
    assert.match(seedError(() => decodeOss(Buffer.from(EXAMPLE_OSS + ' {}'))).message, /^document: trailing data/);
    assert.match(seedError(() => decodeOss(Buffer.from(EXAMPLE_OSS + 'x'))).message, /trailing data/);
    decodeOss(Buffer.from(EXAMPLE_OSS + '\n\t '));
    assert.equal(seedError(() => decodeOss(Buffer.from([0x7b, 0xff, 0x7d]))).message, 'document: is not valid UTF-8');
    assert.match(seedError(() => decodeOss(Buffer.from('{"format": '))).message, /^document: not valid JSON/);
    assert.match(seedError(() => decodeOss(Buffer.from('[]'))).message, /must be a JSON object/);
    const limit = 10 * 1024 * 1024;
    const big = Buffer.alloc(limit + 1, 0x20);
    big.write(EXAMPLE_OSS);
    assert.match(seedError(() => decodeOss(big)).message, /10485761 bytes exceeds the limit of 10485760/);
    const atLimit = Buffer.alloc(limit, 0x20);
    atLimit.write(EXAMPLE_OSS);
    assert.equal(decodeOss(atLimit).name, 'hello.txt');
  });

  it('survives deeply nested JSON without crashing', () => {
    const deep = '{"x":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}';
    assert.equal(seedError(() => decodeOss(Buffer.from(deep))).field, 'format');
  });

  it('names the field and file on wrong types and bad values', () => {
    const bad = (mutate: (o: Record<string, any>) => void) => {
      const o = JSON.parse(EXAMPLE_OSS) as Record<string, any>;
      mutate(o);
      return seedError(() => seedFromJson(o));
    };
    assert.equal(bad((o) => delete o.format).field, 'format');
    assert.equal(bad((o) => (o.version = '1')).field, 'version');
    assert.equal(bad((o) => (o.piece_size = 3.5)).field, 'piece_size');
    assert.equal(bad((o) => (o.trackers = 'x')).field, 'trackers');
    assert.equal(bad((o) => (o.files = {})).field, 'files');
    const size = bad((o) => (o.files[0].size = '3'));
    assert.equal(size.field, 'files[0].size');
    assert.equal(size.file, 'hello.txt');
    const md5 = bad((o) => (o.files[0].hashes.md5 = 'abc'));
    assert.equal(md5.message, 'files[0].hashes.md5 (file "hello.txt"): expected 32 hexadecimal digits, got "abc"');
    assert.equal(bad((o) => (o.files[0].hashes.pieces.sha1 = [1])).field, 'files[0].hashes.pieces.sha1[0]');
    assert.equal(bad((o) => (o.files[0].path = '../x')).field, 'files[0].path');
    assert.equal(bad((o) => (o.files[0].sources = [{ url: 'https://x/d/y' }])).field, 'files[0].sources[0].type');
    assert.equal(bad((o) => (o.files[0].size = 2 ** 53)).field, 'files[0].size');
  });

  it('refuses 100 001 files before reading them', () => {
    const o = JSON.parse(EXAMPLE_OSS) as Record<string, unknown>;
    o.files = Array.from({ length: 100_001 }, () => 0);
    const e = seedError(() => decodeOss(Buffer.from(JSON.stringify(o))));
    assert.equal(e.message, 'files: too many files: 100001 (limit 100000)');
  });

  it('treats null optional fields as absent', () => {
    const o = JSON.parse(EXAMPLE_OSS) as Record<string, any>;
    o.comment = null;
    o.trackers = null;
    o.files[0].sources = null;
    o.files[0].hashes.pieces = null;
    const seed = seedFromJson(o);
    assert.equal(seed.comment, undefined);
    assert.equal(seed.trackers, undefined);
    assert.deepEqual(seed.files[0]!.hashes, ABC);
  });
});
