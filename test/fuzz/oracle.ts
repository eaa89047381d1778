/**
 * What every seed parser must do with any input: return, or throw its own typed error
 * (`SeedFormatError`) — never a TypeError/RangeError/stack overflow — and, for accepted input,
 * be stable: decode → encode → decode gives the same seed, and anything Ferry encodes
 * (including conversions) Ferry decodes again.
 *
 * `checkInput` runs every target on one input and throws a `FuzzFailure` naming the target
 * and the broken property; it returns how many targets accepted and rejected the input.
 */
import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import {
  CAS_SLICE_SIZE,
  SEED_FORMATS,
  SeedFormatError,
  convertSeed,
  decodeAny,
  decodeBencode,
  decodeCas,
  decodeOss,
  decodeTorrent,
  detectFormat,
  diagnose,
  encodeBencode,
  encodeCas,
  encodeOss,
  encodeTorrent,
  parseHashMatrixText,
  seedNameProblem,
  torrentFileOrder,
} from '../../src/modules/seeds/formats/index.js';
import type { BencodeInput, Seed } from '../../src/modules/seeds/formats/index.js';

/** Fixed clock: decoders fill missing times from it, so two decodes of one input agree. */
export const FUZZ_NOW = new Date(1767225600_000);

export class FuzzFailure extends Error {
  constructor(
    readonly target: string,
    readonly property: string,
    readonly error: unknown,
  ) {
    super(`${target}: ${property}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
  }
}

export interface CheckResult {
  /** Targets that accepted / rejected the input. */
  accepted: number;
  rejected: number;
  /** How many of the three container decoders (oss, cas, torrent) accepted it. */
  containers: number;
}

const REJECTED = Symbol('rejected');

/** Runs `fn`; a SeedFormatError is a rejection, anything else a failure of `target`. */
function guarded<T>(target: string, fn: () => T): T | typeof REJECTED {
  try {
    return fn();
  } catch (e) {
    if (e instanceof SeedFormatError) return REJECTED;
    throw new FuzzFailure(target, 'threw something other than SeedFormatError', e);
  }
}

/** Runs `fn`, which must not throw at all (e.g. decoding what we just encoded). */
function must<T>(target: string, property: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw new FuzzFailure(target, property, e);
  }
}

const byPath = (s: Seed): Seed => ({ ...s, files: torrentFileOrder(s.files) });

const baseName = (p: string): string => p.slice(p.lastIndexOf('/') + 1);

/**
 * What a `.cas` can keep of a seed (by design): one file is written under its base name (when
 * that is a valid name), and `slice_size` (the piece size) only together with `slice_md5s`.
 */
function casView(s: Seed): Seed {
  const withPieces = s.files.some((f) => (f.hashes.pieces?.md5?.length ?? 0) > 0);
  const out = withPieces ? s : { ...s, piece_size: CAS_SLICE_SIZE };
  const f = s.files[0]!;
  if (s.files.length !== 1 || seedNameProblem(baseName(f.path)) !== null) return out;
  return { ...out, name: baseName(f.path), files: [{ ...f, path: baseName(f.path) }] };
}

/** Every defined value of `a` is in `b` (objects: per key; arrays: same length, element-wise). */
export function assertSubset(a: unknown, b: unknown, at = 'seed'): void {
  if (Array.isArray(a)) {
    assert.ok(Array.isArray(b) && b.length === a.length, `${at}: list lost or changed length`);
    a.forEach((x, i) => assertSubset(x, (b as unknown[])[i], `${at}[${i}]`));
  } else if (typeof a === 'object' && a !== null) {
    assert.ok(typeof b === 'object' && b !== null, `${at}: object lost`);
    for (const [k, v] of Object.entries(a)) if (v !== undefined) assertSubset(v, (b as Record<string, unknown>)[k], `${at}.${k}`);
  } else {
    assert.equal(b, a, `${at} changed`);
  }
}

/** Runs every parser on `input` and checks the properties. */
export function checkInput(input: Buffer, filename?: string): CheckResult {
  const r: CheckResult = { accepted: 0, rejected: 0, containers: 0 };
  const count = (v: unknown) => (v === REJECTED ? r.rejected++ : r.accepted++);

  // Bencode: accepted values re-encode canonically; sorted input re-encodes byte for byte.
  const b = guarded('decodeBencode', () => decodeBencode(input));
  count(b);
  if (b !== REJECTED) {
    const again = must('encodeBencode', 'encodes a decoded value', () => encodeBencode(b.value as BencodeInput));
    if (b.sortedKeys) must('bencode', 're-encoding canonical input gives the same bytes', () => assert.ok(again.equals(input)));
    must('bencode', 'decode(encode(v)) = v', () => assert.deepEqual(decodeBencode(again).value, b.value));
  }

  // Each container: decode → encode → decode is stable.
  const o = guarded('decodeOss', () => decodeOss(input));
  count(o);
  if (input.length <= 4096) {
    // The text overloads (already-decoded documents) must behave the same way.
    guarded('decodeOss(text)', () => decodeOss(input.toString('utf8')));
    guarded('decodeCas(text)', () => decodeCas(input.toString('latin1'), { now: FUZZ_NOW }));
  }
  if (o !== REJECTED) {
    r.containers++;
    const bytes = must('encodeOss', 'encodes a decoded seed', () => encodeOss(o));
    must('oss', 'decode(encode(seed)) = seed', () => assert.deepEqual(decodeOss(bytes), o));
  }

  const c = guarded('decodeCas', () => decodeCas(input, { now: FUZZ_NOW }));
  count(c);
  if (c !== REJECTED) {
    r.containers++;
    const bytes = must('encodeCas', 'encodes a decoded seed', () => encodeCas(c, { now: FUZZ_NOW }));
    const back = must('cas', 'decodes its own output', () => decodeCas(bytes, { now: FUZZ_NOW }));
    // The encoder fills a missing create_time from the clock: the seed may gain, never lose,
    // except what .cas cannot carry (see casView).
    must('cas', 'decode(encode(seed)) keeps everything', () => assertSubset(casView(c), back));
    must('cas', 'encoding is stable after one round', () => assert.ok(encodeCas(back, { now: FUZZ_NOW }).equals(bytes)));
  }

  const t = guarded('decodeTorrent', () => decodeTorrent(input, { now: FUZZ_NOW }));
  count(t);
  if (t !== REJECTED) {
    r.containers++;
    // Plain torrents whose files straddle pieces cannot be re-encoded without the stream: a typed refusal.
    const bytes = guarded('encodeTorrent', () => encodeTorrent(t.seed, { pieces: t.piece_stream }));
    if (bytes !== REJECTED) {
      const back = must('torrent', 'decodes its own output', () => decodeTorrent(bytes, { now: FUZZ_NOW }));
      // The encoder fills missing per-file SHA-1 pieces from info.pieces: the seed may gain, never lose.
      must('torrent', 'decode(encode(seed)) keeps everything (files in torrent order)', () => assertSubset(byPath(t.seed), back.seed));
      must('torrent', 'encoding is stable after one round', () => assert.ok(encodeTorrent(back.seed, { pieces: back.piece_stream }).equals(bytes)));
    }
  }

  // Any container, then every conversion: whatever Ferry writes it can read.
  must('detectFormat', 'never throws', () => detectFormat(input, filename));
  const any = guarded('decodeAny', () => decodeAny(input, { filename, now: FUZZ_NOW }));
  count(any);
  if (any !== REJECTED) {
    guarded('diagnose', () => diagnose(any, { now: FUZZ_NOW }));
    for (const target of SEED_FORMATS) {
      const conv = guarded(`convertSeed→${target}`, () => convertSeed(any, target, { now: FUZZ_NOW }));
      if (conv !== REJECTED && conv.feasible) {
        must(`convertSeed→${target}`, 'the converted document decodes', () => decodeAny(conv.data, { format: target, now: FUZZ_NOW }));
      }
    }
  }

  // The hash-matrix header parser takes untrusted text too (a header: at most 16 KiB).
  count(guarded('parseHashMatrixText', () => parseHashMatrixText(input.subarray(0, 16 * 1024).toString('latin1'))));
  return r;
}

/** A short printable description of an input for failure reports. */
export function describeInput(input: Buffer): string {
  const head = input.subarray(0, 512);
  return `${input.length} bytes, base64 of the first ${head.length}: ${head.toString('base64')}`;
}

