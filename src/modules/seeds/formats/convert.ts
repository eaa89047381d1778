// Format detection, decoding any container, conversion feasibility, conversion and diagnostics.
import { baseName } from '../../../lib/paths.js';
import { Buffer } from 'node:buffer';
import { casSliceMd5, decodeCas, encodeCas } from './cas.js';
import { CAS_SLICE_SIZE, MAX_SEED_DOC_BYTES, SeedFormatError, isSeedFormat, pieceCount } from './model.js';
import type { HashName, Seed, SeedFormat } from './model.js';
import { decodeOss, encodeOss } from './oss.js';
import type { EncodeOptions } from './oss.js';
import { decodeTorrent, encodeTorrent, isPieceAligned, torrentFileOrder } from './torrent.js';
import type { EncodeTorrentOptions, TorrentPieceStream } from './torrent.js';

function checkFormat(value: unknown, field: string): SeedFormat {
  if (!isSeedFormat(value)) throw new SeedFormatError(field, `unknown seed format ${JSON.stringify(value)} (expected oss, torrent or cas)`);
  return value;
}

/**
 * Which container `bytes` hold. The file name's extension wins (`.oss`, `.torrent`, `.cas`,
 * case-insensitive; `x.cas.torrent` is a torrent); otherwise the content decides:
 * `{` → oss (or raw-JSON cas when it has no `format` key but CAS keys), `d` → torrent, else cas.
 */
export function detectFormat(bytes: Uint8Array, filename?: string): SeedFormat {
  const ext = filename?.toLowerCase().match(/\.(oss|torrent|cas)$/)?.[1];
  if (isSeedFormat(ext)) return ext;
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (i < bytes.length && [0x20, 0x09, 0x0a, 0x0d].includes(bytes[i]!)) i++;
  const c = bytes[i];
  if (c === 0x64 /* d */) return 'torrent';
  if (c !== 0x7b /* { */) return 'cas';
  if (bytes.length > MAX_SEED_DOC_BYTES) return 'oss'; // too large to sniff; the decoder refuses it
  try {
    const v = JSON.parse(Buffer.from(bytes.subarray(i)).toString('utf8')) as unknown;
    if (typeof v === 'object' && v !== null && !('format' in v) && ('sliceMd5' in v || 'md5' in v || 'files' in v)) return 'cas';
  } catch {
    // not JSON: let the oss decoder report it
  }
  return 'oss';
}

export interface DecodedSeed {
  format: SeedFormat;
  seed: Seed;
  /** Torrents only: hex SHA-1 of the original `info` bytes. */
  info_hash?: string;
  /** Torrents only: the v1 piece stream, reusable to re-encode the same file set as a torrent. */
  torrent_pieces?: TorrentPieceStream;
  /** Torrents only: the `url-list` web seeds (BEP 19) it carries. */
  web_seeds?: string[];
  /** Torrents only: `info.name`, and whether it is a single-file torrent (where clients put the files). */
  info_name?: string;
  single_file?: boolean;
  /** Non-fatal remarks from decoding. */
  notes: string[];
}

export interface DecodeAnyOptions {
  /** Used for detection by extension. */
  filename?: string;
  /** Skip detection. */
  format?: SeedFormat;
  /** Clock for `created_at` when the container has none. */
  now?: Date;
}

/** Decodes any of the three containers. Every failure is a SeedFormatError. */
export function decodeAny(bytes: Uint8Array, opts: DecodeAnyOptions = {}): DecodedSeed {
  const format = opts.format === undefined ? detectFormat(bytes, opts.filename) : checkFormat(opts.format, 'format');
  if (format === 'oss') return { format, seed: decodeOss(bytes), notes: [] };
  if (format === 'cas') return { format, seed: decodeCas(bytes, { now: opts.now }), notes: [] };
  const t = decodeTorrent(bytes, { now: opts.now });
  const notes = [...t.notes];
  if (t.unsliced_files.length > 0) notes.push(`no per-file SHA-1 pieces for: ${t.unsliced_files.join(', ')}`);
  return { format, seed: t.seed, info_hash: t.info_hash, torrent_pieces: t.piece_stream, web_seeds: t.web_seeds, info_name: t.info_name, single_file: t.single_file, notes };
}

/** One digest the hashing engine would have to compute. `stream` = SHA-1 over all files concatenated (torrent v1). */
export interface MissingHash {
  algorithm: HashName;
  kind: 'whole' | 'pieces' | 'stream';
  piece_size?: number;
}

export interface MissingData {
  file: string;
  needs: MissingHash[];
  reason: string;
}

export interface ConversionFeasibility {
  feasible: boolean;
  missing: MissingData[];
}

export interface FeasibilityOptions {
  /** A v1 piece stream for exactly this seed's files (e.g. from the decoded torrent or the hashing engine). */
  torrentPieces?: TorrentPieceStream;
}

function torrentMissing(seed: Seed, opts: FeasibilityOptions): MissingData[] {
  const ps = seed.piece_size;
  if (opts.torrentPieces && opts.torrentPieces.pieceSize === ps) return [];
  const files = torrentFileOrder(seed.files).filter((f) => f.size > 0);
  if (!isPieceAligned(files, ps)) {
    const need: MissingHash[] = [{ algorithm: 'sha1', kind: 'stream', piece_size: ps }];
    return files.map((f, i) => ({
      file: f.path,
      needs: need,
      reason:
        i < files.length - 1 && f.size % ps !== 0
          ? `size ${f.size} is not a multiple of the piece size ${ps}, so torrent pieces span into the next file`
          : 'its bytes are part of the torrent piece stream, which spans file boundaries',
    }));
  }
  return files
    .filter((f) => (f.hashes.pieces?.sha1?.length ?? 0) !== pieceCount(f.size, ps))
    .map((f) => ({ file: f.path, needs: [{ algorithm: 'sha1', kind: 'pieces', piece_size: ps }], reason: 'no SHA-1 piece hashes' }));
}

function casMissing(seed: Seed): MissingData[] {
  const out: MissingData[] = [];
  for (const f of seed.files) {
    const needs: MissingHash[] = [];
    if (!f.hashes.md5) needs.push({ algorithm: 'md5', kind: 'whole' });
    if (!f.cas_slice_md5 && f.size > CAS_SLICE_SIZE && !(seed.piece_size === CAS_SLICE_SIZE && (f.hashes.pieces?.md5?.length ?? 0) > 0)) {
      needs.push({ algorithm: 'md5', kind: 'pieces', piece_size: CAS_SLICE_SIZE });
    }
    if (needs.length > 0) {
      const what = needs.map((n) => (n.kind === 'whole' ? 'the whole-file MD5' : 'MD5 pieces at 10 MiB')).join(' and ');
      out.push({ file: f.path, needs, reason: `.cas needs ${what}` });
    }
  }
  return out;
}

/** Whether `seed` can be written as `target` without reading file bytes again, and if not, exactly what is missing per file. */
export function conversionFeasibility(seed: Seed, target: SeedFormat, opts: FeasibilityOptions = {}): ConversionFeasibility {
  checkFormat(target, 'target_format');
  const missing = target === 'torrent' ? torrentMissing(seed, opts) : target === 'cas' ? casMissing(seed) : [];
  return { feasible: missing.length === 0, missing };
}

export function allConversions(seed: Seed, opts: FeasibilityOptions = {}): Record<SeedFormat, ConversionFeasibility> {
  return { oss: conversionFeasibility(seed, 'oss', opts), torrent: conversionFeasibility(seed, 'torrent', opts), cas: conversionFeasibility(seed, 'cas', opts) };
}

export interface EncodeSeedOptions extends EncodeOptions, Omit<EncodeTorrentOptions, keyof EncodeOptions> {
  /** Clock for `.cas` `create_time` when the seed has none. */
  now?: Date;
}

/** Encodes a seed in one container. Throws SeedFormatError when the data does not allow it. */
export function encodeSeed(seed: Seed, format: SeedFormat, opts: EncodeSeedOptions = {}): Buffer {
  checkFormat(format, 'format');
  if (format === 'oss') return encodeOss(seed, opts);
  if (format === 'cas') return encodeCas(seed, opts);
  return encodeTorrent(seed, opts);
}

/** `<seed name>.<format>` (the seed name is already a safe single segment). */
export function seedFileName(seed: Pick<Seed, 'name'>, format: SeedFormat): string {
  return `${seed.name}.${format}`;
}

export type ConvertResult =
  | { feasible: true; format: SeedFormat; file_name: string; data: Buffer }
  | { feasible: false; format: SeedFormat; missing: MissingData[] };

/** Converts a seed (or a decoded container, whose torrent piece stream is reused) to `target`. */
export function convertSeed(source: Seed | DecodedSeed, target: SeedFormat, opts: EncodeSeedOptions = {}): ConvertResult {
  checkFormat(target, 'target_format');
  const decoded = 'seed' in source ? source : undefined;
  const seed = decoded ? decoded.seed : (source as Seed);
  const pieces = opts.pieces ?? decoded?.torrent_pieces;
  const feasibility = conversionFeasibility(seed, target, { torrentPieces: pieces });
  if (!feasibility.feasible) return { feasible: false, format: target, missing: feasibility.missing };
  const data = encodeSeed(seed, target, { ...opts, pieces: target === 'torrent' ? pieces : undefined });
  return { feasible: true, format: target, file_name: seedFileName(seed, target), data };
}

export interface SeedDiagnostic {
  level: 'error' | 'warning' | 'info';
  code: string;
  message: string;
  /** The target container concerned, when not the model itself. */
  format?: SeedFormat;
  file?: string;
}

export interface DiagnoseOptions extends FeasibilityOptions {
  now?: Date;
}


/** Everything worth telling about a seed: what each container cannot carry or would lose, and suspicious data. */
export function diagnose(source: Seed | DecodedSeed, opts: DiagnoseOptions = {}): SeedDiagnostic[] {
  const decoded = 'seed' in source ? source : undefined;
  const seed = decoded ? decoded.seed : (source as Seed);
  const out: SeedDiagnostic[] = (decoded?.notes ?? []).map((message) => ({ level: 'info', code: 'decode.note', message, format: decoded!.format }));
  const add = (d: SeedDiagnostic): void => void out.push(d);
  const conv = allConversions(seed, { torrentPieces: opts.torrentPieces ?? decoded?.torrent_pieces });
  for (const format of ['torrent', 'cas'] as const) {
    for (const m of conv[format].missing) add({ level: 'error', code: `${format}.missing_hashes`, message: m.reason, format, file: m.file });
  }
  const now = (opts.now ?? new Date()).getTime();
  for (const f of seed.files) {
    for (const s of f.sources ?? []) {
      if (s.type !== 'openlist-direct' && s.type !== 'openlist-share') add({ level: 'warning', code: 'seed.source_type', message: `source type "${s.type}" cannot be used`, file: f.path });
      const exp = s.expires_at === undefined ? NaN : Date.parse(s.expires_at);
      if (s.expires_at !== undefined && (Number.isNaN(exp) || exp <= now)) add({ level: 'warning', code: 'seed.source_expired', message: `source ${s.url} has expired or has an unreadable expiry`, file: f.path });
    }
    if (f.cas_slice_md5 && f.hashes.md5 && seed.piece_size === CAS_SLICE_SIZE && (f.hashes.pieces?.md5?.length ?? 0) > 0) {
      if (casSliceMd5(f.hashes.pieces!.md5!, f.hashes.md5) !== f.cas_slice_md5.toUpperCase()) add({ level: 'warning', code: 'cas.slice_md5_mismatch', message: 'the stored CAS sliceMd5 does not match the MD5 pieces', format: 'cas', file: f.path });
    }
    if (f.size > 999 * CAS_SLICE_SIZE) add({ level: 'warning', code: 'cas.large_file', message: 'files over 999 slices of 10 MiB may not rapid-upload on clouds that grow their slice size', format: 'cas', file: f.path });
  }
  // What each container drops.
  const lost = (cond: boolean, code: string, what: string): void => {
    if (cond) add({ level: 'warning', code: `cas.drops_${code}`, message: `.cas does not keep ${what}`, format: 'cas' });
  };
  lost(Boolean(seed.comment) || seed.files.some((f) => f.comment), 'comments', 'comments');
  lost((seed.trackers?.length ?? 0) > 0, 'trackers', 'trackers');
  lost((seed.channels?.length ?? 0) > 0 || seed.files.some((f) => f.missing_channels), 'channels', 'channels');
  lost(seed.files.some((f) => f.sources), 'sources', 'sources');
  lost(seed.files.some((f) => f.modified), 'modified', 'modification times');
  lost(seed.files.some((f) => f.hashes.sha1 || f.hashes.sha256 || f.hashes.gcid || f.hashes.pieces?.sha1 || f.hashes.pieces?.sha256), 'hashes', 'SHA-1, SHA-256 or GCID digests');
  if (seed.files.length === 1) {
    const f = seed.files[0]!;
    if (f.path.includes('/')) add({ level: 'warning', code: 'cas.drops_folder', message: `a single-file .cas keeps only the file name "${baseName(f.path)}"`, format: 'cas', file: f.path });
    if (seed.name !== baseName(f.path)) {
      add({ level: 'info', code: 'cas.drops_name', message: `a single-file .cas is named after the file, not "${seed.name}"`, format: 'cas', file: f.path });
      add({ level: 'info', code: 'torrent.name_differs', message: `info.name will be "${baseName(f.path)}" while the seed is named "${seed.name}"; older OpenList versions reject such torrents`, format: 'torrent', file: f.path });
    }
  }
  if (seed.files.length > 1 && seed.files.some((f) => f.hashes.md5)) {
    add({ level: 'info', code: 'cas.multi_file', message: 'multi-file .cas is an extension; legacy CAS tools read only single files', format: 'cas' });
  }
  if (seed.piece_size !== CAS_SLICE_SIZE && seed.files.some((f) => f.hashes.pieces?.md5)) {
    add({ level: 'info', code: 'cas.slice_size', message: `MD5 pieces are at ${seed.piece_size} bytes, not the legacy 10 MiB slices`, format: 'cas' });
  }
  const ordered = torrentFileOrder(seed.files);
  if (ordered.some((f, i) => f !== seed.files[i])) add({ level: 'info', code: 'torrent.reorders_files', message: 'a .torrent lists the files ordered by path', format: 'torrent' });
  if ((seed.piece_size & (seed.piece_size - 1)) !== 0) add({ level: 'info', code: 'torrent.piece_size', message: `piece size ${seed.piece_size} is not a power of two; some BitTorrent clients expect one`, format: 'torrent' });
  return out;
}
