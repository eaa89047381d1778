import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { ABC, MiB, exampleSeed, helloSeed, seedError } from '../../../../test/fixtures/seeds/helpers.js';
import { buildCasPayload, casSliceMd5, decodeCas, encodeCas, fileCasSliceMd5 } from './cas.js';
import type { Seed } from './model.js';

// seed-formats.md §4.1, hello.txt = "abc", create_time 1767225600.
const FULL_B64 =
  'eyJuYW1lIjoiaGVsbG8udHh0Iiwic2l6ZSI6MywibWQ1IjoiOTAwMTUwOTgzQ0QyNEZCMEQ2OTYzRjdEMjhFMTdGNzIiLCJzbGljZU1kNSI6IjkwMDE1MDk4M0NEMjRGQjBENjk2M0Y3RDI4RTE3RjcyIiwiY3JlYXRlX3RpbWUiOiIxNzY3MjI1NjAwIiwic2xpY2VfbWQ1cyI6WyI5MDAxNTA5ODNDRDI0RkIwRDY5NjNGN0QyOEUxN0Y3MiJdLCJzbGljZV9zaXplIjoxMDQ4NTc2MH0=';
const LEGACY_B64 =
  'eyJuYW1lIjoiaGVsbG8udHh0Iiwic2l6ZSI6MywibWQ1IjoiOTAwMTUwOTgzQ0QyNEZCMEQ2OTYzRjdEMjhFMTdGNzIiLCJzbGljZU1kNSI6IjkwMDE1MDk4M0NEMjRGQjBENjk2M0Y3RDI4RTE3RjcyIiwiY3JlYXRlX3RpbWUiOiIxNzY3MjI1NjAwIn0=';
const UP = ABC.md5.toUpperCase();
const md5Hex = (s: string) => createHash('md5').update(s).digest('hex');

function helloCasSeed(): Seed {
  const s = helloSeed();
  s.files[0]!.cas_create_time = '1767225600';
  return s;
}

describe('sliceMd5 rule', () => {
  it('matches the Appendix A vector', () => {
    assert.equal(md5Hex('a').toUpperCase(), '0CC175B9C0F1B6A831C399E269772661');
    assert.equal(casSliceMd5(['0CC175B9C0F1B6A831C399E269772661', '92EB5FFEE6AE2FEC3AD71C777531578F'], ABC.md5), '8D8489F50AC596802453513E067D9B6B');
    // Lower-case input slices are upper-cased before joining.
    assert.equal(casSliceMd5([md5Hex('a'), md5Hex('b')], ABC.md5), '8D8489F50AC596802453513E067D9B6B');
  });

  it('no slice → whole MD5; one slice → that slice; all upper case ([TST2])', () => {
    assert.equal(casSliceMd5([], 'd41d8cd98f00b204e9800998ecf8427e'), 'D41D8CD98F00B204E9800998ECF8427E');
    assert.equal(casSliceMd5([ABC.md5], 'f'.repeat(32)), UP);
    assert.equal(casSliceMd5([''], ABC.md5), UP);
    const three = [md5Hex('a'), md5Hex('b'), md5Hex('c')];
    assert.equal(casSliceMd5(three, ABC.md5), md5Hex(three.map((x) => x.toUpperCase()).join('\n')).toUpperCase());
  });

  it('chooses the stored value, then 10 MiB pieces, then the whole MD5 for small files', () => {
    const f = { path: 'x', size: 20 * MiB, hashes: { md5: ABC.md5, pieces: { md5: [md5Hex('a'), md5Hex('b')] } } };
    assert.equal(fileCasSliceMd5(f, 10 * MiB), '8D8489F50AC596802453513E067D9B6B');
    assert.equal(fileCasSliceMd5({ ...f, cas_slice_md5: 'a'.repeat(32) }, 10 * MiB), 'A'.repeat(32));
    assert.equal(fileCasSliceMd5(f, 16 * MiB), null);
    assert.equal(fileCasSliceMd5({ ...f, size: 10 * MiB, hashes: { md5: ABC.md5 } }, 16 * MiB), UP);
    assert.equal(fileCasSliceMd5({ ...f, hashes: {} }, 10 * MiB), null);
  });
});

describe('.cas encode', () => {
  it('writes the §4.1 example exactly', () => {
    assert.equal(encodeCas(helloCasSeed()).toString('latin1'), FULL_B64);
  });

  it('writes the legacy-only form when there are no MD5 pieces', () => {
    const s = helloCasSeed();
    delete s.files[0]!.hashes.pieces;
    assert.equal(encodeCas(s).toString('latin1'), LEGACY_B64);
  });

  it('uses the clock for create_time when the seed has none', () => {
    const p = buildCasPayload(helloSeed(), { now: new Date(1767225600_000) });
    assert.equal(p.create_time, '1767225600');
  });

  it('keeps the five legacy keys and round-trips pieces ([TST1] CAS wire format)', () => {
    const data = encodeCas(exampleSeed());
    const json = JSON.parse(Buffer.from(data.toString('latin1'), 'base64').toString('utf8')) as Record<string, unknown>;
    for (const k of ['name', 'size', 'md5', 'sliceMd5', 'create_time']) assert.ok(k in json, k);
    assert.equal(json.md5, '1'.repeat(32));
    assert.equal(typeof json.create_time, 'string');
    assert.equal(json.sliceMd5, md5Hex(['A'.repeat(32), 'B'.repeat(32)].join('\n')).toUpperCase());
    const back = decodeCas(data);
    assert.equal(back.files[0]!.hashes.md5, '1'.repeat(32));
    assert.deepEqual(back.files[0]!.hashes.pieces?.md5, ['a'.repeat(32), 'b'.repeat(32)]);
  });

  it('keeps a generalised cloud through .cas ([TST1])', () => {
    const s = exampleSeed();
    s.files[0]!.cas_cloud = 'aliyundrive_open';
    s.files[0]!.cas_slice_md5 = '9'.repeat(32);
    const back = decodeCas(encodeCas(s));
    assert.equal(back.files[0]!.cas_cloud, 'aliyundrive_open');
    assert.equal(back.files[0]!.cas_slice_md5, '9'.repeat(32));
  });

  it('writes multi-file payloads with full relative paths', () => {
    const s = helloCasSeed();
    s.name = 'bundle';
    s.files.push({ path: 'docs/a/hello.txt', size: 0, hashes: { md5: 'd41d8cd98f00b204e9800998ecf8427e' }, cas_create_time: '1' });
    const p = buildCasPayload(s);
    assert.deepEqual(
      { ...p, files: p.files!.map((f) => [f.name, f.size, f.md5, f.sliceMd5]) },
      { name: 'bundle', size: 3, md5: '', sliceMd5: '', create_time: '', files: [['hello.txt', 3, UP, UP], ['docs/a/hello.txt', 0, 'D41D8CD98F00B204E9800998ECF8427E', 'D41D8CD98F00B204E9800998ECF8427E']] },
    );
    const back = decodeCas(encodeCas(s));
    assert.equal(back.name, 'bundle');
    assert.deepEqual(back.files.map((f) => f.path), ['hello.txt', 'docs/a/hello.txt']);
  });

  it('a single-file .cas is named after the file', () => {
    const s = helloCasSeed();
    s.name = 'greeting';
    s.files[0]!.path = 'dir/hello.txt';
    assert.equal(buildCasPayload(s).name, 'hello.txt');
  });

  it('refuses seeds without the MD5 data, naming file and field', () => {
    const s = helloSeed();
    s.files[0]!.hashes = { sha1: ABC.sha1 };
    const e = seedError(() => encodeCas(s));
    assert.equal(e.field, 'files[0].hashes.md5');
    assert.equal(e.file, 'hello.txt');
    const big = exampleSeed();
    delete big.files[0]!.hashes.pieces;
    assert.match(seedError(() => encodeCas(big)).message, /legacy slice MD5 or complete 10 MiB MD5 pieces/);
  });
});

describe('.cas decode', () => {
  it('reads the §4.1 legacy form', () => {
    const seed = decodeCas(Buffer.from(LEGACY_B64));
    assert.equal(seed.name, 'hello.txt');
    assert.equal(seed.piece_size, 10 * MiB);
    assert.equal(seed.created_by, 'CAS');
    assert.equal(seed.created_at, '2026-01-01T00:00:00Z');
    assert.deepEqual(seed.files, [{ path: 'hello.txt', size: 3, hashes: { md5: ABC.md5 }, cas_slice_md5: ABC.md5, cas_create_time: '1767225600' }]);
  });

  it('reads the extended form, raw JSON, surrounding whitespace and line-wrapped base64', () => {
    const full = decodeCas(Buffer.from(FULL_B64));
    assert.deepEqual(full.files[0]!.hashes.pieces, { md5: [ABC.md5] });
    const raw = Buffer.from(FULL_B64, 'base64').toString('utf8');
    assert.deepEqual(decodeCas(Buffer.from(`\n  ${raw}\n`)), full);
    const wrapped = FULL_B64.replace(/(.{76})/g, '$1\r\n');
    assert.deepEqual(decodeCas(Buffer.from(`  ${wrapped}\n`)), full);
    assert.deepEqual(decodeCas(FULL_B64), full);
  });

  it('reads lowercase payloads from the reference project, empty sliceMd5 and numeric create_time', () => {
    const raw = JSON.stringify({ name: 'a.bin', size: 3, md5: ABC.md5, sliceMd5: '', create_time: 1767225600 });
    const seed = decodeCas(Buffer.from(Buffer.from(raw).toString('base64')));
    assert.equal(seed.files[0]!.cas_slice_md5, ABC.md5);
    assert.equal(seed.files[0]!.cas_create_time, '1767225600');
  });

  it('refuses invalid base64, invalid UTF-8 and bad fields with clean errors', () => {
    assert.equal(seedError(() => decodeCas(Buffer.from('not base64!'))).message, 'document: is neither base64 nor JSON');
    assert.equal(seedError(() => decodeCas(Buffer.from('abcde'))).message, 'document: is neither base64 nor JSON');
    assert.equal(seedError(() => decodeCas(Buffer.from('ab=c'))).message, 'document: is neither base64 nor JSON');
    assert.equal(seedError(() => decodeCas(Buffer.from(''))).message, 'document: is neither base64 nor JSON');
    assert.equal(seedError(() => decodeCas(Buffer.from([0xff, 0xfe, 0x41]))).message, 'document: is not valid UTF-8');
    const badUtf8 = Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]).toString('base64');
    assert.equal(seedError(() => decodeCas(Buffer.from(badUtf8))).message, 'document (base64 content): is not valid UTF-8');
    assert.match(seedError(() => decodeCas(Buffer.from(Buffer.from('{"name":').toString('base64')))).message, /not valid JSON/);
    const enc = (o: object) => Buffer.from(Buffer.from(JSON.stringify(o)).toString('base64'));
    assert.equal(seedError(() => decodeCas(enc({ name: 'a', size: 1, md5: 'xyz' }))).field, 'document.md5');
    assert.equal(seedError(() => decodeCas(enc({ name: '', size: 1, md5: ABC.md5 }))).field, 'document.name');
    assert.equal(seedError(() => decodeCas(enc({ name: 'a', size: -1, md5: ABC.md5 }))).field, 'document.size');
    assert.equal(seedError(() => decodeCas(enc({ name: 'a/b', size: 1, md5: ABC.md5 }))).field, 'name');
    assert.equal(seedError(() => decodeCas(enc({ name: 'a', size: 3, md5: ABC.md5, slice_md5s: [ABC.md5, ABC.md5] }))).field, 'files[0].hashes.pieces.md5');
    assert.equal(seedError(() => decodeCas(enc([1]))).field, 'document');
    const multi = (files: object[]) => enc({ name: 'pack', size: 0, md5: '', sliceMd5: '', create_time: '', files });
    assert.equal(seedError(() => decodeCas(multi([{ name: '../x', size: 0, md5: ABC.md5 }]))).field, 'files[0].path');
    assert.equal(seedError(() => decodeCas(multi([{ name: 'x', size: 0, md5: ABC.md5 }, { name: 'x', size: 0, md5: ABC.md5 }]))).field, 'files[1].path');
    const sizes = multi([{ name: 'x', size: 0, md5: ABC.md5, slice_size: 16384 }, { name: 'y', size: 0, md5: ABC.md5, slice_size: 32768 }]);
    assert.equal(seedError(() => decodeCas(sizes)).field, 'slice_size');
    assert.equal(seedError(() => decodeCas(Buffer.alloc(10 * MiB + 1, 0x41))).field, 'document');
    const tooMany = multi(Array.from({ length: 100_001 }, (_, i) => ({ name: `f${i}`, size: 0, md5: ABC.md5 })));
    assert.equal(seedError(() => decodeCas(tooMany)).message, 'files: too many files: 100001 (limit 100000)');
  });
});
