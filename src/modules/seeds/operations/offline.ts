/**
 * Offline download (contract §10.5): an `offline_download` task fetches a seed file from its
 * first usable source through the SSRF-safe fetcher and streams it into the destination, hashed
 * on the way and verified against the seed before the write commits (a mismatch lands nothing;
 * the task fails with "hash mismatch…"). When a source fails, the next usable one is tried.
 *
 * With a relay (`transit`), the file lands in the relay folder first and is then copied
 * server-side to the destination (method `transfer`); the relay copy is removed afterwards.
 *
 * The task is restartable from its payload: sources, permissions and the site are checked again
 * whenever it starts.
 */
import type { SeedsDeps } from '../seeds.deps.js';
import { isAppError } from '../../../lib/errors.js';
import { cleanPath, stripBasePath } from '../../../lib/path-safety.js';
import type { TaskRunContext } from '../../tasks/tasks.service.js';
import { Perm, can, type User } from '../../users/user.model.js';
import { SeedFileSchema } from '../formats/index.js';
import { Type, type Static } from 'typebox';
import { taskKind } from '../../tasks/task-definition.js';
import { fetchSource } from './fetcher.js';
import { copyStored, recordHashes } from './rapid.js';
import { sourceContextFor, usableSources } from './source-rules.js';
import { isHashMismatch, landVerified } from './verify.js';
import { baseName, isWithin } from '../../../lib/paths.js';
import { presentTask } from '../../tasks/tasks.present.js';
import { type TaskInfo } from '../../tasks/tasks.schemas.js';

export const OfflineJobSchema = Type.Object({
  user_id: Type.Integer(),
  /** Origin of the request that queued it (the site, when nothing else names one). */
  origin: Type.String(),
  file: SeedFileSchema,
  piece_size: Type.Integer({ minimum: 1 }),
  /** Full virtual path of the file to create. */
  target: Type.String(),
  overwrite: Type.Boolean(),
  /** Full virtual path in the relay folder, when the file travels through one. */
  transit: Type.Optional(Type.String()),
});
export type OfflineJob = Static<typeof OfflineJobSchema>;

/** One seed file fetched from its sources into a folder. */
export const OFFLINE_DOWNLOAD_TASK = taskKind('offline_download', OfflineJobSchema);

export interface OfflineResult {
  path: string;
  name: string;
  method: 'offline_download' | 'transfer';
  target: string;
}

const message = (e: unknown) => (isAppError(e) || e instanceof Error ? e.message : String(e));

/** The user who queued a download may still do it (checked at every claim and retry, and again here). */
export function checkUser(user: User | null, job: OfflineJob): User {
  if (!user || user.disabled) throw new Error('the user who queued this download no longer exists or is disabled');
  if (!can(user, Perm.OFFLINE_DOWNLOAD)) throw new Error('offline download permission is required');
  if (!can(user, Perm.WRITE)) throw new Error('the write permission is required');
  if (job.transit && !can(user, Perm.COPY)) throw new Error('a transfer through a relay folder needs the copy permission');
  const base = cleanPath(user.basePath);
  if (!isWithin(base, job.target) || (job.transit !== undefined && !isWithin(base, job.transit))) throw new Error("the destination is outside the user's base path");
  return user;
}

/**
 * `checkUser`, and the file it lands (and its relay copy) still not hidden from the user (metas change): the
 * task's `authorize`, run at every claim and retry.
 */
export async function authorizeOffline(deps: Pick<SeedsDeps, 'folderAccess'>, user: User | null, job: OfflineJob): Promise<User> {
  const u = checkUser(user, job);
  await deps.folderAccess.requireChange(u, null, job.transit ? [job.target, job.transit] : [job.target]);
  return u;
}

type Run = Pick<TaskRunContext, 'signal' | 'progress' | 'status'>;

/** Runs one offline download (the task handler's body). */
export async function runOffline(deps: Pick<SeedsDeps, 'fs' | 'hashes' | 'links' | 'settings' | 'users' | 'version' | 'folderAccess'>, job: OfflineJob, run: Run): Promise<OfflineResult> {
  const user = await authorizeOffline(deps, await deps.users.byId(job.user_id), job);
  const shown = (full: string) => stripBasePath(user.basePath, full);
  const sctx = await sourceContextFor(deps, job.origin);
  const { usable, refused } = usableSources(job.file, sctx);
  if (usable.length === 0) throw new Error(`no usable source: ${refused.join('; ') || 'the seed lists none'}`);
  const land = job.transit ?? job.target;
  const errors: { mismatch: boolean; text: string }[] = [];
  let landed = false;
  for (const url of usable) {
    run.signal.throwIfAborted();
    run.status(`downloading from ${url.host}`);
    try {
      const got = await fetchSource(url, { sctx, size: job.file.size, signal: run.signal, userAgent: `Ferry/${deps.version}` });
      let done = 0;
      const entry = await landVerified(deps, {
        full: land,
        shown: shown(land),
        file: job.file,
        pieceSize: job.piece_size,
        // never replace a file the user keeps in the relay folder
        overwrite: job.transit ? false : job.overwrite,
        body: got.body,
        signal: run.signal,
        onBytes: (n) => run.progress((done += n), job.file.size),
      });
      const { storage, inner } = await deps.fs.locate(land);
      await recordHashes(deps, storage, inner, entry, entry.hashes ?? {});
      landed = true;
      break;
    } catch (e) {
      if (run.signal.aborted) throw e;
      errors.push({ mismatch: isHashMismatch(e), text: `${message(e)} (source ${url.origin}${url.pathname})` });
    }
  }
  if (!landed) {
    errors.sort((a, b) => Number(b.mismatch) - Number(a.mismatch));
    throw new Error(errors.map((e) => e.text).join('; '));
  }
  if (job.transit) {
    run.status('copying from the relay folder');
    const { storage, driver, inner } = await deps.fs.locate(job.transit);
    try {
      const entry = await driver.stat(inner);
      await copyStored(deps, { full: job.transit, storage, driver, inner, entry }, {
        full: job.target,
        shown: shown(job.target),
        file: job.file,
        pieceSize: job.piece_size,
        overwrite: job.overwrite,
        signal: run.signal,
      });
    } finally {
      await driver.remove(inner).catch(() => undefined);
    }
  }
  return { path: job.file.path, name: baseName(job.target), method: job.transit ? 'transfer' : 'offline_download', target: shown(job.target) };
}

/** Queues the task; its info for the per-file result. */
export async function queueOffline(deps: Pick<SeedsDeps, 'tasks'>, user: User, job: OfflineJob): Promise<TaskInfo> {
  const verb = job.transit ? 'transfer' : 'offline download';
  const row = await deps.tasks.create(OFFLINE_DOWNLOAD_TASK, { name: `${verb} ${stripBasePath(user.basePath, job.target)}`, creatorId: user.id, payload: job, totalBytes: job.file.size });
  return presentTask(row, user.username, user.role);
}
