// `.torrent`: BitTorrent v1 with the seed in root-level extensions (seed-formats.md §3, contract §10.1).
// `info` holds only name, piece length, pieces and length/files, so the info hash equals mktorrent's.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { decodeBencode, encodeBencode, isBencodeBytes, isBencodeDict, isBencodeInt, isBencodeList } from './bencode.js';
import type { BencodeDict, BencodeInput, BencodeValue } from './bencode.js';
import { fileCasSliceMd5 } from './cas.js';
import {
  CAS_SLICE_SIZE,
  DEFAULT_CAS_CLOUD,
  MAX_PIECE_SIZE,
  MAX_SEED_DOC_BYTES,
  MAX_SEED_FILES,
  MIN_PIECE_SIZE,
  SEED_FORMAT_ID,
  SEED_VERSION,
  SeedFormatError,
  canonicalizeSeed,
  compareSeedPaths,
  formatSeedTime,
  isHex,
  pieceCount,
  seedNameProblem,
  seedPathProblem,
  validateSeed,
} from './model.js';
import type { Seed, SeedFile } from './model.js';
import { seedFromJson, seedToJson } from './oss.js';
import type { EncodeOptions } from './oss.js';

export const TORRENT_EXT_OPENLIST = 'x-openlist';
export const TORRENT_EXT_CAS = 'x-cas';
/** `created_by` of a seed read from a plain torrent without a `created by` key. */
export const TORRENT_DEFAULT_CREATED_BY = 'BitTorrent';
const SHA1_LEN = 20;
const INFO_KEYS = new Set(['name', 'piece length', 'pieces', 'length', 'files', 'md5sum']);

/**
 * The BitTorrent v1 piece stream, computed by the hashing engine: SHA-1 of consecutive
 * `pieceSize`-byte pieces over the bytes of all files concatenated in `torrentFileOrder(seed)`
 * (the last piece may be short; empty files contribute nothing).
 */
export interface TorrentPieceStream {
  pieceSize: number;
  /** Raw 20-byte digests back to back: ceil(total size / pieceSize) × 20 bytes. */
  hashes: Uint8Array;
}

export interface EncodeTorrentOptions extends EncodeOptions {
  /** Required unless every file has SHA-1 pieces and all but the last are piece-aligned. */
  pieces?: TorrentPieceStream;
  /** `creation date`; default: the seed's `created_at`; null omits the key. */
  creationDate?: Date | null;
  /** Write `x-openlist` (default true). */
  openlistExtension?: boolean;
  /** Write `x-cas` for single-file seeds with MD5 data (default true). */
  casExtension?: boolean;
  /**
   * `multi` writes `info.files` even for one file — what mktorrent does for a folder holding
   * a single file. Default `auto`: one file is a single-file torrent named by its base name
   * (contract §10.1, as OpenList writes it).
   */
  layout?: 'auto' | 'multi';
  /**
   * Web seeds (BEP 19), written as root-level `url-list` (outside `info`: the info hash does not
   * change). Single-file torrent: URLs of the file itself; multi-file: roots under which
   * `<root>/<info name>/<path>` resolves. Empty or absent: no `url-list`.
   */
  webSeeds?: readonly string[];
}

/** The files in torrent order: by the UTF-8 bytes of their path, as mktorrent does. */
export function torrentFileOrder<F extends Pick<SeedFile, 'path'>>(files: readonly F[]): F[] {
  return [...files].sort((a, b) => compareSeedPaths(a.path, b.path));
}

/** True when per-file piece lists can be joined into the v1 stream: every non-empty file but the last is a whole number of pieces. */
export function isPieceAligned(orderedFiles: readonly Pick<SeedFile, 'size'>[], pieceSize: number): boolean {
  const nonEmpty = orderedFiles.filter((f) => f.size > 0);
  return nonEmpty.slice(0, -1).every((f) => f.size % pieceSize === 0);
}

const hexDigests = (b: Uint8Array): string[] => {
  const out: string[] = [];
  for (let i = 0; i < b.length; i += SHA1_LEN) out.push(Buffer.from(b.subarray(i, i + SHA1_LEN)).toString('hex'));
  return out;
};

/** The v1 piece stream built from per-file SHA-1 lists, or null when the seed's data does not allow it. */
export function torrentPiecesFromSeed(seed: Seed): Buffer | null {
  const files = torrentFileOrder(seed.files);
  if (!isPieceAligned(files, seed.piece_size)) return null;
  const parts: Buffer[] = [];
  for (const f of files) {
    if (f.size === 0) continue;
    const list = f.hashes.pieces?.sha1;
    if (!list || list.length !== pieceCount(f.size, seed.piece_size)) return null;
    parts.push(Buffer.from(list.join(''), 'hex'));
  }
  return Buffer.concat(parts);
}

function checkStream(seed: Seed, files: SeedFile[], stream: TorrentPieceStream): Buffer {
  if (stream.pieceSize !== seed.piece_size) {
    throw new SeedFormatError('pieces', `piece stream computed at ${stream.pieceSize} bytes, the seed uses ${seed.piece_size}`);
  }
  const total = files.reduce((n, f) => n + f.size, 0);
  const want = pieceCount(total, seed.piece_size) * SHA1_LEN;
  if (stream.hashes.length !== want) throw new SeedFormatError('pieces', `piece stream has ${stream.hashes.length} bytes, expected ${want}`);
  return Buffer.from(stream.hashes);
}

/** Aligned seeds: fill missing per-file SHA-1 lists from the stream and refuse lists that disagree with it. */
function reconcileSha1(files: SeedFile[], stream: Buffer, pieceSize: number): SeedFile[] {
  if (!isPieceAligned(files, pieceSize)) return files;
  let offset = 0;
  return files.map((f, i) => {
    const n = pieceCount(f.size, pieceSize);
    const slice = hexDigests(stream.subarray(offset * SHA1_LEN, (offset + n) * SHA1_LEN));
    offset += n;
    if (n === 0) return f;
    const own = f.hashes.pieces?.sha1;
    if (own && own.length > 0) {
      if (own.some((h, j) => h.toLowerCase() !== slice[j])) {
        throw new SeedFormatError(`files[${i}].hashes.pieces.sha1`, 'does not match the torrent piece stream', f.path);
      }
      return f;
    }
    return { ...f, hashes: { ...f.hashes, pieces: { ...f.hashes.pieces, sha1: slice } } };
  });
}

function casExtension(seed: Seed): BencodeInput | undefined {
  if (seed.files.length !== 1) return undefined;
  const f = seed.files[0]!;
  const md5 = f.hashes.md5;
  const slice = fileCasSliceMd5(f, seed.piece_size);
  if (!md5 || slice === null) return undefined;
  const pieces = f.hashes.pieces?.md5;
  return {
    cloud: f.cas_cloud || DEFAULT_CAS_CLOUD,
    file_md5: md5.toUpperCase(),
    slice_md5: slice,
    slice_size: CAS_SLICE_SIZE,
    slice_md5s: seed.piece_size === CAS_SLICE_SIZE && pieces && pieces.length > 0 ? pieces.map((p) => p.toUpperCase()) : undefined,
  };
}

/**
 * Whether these files make a single-file torrent (`info.length`, named by the file's base name).
 * One file is, unless `layout` is `multi` or its base name is no valid torrent name (e.g. " "):
 * that takes the multi-file layout, or the torrent could not be read back.
 */
export function isSingleFileTorrent(files: readonly Pick<SeedFile, 'path'>[], layout: 'auto' | 'multi' = 'auto'): boolean {
  const only = files.length === 1 && layout !== 'multi' ? files[0]! : undefined;
  return only !== undefined && seedNameProblem(only.path.slice(only.path.lastIndexOf('/') + 1)) === null;
}

/** Encodes `.torrent`. Files are written in `torrentFileOrder`; so is the embedded `x-openlist` seed. */
export function encodeTorrent(seed: Seed, opts: EncodeTorrentOptions = {}): Buffer {
  const canonical = seedToJson(seed, opts);
  let files = torrentFileOrder(canonical.files);
  const ordered: Seed = { ...canonical, files };
  let stream: Buffer;
  if (opts.pieces) {
    stream = checkStream(ordered, files, opts.pieces);
  } else {
    const derived = torrentPiecesFromSeed(ordered);
    if (!derived) {
      throw new SeedFormatError('pieces', 'the torrent needs the SHA-1 piece stream over all files (the seed lacks SHA-1 pieces or its files are not piece-aligned)');
    }
    stream = derived;
  }
  files = reconcileSha1(files, stream, ordered.piece_size);
  const full: Seed = { ...ordered, files };
  const single = isSingleFileTorrent(files, opts.layout) ? files[0] : undefined;
  const info: Record<string, BencodeInput> = { name: single ? single.path.slice(single.path.lastIndexOf('/') + 1) : full.name, 'piece length': full.piece_size, pieces: stream };
  if (single) info.length = single.size;
  else info.files = files.map((f) => ({ length: f.size, path: f.path.split('/') }));
  const trackers = full.trackers ?? [];
  let date: number | undefined;
  if (opts.creationDate !== null) {
    const ms = opts.creationDate ? opts.creationDate.getTime() : Date.parse(full.created_at);
    if (Number.isFinite(ms) && ms >= 1000) date = Math.floor(ms / 1000);
  }
  const root: Record<string, BencodeInput | undefined> = {
    announce: trackers[0],
    'announce-list': trackers.length > 0 ? trackers.map((t) => [t]) : undefined,
    comment: full.comment,
    'created by': full.created_by,
    'creation date': date,
    info,
    'url-list': opts.webSeeds && opts.webSeeds.length > 0 ? [...new Set(opts.webSeeds)] : undefined,
    [TORRENT_EXT_CAS]: opts.casExtension === false ? undefined : casExtension(full),
    [TORRENT_EXT_OPENLIST]: opts.openlistExtension === false ? undefined : (full as unknown as BencodeInput),
  };
  const out = encodeBencode(root);
  if (out.length > MAX_SEED_DOC_BYTES) {
    throw new SeedFormatError('document', `the .torrent document would be ${out.length} bytes, over the limit of ${MAX_SEED_DOC_BYTES}`);
  }
  return out;
}

export interface DecodedTorrent {
  seed: Seed;
  /** Hex SHA-1 of the original bytes of `info`. */
  info_hash: string;
  info_name: string;
  /** `info.length` (one file named `info_name`), not `info.files`. */
  single_file: boolean;
  piece_length: number;
  /** `info.pieces` as read: the v1 piece stream (reuse it to re-encode without re-hashing). */
  pieces: Buffer;
  total_size: number;
  /** `info.pieces` as an encoder input, present only when it is exactly the stream `encodeTorrent(seed)` needs (files in torrent order, no padding files). */
  piece_stream?: TorrentPieceStream;
  extensions: { openlist: boolean; cas: boolean };
  /** Files (plain torrents) whose SHA-1 pieces could not be cut from the stream because they are not piece-aligned. */
  unsliced_files: string[];
  /** Non-fatal remarks for diagnostics (non-canonical input, keys Ferry drops…). */
  notes: string[];
  /** `url-list` (BEP 19 web seeds) as read: http(s) URLs only. */
  web_seeds: string[];
  /** Every file of `info` in torrent order with its offset in the piece stream, padding files (BEP 47) included. */
  layout: { path: string; size: number; offset: number; padding: boolean }[];
}

export interface DecodeTorrentOptions {
  /** Clock for `created_at` when the torrent has no creation date (default: now). */
  now?: Date;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const loose = new TextDecoder('utf-8');

function strictText(v: BencodeValue | undefined, field: string): string {
  if (!isBencodeBytes(v)) throw new SeedFormatError(field, 'must be a byte string');
  try {
    return utf8.decode(v);
  } catch {
    throw new SeedFormatError(field, 'is not valid UTF-8');
  }
}

function int(v: BencodeValue | undefined, field: string): number {
  if (!isBencodeInt(v)) throw new SeedFormatError(field, 'must be an integer');
  if (v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER)) throw new SeedFormatError(field, `out of range: ${v}`);
  return Number(v);
}

/** Converts the `x-openlist` dict to JSON shapes (texts as UTF-8 strings, ints as numbers). */
function toJson(v: BencodeValue, field: string): unknown {
  if (isBencodeBytes(v)) return strictText(v, field);
  if (isBencodeInt(v)) {
    if (v < BigInt(Number.MIN_SAFE_INTEGER) || v > BigInt(Number.MAX_SAFE_INTEGER)) throw new SeedFormatError(field, `integer out of range: ${v}`);
    return Number(v);
  }
  if (isBencodeList(v)) return v.map((x, i) => toJson(x, `${field}[${i}]`));
  const o = Object.create(null) as Record<string, unknown>;
  for (const [k, x] of v) o[k] = toJson(x, `${field}.${k}`);
  return o;
}

interface InfoFile {
  path: string;
  size: number;
  offset: number;
  md5?: string;
  padding: boolean;
}

function readInfo(info: BencodeDict, notes: string[]): { name: string; pieceLength: number; pieces: Buffer; files: InfoFile[]; single: boolean; total: number } {
  const name = strictText(info.get('name'), 'info.name');
  const nameProblem = seedNameProblem(name);
  if (nameProblem) throw new SeedFormatError('info.name', `invalid torrent name: ${nameProblem}`);
  const pieceLength = int(info.get('piece length'), 'info.piece length');
  if (pieceLength < MIN_PIECE_SIZE || pieceLength > MAX_PIECE_SIZE) {
    throw new SeedFormatError('info.piece length', `${pieceLength} is outside the supported ${MIN_PIECE_SIZE}–${MAX_PIECE_SIZE} bytes`);
  }
  const pieces = info.get('pieces');
  if (!isBencodeBytes(pieces) || pieces.length % SHA1_LEN !== 0) throw new SeedFormatError('info.pieces', 'must be a byte string of 20-byte SHA-1 digests');
  const extra = [...info.keys()].filter((k) => !INFO_KEYS.has(k));
  if (extra.length > 0) notes.push(`info has keys Ferry does not write (${extra.join(', ')}); re-encoding this torrent changes its info hash`);
  const md5 = (v: BencodeValue | undefined, field: string, path: string): string | undefined => {
    if (v === undefined) return undefined;
    const s = strictText(v, field);
    if (!isHex(s, 32)) throw new SeedFormatError(field, 'must be 32 hexadecimal digits', path);
    return s;
  };
  const list = info.get('files');
  const out: InfoFile[] = [];
  let total = 0;
  if (info.has('length')) {
    if (list !== undefined) throw new SeedFormatError('info', 'has both length and files');
    total = int(info.get('length'), 'info.length');
    out.push({ path: name, size: total, offset: 0, md5: md5(info.get('md5sum'), 'info.md5sum', name), padding: false });
  } else {
    if (!isBencodeList(list)) throw new SeedFormatError('info.files', 'is missing (BitTorrent v2-only torrents are not supported)');
    if (list.length > MAX_SEED_FILES) throw new SeedFormatError('info.files', `too many files: ${list.length} (limit ${MAX_SEED_FILES})`);
    list.forEach((entry, i) => {
      const at = `info.files[${i}]`;
      if (!isBencodeDict(entry)) throw new SeedFormatError(at, 'must be a dictionary');
      const segs = entry.get('path');
      if (!isBencodeList(segs) || segs.length === 0) throw new SeedFormatError(`${at}.path`, 'must be a non-empty list');
      const path = segs.map((s, j) => strictText(s, `${at}.path[${j}]`)).join('/');
      const problem = seedPathProblem(path);
      if (problem) throw new SeedFormatError(`${at}.path`, `unsafe path: ${problem}`, path);
      const size = int(entry.get('length'), `${at}.length`);
      const attr = entry.get('attr');
      const padding = isBencodeBytes(attr) && attr.includes(0x70 /* p */);
      out.push({ path, size, offset: total, md5: md5(entry.get('md5sum'), `${at}.md5sum`, path), padding });
      total += size;
      if (total > Number.MAX_SAFE_INTEGER) throw new SeedFormatError(`${at}.length`, 'total size overflows', path);
    });
    if (out.some((f) => f.padding)) notes.push('padding files (BEP 47) are skipped');
  }
  const want = pieceCount(total, pieceLength);
  if (pieces.length / SHA1_LEN !== want) throw new SeedFormatError('info.pieces', `has ${pieces.length / SHA1_LEN} pieces, expected ${want} for ${total} bytes`);
  return { name, pieceLength, pieces, files: out, single: info.has('length'), total };
}

/** The file's SHA-1 list cut from the stream, or null when the file does not start and end on piece boundaries. */
function sliceSha1(f: InfoFile, pieces: Buffer, pieceLength: number, total: number): string[] | null {
  if (f.offset % pieceLength !== 0) return null;
  if (f.size % pieceLength !== 0 && f.offset + f.size !== total) return null;
  const first = f.offset / pieceLength;
  return hexDigests(pieces.subarray(first * SHA1_LEN, (first + pieceCount(f.size, pieceLength)) * SHA1_LEN));
}

function textList(v: BencodeValue | undefined): string[] {
  if (isBencodeBytes(v)) return [loose.decode(v)];
  if (isBencodeList(v)) return v.flatMap((x) => textList(x));
  return [];
}

/** Decodes a `.torrent` (ours, OpenList's or any v1 torrent) into a seed plus torrent facts. */
export function decodeTorrent(input: Uint8Array, opts: DecodeTorrentOptions = {}): DecodedTorrent {
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.length);
  const { value: root, rootRanges, sortedKeys } = decodeBencode(bytes, { field: 'torrent' });
  if (!isBencodeDict(root)) throw new SeedFormatError('torrent', 'the root must be a dictionary');
  const infoValue = root.get('info');
  const range = rootRanges.get('info');
  if (!isBencodeDict(infoValue) || !range) throw new SeedFormatError('info', 'is missing or not a dictionary');
  const notes: string[] = [];
  if (!sortedKeys) notes.push('dictionary keys are not in sorted order (non-canonical bencode); the info hash is taken over the original bytes');
  const info_hash = createHash('sha1').update(bytes.subarray(range.start, range.end)).digest('hex');
  const info = readInfo(infoValue, notes);
  const real = info.files.filter((f) => !f.padding);
  const ext = root.get(TORRENT_EXT_OPENLIST);
  const cas = root.get(TORRENT_EXT_CAS);
  const inOrder = real.length === info.files.length && torrentFileOrder(real).every((f, i) => f === real[i]);
  const piece_stream = inOrder ? { pieceSize: info.pieceLength, hashes: info.pieces } : undefined;
  const web_seeds = textList(root.get('url-list')).map((u) => u.trim()).filter((u) => /^https?:\/\//i.test(u));
  const layout = info.files.map(({ path, size, offset, padding }) => ({ path, size, offset, padding }));
  const base = { layout, web_seeds, info_hash, info_name: info.name, single_file: info.single, piece_length: info.pieceLength, pieces: info.pieces, total_size: info.total, piece_stream, extensions: { openlist: ext !== undefined, cas: cas !== undefined }, notes };

  if (ext !== undefined) {
    if (!isBencodeDict(ext)) throw new SeedFormatError(TORRENT_EXT_OPENLIST, 'must be a dictionary');
    const seed = seedFromJson(toJson(ext, TORRENT_EXT_OPENLIST), `${TORRENT_EXT_OPENLIST}.`);
    checkConsistency(seed, info, real);
    return { ...base, seed, unsliced_files: [] };
  }

  const unsliced: string[] = [];
  const files: SeedFile[] = real.map((f) => {
    const sha1 = sliceSha1(f, info.pieces, info.pieceLength, info.total);
    if (sha1 === null) unsliced.push(f.path);
    return { path: f.path, size: f.size, hashes: { md5: f.md5, pieces: sha1 && sha1.length > 0 ? { sha1 } : undefined } };
  });
  if (unsliced.length > 0) notes.push(`SHA-1 pieces of ${unsliced.length} file(s) span file boundaries and were not kept per file`);
  if (info.single && isBencodeDict(cas)) applyCas(files[0]!, cas, info.pieceLength, notes);
  const date = root.get('creation date');
  const createdAt = isBencodeInt(date) && date > 0n && date < 8_000_000_000_000n ? new Date(Number(date) * 1000) : (opts.now ?? new Date());
  const createdBy = isBencodeBytes(root.get('created by')) ? loose.decode(root.get('created by') as Buffer).trim() : '';
  const comment = isBencodeBytes(root.get('comment')) ? loose.decode(root.get('comment') as Buffer) : undefined;
  const trackers = [...new Set([...textList(root.get('announce')), ...textList(root.get('announce-list'))].map((t) => t.trim()).filter((t) => t !== ''))];
  const seed = canonicalizeSeed({
    format: SEED_FORMAT_ID,
    version: SEED_VERSION,
    name: info.name,
    comment,
    created_at: formatSeedTime(createdAt),
    created_by: createdBy || TORRENT_DEFAULT_CREATED_BY,
    piece_size: info.pieceLength,
    trackers,
    files,
  });
  validateSeed(seed);
  return { ...base, seed, unsliced_files: unsliced };
}

function applyCas(file: SeedFile, cas: BencodeDict, pieceLength: number, notes: string[]): void {
  const text = (k: string): string | undefined => {
    const v = cas.get(k);
    return isBencodeBytes(v) ? loose.decode(v) : undefined;
  };
  const md5 = text('file_md5');
  if (md5 === undefined || !isHex(md5, 32)) {
    notes.push('x-cas has no valid file_md5 and was ignored');
    return;
  }
  file.hashes.md5 = md5;
  const slice = text('slice_md5');
  if (slice && isHex(slice, 32)) file.cas_slice_md5 = slice;
  const cloud = text('cloud');
  if (cloud) file.cas_cloud = cloud;
  const size = cas.get('slice_size');
  const list = cas.get('slice_md5s');
  if (isBencodeList(list) && list.length > 0) {
    if (isBencodeInt(size) && Number(size) === pieceLength && list.length === pieceCount(file.size, pieceLength)) {
      file.hashes.pieces = { ...file.hashes.pieces, md5: list.map((v, i) => strictText(v, `x-cas.slice_md5s[${i}]`)) };
    } else {
      notes.push('x-cas slice MD5s do not match the torrent piece length and were not kept');
    }
  }
}

function checkConsistency(seed: Seed, info: ReturnType<typeof readInfo>, real: InfoFile[]): void {
  const bad = (reason: string, file?: string): never => {
    throw new SeedFormatError(TORRENT_EXT_OPENLIST, `does not match info: ${reason}`, file);
  };
  if (seed.piece_size !== info.pieceLength) bad(`piece_size ${seed.piece_size} ≠ piece length ${info.pieceLength}`);
  if (seed.files.length !== real.length) bad(`${seed.files.length} files ≠ ${real.length}`);
  seed.files.forEach((f, i) => {
    const t = real[i]!;
    if (!info.single && f.path !== t.path) bad(`file ${i} is "${t.path}" in info`, f.path);
    if (f.size !== t.size) bad(`size ${f.size} ≠ ${t.size}`, f.path);
    const own = f.hashes.pieces?.sha1;
    const cut = own && own.length > 0 ? sliceSha1(t, info.pieces, info.pieceLength, info.total) : null;
    if (own && cut && own.some((h, j) => h !== cut[j])) bad('SHA-1 pieces differ from info.pieces', f.path);
  });
}
