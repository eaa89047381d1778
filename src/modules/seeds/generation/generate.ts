/**
 * Seed generation (contract §10.3): `prepareGeneration` does every check that needs no bytes
 * (request, files, name, streamability, output folder and permission) — the route runs it before
 * answering, the `seed_generate` task again when it starts; `executeGeneration` hashes (direct
 * files: no read; the others: one streamed read each, in torrent order so the v1 piece stream
 * spans them), creates the shares, builds and encodes the seed, and writes the sidecars.
 * All or nothing: a failure or a cancel removes the shares and artifacts of this request.
 */
import { createHash } from 'node:crypto';
import type { SeedsDeps } from '../seeds.deps.js';
import { AppError, badRequest, conflict, isAppError } from '../../../lib/errors.js';
import { stripBasePath } from '../../../lib/path-safety.js';
import { SEED_SHARE_REMARK } from '../../shares/shares.service.js';
import { Perm, can, type User } from '../../users/user.model.js';
import {
  HASH_NAMES,
  applyHashMatrix,
  createSeed,
  diagnose,
  encodeSeed,
  formatSeedTime,
  seedFileName,
  torrentFileOrder,
  type Seed,
  type SeedDiagnostic,
  type SeedFile,
  type SeedFormat,
  type SeedHashes,
  type SeedSource,
  type TorrentPieceStream,
} from '../formats/index.js';
import { hashFiles, type FileHashes } from '../hashing/index.js';
import { checkDownloadable, collectFiles, needsDownload, type SourceFile } from '../common/source-files.js';
import { annotateFiles } from './annotate.js';
import { generatedWebSeeds } from '../common/web-seeds.js';
import { checkSeedName, deriveSeedName } from './names.js';
import { GenerateBody, parseGenerateRequest, type GenerateBodyT, type GenerateOptions } from './request.js';
import { taskKind } from '../../tasks/task-definition.js';
import { Type } from 'typebox';
import { fieldError } from '../common/fields.js';
import { requireSeedVisible } from '../common/access.js';
import { commonDir, joinPath } from '../../../lib/paths.js';
import type { Generated } from '../seeds.schemas.js';

/** Generations over `seed_async_threshold` run as this task, from the request that queued them. */
export const SEED_GENERATE_TASK = taskKind(
  'seed_generate',
  Type.Object({ user_id: Type.Integer(), body: GenerateBody, origin: Type.String({ description: 'the origin the request came in on (links fall back to it)' }) }),
);

export interface Prepared {
  opts: GenerateOptions;
  files: SourceFile[];
  name: string;
  /** One file was requested (not a folder): a single-file torrent. */
  singleFile: boolean;
  /** Full path of the folder the sidecars go to. */
  outputDir: string;
  /** Bytes of all files, and of those that must be read. */
  totalBytes: number;
  downloadBytes: number;
}

/** What a synchronous generation answers. */
export type GenerateResult = Generated;

export interface RunOptions {
  signal?: AbortSignal;
  onProgress?: (doneBytes: number, totalBytes: number) => void;
  /** The origin the request came in on (links fall back to it). */
  origin: string;
  /**
   * Set when running as a task: share ids are derived from it, so an attempt that is retried
   * or taken over after a crash reuses the shares the earlier attempt created.
   */
  taskId?: string;
}

export async function prepareGeneration(deps: Pick<SeedsDeps, 'fs' | 'settings' | 'folderAccess'>, user: User, body: GenerateBodyT): Promise<Prepared> {
  const opts = await parseGenerateRequest(deps, user, body);
  const { files, root, singleFile } = await collectFiles(deps, user, opts.paths);
  annotateFiles(user, files, opts);
  const name =
    opts.name ??
    checkSeedName(deriveSeedName(files.map((f) => f.shown), stripBasePath(user.basePath, root), await deps.settings.get('seed_fallback_name'), { folderRequested: opts.paths.length === 1 && !singleFile }).name);
  checkDownloadable(files, opts.matrix);
  const outputDir = opts.outputDir ?? commonDir(opts.paths);
  if (!can(user, Perm.WRITE)) throw new AppError(403, `output_path: permission denied (writing ${stripBasePath(user.basePath, outputDir)} needs the write permission)`, { field: 'output_path' });
  // the output folder and the sidecars written into it: never a name hidden from the user (nothing is written)
  const outputs = [outputDir, ...opts.formats.map((f) => joinPath(outputDir, seedFileName({ name }, f)))];
  await deps.folderAccess.requireChange(user, null, outputs).catch((e: unknown) => Promise.reject(fieldError('output_path', e)));
  const stat = await deps.fs.stat(outputDir).catch(() => null);
  if (stat && !stat.isDir) throw badRequest(`output_path: ${stripBasePath(user.basePath, outputDir)} is not a folder`, { field: 'output_path' });
  const sum = (fs: SourceFile[]) => fs.reduce((n, f) => n + f.size, 0);
  return { opts, files, name, outputDir, singleFile, totalBytes: sum(files), downloadBytes: sum(files.filter((f) => needsDownload(f, opts.matrix))) };
}

/**
 * A queued `seed_generate` task's creator may still do it (at every claim and retry): the write permission, the
 * requested paths visible to them and the output folder not hidden. The task's run repeats every check of
 * `prepareGeneration` (folder passwords, the walk, the sidecar names) before it reads a byte.
 */
export async function authorizeGeneration(deps: Pick<SeedsDeps, 'settings' | 'folderAccess'>, user: User, body: GenerateBodyT): Promise<void> {
  const opts = await parseGenerateRequest(deps, user, body);
  if (!can(user, Perm.WRITE)) throw new AppError(403, 'output_path: permission denied (writing seeds needs the write permission)', { field: 'output_path' });
  for (const [i, p] of opts.paths.entries()) await requireSeedVisible(deps, user, p).catch((e: unknown) => Promise.reject(fieldError(`paths[${i}]`, e)));
  await deps.folderAccess.requireChange(user, null, [opts.outputDir ?? commonDir(opts.paths)]).catch((e: unknown) => Promise.reject(fieldError('output_path', e)));
}

async function hashDownloads(p: Prepared, run: RunOptions): Promise<{ byFile: Map<SourceFile, FileHashes>; torrent?: TorrentPieceStream }> {
  const m = p.opts.matrix;
  const ordered = torrentFileOrder(p.files.filter((f) => needsDownload(f, m)).map((file) => ({ path: file.seedPath, file })));
  const byFile = new Map<SourceFile, FileHashes>();
  if (ordered.length === 0) return { byFile };
  const torrent = p.opts.formats.includes('torrent') ? p.opts.pieceSize : undefined;
  const res = await hashFiles(
    ordered.map((o) => () => o.file.driver.read(o.file.inner)),
    {
      whole: HASH_NAMES.filter((a) => m[a].whole),
      pieces: HASH_NAMES.filter((a) => m[a].pieces),
      pieceSize: p.opts.pieceSize,
      torrentPieceSize: torrent,
      signal: run.signal,
      expectedSize: p.downloadBytes,
      onProgress: (n) => run.onProgress?.(n, p.downloadBytes),
    },
  );
  ordered.forEach((o, i) => {
    const h = res.files[i]!;
    if (h.size !== o.file.size) throw conflict(`read ${o.file.shown}: got ${h.size} of ${o.file.size} bytes (the file changed while it was hashed)`);
    byFile.set(o.file, h);
  });
  return { byFile, torrent: torrent && res.torrentPieces ? { pieceSize: torrent, hashes: res.torrentPieces } : undefined };
}

function fileHashes(f: SourceFile, computed: FileHashes | undefined): SeedHashes {
  if (!computed) return { md5: f.provided.md5, sha1: f.provided.sha1, sha256: f.provided.sha256 };
  const out: SeedHashes = { md5: computed.md5, sha1: computed.sha1, sha256: computed.sha256 };
  if (computed.pieces) out.pieces = { ...computed.pieces };
  return out;
}

/** Hashes, shares, builds, encodes and writes; rolls back shares and artifacts on any failure. */
export async function executeGeneration(deps: Pick<SeedsDeps, 'fs' | 'links' | 'shares' | 'version' | 'writeSets'>, user: User, p: Prepared, run: RunOptions): Promise<GenerateResult> {
  const { opts } = p;
  const { byFile, torrent } = await hashDownloads(p, run);
  run.signal?.throwIfAborted();

  const shares = deps.shares;
  const created: string[] = [];
  try {
    const site = await deps.links.site(run.origin);
    const seedFiles: SeedFile[] = [];
    for (const f of p.files) {
      const sources: SeedSource[] = [];
      if (f.share) {
        run.signal?.throwIfAborted();
        const id = run.taskId ? taskShareId(run.taskId, f.full) : undefined;
        const s = await shares.createShare({ creatorId: user.id, files: [f.full], remark: SEED_SHARE_REMARK, id }).catch((e: unknown) => {
          throw fieldError("share_files", e, `share_files (${f.shown})`);
        });
        created.push(s.id);
        sources.push({ type: 'openlist-share', url: `${site}${s.path}`, share_id: s.id });
      }
      if (f.direct) sources.push({ type: 'openlist-direct', url: await deps.links.recordedDirect(run.origin, f.full) });
      const file: SeedFile = {
        path: f.seedPath,
        size: f.size,
        modified: formatSeedTime(f.modified),
        comment: f.comment || undefined,
        hashes: fileHashes(f, byFile.get(f)),
        sources,
      };
      seedFiles.push(applyHashMatrix(file, opts.matrix));
    }
    const seed = withBadRequest(() =>
      createSeed({
        name: p.name,
        files: seedFiles,
        createdBy: `Ferry ${deps.version}`,
        pieceSize: opts.pieceSize,
        comment: opts.comment.trim() || undefined,
        trackers: opts.trackers,
        channels: opts.channels,
      }),
    );
    const layout = p.singleFile ? 'auto' : 'multi';
    const webSeeds = opts.formats.includes('torrent')
      ? await generatedWebSeeds(deps, seed, {
          enabled: opts.webSeeds,
          layout,
          folder: opts.paths.length === 1 && !p.singleFile ? opts.paths[0]! : null,
          fullPaths: new Map(p.files.map((f) => [f.seedPath, f.full])),
          origin: run.origin,
        })
      : [];
    const encoded = opts.formats.map((format) => ({ format, fileName: seedFileName(seed, format), data: withBadRequest(() => encodeSeed(seed, format, { pieces: torrent, layout, webSeeds })) }));
    run.signal?.throwIfAborted();
    await ensureFolder(deps, p.outputDir, 'output_path');
    const writes = encoded.map((e) => ({ ...e, full: joinPath(p.outputDir, e.fileName) }));
    await deps.writeSets.write(writes, { signal: run.signal });
    const shown = (full: string) => stripBasePath(user.basePath, full);
    return {
      paths: writes.map((w) => shown(w.full)),
      artifacts: writes.map((w) => ({ format: w.format, name: w.fileName, file_name: w.fileName, size: w.data.length, path: shown(w.full), seed_data: w.data.toString('base64') })),
      seed,
      files: p.files.map((f) => ({ path: f.shown, mode: byFile.has(f) ? 'download' : 'direct', size: f.size })),
      diagnostics: diagnose(seed, { torrentPieces: torrent }).filter((d) => d.format === undefined || opts.formats.includes(d.format)),
    };
  } catch (e) {
    for (const id of created) await shares.deleteShare(id).catch(() => false);
    throw e;
  }
}

/** Makes sure `dir` (full) is a folder, creating it when missing. */
async function ensureFolder(deps: Pick<SeedsDeps, 'fs'>, dir: string, field: string): Promise<void> {
  const e = await deps.fs.stat(dir).catch((err: unknown) => {
    if (isAppError(err) && err.code === 404) return null;
    throw err;
  });
  if (e && !e.isDir) throw badRequest(`${field}: ${dir} is not a folder`, { field });
  if (!e) await deps.fs.mkdir(dir);
}

/** A share id fixed by the task and the file (20 characters of the share-id alphabet). */
function taskShareId(taskId: string, full: string): string {
  return 'sg' + createHash('sha256').update(`${taskId}\0${full}`).digest('base64url').replace(/[-_]/g, '').slice(0, 18);
}

function withBadRequest<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw fieldError('seed', e);
  }
}
