// The transfer-seed model shared by the three containers (.oss, .torrent, .cas),
// its limits, and the validator every decoder and encoder runs.
// Field names are the .oss wire names (contract §10.1, seed-formats.md §1).
import { Type, type Static } from 'typebox';

export const SEED_FORMAT_ID = 'openlist-sharing-seed';
export const SEED_VERSION = 1;

const MiB = 1024 * 1024;
/** Largest seed document accepted or produced, in any container. */
export const MAX_SEED_DOC_BYTES = 10 * MiB;
export const MAX_SEED_FILES = 100_000;
export const MIN_PIECE_SIZE = 16 * 1024;
export const MAX_PIECE_SIZE = 64 * MiB;
export const DEFAULT_PIECE_SIZE = 10 * MiB;
/** The legacy CAS slice size; `.cas` aggregate slice MD5s are defined over it. */
export const CAS_SLICE_SIZE = 10 * MiB;
export const MAX_BENCODE_DEPTH = 64;
/** Per list or dict, as OpenList (100 000 files × 4). */
export const MAX_BENCODE_CONTAINER_ITEMS = 400_000;
/** Over one whole document; bounds memory on hostile input. */
export const MAX_BENCODE_TOTAL_ITEMS = 1_000_000;

export const SEED_FORMATS = ['oss', 'torrent', 'cas'] as const;
export type SeedFormat = (typeof SEED_FORMATS)[number];

export { HASH_NAMES, HASH_HEX_LENGTH, type HashName } from '../../../lib/hashes.js';
import { HASH_HEX_LENGTH, HASH_NAMES, type HashName } from '../../../lib/hashes.js';
export const GCID_HEX_WIDTH = 40;

export const SOURCE_TYPES = ['openlist-direct', 'openlist-share'] as const;
export type SeedSourceType = (typeof SOURCE_TYPES)[number];
export const CAS_CLOUDS = ['189', '115', 'aliyundrive_open'] as const;
export const DEFAULT_CAS_CLOUD = '189';

/**
 * The model's shapes as TypeBox schemas: the TypeScript types below are derived from them, and the API
 * documents them (seed previews, task payloads) from the same source.
 */
const Hex = Type.String({ description: 'hex digest' });

/** Per-file piece digests: entry i covers bytes [i*piece_size, min((i+1)*piece_size, size)) of that file only. */
export const SeedPiecesSchema = Type.Object({
  md5: Type.Optional(Type.Array(Hex)),
  sha1: Type.Optional(Type.Array(Hex)),
  sha256: Type.Optional(Type.Array(Hex)),
});
export type SeedPieces = Static<typeof SeedPiecesSchema>;

export const SeedHashesSchema = Type.Object({
  md5: Type.Optional(Hex),
  sha1: Type.Optional(Hex),
  sha256: Type.Optional(Hex),
  /** Thunder/PikPak GCID; kept in .oss only (OpenList writes it, torrents drop it). */
  gcid: Type.Optional(Hex),
  pieces: Type.Optional(SeedPiecesSchema),
});
export type SeedHashes = Static<typeof SeedHashesSchema>;

export const SeedSourceSchema = Type.Object({
  /** `openlist-direct` or `openlist-share` when produced; any non-empty type is read. */
  type: Type.String(),
  url: Type.String(),
  expires_at: Type.Optional(Type.String()),
  share_id: Type.Optional(Type.String()),
});
export type SeedSource = Static<typeof SeedSourceSchema>;

export const SeedChannelSchema = Type.Object({ driver: Type.String(), mount_path: Type.Optional(Type.String()) });
export type SeedChannel = Static<typeof SeedChannelSchema>;

export const SeedFileSchema = Type.Object({
  path: Type.String(),
  size: Type.Integer({ minimum: 0 }),
  modified: Type.Optional(Type.String()),
  comment: Type.Optional(Type.String()),
  hashes: SeedHashesSchema,
  sources: Type.Optional(Type.Array(SeedSourceSchema)),
  cas_slice_md5: Type.Optional(Type.String()),
  cas_create_time: Type.Optional(Type.String()),
  cas_cloud: Type.Optional(Type.String()),
  missing_channels: Type.Optional(Type.Array(Type.String())),
});
export type SeedFile = Static<typeof SeedFileSchema>;

export const SeedSchema = Type.Object({
  format: Type.Literal(SEED_FORMAT_ID),
  version: Type.Literal(SEED_VERSION),
  name: Type.String(),
  comment: Type.Optional(Type.String()),
  created_at: Type.String(),
  created_by: Type.String(),
  piece_size: Type.Integer(),
  trackers: Type.Optional(Type.Array(Type.String())),
  channels: Type.Optional(Type.Array(SeedChannelSchema)),
  files: Type.Array(SeedFileSchema),
});
export type Seed = Static<typeof SeedSchema>;

/** Every model or container problem. `field` is a dotted path (`files[2].hashes.md5`), `file` the seed path when one file is concerned. */
export class SeedFormatError extends Error {
  override readonly name = 'SeedFormatError';
  /** HTTP status the API layer should answer with. */
  readonly status = 400;
  constructor(
    readonly field: string,
    readonly reason: string,
    readonly file?: string,
  ) {
    super(`${field}${file === undefined ? '' : ` (file ${JSON.stringify(file)})`}: ${reason}`);
  }
}

export function isSeedFormatError(e: unknown): e is SeedFormatError {
  return e instanceof SeedFormatError;
}

export function isSeedFormat(value: unknown): value is SeedFormat {
  return typeof value === 'string' && (SEED_FORMATS as readonly string[]).includes(value);
}

export function parseSeedFormat(value: unknown, field = 'format'): SeedFormat {
  const v = typeof value === 'string' ? value.trim().toLowerCase().replace(/^\./, '') : value;
  if (!isSeedFormat(v)) throw new SeedFormatError(field, `unknown seed format ${JSON.stringify(value)} (expected oss, torrent or cas)`);
  return v;
}

/** RFC 3339 UTC with second precision, as seeds carry it (`2026-01-01T00:00:00Z`). */
export function formatSeedTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** ceil(size / pieceSize), exact for every safe integer; 0 for an empty file. */
export function pieceCount(size: number, pieceSize: number): number {
  const rest = size % pieceSize;
  return (size - rest) / pieceSize + (rest === 0 ? 0 : 1);
}

/** Orders paths by their UTF-8 bytes (= code point order), as mktorrent orders torrent files. */
export function compareSeedPaths(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate starts an astral code point, which sorts after every BMP character in UTF-8.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}

export function isHex(value: string, width: number): boolean {
  return value.length === width && /^[0-9a-fA-F]*$/.test(value);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `path` is not a safe relative seed path, or null when it is (seed-formats.md §6.4). */
export function seedPathProblem(path: string): string | null {
  if (path === '') return 'path is empty';
  if (LONE_SURROGATE.test(path)) return 'path is not valid UTF-8';
  if (path.includes('\0')) return 'path contains a NUL byte';
  if (path.includes('\\')) return 'path contains a backslash';
  if (path.startsWith('/')) return 'path is absolute';
  for (const segment of path.split('/')) {
    if (segment === '') return 'path has an empty segment';
    // Like seed names, a segment that is `.` or `..` once trimmed is refused (" ." would
    // otherwise name a file that some systems store as ".").
    if (segment.trim() === '.' || segment.trim() === '..') return `path has a "${segment}" segment`;
  }
  return null;
}

/** Why `name` is not a safe seed (or torrent) name, or null when it is. */
export function seedNameProblem(name: string): string | null {
  const trimmed = name.trim();
  if (trimmed === '') return 'name is empty';
  if (trimmed === '.' || trimmed === '..') return `name is "${trimmed}"`;
  if (name.includes('/') || name.includes('\\')) return 'name contains a path separator';
  if (name.includes('\0')) return 'name contains a NUL byte';
  if (LONE_SURROGATE.test(name)) return 'name is not valid UTF-8';
  return null;
}

function checkHex(value: string, width: number, field: string, file?: string): void {
  if (!isHex(value, width)) {
    throw new SeedFormatError(field, `expected ${width} hexadecimal digits, got ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)}`, file);
  }
}

function checkHashes(f: SeedFile, pieceSize: number, at: string): void {
  const h = f.hashes;
  for (const alg of HASH_NAMES) {
    const v = h[alg];
    if (v !== undefined && v !== '') checkHex(v, HASH_HEX_LENGTH[alg], `${at}.hashes.${alg}`, f.path);
  }
  if (h.gcid !== undefined && h.gcid !== '') checkHex(h.gcid, GCID_HEX_WIDTH, `${at}.hashes.gcid`, f.path);
  if (!h.pieces) return;
  const want = pieceCount(f.size, pieceSize);
  for (const alg of HASH_NAMES) {
    const list = h.pieces[alg];
    // OpenList treats an empty list as "not computed", so only non-empty lists are counted.
    if (list === undefined || list.length === 0) continue;
    const field = `${at}.hashes.pieces.${alg}`;
    if (list.length !== want) {
      throw new SeedFormatError(field, `expected ${want} piece hashes (ceil(size ${f.size} / piece_size ${pieceSize})), got ${list.length}`, f.path);
    }
    list.forEach((p, i) => checkHex(p, HASH_HEX_LENGTH[alg], `${field}[${i}]`, f.path));
  }
}

function checkSources(f: SeedFile, at: string): void {
  (f.sources ?? []).forEach((s, i) => {
    const field = `${at}.sources[${i}]`;
    if (s.type.trim() === '') throw new SeedFormatError(`${field}.type`, 'source type is empty', f.path);
    let url: URL;
    try {
      url = new URL(s.url);
    } catch {
      throw new SeedFormatError(`${field}.url`, 'source url is not an absolute URL', f.path);
    }
    if (url.protocol === '') throw new SeedFormatError(`${field}.url`, 'source url has no scheme', f.path);
  });
}

/**
 * Checks every rule of the model: format/version, name, times, piece size, file count,
 * paths (safe, unique), sizes, hash widths and per-file piece-list lengths.
 * Accepts hex in either case. Throws SeedFormatError naming the field and file.
 */
export function validateSeed(seed: Seed): void {
  if (seed.format !== SEED_FORMAT_ID) throw new SeedFormatError('format', `must be "${SEED_FORMAT_ID}"`);
  if (seed.version !== SEED_VERSION) throw new SeedFormatError('version', `unsupported version ${String(seed.version)} (expected ${SEED_VERSION})`);
  const nameProblem = seedNameProblem(seed.name);
  if (nameProblem) throw new SeedFormatError('name', `invalid seed name: ${nameProblem}`);
  if (seed.created_at.trim() === '') throw new SeedFormatError('created_at', 'is empty');
  if (seed.created_by.trim() === '') throw new SeedFormatError('created_by', 'is empty');
  const ps = seed.piece_size;
  if (!Number.isSafeInteger(ps) || ps < MIN_PIECE_SIZE || ps > MAX_PIECE_SIZE) {
    throw new SeedFormatError('piece_size', `must be an integer between ${MIN_PIECE_SIZE} and ${MAX_PIECE_SIZE} bytes, got ${ps}`);
  }
  (seed.channels ?? []).forEach((c, i) => {
    if (c.driver.trim() === '') throw new SeedFormatError(`channels[${i}].driver`, 'is empty');
    if (c.mount_path !== undefined && /[?#\0]/.test(c.mount_path)) {
      throw new SeedFormatError(`channels[${i}].mount_path`, 'contains "?", "#" or NUL');
    }
  });
  if (seed.files.length === 0) throw new SeedFormatError('files', 'a seed needs at least one file');
  if (seed.files.length > MAX_SEED_FILES) {
    throw new SeedFormatError('files', `too many files: ${seed.files.length} (limit ${MAX_SEED_FILES})`);
  }
  const seen = new Set<string>();
  let total = 0;
  seed.files.forEach((f, i) => {
    const at = `files[${i}]`;
    const problem = seedPathProblem(f.path);
    if (problem) throw new SeedFormatError(`${at}.path`, `unsafe path: ${problem}`, f.path);
    if (seen.has(f.path)) throw new SeedFormatError(`${at}.path`, 'duplicate path', f.path);
    seen.add(f.path);
    if (!Number.isSafeInteger(f.size) || f.size < 0) throw new SeedFormatError(`${at}.size`, `must be a non-negative integer, got ${f.size}`, f.path);
    total += f.size;
    if (total > Number.MAX_SAFE_INTEGER) throw new SeedFormatError(`${at}.size`, 'total size overflows', f.path);
    checkHashes(f, ps, at);
    checkSources(f, at);
    if (f.cas_slice_md5 !== undefined && f.cas_slice_md5 !== '') checkHex(f.cas_slice_md5, 32, `${at}.cas_slice_md5`, f.path);
    (f.missing_channels ?? []).forEach((m, j) => {
      if (m.trim() === '' || /[/\\\0]/.test(m)) {
        throw new SeedFormatError(`${at}.missing_channels[${j}]`, 'must be a driver name without "/", "\\" or NUL', f.path);
      }
    });
  });
}

const lower = (s: string | undefined): string | undefined => (s === undefined || s === '' ? undefined : s.toLowerCase());
const nonEmpty = <T>(list: T[] | undefined): T[] | undefined => (list && list.length > 0 ? list : undefined);
const text = (s: string | undefined): string | undefined => (s === undefined || s === '' ? undefined : s);

/** A copy without undefined properties, so canonical objects compare cleanly with deepEqual. */
function compact<T extends object>(o: T): T {
  const out: Partial<T> = {};
  for (const k in o) if (o[k] !== undefined) out[k] = o[k];
  return out as T;
}

/**
 * A deep copy in canonical form: hashes lowercase, empty optional strings and lists
 * removed, empty piece lists removed (OpenList reads them as "absent").
 */
export function canonicalizeSeed(seed: Seed): Seed {
  const files = seed.files.map((f): SeedFile => {
    const p = f.hashes.pieces;
    const pieces = p
      ? compact<SeedPieces>({
          md5: nonEmpty(p.md5)?.map((x) => x.toLowerCase()),
          sha1: nonEmpty(p.sha1)?.map((x) => x.toLowerCase()),
          sha256: nonEmpty(p.sha256)?.map((x) => x.toLowerCase()),
        })
      : undefined;
    const hashes = compact<SeedHashes>({
      md5: lower(f.hashes.md5),
      sha1: lower(f.hashes.sha1),
      sha256: lower(f.hashes.sha256),
      gcid: lower(f.hashes.gcid),
      pieces: pieces && Object.keys(pieces).length > 0 ? pieces : undefined,
    });
    return compact<SeedFile>({
      path: f.path,
      size: f.size,
      modified: text(f.modified),
      comment: text(f.comment),
      hashes,
      sources: nonEmpty(f.sources)?.map((s) =>
        compact<SeedSource>({ type: s.type, url: s.url, expires_at: text(s.expires_at), share_id: text(s.share_id) }),
      ),
      cas_slice_md5: lower(f.cas_slice_md5),
      cas_create_time: text(f.cas_create_time),
      cas_cloud: text(f.cas_cloud),
      missing_channels: nonEmpty(f.missing_channels)?.slice(),
    });
  });
  return compact<Seed>({
    format: seed.format,
    version: seed.version,
    name: seed.name,
    comment: text(seed.comment),
    created_at: seed.created_at,
    created_by: seed.created_by,
    piece_size: seed.piece_size,
    trackers: nonEmpty(seed.trackers)?.slice(),
    channels: nonEmpty(seed.channels)?.map((c) => compact<SeedChannel>({ driver: c.driver, mount_path: text(c.mount_path) })),
    files,
  });
}

export interface NewSeed {
  name: string;
  files: SeedFile[];
  /** e.g. `Ferry 0.1.0`. */
  createdBy: string;
  pieceSize?: number;
  createdAt?: Date | string;
  comment?: string;
  trackers?: string[];
  channels?: SeedChannel[];
}

/** Builds a validated, canonical seed. */
export function createSeed(init: NewSeed): Seed {
  const created = init.createdAt ?? new Date();
  const seed = canonicalizeSeed({
    format: SEED_FORMAT_ID,
    version: SEED_VERSION,
    name: init.name,
    comment: init.comment,
    created_at: typeof created === 'string' ? created : formatSeedTime(created),
    created_by: init.createdBy,
    piece_size: init.pieceSize ?? DEFAULT_PIECE_SIZE,
    trackers: init.trackers,
    channels: init.channels,
    files: init.files,
  });
  validateSeed(seed);
  return seed;
}

/** Sum of the file sizes. */
export function seedTotalSize(seed: Seed): number {
  return seed.files.reduce((n, f) => n + f.size, 0);
}
