// The hash matrix: which whole-file and per-piece digests a seed carries (contract §10.1, seed-formats.md §5).
import {
  CAS_SLICE_SIZE,
  DEFAULT_PIECE_SIZE,
  HASH_NAMES,
  MAX_PIECE_SIZE,
  MIN_PIECE_SIZE,
  SeedFormatError,
} from './model.js';
import type { HashName, SeedFile, SeedFormat, SeedHashes, SeedPieces } from './model.js';

export interface HashSelection {
  whole: boolean;
  pieces: boolean;
}

export type HashMatrix = Record<HashName, HashSelection>;

const matrix = (whole: boolean, pieces: boolean): HashMatrix => ({
  md5: { whole, pieces },
  sha1: { whole, pieces },
  sha256: { whole, pieces },
});

/** Default of the `seed_default_matrix` setting: every whole hash, no pieces. */
export const DEFAULT_HASH_MATRIX: Readonly<HashMatrix> = Object.freeze(matrix(true, false));
export const ALL_HASHES_MATRIX: Readonly<HashMatrix> = Object.freeze(matrix(true, true));
export const EMPTY_HASH_MATRIX: Readonly<HashMatrix> = Object.freeze(matrix(false, false));

export function cloneHashMatrix(m: Readonly<HashMatrix>): HashMatrix {
  return { md5: { ...m.md5 }, sha1: { ...m.sha1 }, sha256: { ...m.sha256 } };
}

export function isHashMatrixEmpty(m: Readonly<HashMatrix>): boolean {
  return HASH_NAMES.every((a) => !m[a].whole && !m[a].pieces);
}

/** True when the matrix asks for any per-piece digest (which forces reading the bytes). */
export function matrixNeedsPieces(m: Readonly<HashMatrix>): boolean {
  return HASH_NAMES.some((a) => m[a].pieces);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Parses a matrix from untrusted JSON. `null`/`undefined` give the empty matrix (normalisation
 * then applies the default); missing algorithms and flags read as false. Anything else that is
 * not exactly the documented shape is a SeedFormatError naming the field (HTTP 400).
 */
export function parseHashMatrix(input: unknown, field = 'hash_matrix'): HashMatrix {
  const out = cloneHashMatrix(EMPTY_HASH_MATRIX);
  if (input === undefined || input === null) return out;
  if (!isObject(input)) throw new SeedFormatError(field, 'must be an object like {"md5":{"whole":true,"pieces":false},…}');
  for (const [key, value] of Object.entries(input)) {
    if (!(HASH_NAMES as readonly string[]).includes(key)) {
      throw new SeedFormatError(`${field}.${key}`, 'unknown hash algorithm (expected md5, sha1 or sha256)');
    }
    const alg = key as HashName;
    if (value === null || value === undefined) continue;
    if (!isObject(value)) throw new SeedFormatError(`${field}.${alg}`, 'must be an object with boolean "whole" and "pieces"');
    for (const [flag, v] of Object.entries(value)) {
      if (flag !== 'whole' && flag !== 'pieces') throw new SeedFormatError(`${field}.${alg}.${flag}`, 'unknown flag (expected whole or pieces)');
      if (v === null || v === undefined) continue;
      if (typeof v !== 'boolean') throw new SeedFormatError(`${field}.${alg}.${flag}`, 'must be true or false');
      out[alg][flag] = v;
    }
  }
  return out;
}

/** Parses a matrix from text: raw JSON or URL-encoded JSON (as in the `X-Seed-Hash-Matrix` header). */
export function parseHashMatrixText(text: string, field = 'hash_matrix'): HashMatrix {
  const attempt = (s: string): unknown => JSON.parse(s) as unknown;
  let value: unknown;
  try {
    value = attempt(text);
  } catch {
    try {
      value = attempt(decodeURIComponent(text));
    } catch {
      throw new SeedFormatError(field, 'is not valid JSON');
    }
  }
  return parseHashMatrix(value, field);
}

/**
 * Normalises a requested matrix for a set of target formats:
 * all false → `defaultMatrix` (the `seed_default_matrix` setting); still all false → all six;
 * `torrent` forces sha1 pieces (and whole); `cas` forces md5 whole and pieces.
 */
export function normalizeHashMatrix(
  requested: Readonly<HashMatrix>,
  formats: readonly SeedFormat[],
  defaultMatrix: Readonly<HashMatrix> = DEFAULT_HASH_MATRIX,
): HashMatrix {
  let m = cloneHashMatrix(requested);
  if (isHashMatrixEmpty(m)) m = cloneHashMatrix(defaultMatrix);
  if (isHashMatrixEmpty(m)) m = cloneHashMatrix(ALL_HASHES_MATRIX);
  if (formats.includes('torrent')) m.sha1 = { whole: true, pieces: true };
  if (formats.includes('cas')) m.md5 = { whole: true, pieces: true };
  return m;
}

/**
 * The piece size to hash with: absent or ≤ 0 → 10 MiB; `cas` among the formats forces 10 MiB;
 * anything outside 16 KiB–64 MiB is a SeedFormatError.
 */
export function resolvePieceSize(requested: number | undefined | null, formats: readonly SeedFormat[], field = 'piece_size'): number {
  if (formats.includes('cas')) return CAS_SLICE_SIZE;
  if (requested === undefined || requested === null || requested === 0) return DEFAULT_PIECE_SIZE;
  if (!Number.isSafeInteger(requested) || requested < MIN_PIECE_SIZE || requested > MAX_PIECE_SIZE) {
    throw new SeedFormatError(field, `must be an integer between ${MIN_PIECE_SIZE} (16 KiB) and ${MAX_PIECE_SIZE} (64 MiB) bytes, got ${requested}`);
  }
  return requested;
}

export interface SeedHashPlan {
  matrix: HashMatrix;
  pieceSize: number;
}

/** normalizeHashMatrix + resolvePieceSize in one call: what the hashing engine must compute. */
export function planSeedHashes(opts: {
  matrix?: Readonly<HashMatrix>;
  formats: readonly SeedFormat[];
  pieceSize?: number | null;
  defaultMatrix?: Readonly<HashMatrix>;
}): SeedHashPlan {
  return {
    matrix: normalizeHashMatrix(opts.matrix ?? EMPTY_HASH_MATRIX, opts.formats, opts.defaultMatrix),
    pieceSize: resolvePieceSize(opts.pieceSize, opts.formats),
  };
}

/** Keeps only the selected digests of a computed file (unselected whole hashes blanked, piece lists dropped; gcid untouched). */
export function applyHashMatrix(file: SeedFile, m: Readonly<HashMatrix>): SeedFile {
  const hashes: SeedHashes = {};
  const pieces: SeedPieces = {};
  for (const alg of HASH_NAMES) {
    const whole = file.hashes[alg];
    if (m[alg].whole && whole) hashes[alg] = whole;
    const list = file.hashes.pieces?.[alg];
    if (m[alg].pieces && list) pieces[alg] = list;
  }
  if (file.hashes.gcid) hashes.gcid = file.hashes.gcid;
  if (Object.keys(pieces).length > 0) hashes.pieces = pieces;
  return { ...file, hashes };
}

/** The matrix a file actually satisfies (whole present; piece list present, or an empty file). */
export function hashMatrixOf(file: SeedFile): HashMatrix {
  const m = cloneHashMatrix(EMPTY_HASH_MATRIX);
  for (const alg of HASH_NAMES) {
    m[alg].whole = Boolean(file.hashes[alg]);
    m[alg].pieces = file.size === 0 || (file.hashes.pieces?.[alg]?.length ?? 0) > 0;
  }
  return m;
}
