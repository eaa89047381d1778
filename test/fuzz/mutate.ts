/**
 * Mutations of seed documents, shared by the bounded fuzz tests (fast-check draws the ops)
 * and the soak fuzzer (a seeded PRNG draws them). An op is plain data — a kind and three
 * unsigned numbers — so failing cases print and replay exactly.
 *
 * Byte level: bit flips, interesting bytes, token insertion (huge/non-canonical integers,
 * oversized lengths, structural bytes), deletion, truncation, duplication, splicing with
 * another document, deep nesting, long strings. Structure level: parse the document
 * (JSON, base64 JSON or bencode), replace/add/delete one node with a hostile value, re-encode.
 */
import { Buffer } from 'node:buffer';
import { decodeBencode, encodeBencode } from '../../src/modules/seeds/formats/index.js';
import type { BencodeInput, BencodeValue } from '../../src/modules/seeds/formats/index.js';

export const OP_KINDS = ['flip', 'set', 'insert', 'delete', 'truncate', 'dup', 'splice', 'nest', 'long', 'struct'] as const;
export type OpKind = (typeof OP_KINDS)[number];
export type Op = [kind: OpKind, a: number, b: number, c: number];

/** A small, fast, seedable PRNG (mulberry32). */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  u32(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  int(n: number): number {
    return n <= 0 ? 0 : this.u32() % n;
  }
  chance(p: number): boolean {
    return this.u32() / 4294967296 < p;
  }
  pick<T>(list: readonly T[]): T {
    return list[this.int(list.length)]!;
  }
  bytes(n: number): Buffer {
    const b = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) b[i] = this.u32() & 0xff;
    return b;
  }
}

const INTERESTING = [0x00, 0x01, 0x7f, 0x80, 0xff, 0x0a, 0x0d, 0x20, 0x22, 0x2c, 0x2d, 0x2f, 0x30, 0x31, 0x39, 0x3a, 0x3d, 0x5b, 0x5c, 0x5d, 0x64, 0x65, 0x69, 0x6c, 0x7b, 0x7d, 0xc0, 0xed, 0xef, 0xfe];

/** Byte strings worth splicing in: bencode and JSON syntax, limits, keys the decoders know. */
const TOKENS = [
  'i0e', 'i-1e', 'i-0e', 'i01e', 'ie', 'i-e', 'i9223372036854775807e', 'i9223372036854775808e', 'i-9223372036854775809e',
  'i99999999999999999999999e', 'i9007199254740993e', 'i16384e', 'i67108864e', 'i67108865e', 'i16383e',
  '0:', '1:a', '01:a', '4294967296:', '99999999999:', '999999999999:', '10485761:', '20:', '40:', 'l', 'd', 'e', 'ee', 'le', 'de', 'lle', 'dde',
  '4:info', '4:name', '12:piece length', '6:pieces', '6:length', '5:files', '4:path', '6:md5sum', '4:attr', '1:p', '10:x-openlist', '5:x-cas',
  '8:announce', '13:announce-list', '13:creation date', '7:comment', '10:created by', '2:..', '1:.', '1:/', '3:a/b', '1:\0', '3:\xed\xa0\x80',
  '{', '}', '[', ']', '"', '":', ',', ':', 'null', 'true', 'false', '-1', '-0', '0.5', '1e309', '-1e309', '9007199254740993', '1e21',
  '"\\ud800"', '"\\u0000"', '"../x"', '"/abs"', '"a\\\\b"', '"__proto__"', '{"__proto__":{}}', '"constructor"', '\uFEFF', '\xEF\xBB\xBF',
  '"format"', '"openlist-sharing-seed"', '"version"', '"files"', '"path"', '"size"', '"hashes"', '"pieces"', '"piece_size"', '"md5"', '"sha1"',
  '"sliceMd5"', '"slice_md5s"', '"slice_size"', '"create_time"', '"name"', '"sources"', '"url"', '"type"', '"expires_at"', '"cas_slice_md5"',
  '=', '==', '===', 'A', '+/', '\n', '\r\n', ' ', '\t',
].map((t) => Buffer.from(t, 'latin1'));

const NEST = ['l', 'd', '[', '{', '{"a":', '[[', 'd1:a', 'l0:'];
const CLOSE: Record<string, string> = { l: 'e', d: 'e', '[': ']', '{': '}', '{"a":': '}', '[[': ']]', 'd1:a': 'e', 'l0:': 'e' };
const DEPTHS = [2, 63, 64, 65, 100, 1000, 10_000, 100_000];
/** Long-string lengths; the last ones are over the 10 MiB document limit and drawn rarely. */
const LONG = [1, 255, 4096, 65_536, 300_000, 10 * 1024 * 1024 + 1];

const at = (n: number, len: number) => n % (len + 1);

function insert(b: Buffer, pos: number, piece: Buffer): Buffer {
  return Buffer.concat([b.subarray(0, pos), piece, b.subarray(pos)]);
}

/** Applies one op. `others` are documents to splice from. Never throws. */
export function applyOp(input: Buffer, op: Op, others: readonly Buffer[]): Buffer {
  const [kind, a, b, c] = op;
  const len = input.length;
  switch (kind) {
    case 'flip': {
      if (len === 0) return input;
      const out = Buffer.from(input);
      out[a % len]! ^= 1 << (b % 8);
      return out;
    }
    case 'set': {
      if (len === 0) return Buffer.from([INTERESTING[b % INTERESTING.length]!]);
      const out = Buffer.from(input);
      out[a % len] = c % 4 === 0 ? b & 0xff : INTERESTING[b % INTERESTING.length]!;
      return out;
    }
    case 'insert':
      return insert(input, at(a, len), TOKENS[b % TOKENS.length]!);
    case 'delete': {
      const pos = at(a, len);
      return Buffer.concat([input.subarray(0, pos), input.subarray(pos + 1 + (b % 64))]);
    }
    case 'truncate':
      return input.subarray(0, at(a, len));
    case 'dup': {
      const from = at(a, len);
      const piece = input.subarray(from, from + 1 + (b % 256));
      return insert(input, at(c, len), piece);
    }
    case 'splice': {
      const other = others.length ? others[a % others.length]! : input;
      return Buffer.concat([input.subarray(0, at(b, len)), other.subarray(at(c, other.length))]);
    }
    case 'nest': {
      const open = NEST[b % NEST.length]!;
      const depth = DEPTHS[c % DEPTHS.length]!;
      const pos = at(a, len);
      const middle = open.startsWith('{') || open.startsWith('[') ? '1' : 'i1e';
      const closed = (a >>> 16) % 3 !== 0; // sometimes left unterminated
      return insert(input, pos, Buffer.from(open.repeat(depth) + middle + (closed ? CLOSE[open]!.repeat(depth) : ''), 'latin1'));
    }
    case 'long': {
      // The over-limit lengths only one time in 64.
      const n = (c & 63) === 0 ? LONG[b % LONG.length]! : LONG[b % (LONG.length - 1)]!;
      const fill = String.fromCharCode(0x61 + (c % 26));
      const piece = (a >>> 16) % 2 === 0 ? `${n}:${fill.repeat(n)}` : `"${fill.repeat(n)}"`;
      return insert(input, at(a, len), Buffer.from(piece, 'latin1'));
    }
    case 'struct':
      return structMutate(input, new Rng(a ^ Math.imul(b, 0x9e3779b1) ^ c));
  }
}

/** Applies ops in order. */
export function applyOps(input: Buffer, ops: readonly Op[], others: readonly Buffer[]): Buffer {
  let out = input;
  for (const op of ops) out = applyOp(out, op, others);
  return out;
}

/** Random ops (soak fuzzer). */
export function randomOps(rng: Rng, max = 4): Op[] {
  const n = 1 + rng.int(max);
  const ops: Op[] = [];
  for (let i = 0; i < n; i++) {
    // Structure-aware mutations get a larger share: they pass the syntax and reach the validators.
    const kind = rng.chance(0.35) ? 'struct' : rng.pick(OP_KINDS);
    ops.push([kind, rng.u32(), rng.u32(), rng.u32()]);
  }
  return ops;
}

// ---------------------------------------------------------------------------------------------
// Structure-aware mutation

const KEYS = [
  'format', 'version', 'name', 'comment', 'created_at', 'created_by', 'piece_size', 'trackers', 'channels', 'files', 'path', 'size',
  'modified', 'hashes', 'md5', 'sha1', 'sha256', 'gcid', 'pieces', 'sources', 'type', 'url', 'expires_at', 'share_id', 'cas_slice_md5',
  'cas_create_time', 'cas_cloud', 'missing_channels', 'driver', 'mount_path', 'sliceMd5', 'create_time', 'slice_md5s', 'slice_size', 'cloud',
  'info', 'piece length', 'length', 'md5sum', 'attr', 'announce', 'announce-list', 'creation date', 'created by', 'x-openlist', 'x-cas',
  'file_md5', 'slice_md5', '__proto__', 'constructor', 'toString', '',
];

const STRINGS = [
  '', ' ', '.', '..', ' ..', '/', 'a/b', 'a//b', '/abs', 'a\\b', 'x\0y', '\ud800', 'é', '文件', '😀', 'a'.repeat(1000),
  'openlist-sharing-seed', 'https://x.example/a', 'not a url', '900150983cd24fb0d6963f7d28e17f72', '900150983CD24FB0D6963F7D28E17F72',
  'a9993e364706816aba3e25717850c26c9cd0d89d', 'f'.repeat(64), 'g'.repeat(32), '2026-01-01T00:00:00Z', '1767225600', '99999999999999', '-1',
  'openlist-direct', 'Local', '189', '10485760',
];

const NUMBERS = [0, 1, -1, 3, 0.5, 16383, 16384, 32768, 10485760, 67108864, 67108865, 2 ** 31, 2 ** 32, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, 1e21, 1e308, -1e308];

function jsonValue(rng: Rng, depth: number): unknown {
  switch (rng.int(depth > 2 ? 4 : 7)) {
    case 0:
      return rng.pick(STRINGS);
    case 1:
      return rng.pick(NUMBERS);
    case 2:
      return rng.pick([null, true, false]);
    case 3:
      return rng.pick(STRINGS) + rng.pick(STRINGS);
    case 4:
      return Array.from({ length: rng.int(4) }, () => jsonValue(rng, depth + 1));
    case 5: {
      const o: Record<string, unknown> = {};
      for (let i = rng.int(4); i > 0; i--) Object.defineProperty(o, rng.pick(KEYS), { value: jsonValue(rng, depth + 1), enumerable: true, configurable: true, writable: true });
      return o;
    }
    default:
      return rng.pick([[], {}, ['a'], [1, 2, 3]]);
  }
}

const BIGINTS = [0n, 1n, -1n, 3n, 16384n, 10485760n, 67108865n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 63n - 1n, -(2n ** 63n), 8_000_000_000_000n];

function bencodeValue(rng: Rng, depth: number): BencodeInput {
  switch (rng.int(depth > 2 ? 3 : 5)) {
    case 0:
      return rng.pick(BIGINTS);
    case 1:
      return Buffer.from(rng.pick(STRINGS), 'utf8');
    case 2:
      return rng.chance(0.5) ? rng.bytes(rng.pick([0, 1, 19, 20, 21, 40, 60])) : Buffer.from(rng.pick(STRINGS), 'latin1');
    case 3:
      return Array.from({ length: rng.int(4) }, () => bencodeValue(rng, depth + 1));
    default: {
      const m = new Map<string, BencodeInput>();
      for (let i = rng.int(4); i > 0; i--) m.set(rng.pick(KEYS), bencodeValue(rng, depth + 1));
      return m;
    }
  }
}

type Node = { parent: unknown[] | Record<string, unknown> | Map<string, unknown>; key: string | number };

/** Every container slot of a parsed document, root excluded. */
function slots(root: unknown, out: Node[] = [], depth = 0): Node[] {
  if (depth > 40 || out.length > 5000) return out;
  if (root instanceof Map) {
    for (const [k, v] of root) {
      out.push({ parent: root, key: k });
      slots(v, out, depth + 1);
    }
  } else if (Array.isArray(root)) {
    root.forEach((v, i) => {
      out.push({ parent: root, key: i });
      slots(v, out, depth + 1);
    });
  } else if (typeof root === 'object' && root !== null && !Buffer.isBuffer(root)) {
    for (const k of Object.keys(root)) {
      out.push({ parent: root as Record<string, unknown>, key: k });
      slots((root as Record<string, unknown>)[k], out, depth + 1);
    }
  }
  return out;
}

function mutateTree(root: unknown, rng: Rng, make: (rng: Rng) => unknown): void {
  const all = slots(root);
  if (all.length === 0) return;
  const { parent, key } = rng.pick(all);
  const action = rng.int(5);
  const get = (): unknown => (parent instanceof Map ? parent.get(key as string) : (parent as Record<string | number, unknown>)[key]);
  const set = (v: unknown): void => {
    if (parent instanceof Map) parent.set(key as string, v);
    else Object.defineProperty(parent, key, { value: v, enumerable: true, configurable: true, writable: true });
  };
  if (action === 0) {
    // delete the slot
    if (parent instanceof Map) parent.delete(key as string);
    else if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete (parent as Record<string, unknown>)[key];
  } else if (action === 1 && Array.isArray(parent)) {
    // duplicate an element (duplicate paths, wrong piece counts)
    parent.splice(key as number, 0, structuredCloneSafe(get()));
  } else if (action === 2) {
    // a sibling key with a hostile value
    const k = rng.pick(KEYS);
    if (parent instanceof Map) parent.set(k, make(rng));
    else if (!Array.isArray(parent)) Object.defineProperty(parent, k, { value: make(rng), enumerable: true, configurable: true, writable: true });
    else parent.push(make(rng));
  } else {
    set(make(rng));
  }
}

function structuredCloneSafe(v: unknown): unknown {
  try {
    return structuredClone(v);
  } catch {
    return v;
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Parses the document as JSON, base64 JSON or bencode, mutates one node and re-encodes it; unparsable input is returned unchanged. */
export function structMutate(input: Buffer, rng: Rng): Buffer {
  if (input.length > 1024 * 1024) return input;
  const first = input.find((c) => c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09);
  if (first === 0x64 /* d */ || first === 0x6c /* l */) {
    try {
      const { value } = decodeBencode(input, { maxTotalItems: 100_000 });
      const root = value as BencodeValue;
      mutateTree(root, rng, (r) => bencodeValue(r, 0));
      return encodeBencode(root as BencodeInput);
    } catch {
      return input;
    }
  }
  let text: string;
  try {
    text = utf8.decode(input).trim();
  } catch {
    return input;
  }
  const base64 = !text.startsWith('{') && !text.startsWith('[');
  try {
    const root = JSON.parse(base64 ? Buffer.from(text, 'base64').toString('utf8') : text) as unknown;
    mutateTree(root, rng, (r) => jsonValue(r, 0));
    const json = JSON.stringify(root, null, rng.pick([0, 2]));
    return Buffer.from(base64 ? Buffer.from(json, 'utf8').toString('base64') : json, base64 ? 'latin1' : 'utf8');
  } catch {
    return input;
  }
}
