/**
 * Seed generation (contract §10.3): `prepareGeneration` does every check that needs no bytes
 * (request, files, name, streamability, output folder and permission) — the route runs it before
 * answering, the `seed_generate` task again when it starts; `executeGeneration` hashes (direct
 * files: no read; the others: one streamed read each, in torrent order so the v1 piece stream
 * spans them), creates the shares, builds and encodes the seed, and writes the sidecars.
 * All or nothing: a failure or a cancel removes the shares and artifacts of this request.
 */
import { createHash } from 'node:crypto';
import type { AppContext } from '../../../app/context.js';
import { AppError, badRequest, conflict } from '../../../lib/errors.js';
import { stripBasePath } from '../../../lib/path-safety.js';
import { encodePath } from '../../fs/obj.present.js';
import { sharesService, SEED_SHARE_REMARK } from '../../shares/shares.service.js';
import { Perm, can, type User } from '../../users/user.model.js';
import {
  HASH_ALGORITHMS,
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
import { artifactPath, ensureFolder, writeAllOrNothing } from './artifacts.js';
import { siteUrlFor } from '../../fs/fs.context.js';
import { annotateFiles, checkDownloadable, collectFiles, needsDownload, type SourceFile } from './collect.js';
import { checkSeedName, commonDir, deriveSeedName } from './names.js';
import { fieldError, parseGenerateRequest, type GenerateBodyT, type GenerateOptions } from './request.js';

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

export interface SeedArtifact {
  format: SeedFormat;
  name: string;
  file_name: string;
  size: number;
  /** Where it was written, as the user sees it. */
  path: string;
  seed_data: string;
}

export interface GenerateResult {
  paths: string[];
  artifacts: SeedArtifact[];
  seed: Seed;
  /** Per file: `direct` (hashes from the drive, no read) or `download` (streamed once). */
  files: { path: string; mode: 'direct' | 'download'; size: number }[];
  diagnostics: SeedDiagnostic[];
}

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

export async function prepareGeneration(ctx: AppContext, user: User, body: GenerateBodyT): Promise<Prepared> {
  const opts = await parseGenerateRequest(ctx, user, body);
  const { files, root, singleFile } = await collectFiles(ctx, user, opts.paths);
  annotateFiles(user, files, opts);
  const name =
    opts.name ??
    checkSeedName(deriveSeedName(files.map((f) => f.shown), stripBasePath(user.basePath, root), await ctx.settings.get('seed_fallback_name'), { folderRequested: opts.paths.length === 1 && !singleFile }).name);
  checkDownloadable(files, opts.matrix);
  const outputDir = opts.outputDir ?? commonDir(opts.paths);
  if (!can(user, Perm.WRITE)) throw new AppError(403, `output_path: permission denied (writing ${stripBasePath(user.basePath, outputDir)} needs the write permission)`, { field: 'output_path' });
  const stat = await ctx.fs.stat(outputDir).catch(() => null);
  if (stat && !stat.isDir) throw badRequest(`output_path: ${stripBasePath(user.basePath, outputDir)} is not a folder`, { field: 'output_path' });
  const sum = (fs: SourceFile[]) => fs.reduce((n, f) => n + f.size, 0);
  return { opts, files, name, outputDir, singleFile, totalBytes: sum(files), downloadBytes: sum(files.filter((f) => needsDownload(f, opts.matrix))) };
}

/** The public origin for recorded links: `seed_site_url`, else FERRY_SITE_URL, else the request's origin. */
export function seedSite(ctx: AppContext, origin: string): Promise<string> {
  return siteUrlFor(ctx, origin);
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
      whole: HASH_ALGORITHMS.filter((a) => m[a].whole),
      pieces: HASH_ALGORITHMS.filter((a) => m[a].pieces),
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
export async function executeGeneration(ctx: AppContext, user: User, p: Prepared, run: RunOptions): Promise<GenerateResult> {
  const { opts } = p;
  const { byFile, torrent } = await hashDownloads(p, run);
  run.signal?.throwIfAborted();

  const shares = sharesService(ctx);
  const created: string[] = [];
  try {
    const site = await seedSite(ctx, run.origin);
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
      if (f.direct) sources.push({ type: 'openlist-direct', url: `${site}/d${encodePath(f.full)}` });
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
        createdBy: `Ferry ${ctx.version}`,
        pieceSize: opts.pieceSize,
        comment: opts.comment.trim() || undefined,
        trackers: opts.trackers,
        channels: opts.channels,
      }),
    );
    const encoded = opts.formats.map((format) => ({ format, fileName: seedFileName(seed, format), data: withBadRequest(() => encodeSeed(seed, format, { pieces: torrent, layout: p.singleFile ? 'auto' : 'multi' })) }));
    run.signal?.throwIfAborted();
    await ensureFolder(ctx, p.outputDir, 'output_path');
    const writes = encoded.map((e) => ({ ...e, full: artifactPath(p.outputDir, e.fileName) }));
    await writeAllOrNothing(ctx, writes, run.signal);
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
