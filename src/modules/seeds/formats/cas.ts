// `.cas`: padded standard base64 of compact JSON, the legacy 189-cloud rapid-upload
// record (seed-formats.md §4), with OpenList's extensions and Ferry's multi-file form.
import { baseName } from '../../../lib/paths.js';
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import {
  CAS_SLICE_SIZE,
  MAX_SEED_DOC_BYTES,
  MAX_SEED_FILES,
  SEED_FORMAT_ID,
  SEED_VERSION,
  SeedFormatError,
  canonicalizeSeed,
  formatSeedTime,
  isHex,
  seedNameProblem,
  validateSeed,
} from './model.js';
import type { Seed, SeedFile } from './model.js';
import { decodeSeedText, parseSeedJson, seedToJson } from './oss.js';
import type { EncodeOptions } from './oss.js';

/** `created_by` of a seed read from `.cas` (the format carries no creator). */
export const CAS_CREATED_BY = 'CAS';

export interface CasEntry {
  name: string;
  size: number;
  md5: string;
  sliceMd5: string;
  create_time: string;
  slice_md5s?: string[];
  slice_size?: number;
  cloud?: string;
}

/** The JSON inside a `.cas`. Multi-file payloads have empty legacy strings and `files[]` (names are full relative paths). */
export interface CasPayload extends CasEntry {
  files?: CasEntry[];
}

/**
 * The legacy aggregate slice MD5 over 10 MiB slices, upper case:
 * no slice → the whole MD5; one slice → that slice; two or more → MD5 of the
 * upper-case slice MD5s joined by `\n`.
 */
export function casSliceMd5(sliceMd5s: readonly string[], wholeMd5: string): string {
  if (sliceMd5s.length === 0) return wholeMd5.toUpperCase();
  if (sliceMd5s.length === 1) return (sliceMd5s[0] || wholeMd5).toUpperCase();
  const joined = sliceMd5s.map((s) => s.toUpperCase()).join('\n');
  return createHash('md5').update(joined, 'latin1').digest('hex').toUpperCase();
}

/**
 * The sliceMd5 the file's data determines, upper case, or null when it needs
 * 10 MiB MD5 pieces it does not have. Order: stored `cas_slice_md5`; derived from
 * MD5 pieces when the seed's piece size is 10 MiB; the whole MD5 for files ≤ 10 MiB.
 */
export function fileCasSliceMd5(file: SeedFile, pieceSize: number): string | null {
  const md5 = file.hashes.md5;
  if (file.cas_slice_md5) return file.cas_slice_md5.toUpperCase();
  if (!md5) return null;
  const pieces = file.hashes.pieces?.md5;
  if (pieces && pieces.length > 0 && pieceSize === CAS_SLICE_SIZE) return casSliceMd5(pieces, md5);
  if (file.size <= CAS_SLICE_SIZE) return md5.toUpperCase();
  return null;
}

const unixSeconds = (d: Date): string => String(Math.floor(d.getTime() / 1000));

function casEntry(file: SeedFile, index: number, pieceSize: number, name: string, now: Date): CasEntry {
  const at = `files[${index}]`;
  const md5 = file.hashes.md5;
  if (!md5) throw new SeedFormatError(`${at}.hashes.md5`, '.cas needs the whole-file MD5', file.path);
  const sliceMd5 = fileCasSliceMd5(file, pieceSize);
  if (sliceMd5 === null) {
    throw new SeedFormatError(`${at}.hashes.pieces.md5`, '.cas needs a legacy slice MD5 or complete 10 MiB MD5 pieces for files over 10 MiB', file.path);
  }
  const entry: CasEntry = { name, size: file.size, md5: md5.toUpperCase(), sliceMd5, create_time: file.cas_create_time ?? unixSeconds(now) };
  const pieces = file.hashes.pieces?.md5;
  if (pieces && pieces.length > 0) {
    entry.slice_md5s = pieces.map((p) => p.toUpperCase());
    entry.slice_size = pieceSize;
  }
  if (file.cas_cloud) entry.cloud = file.cas_cloud;
  return entry;
}

export interface EncodeCasOptions extends EncodeOptions {
  /** Clock for `create_time` when the seed has none (default: now). */
  now?: Date;
}

/** The payload `encodeCas` would write (also for previews). Throws when a file lacks the MD5 data `.cas` needs. */
export function buildCasPayload(seed: Seed, opts: EncodeCasOptions = {}): CasPayload {
  const s = seedToJson(seed, opts);
  const now = opts.now ?? new Date();
  // One file: the legacy form named by its base name, unless that is no valid seed name (e.g. " ").
  if (s.files.length === 1 && seedNameProblem(baseName(s.files[0]!.path)) === null) {
    const f = s.files[0]!;
    return casEntry(f, 0, s.piece_size, baseName(f.path), now);
  }
  const files = s.files.map((f, i) => casEntry(f, i, s.piece_size, f.path, now));
  return { name: s.name, size: files.reduce((n, f) => n + f.size, 0), md5: '', sliceMd5: '', create_time: '', files };
}

/** Encodes `.cas`: padded standard base64 of compact JSON, MD5s upper case. */
export function encodeCas(seed: Seed, opts: EncodeCasOptions = {}): Buffer {
  const json = JSON.stringify(buildCasPayload(seed, opts));
  const out = Buffer.from(Buffer.from(json, 'utf8').toString('base64'), 'latin1');
  if (out.length > MAX_SEED_DOC_BYTES) {
    throw new SeedFormatError('document', `the .cas document would be ${out.length} bytes, over the limit of ${MAX_SEED_DOC_BYTES}`);
  }
  return out;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Base64 text or raw JSON → the parsed payload value. */
function payloadValue(input: Uint8Array): unknown {
  const text = decodeSeedText(input).trim();
  if (text.startsWith('{')) return parseSeedJson(text);
  const b64 = text.replace(/\s+/g, '');
  if (b64 === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 === 1 || (b64.includes('=') && b64.length % 4 !== 0)) {
    throw new SeedFormatError('document', 'is neither base64 nor JSON');
  }
  return parseSeedJson(decodeSeedText(Buffer.from(b64, 'base64'), 'document (base64 content)'), 'document (base64 content)');
}

interface ReadEntry {
  file: SeedFile;
  sliceSize?: number;
}

function readEntry(v: unknown, at: string): ReadEntry {
  if (!isObj(v)) throw new SeedFormatError(at, 'must be an object');
  const name = v.name;
  if (typeof name !== 'string' || name === '') throw new SeedFormatError(`${at}.name`, 'must be a non-empty string');
  const { size, md5, sliceMd5, create_time: ct, slice_md5s: slices, slice_size: sliceSize, cloud } = v;
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) throw new SeedFormatError(`${at}.size`, 'must be a non-negative integer', name);
  if (typeof md5 !== 'string' || !isHex(md5, 32)) throw new SeedFormatError(`${at}.md5`, 'must be 32 hexadecimal digits', name);
  const slice = sliceMd5 === undefined || sliceMd5 === null || sliceMd5 === '' ? md5 : sliceMd5;
  if (typeof slice !== 'string' || !isHex(slice, 32)) throw new SeedFormatError(`${at}.sliceMd5`, 'must be 32 hexadecimal digits', name);
  let createTime: string | undefined;
  if (typeof ct === 'string') createTime = ct;
  else if (typeof ct === 'number' && Number.isSafeInteger(ct)) createTime = String(ct);
  else if (ct !== undefined && ct !== null) throw new SeedFormatError(`${at}.create_time`, 'must be a string of Unix seconds', name);
  if (slices !== undefined && slices !== null && (!Array.isArray(slices) || slices.some((s) => typeof s !== 'string'))) {
    throw new SeedFormatError(`${at}.slice_md5s`, 'must be a list of strings', name);
  }
  if (sliceSize !== undefined && sliceSize !== null && (typeof sliceSize !== 'number' || !Number.isSafeInteger(sliceSize))) {
    throw new SeedFormatError(`${at}.slice_size`, 'must be an integer', name);
  }
  if (cloud !== undefined && cloud !== null && typeof cloud !== 'string') throw new SeedFormatError(`${at}.cloud`, 'must be a string', name);
  const file: SeedFile = {
    path: name,
    size,
    hashes: { md5, ...(Array.isArray(slices) && slices.length > 0 ? { pieces: { md5: slices as string[] } } : {}) },
    cas_slice_md5: slice,
    cas_create_time: createTime,
    cas_cloud: cloud ?? undefined,
  };
  return { file, sliceSize: typeof sliceSize === 'number' && sliceSize > 0 ? sliceSize : undefined };
}

export interface DecodeCasOptions {
  /** Clock for `created_at` when the payload has no usable `create_time` (default: now). */
  now?: Date;
}

/** Decodes `.cas` (base64 or raw JSON) into a canonical, validated seed. */
export function decodeCas(input: Uint8Array | string, opts: DecodeCasOptions = {}): Seed {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  const payload = payloadValue(bytes);
  if (!isObj(payload)) throw new SeedFormatError('document', 'a .cas payload must be a JSON object');
  const files = payload.files;
  let entries: ReadEntry[];
  let name: unknown;
  if (Array.isArray(files) && files.length > 0) {
    if (files.length > MAX_SEED_FILES) throw new SeedFormatError('files', `too many files: ${files.length} (limit ${MAX_SEED_FILES})`);
    entries = files.map((f, i) => readEntry(f, `files[${i}]`));
    name = payload.name;
    if (typeof name !== 'string') throw new SeedFormatError('name', 'must be a string');
  } else {
    if (files !== undefined && files !== null && !Array.isArray(files)) throw new SeedFormatError('files', 'must be a list');
    entries = [readEntry(payload, 'document')];
    name = entries[0]!.file.path;
  }
  const sizes = new Set(entries.flatMap((e) => (e.sliceSize === undefined ? [] : [e.sliceSize])));
  if (sizes.size > 1) throw new SeedFormatError('slice_size', `entries disagree on slice_size (${[...sizes].join(', ')})`);
  const pieceSize = [...sizes][0] ?? CAS_SLICE_SIZE;
  const ct = entries[0]!.file.cas_create_time;
  const createdAt = ct && /^\d{1,12}$/.test(ct) ? new Date(Number(ct) * 1000) : (opts.now ?? new Date());
  const seed = canonicalizeSeed({
    format: SEED_FORMAT_ID,
    version: SEED_VERSION,
    name: name as string,
    created_at: formatSeedTime(createdAt),
    created_by: CAS_CREATED_BY,
    piece_size: pieceSize,
    files: entries.map((e) => e.file),
  });
  validateSeed(seed);
  return seed;
}
