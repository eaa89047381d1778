/**
 * Bounded fuzzing of every seed parser (the soak runs ≥ 1,000,000 inputs: `npm run soak`).
 * fast-check draws mutation ops over the valid corpus, arbitrary bytes, arbitrary JSON and
 * arbitrary bencode; `checkInput` (oracle.ts) asserts the properties for every input.
 */
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { SeedFormatError, decodeAny, decodeBencode, decodeCas, decodeOss, decodeTorrent, encodeBencode } from '../../src/modules/seeds/formats/index.js';
import type { BencodeInput } from '../../src/modules/seeds/formats/index.js';
import { runFuzz } from '../soak/fuzz.js';
import { corpus } from './corpus.js';
import { applyOps, OP_KINDS, type Op } from './mutate.js';
import { checkInput, FUZZ_NOW } from './oracle.js';

const docs = corpus();
const others = docs.map((d) => d.bytes);
const op: fc.Arbitrary<Op> = fc.tuple(fc.constantFrom(...OP_KINDS), fc.nat(), fc.nat(), fc.nat());

/** Runs the oracle; returns whether any container accepted the input. */
const accepted = (input: Buffer, filename?: string) => checkInput(input, filename).containers > 0;

/** Asserts `fn` throws SeedFormatError and returns its message. */
function refused(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof SeedFormatError, `expected a SeedFormatError, got ${String(e)}`);
    return e.message;
  }
  assert.fail('the input was accepted');
}

describe('seed parser fuzzing (bounded)', () => {
  it('the corpus is valid: every document decodes in its own format and passes the oracle', () => {
    for (const d of docs) {
      assert.doesNotThrow(() => decodeAny(d.bytes, { format: d.format, now: FUZZ_NOW }), d.name);
      assert.ok(accepted(d.bytes), d.name);
    }
  });

  it('mutated valid seeds: only typed errors, stable round trips (2,000 inputs)', () => {
    let yes = 0;
    let no = 0;
    fc.assert(
      fc.property(fc.nat(docs.length - 1), fc.array(op, { minLength: 1, maxLength: 4 }), fc.constantFrom(undefined, 'x.oss', 'x.torrent', 'x.cas'), (i, ops, name) => {
        if (accepted(applyOps(docs[i]!.bytes, ops, others), name)) yes++;
        else no++;
      }),
      { numRuns: 2000 },
    );
    // The mutations must reach both sides, or the property checks nothing.
    assert.ok(yes > 20 && no > 20, `accepted ${yes}, rejected ${no}`);
  });

  it('structure-aware mutations alone (1,000 inputs)', () => {
    fc.assert(
      fc.property(fc.nat(docs.length - 1), fc.array(fc.tuple(fc.constant('struct' as const), fc.nat(), fc.nat(), fc.nat()), { minLength: 1, maxLength: 3 }), (i, ops) => {
        accepted(applyOps(docs[i]!.bytes, ops, others));
      }),
      { numRuns: 1000 },
    );
  });

  it('arbitrary bytes, JSON and bencode (1,500 inputs)', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 2048 }), (b) => void accepted(Buffer.from(b))), { numRuns: 500 });
    fc.assert(fc.property(fc.json(), (j) => void accepted(Buffer.from(j, 'utf8'))), { numRuns: 500 });
    const bencode = fc.letrec<{ v: BencodeInput }>((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        fc.uint8Array({ maxLength: 40 }),
        fc.string({ maxLength: 20 }),
        fc.array(tie('v'), { maxLength: 4 }),
        fc.dictionary(fc.constantFrom('info', 'name', 'piece length', 'pieces', 'length', 'files', 'path', 'x-openlist', 'x-cas', 'announce'), tie('v'), { maxKeys: 5 }),
      ),
    })).v;
    fc.assert(fc.property(bencode, (v) => void accepted(encodeBencode(v))), { numRuns: 500 });
  });

  it('hostile shapes are refused with the typed error, without allocating what they declare', () => {
    const deepList = Buffer.from('l'.repeat(100_000) + 'e'.repeat(100_000));
    assert.match(refused(() => decodeBencode(deepList)), /nesting deeper than 64/);
    assert.match(refused(() => decodeTorrent(deepList)), /nesting deeper than 64/);
    const deepJson = Buffer.from('['.repeat(100_000) + ']'.repeat(100_000));
    refused(() => decodeOss(deepJson));
    refused(() => decodeCas(deepJson));
    assert.match(refused(() => decodeBencode(Buffer.from('999999999999:abc'))), /string length too long|exceeds the limit/);
    assert.match(refused(() => decodeBencode(Buffer.from('10485759:abc'))), /runs past the end/);
    assert.match(refused(() => decodeBencode(Buffer.from('i99999999999999999999e'))), /oversized integer/);
    assert.match(refused(() => decodeBencode(Buffer.from('i9223372036854775808e'))), /signed 64-bit/);
    const huge = Buffer.alloc(10 * 1024 * 1024 + 1, 0x20);
    for (const decode of [decodeBencode, decodeOss, decodeCas, decodeTorrent]) assert.match(refused(() => decode(huge)), /exceeds the limit/);
    // A torrent declaring 2^53 bytes is refused by its piece count, not by hashing anything.
    const big = encodeBencode({ info: { length: 2 ** 53 - 1, name: 'x', 'piece length': 16384, pieces: Buffer.alloc(20) } });
    assert.match(refused(() => decodeTorrent(big)), /pieces/);
    assert.ok(accepted(big) === false);
  });

  it('the soak fuzzer (worker threads, heap limit, watchdog) runs clean on a short run', async () => {
    const lines: string[] = [];
    const r = await runFuzz({ inputs: 1500, deadlineMs: 120_000, log: (l) => lines.push(l), workers: 1, seed: 12345 });
    assert.equal(r.crashes, 0, lines.join('\n'));
    assert.equal(r.operations, 1500);
    assert.equal(r.faults + r.accepted, r.operations);
    assert.ok(r.accepted > 0 && r.faults > 0);
  });
});
