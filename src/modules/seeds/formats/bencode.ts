// A hardened bencode codec. Decoding is strict where ambiguity could be abused
// (canonical integers, unique keys, no trailing data, bounded depth/length/count)
// and lenient only on key order, which is reported instead of refused.
import { Buffer } from 'node:buffer';
import {
  MAX_BENCODE_CONTAINER_ITEMS,
  MAX_BENCODE_DEPTH,
  MAX_BENCODE_TOTAL_ITEMS,
  MAX_SEED_DOC_BYTES,
  SeedFormatError,
} from './model.js';

/**
 * A decoded value. Byte strings are Buffers (views into the input, not copies),
 * integers are bigints (int64 range), dictionaries are Maps whose keys are the raw
 * key bytes as a latin1 ("binary") string, so ASCII keys read naturally.
 */
export type BencodeValue = bigint | Buffer | BencodeValue[] | BencodeDict;
export type BencodeDict = Map<string, BencodeValue>;

/** What the encoder takes: numbers must be safe integers; strings are written as UTF-8; `undefined` dict entries are skipped. */
export type BencodeInput =
  | number
  | bigint
  | string
  | Uint8Array
  | readonly BencodeInput[]
  | ReadonlyMap<string, BencodeInput | undefined>
  | { readonly [key: string]: BencodeInput | undefined };

export interface BencodeDecodeOptions {
  maxBytes?: number;
  maxDepth?: number;
  maxContainerItems?: number;
  maxTotalItems?: number;
  maxStringLength?: number;
  /** Name used in error fields (default `bencode`). */
  field?: string;
}

export interface ByteRange {
  start: number;
  end: number;
}

export interface BencodeDecodeResult {
  value: BencodeValue;
  /** When the root is a dict: the exact byte range of each root value (e.g. `info`, for the info hash). */
  rootRanges: Map<string, ByteRange>;
  /** False when some dictionary had keys out of byte order (accepted, but not canonical). */
  sortedKeys: boolean;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const C_0 = 0x30;
const C_9 = 0x39;

class Decoder {
  pos = 0;
  items = 0;
  sortedKeys = true;
  readonly rootRanges = new Map<string, ByteRange>();
  constructor(
    readonly buf: Buffer,
    readonly maxDepth: number,
    readonly maxContainerItems: number,
    readonly maxTotalItems: number,
    readonly maxStringLength: number,
    readonly field: string,
  ) {}

  fail(reason: string, at = this.pos): never {
    throw new SeedFormatError(this.field, `${reason} at byte ${at}`);
  }

  count(): void {
    if (++this.items > this.maxTotalItems) this.fail(`more than ${this.maxTotalItems} values in the document`);
  }

  value(depth: number): BencodeValue {
    const c = this.buf[this.pos];
    if (c === undefined) this.fail('unexpected end of data');
    this.count();
    if (c === 0x69 /* i */) return this.int();
    if (c >= C_0 && c <= C_9) return this.bytes();
    if (c === 0x6c /* l */ || c === 0x64 /* d */) {
      if (depth + 1 > this.maxDepth) this.fail(`nesting deeper than ${this.maxDepth}`);
      return c === 0x6c ? this.list(depth + 1) : this.dict(depth + 1);
    }
    return this.fail(`unexpected byte 0x${c.toString(16).padStart(2, '0')}`);
  }

  int(): bigint {
    const start = ++this.pos;
    let p = start;
    if (this.buf[p] === 0x2d /* - */) p++;
    const digitsStart = p;
    let small = 0;
    for (;;) {
      const c = this.buf[p];
      if (c === undefined) this.fail('unterminated integer', start - 1);
      if (c === 0x65 /* e */) break;
      if (c < C_0 || c > C_9 || p - digitsStart >= 19) this.fail(`non-canonical or oversized integer "${this.buf.toString('latin1', start, Math.min(p + 1, start + 24))}"`, start);
      small = small * 10 + (c - C_0);
      p++;
    }
    const digits = p - digitsStart;
    const negative = digitsStart > start;
    if (digits === 0 || (digits > 1 && this.buf[digitsStart] === C_0) || (negative && small === 0)) {
      this.fail(`non-canonical integer "${this.buf.toString('latin1', start, p)}"`, start);
    }
    this.pos = p + 1;
    if (digits <= 15) return BigInt(negative ? -small : small);
    const n = BigInt(this.buf.toString('latin1', start, p));
    if (n < INT64_MIN || n > INT64_MAX) this.fail('integer outside the signed 64-bit range', start);
    return n;
  }

  /** Reads `<len>:` and checks the length against the limits and the remaining input; returns the data start. */
  length(): [number, number] {
    const start = this.pos;
    let len = 0;
    let p = start;
    for (;;) {
      const c = this.buf[p];
      if (c === undefined) this.fail('unexpected end of data in a string length', start);
      if (c === 0x3a /* : */) break;
      if (c < C_0 || c > C_9) this.fail('invalid string length', start);
      if (p - start >= 12) this.fail('string length too long', start);
      len = len * 10 + (c - C_0);
      p++;
    }
    if (p === start) this.fail('empty string length', start);
    if (p - start > 1 && this.buf[start] === C_0) this.fail('string length with a leading zero', start);
    const dataStart = p + 1;
    if (len > this.maxStringLength) this.fail(`string of ${len} bytes exceeds the limit of ${this.maxStringLength}`, start);
    if (len > this.buf.length - dataStart) this.fail(`string of ${len} bytes runs past the end of the data`, start);
    this.pos = dataStart + len;
    return [dataStart, this.pos];
  }

  bytes(): Buffer {
    const [start, end] = this.length();
    return this.buf.subarray(start, end);
  }

  list(depth: number): BencodeValue[] {
    this.pos++;
    const out: BencodeValue[] = [];
    while (this.buf[this.pos] !== 0x65) {
      if (out.length >= this.maxContainerItems) this.fail(`list with more than ${this.maxContainerItems} items`);
      out.push(this.value(depth));
    }
    this.pos++;
    return out;
  }

  dict(depth: number): BencodeDict {
    const isRoot = depth === 1;
    this.pos++;
    const out: BencodeDict = new Map();
    let prev: string | undefined;
    while (this.buf[this.pos] !== 0x65) {
      if (this.buf[this.pos] === undefined) this.fail('unexpected end of data');
      if (out.size >= this.maxContainerItems) this.fail(`dictionary with more than ${this.maxContainerItems} keys`);
      const keyAt = this.pos;
      const c = this.buf[keyAt]!;
      if (c < C_0 || c > C_9) this.fail('dictionary key is not a string');
      this.count();
      const [ks, ke] = this.length();
      // latin1: one char per byte, so string order is byte order.
      const key = this.buf.toString('latin1', ks, ke);
      if (out.has(key)) this.fail(`duplicate dictionary key ${JSON.stringify(key)}`, keyAt);
      if (prev !== undefined && prev > key) this.sortedKeys = false;
      prev = key;
      const valueStart = this.pos;
      const next = this.buf[valueStart];
      if (next === undefined || next === 0x65) this.fail('dictionary key without a value');
      out.set(key, this.value(depth));
      if (isRoot) this.rootRanges.set(key, { start: valueStart, end: this.pos });
    }
    this.pos++;
    return out;
  }
}

/** Decodes one bencoded value; the whole input must be consumed. Errors are SeedFormatErrors. */
export function decodeBencode(input: Uint8Array, opts: BencodeDecodeOptions = {}): BencodeDecodeResult {
  const field = opts.field ?? 'bencode';
  const maxBytes = opts.maxBytes ?? MAX_SEED_DOC_BYTES;
  if (input.length > maxBytes) throw new SeedFormatError(field, `document of ${input.length} bytes exceeds the limit of ${maxBytes}`);
  const buf = Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.length);
  const d = new Decoder(
    buf,
    opts.maxDepth ?? MAX_BENCODE_DEPTH,
    opts.maxContainerItems ?? MAX_BENCODE_CONTAINER_ITEMS,
    opts.maxTotalItems ?? MAX_BENCODE_TOTAL_ITEMS,
    opts.maxStringLength ?? maxBytes,
    field,
  );
  if (buf.length === 0) d.fail('empty document');
  const value = d.value(0);
  if (d.pos !== buf.length) d.fail('trailing data after the root value');
  return { value, rootRanges: d.rootRanges, sortedKeys: d.sortedKeys };
}

/** A growable output buffer: far fewer allocations than one Buffer per token. */
class Writer {
  buf = Buffer.allocUnsafe(64 * 1024);
  len = 0;

  reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  ascii(s: string): void {
    this.reserve(s.length);
    this.len += this.buf.write(s, this.len, 'latin1');
  }

  bytes(b: Uint8Array): void {
    this.ascii(`${b.length}:`);
    this.reserve(b.length);
    this.buf.set(b, this.len);
    this.len += b.length;
  }

  text(s: string): void {
    const n = Buffer.byteLength(s, 'utf8');
    this.ascii(`${n}:`);
    this.reserve(n);
    this.len += this.buf.write(s, this.len, 'utf8');
  }
}

function keyOf(key: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[^\u0000-\u00ff]/.test(key)) throw new SeedFormatError('bencode', `dictionary key ${JSON.stringify(key)} is not a byte string (use latin1 characters only)`);
  return key;
}

function encodeInto(value: BencodeInput, w: Writer, depth: number): void {
  if (depth > MAX_BENCODE_DEPTH) throw new SeedFormatError('bencode', `nesting deeper than ${MAX_BENCODE_DEPTH}`);
  if (typeof value === 'number' || typeof value === 'bigint') {
    if (typeof value === 'number' && !Number.isSafeInteger(value)) throw new SeedFormatError('bencode', `cannot encode non-integer number ${value}`);
    w.ascii(`i${value.toString()}e`);
  } else if (typeof value === 'string') {
    w.text(value);
  } else if (value instanceof Uint8Array) {
    w.bytes(value);
  } else if (Array.isArray(value)) {
    w.ascii('l');
    for (const item of value as readonly BencodeInput[]) encodeInto(item, w, depth + 1);
    w.ascii('e');
  } else {
    const entries = value instanceof Map ? [...(value as ReadonlyMap<string, BencodeInput | undefined>)] : Object.entries(value);
    // Keys are byte strings held as latin1, so code-unit order is byte order.
    const keyed = entries.filter((e): e is [string, BencodeInput] => e[1] !== undefined).map(([k, v]): [string, BencodeInput] => [keyOf(k), v]);
    keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    w.ascii('d');
    for (const [k, v] of keyed) {
      w.ascii(`${k.length}:${k}`);
      encodeInto(v, w, depth + 1);
    }
    w.ascii('e');
  }
}

/** Encodes a value canonically: dictionary keys sorted by their raw bytes. */
export function encodeBencode(value: BencodeInput): Buffer {
  const w = new Writer();
  encodeInto(value, w, 0);
  return Buffer.from(w.buf.subarray(0, w.len));
}

// Typed accessors for decoded values (used by the torrent codec; handy for callers).
export const isBencodeDict = (v: BencodeValue | undefined): v is BencodeDict => v instanceof Map;
export const isBencodeList = (v: BencodeValue | undefined): v is BencodeValue[] => Array.isArray(v);
export const isBencodeBytes = (v: BencodeValue | undefined): v is Buffer => Buffer.isBuffer(v);
export const isBencodeInt = (v: BencodeValue | undefined): v is bigint => typeof v === 'bigint';
