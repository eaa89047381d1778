import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { ABC, seedError } from '../../../../test/fixtures/seeds/helpers.js';
import { decodeBencode, encodeBencode } from './bencode.js';

const b = (s: string): Buffer => Buffer.from(s, 'latin1');
const dec = (s: string | Buffer) => decodeBencode(typeof s === 'string' ? b(s) : s);

describe('bencode decode', () => {
  it('decodes every type', () => {
    const { value, sortedKeys } = dec('d1:ai-42e1:bl3:xyzi0ee1:cdee');
    assert.equal(sortedKeys, true);
    assert.ok(value instanceof Map);
    assert.equal(value.get('a'), -42n);
    assert.deepEqual(value.get('b'), [b('xyz'), 0n]);
    assert.deepEqual(value.get('c'), new Map());
    assert.equal(dec('0:').value.toString(), '');
    assert.equal(dec('i9223372036854775807e').value, 9223372036854775807n);
    assert.equal(dec('i-9223372036854775808e').value, -9223372036854775808n);
  });

  it('reports the byte range of root values', () => {
    const text = 'd4:infod4:name1:xe3:zzzi1ee';
    const r = dec(text);
    assert.deepEqual(r.rootRanges.get('info'), { start: 7, end: 18 });
    assert.equal(text.slice(7, 18), 'd4:name1:xe');
    assert.deepEqual(r.rootRanges.get('zzz'), { start: 23, end: 26 });
  });

  it('refuses non-canonical integers', () => {
    for (const bad of ['i-0e', 'i03e', 'i+5e', 'ie', 'i-e', 'i1.5e', 'i 1e', 'i--1e', 'i9223372036854775808e', 'i-9223372036854775809e', `i${'1'.repeat(30)}e`]) {
      const e = seedError(() => dec(bad));
      assert.equal(e.field, 'bencode', bad);
      assert.match(e.message, /integer/, bad);
    }
  });

  it('refuses malformed string lengths', () => {
    assert.match(seedError(() => dec('03:abc')).message, /leading zero/);
    assert.match(seedError(() => dec('3abc')).message, /invalid string length|end of data/);
    assert.match(seedError(() => dec('5:abc')).message, /runs past the end/);
  });

  it('refuses trailing data, truncation and empty input', () => {
    assert.match(seedError(() => dec('i1eextra')).message, /trailing data/);
    assert.match(seedError(() => dec('de1:x')).message, /trailing data/);
    for (const t of ['', 'd', 'l', 'd1:a', 'd1:ai1e', 'li1e', 'i12', '4:ab', 'd1:ae']) {
      const e = seedError(() => dec(t));
      assert.match(e.message, /end of|empty|runs past|without a value|unterminated/, JSON.stringify(t));
    }
  });

  it('refuses non-string keys and duplicate keys; accepts and reports unsorted keys', () => {
    assert.match(seedError(() => dec('di1ei2ee')).message, /not a string/);
    assert.match(seedError(() => dec('d1:ai1e1:ai2ee')).message, /duplicate dictionary key "a"/);
    assert.match(seedError(() => dec('d1:bi1e1:ai2e1:bi3ee')).message, /duplicate dictionary key "b"/);
    const r = dec('d1:bi1e1:ai2ee');
    assert.equal(r.sortedKeys, false);
    assert.deepEqual([...(r.value as Map<string, unknown>).keys()], ['b', 'a']);
    assert.equal(dec('d1:ai2e1:bi1ee').sortedKeys, true);
    assert.equal(dec('d1:xd1:bi1e1:ai2eee').sortedKeys, false);
  });

  it('keeps non-UTF-8 keys as raw bytes', () => {
    const raw = Buffer.concat([b('d2:'), Buffer.from([0xff, 0xfe]), b('i1ee')]);
    const { value } = dec(raw);
    assert.deepEqual([...(value as Map<string, unknown>).keys()], ['\u00ff\u00fe']);
    assert.deepEqual(encodeBencode(value as Map<string, bigint>), raw);
  });

  it('enforces the size limit before parsing', () => {
    const e = seedError(() => decodeBencode(Buffer.alloc(11), { maxBytes: 10 }));
    assert.match(e.message, /11 bytes exceeds the limit of 10/);
  });
});

describe('bencode bombs stay cheap', () => {
  it('nesting: 64 levels pass, 65 and 10 000 fail', () => {
    assert.ok(Array.isArray(dec('l'.repeat(64) + 'e'.repeat(64)).value));
    assert.match(seedError(() => dec('l'.repeat(65) + 'e'.repeat(65))).message, /nesting deeper than 64/);
    assert.match(seedError(() => dec('l'.repeat(66) + 'e'.repeat(66))).message, /nesting deeper than 64/);
    assert.match(seedError(() => dec('l'.repeat(10_000) + 'e'.repeat(10_000))).message, /nesting/);
    assert.match(seedError(() => dec('d1:a'.repeat(10_000) + 'e'.repeat(10_000))).message, /nesting/);
  });

  it('a 9999999999-byte string is refused without allocating', () => {
    const before = process.memoryUsage().arrayBuffers;
    assert.match(seedError(() => dec('9999999999:')).message, /9999999999 bytes exceeds the limit/);
    assert.match(seedError(() => decodeBencode(b('9999999999:'), { maxStringLength: Number.MAX_SAFE_INTEGER })).message, /runs past the end/);
    assert.match(seedError(() => dec('99999999999999999999:')).message, /too long/);
    assert.ok(process.memoryUsage().arrayBuffers - before < 1024 * 1024);
  });

  it('a list of a million tiny items is refused at the container limit', () => {
    const bomb = b('l' + '0:'.repeat(1_000_000) + 'e');
    assert.match(seedError(() => decodeBencode(bomb)).message, /list with more than 400000 items/);
  });

  it('a huge dict is refused at the container limit; a large one is fine', () => {
    const keys = (n: number) => Array.from({ length: n }, (_, i) => `k${String(i).padStart(7, '0')}`);
    const dict = (n: number) => b('d' + keys(n).map((k) => `${k.length}:${k}i0e`).join('') + 'e');
    assert.match(seedError(() => decodeBencode(dict(400_001))).message, /more than 400000 keys/);
    const ok = decodeBencode(dict(100_000));
    assert.equal((ok.value as Map<string, unknown>).size, 100_000);
  });

  it('the total value count is bounded across containers', () => {
    const inner = 'l' + 'i0e'.repeat(300_000) + 'e';
    const bomb = b('l' + inner.repeat(4) + 'e');
    assert.match(seedError(() => decodeBencode(bomb)).message, /more than 1000000 values/);
  });
});

describe('bencode encode', () => {
  it('sorts keys by raw bytes and skips undefined', () => {
    const out = encodeBencode({ b: 1, a: 'x', Z: [1n, 'é'], skip: undefined, 'a b': new Uint8Array([0, 255]) });
    assert.equal(out.toString('latin1'), 'd1:Zli1e2:\u00c3\u00a9e1:a1:x3:a b2:\u0000\u00ff1:bi1ee');
  });

  it('round-trips decoded values', () => {
    const text = 'd4:infod6:lengthi3e4:name9:hello.txte4:listli-1e0:deee';
    assert.equal(encodeBencode(dec(text).value).toString('latin1'), text);
  });

  it('refuses values it cannot represent', () => {
    assert.match(seedError(() => encodeBencode(1.5)).message, /non-integer/);
    assert.match(seedError(() => encodeBencode({ 'ключ': 1 })).message, /not a byte string/);
  });

  it('reproduces the Appendix A info hash (with md5sum, as OpenList writes it)', () => {
    const info = { length: 3, md5sum: ABC.md5, name: 'hello.txt', 'piece length': 10485760, pieces: createHash('sha1').update('abc').digest() };
    const encoded = encodeBencode(info);
    assert.match(encoded.toString('latin1'), /^d6:lengthi3e6:md5sum32:900150983cd24fb0d6963f7d28e17f724:name9:hello.txt12:piece lengthi10485760e6:pieces20:/);
    assert.equal(createHash('sha1').update(encoded).digest('hex'), '23be515fe97cab7538ced296590fc1fe985bd13a');
  });
});
