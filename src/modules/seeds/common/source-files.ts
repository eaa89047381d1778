/**
 * From requested paths to the files of a seed: folders expanded recursively, each file with its storage,
 * the hashes its drive already provides, whether the server may stream it, and its path inside the seed
 * (relative to the files' common folder); then the direct/download decision with the hint for storages that
 * cannot be streamed (contract §10.3). Generation and recalculation both start here.
 */
import { AppError, badRequest } from '../../../lib/errors.js';
import { stripBasePath } from '../../../lib/path-safety.js';
import type { User } from '../../users/user.model.js';
import type { Entry, Hashes, StorageDriver } from '../../storages/drivers/index.js';
import { HASH_NAMES, MAX_SEED_FILES, matrixNeedsPieces, type HashMatrix } from '../formats/index.js';
import { commonAncestor, joinPath } from '../../../lib/paths.js';
import type { SeedsDeps } from '../seeds.deps.js';
import { fieldError } from './fields.js';
import { readableEntry, requireSeedUnguarded } from './access.js';

export interface SourceFile {
  /** Full virtual path. */
  full: string;
  /** The path as the requesting user sees it (inside their base path). */
  shown: string;
  /** Path inside the seed. */
  seedPath: string;
  size: number;
  modified: Date;
  driver: StorageDriver;
  inner: string;
  mountPath: string;
  /** The server may read the bytes (storage proxy on and the driver streams). */
  streamable: boolean;
  /** Hashes the drive vouches for without a read. */
  provided: Hashes;
  comment: string;
  share: boolean;
  direct: boolean;
}

export interface Collected {
  files: SourceFile[];
  /** Full path of the seed's root folder: the requested folder, or the folder holding the requested files (their common ancestor). */
  root: string;
  /** One file was requested (not a folder): a single-file torrent. */
  singleFile: boolean;
}

/**
 * Expands `paths` (full) into files; 404/403 errors name the offending `paths[i]`. Folder rules (metas) as
 * `fs/list` applies them: a requested path hidden from the user, or guarded by a folder password, is a 403; a
 * folder walk leaves out the names hidden from the user and refuses (403) a folder a password guards.
 */
export async function collectFiles(deps: Pick<SeedsDeps, 'fs' | 'folderAccess'>, user: User, paths: readonly string[]): Promise<Collected> {
  const out = new Map<string, SourceFile>();
  const anchors: string[] = [];
  const add = async (full: string, e: Entry): Promise<void> => {
    if (e.isDir) {
      await requireSeedUnguarded(deps, user, full);
      const visible = await deps.folderAccess.visibleIn(user, full);
      for (const c of await deps.fs.list(full)) {
        if (!visible(c.name)) continue;
        const child = joinPath(full, c.name);
        await add(child, await deps.fs.stat(child));
      }
      return;
    }
    if (out.has(full)) return;
    if (out.size >= MAX_SEED_FILES) throw badRequest(`paths: more than ${MAX_SEED_FILES} files`, { field: 'paths' });
    const { storage, driver, inner } = await deps.fs.locate(full);
    out.set(full, {
      full,
      shown: stripBasePath(user.basePath, full),
      seedPath: '',
      size: e.size,
      modified: e.modified,
      driver,
      inner,
      mountPath: storage.record.mountPath,
      streamable: storage.record.proxy && driver.capabilities.streamable,
      provided: await driver.hashes(inner).catch(() => e.hashes ?? {}),
      comment: '',
      share: false,
      direct: false,
    });
  };
  for (const [i, p] of paths.entries()) {
    try {
      const e = await readableEntry(deps, user, p);
      anchors.push(e.isDir ? p : p.slice(0, p.lastIndexOf('/')) || '/');
      await add(p, e);
    } catch (e) {
      throw fieldError(`paths[${i}]`, e, `paths[${i}] (${stripBasePath(user.basePath, p)})`);
    }
  }
  if (out.size === 0) throw badRequest('paths: the requested folders hold no files', { field: 'paths' });
  const files = [...out.values()];
  const root = commonAncestor(anchors);
  for (const f of files) f.seedPath = root === '/' ? f.full.slice(1) : f.full.slice(root.length + 1);
  return { files, root, singleFile: paths.length === 1 && files.length === 1 && files[0]!.full === paths[0] };
}

/** Hashes the matrix selects that the drive does not provide for `f` (whole ones; pieces always need the bytes). */
export function needsDownload(f: Pick<SourceFile, 'provided'>, matrix: HashMatrix): boolean {
  return matrixNeedsPieces(matrix) || HASH_NAMES.some((a) => matrix[a].whole && !f.provided[a]);
}

export const providedList = (h: Hashes) => HASH_NAMES.filter((a) => Boolean(h[a]));

/** Rule 4: a file that needs a download on a storage the server may not stream → 400 with `data.hint`. */
export function checkDownloadable(files: SourceFile[], matrix: HashMatrix): void {
  for (const f of files) {
    if (!needsDownload(f, matrix) || f.streamable) continue;
    const have = providedList(f.provided);
    const hint =
      (have.length > 0
        ? `The drive provides ${have.join(', ')} for this file without a download. `
        : 'The drive provides no hashes for this file, so it must be downloaded. ') +
      `Turn on proxy for the storage ${f.mountPath}` +
      (have.length > 0 ? `, or select only those whole-file hashes (${have.join(', ')}; no pieces, no torrent or cas format)` : '') +
      ' to generate the seed.';
    throw new AppError(400, `cannot download ${f.shown} to hash it: the storage ${f.mountPath} does not allow the server to stream files (proxy is off)`, {
      hint,
      file: f.shown,
      storage: f.mountPath,
      provided_hashes: have,
    });
  }
}
