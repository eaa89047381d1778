/**
 * Writing a seed back out: encoding in a container (refused with the missing data when the
 * seed cannot be written in it), the torrent layout to keep, and saving the file atomically
 * through the storage's two-phase write (write permission, `overwrite`).
 */
import type { SeedsDeps } from '../seeds.deps.js';
import { badRequest, forbidden } from '../../../lib/errors.js';
import { assertSafeName, stripBasePath } from '../../../lib/path-safety.js';
import { isDriverError } from '../../storages/drivers/index.js';
import { Perm, can, type User } from '../../users/user.model.js';
import {
  conversionFeasibility,
  decodeBencode,
  encodeSeed,
  isBencodeDict,
  parseSeedFormat,
  seedFileName,
  type MissingData,
  type Seed,
  type SeedFormat,
  type TorrentPieceStream,
} from '../formats/index.js';
import type { SeedInput } from './input.js';
import { baseName, joinPath } from '../../../lib/paths.js';
import { userPath } from '../../fs/access.js';
import { fieldError, seedStep } from '../common/fields.js';

export interface OutputOptions {
  /** The v1 piece stream for exactly this seed's files and piece size, when known. */
  pieces?: TorrentPieceStream;
  /** `multi`: a one-file torrent keeps `info.files` (as a folder torrent does). */
  layout?: 'auto' | 'multi';
  createdBy?: string;
  /** BEP 19 `url-list` of a torrent output (see common/web-seeds.ts). */
  webSeeds?: readonly string[];
}

/** `multi` when the input was a torrent with `info.files` (so one file stays in its folder). */
export function torrentLayout(input: SeedInput): 'auto' | 'multi' {
  if (input.decoded.format !== 'torrent' || input.decoded.seed.files.length !== 1) return 'auto';
  try {
    const root = decodeBencode(input.bytes).value;
    const info = isBencodeDict(root) ? root.get('info') : undefined;
    return isBencodeDict(info) && info.has('files') ? 'multi' : 'auto';
  } catch {
    return 'auto';
  }
}

/** A readable list of what is missing: `a.bin: no SHA-1 piece hashes; …` (the first few files). */
export function missingText(missing: readonly MissingData[], max = 5): string {
  const shown = missing.slice(0, max).map((m) => `${m.file}: ${m.reason}`);
  if (missing.length > max) shown.push(`and ${missing.length - max} more files`);
  return shown.join('; ');
}

/** The target format of a request: `target_format`, else `format`, else `fallback`. */
export function targetFormat(body: { target_format?: string; format?: string }, fallback?: SeedFormat): SeedFormat {
  const raw = body.target_format?.trim() || body.format?.trim();
  if (!raw) {
    if (fallback) return fallback;
    throw badRequest('target_format: target format is required (oss, torrent or cas)', { field: 'target_format' });
  }
  return seedStep('target_format', () => parseSeedFormat(raw.toLowerCase() === 'bt' ? 'torrent' : raw, 'target_format'));
}

/** Encodes `seed` as `format`; infeasible → 400 naming every missing item (`data.missing`). */
export function encodeOutput(seed: Seed, format: SeedFormat, opts: OutputOptions = {}): { data: Buffer; fileName: string } {
  const pieces = opts.pieces && opts.pieces.pieceSize === seed.piece_size ? opts.pieces : undefined;
  const f = conversionFeasibility(seed, format, { torrentPieces: pieces });
  if (!f.feasible) {
    throw badRequest(`target_format: cannot write this seed as .${format} without re-reading the files; missing ${missingText(f.missing)}`, {
      field: 'target_format',
      format,
      missing: f.missing,
    });
  }
  const data = seedStep('seed', () => encodeSeed(seed, format, { pieces: format === 'torrent' ? pieces : undefined, layout: opts.layout, createdBy: opts.createdBy, webSeeds: format === 'torrent' ? opts.webSeeds : undefined }));
  return { data, fileName: seedFileName(seed, format) };
}

const SEED_FILE_NAME = /\.(oss|torrent|cas)$/i;

/**
 * Saves `data` at `target` (a user path): an existing folder, or a path whose name does not end
 * in `.oss`/`.torrent`/`.cas` (a folder, created when missing), receives `<folder>/<fileName>`;
 * anything else is the file path itself. Needs the write permission; with `overwrite: false`
 * an existing file is a 403 `file exists`; a folder or name hidden from the user (metas) is a
 * 403 before anything is looked up. The file appears only when completely written. Returns the path as the user sees it.
 */
export async function saveSeedFile(
  deps: Pick<SeedsDeps, 'fs' | 'writeSets' | 'folderAccess'>,
  user: User,
  target: string,
  fileName: string,
  data: Buffer,
  opts: { overwrite: boolean; field: string },
): Promise<string> {
  const { field } = opts;
  if (!can(user, Perm.WRITE)) throw forbidden(`${field}: permission denied (saving a seed needs the write permission)`, { field });
  let full = seedStep(field, () => userPath(user, target));
  // never onto (or into) a name hidden from the user, whether or not it exists: 403 before it is looked up
  const requireVisible = (p: string) => deps.folderAccess.requireChange(user, null, [p]).catch((e: unknown) => Promise.reject(fieldError(field, e)));
  await requireVisible(full);
  const existing = await deps.fs.stat(full).catch((e: unknown) => {
    if (isDriverError(e, 'not_found') || (e as { code?: unknown }).code === 404) return null;
    throw e;
  });
  // An existing folder, or a name that is not a seed file name, is the folder to save into.
  if (full === '/' || existing?.isDir || (!existing && !SEED_FILE_NAME.test(baseName(full)))) full = joinPath(full, fileName);
  seedStep(field, () => assertSafeName(baseName(full)));
  await requireVisible(full);
  if (!opts.overwrite && (await deps.fs.stat(full).then(() => true, () => false))) {
    throw forbidden(`${field}: ${stripBasePath(user.basePath, full)}: file exists`, { field });
  }
  // all or nothing, and a seed file it replaces is put back on failure or after a crash
  await deps.writeSets.write([{ full, data, mtime: new Date() }]);
  return stripBasePath(user.basePath, full);
}
