/**
 * Writing the sidecars of one request all or nothing: every artifact is streamed into a
 * pending driver write first; only when all are staged are they committed, and a failure
 * while committing removes the ones already committed (a replaced older sidecar of the same
 * name is not restored — the driver's commit is what replaced it).
 */
import { Readable } from 'node:stream';
import type { AppContext } from '../../../app/context.js';
import { badRequest, isAppError } from '../../../lib/errors.js';
import { joinPath } from '../../fs/fs.service.js';
import { isDriverError, type PendingWrite, type StorageDriver } from '../../storages/drivers/index.js';

export interface ArtifactFile {
  /** Full virtual path to write. */
  full: string;
  data: Buffer;
}

/** Makes sure `dir` (full) is a folder, creating it when missing. */
export async function ensureFolder(ctx: AppContext, dir: string, field: string): Promise<void> {
  try {
    const e = await ctx.fs.stat(dir);
    if (!e.isDir) throw badRequest(`${field}: ${dir} is not a folder`, { field });
  } catch (e) {
    const missing = isDriverError(e, 'not_found') || (isAppError(e) && e.code === 404);
    if (!missing) throw e;
    await ctx.fs.mkdir(dir);
  }
}

export const artifactPath = (dir: string, fileName: string) => joinPath(dir, fileName);

/** Writes every file or none; `signal` is checked until the first commit. */
export async function writeAllOrNothing(ctx: AppContext, files: ArtifactFile[], signal?: AbortSignal): Promise<void> {
  const staged: { driver: StorageDriver; inner: string; pending: PendingWrite }[] = [];
  const committed: { driver: StorageDriver; inner: string }[] = [];
  try {
    for (const f of files) {
      signal?.throwIfAborted();
      const { driver, inner } = await ctx.fs.locate(f.full);
      const pending = await driver.beginWrite(inner, { size: f.data.length, overwrite: true, mtime: new Date() });
      staged.push({ driver, inner, pending });
      await pending.pipeFrom(Readable.from([f.data]));
    }
    signal?.throwIfAborted();
    while (staged.length > 0) {
      const s = staged[0]!;
      await s.pending.commit();
      staged.shift();
      committed.push(s);
    }
  } catch (e) {
    for (const s of staged) await s.pending.abort(e).catch(() => undefined);
    for (const c of committed) await c.driver.remove(c.inner).catch(() => undefined);
    throw e;
  }
}

/** Removes files written earlier by this request (rollback after a later failure). */
export async function removeFiles(ctx: AppContext, fulls: string[]): Promise<void> {
  for (const full of fulls) {
    try {
      const { driver, inner } = await ctx.fs.locate(full);
      await driver.remove(inner);
    } catch {
      // already gone
    }
  }
}
