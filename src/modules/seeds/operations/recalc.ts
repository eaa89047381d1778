/**
 * `update` with `recalculate`: re-hash the stored files a seed describes with a (new) hash
 * matrix and piece size — one streamed read per file, in torrent order so the v1 piece stream
 * spans them — and rebuild the file records (path, comment, sources and missing channels kept;
 * size, modification time and hashes from the stored files; legacy CAS fields dropped).
 */
import type { SeedsDeps } from '../seeds.deps.js';
import { AppError, badRequest, conflict, isAppError } from '../../../lib/errors.js';
import { stripBasePath } from '../../../lib/path-safety.js';
import type { User } from '../../users/user.model.js';
import {
  EMPTY_HASH_MATRIX,
  HASH_NAMES,
  applyHashMatrix,
  canonicalizeSeed,
  cloneHashMatrix,
  formatSeedTime,
  hashMatrixOf,
  isHashMatrixEmpty,
  normalizeHashMatrix,
  parseHashMatrix,
  resolvePieceSize,
  torrentFileOrder,
  validateSeed,
  type HashMatrix,
  type Seed,
  type SeedFile,
  type SeedFormat,
  type TorrentPieceStream,
} from '../formats/index.js';
import { checkDownloadable, collectFiles, needsDownload, type SourceFile } from '../common/source-files.js';
import { hashFiles, type FileHashes } from '../hashing/index.js';
import { requireReadablePath, requireSeedFiles } from './locate.js';
import { userPath } from '../../fs/access.js';
import { seedStep } from '../common/fields.js';

export interface RecalcRequest {
  /** Folder holding the seed's files (or the file of a single-file seed), as the user sees it. */
  path: string;
  hash_matrix?: unknown;
  piece_size?: number;
}

export interface RecalcResult {
  seed: Seed;
  /** The v1 piece stream when the output is a torrent. */
  pieces?: TorrentPieceStream;
  /** Where the files were read, as the user sees it. */
  root: string;
  /** Bytes read. */
  bytesRead: number;
}

/** The whole/pieces selection the seed already carries (any file having it counts). */
function currentMatrix(seed: Seed): HashMatrix {
  const m = cloneHashMatrix(EMPTY_HASH_MATRIX);
  for (const f of seed.files) {
    if (f.size === 0) continue;
    const fm = hashMatrixOf(f);
    for (const a of HASH_NAMES) {
      m[a].whole ||= fm[a].whole;
      m[a].pieces ||= fm[a].pieces;
    }
  }
  return m;
}

async function settingMatrix(deps: Pick<SeedsDeps, 'settings'>): Promise<HashMatrix> {
  try {
    return parseHashMatrix(await deps.settings.getJson<unknown>('seed_default_matrix'));
  } catch {
    return cloneHashMatrix(EMPTY_HASH_MATRIX);
  }
}

/** The matrix to compute: the request's, else what the seed carries, else the setting — normalised for `format`. */
export async function recalcPlan(deps: Pick<SeedsDeps, 'settings'>, seed: Seed, req: RecalcRequest, format: SeedFormat): Promise<{ matrix: HashMatrix; pieceSize: number }> {
  let requested = seedStep('recalculate.hash_matrix', () => parseHashMatrix(req.hash_matrix, 'recalculate.hash_matrix'));
  if (isHashMatrixEmpty(requested)) requested = currentMatrix(seed);
  const matrix = normalizeHashMatrix(requested, [format], await settingMatrix(deps));
  const pieceSize = seedStep('recalculate.piece_size', () => resolvePieceSize(req.piece_size ?? seed.piece_size, [format], 'recalculate.piece_size'));
  return { matrix, pieceSize };
}

/** Re-hashes the stored files of `seed` (every file must be found) and returns the rebuilt seed. */
export async function recalculateSeed(deps: Pick<SeedsDeps, 'fs' | 'settings' | 'folderAccess'>, user: User, seed: Seed, req: RecalcRequest, format: SeedFormat, signal?: AbortSignal): Promise<RecalcResult> {
  const field = 'recalculate.path';
  if (!req.path?.trim()) throw badRequest(`${field}: the folder holding the seed's files is required`, { field });
  const base = seedStep(field, () => userPath(user, req.path));
  const { matrix, pieceSize } = await recalcPlan(deps, seed, req, format);
  await requireReadablePath(deps, user, base, field);
  const loc = await requireSeedFiles(deps, user, seed, base, field);

  const fulls = seed.files.map((f) => loc.files.get(f.path)!);
  let collected: SourceFile[];
  try {
    collected = (await collectFiles(deps, user, fulls)).files;
  } catch (e) {
    const i = Number(/^paths\[(\d+)\]/.exec(isAppError(e) ? String(e.data?.field ?? '') : '')?.[1] ?? NaN);
    if (isAppError(e) && Number.isInteger(i)) {
      const status = e.code === 404 ? 400 : e.code;
      throw new AppError(status, `${field}: ${seed.files[i]!.path} is not readable at ${stripBasePath(user.basePath, fulls[i]!)} (${e.message.replace(/^paths\[\d+\] \([^)]*\): /, '')})`, { field, file: seed.files[i]!.path });
    }
    throw e;
  }
  const byFull = new Map(collected.map((c) => [c.full, c]));
  const sources = seed.files.map((f, i) => {
    const c = byFull.get(fulls[i]!);
    if (!c) throw badRequest(`${field}: ${f.path} is a folder at ${stripBasePath(user.basePath, fulls[i]!)}, not a file`, { field, file: f.path });
    return { file: f, src: c };
  });
  checkDownloadable(sources.map((s) => s.src), matrix);

  // Read every file the server may stream (recalculating means trusting the bytes, not an index);
  // a storage that may not be streamed contributes the whole hashes its drive vouches for.
  const toRead = torrentFileOrder(sources.filter((s) => s.src.streamable || needsDownload(s.src, matrix)).map((s) => ({ path: s.file.path, s })));
  const bytesRead = toRead.reduce((n, o) => n + o.s.src.size, 0);
  const threshold = await deps.settings.getNumber('seed_async_threshold');
  if (bytesRead > threshold) {
    throw badRequest(`${field}: recalculating would read ${bytesRead} bytes, over the seed_async_threshold of ${threshold}; generate a new seed from the files instead (it runs as a task)`, { field });
  }
  const torrentPieceSize = format === 'torrent' ? pieceSize : undefined;
  const res = await hashFiles(
    toRead.map((o) => () => o.s.src.driver.read(o.s.src.inner)),
    {
      whole: HASH_NAMES.filter((a) => matrix[a].whole),
      pieces: HASH_NAMES.filter((a) => matrix[a].pieces),
      pieceSize,
      torrentPieceSize,
      signal,
      expectedSize: bytesRead,
    },
  );
  const computed = new Map<SourceFile, FileHashes>();
  toRead.forEach((o, i) => {
    const h = res.files[i]!;
    if (h.size !== o.s.src.size) throw conflict(`${field}: ${o.s.file.path} changed while it was read (${h.size} of ${o.s.src.size} bytes)`);
    computed.set(o.s.src, h);
  });

  const files = sources.map(({ file, src }): SeedFile => {
    const h = computed.get(src);
    const rebuilt: SeedFile = {
      path: file.path,
      size: src.size,
      modified: formatSeedTime(src.modified),
      comment: file.comment,
      sources: file.sources,
      missing_channels: file.missing_channels,
      hashes: h ? { md5: h.md5, sha1: h.sha1, sha256: h.sha256, ...(h.pieces ? { pieces: { ...h.pieces } } : {}) } : { md5: src.provided.md5, sha1: src.provided.sha1, sha256: src.provided.sha256 },
    };
    return applyHashMatrix(rebuilt, matrix);
  });
  const out = canonicalizeSeed({ ...seed, piece_size: pieceSize, files });
  seedStep('seed', () => validateSeed(out));
  return {
    seed: out,
    pieces: torrentPieceSize && res.torrentPieces ? { pieceSize: torrentPieceSize, hashes: res.torrentPieces } : undefined,
    root: stripBasePath(user.basePath, loc.root),
    bytesRead,
  };
}
