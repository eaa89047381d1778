/** The file module's background tasks: as-task uploads, and copies and moves across storages. */
import { createReadStream } from 'node:fs';
import { access, rm } from 'node:fs/promises';
import { Type } from 'typebox';
import { AppError } from '../../lib/errors.js';
import { defineTask, taskKind, type TaskDefinition } from '../tasks/task-definition.js';
import { Perm, type User } from '../users/user.model.js';
import { parentOf } from '../../lib/paths.js';
import { requireWithinBase, type FolderAccess } from './access.js';
import type { FsService } from './fs.service.js';
import { UPLOAD_TASK, type UploadService } from './upload.service.js';

const TransferPayload = Type.Object({ src: Type.String(), dst: Type.String(), overwrite: Type.Boolean() });
/** Cross-storage transfers above TRANSFER_TASK_THRESHOLD bytes run as these. */
export const COPY_TASK = taskKind('copy', TransferPayload);
export const MOVE_TASK = taskKind('move', TransferPayload);

/**
 * The creator's rights are re-checked when a task is claimed or retried through the same FolderAccess calls the
 * HTTP routes make: the permission bit and hidden names for copies and moves, the write right in the target
 * folder (bit 3 or a meta's write grant) for uploads.
 */
export function fsTasks(deps: { fs: Pick<FsService, 'transfer' | 'changeSet'>; uploads: Pick<UploadService, 'store'>; folderAccess: Pick<FolderAccess, 'requireChange' | 'requireWriteIn'> }): TaskDefinition[] {
  const transfer = (kind: 'copy' | 'move') =>
    defineTask(
      kind === 'copy' ? COPY_TASK : MOVE_TASK,
      async (payload, run) => {
        let done = 0;
        await deps.fs.transfer(kind, payload.src, payload.dst, { overwrite: payload.overwrite, signal: run.signal, progress: (n) => run.progress((done += n)) });
      },
      {
        authorize: async ({ src, dst }, user) => {
          requireWithinBase(user, src);
          requireWithinBase(user, dst);
          await deps.folderAccess.requireChange(user, kind === 'move' ? Perm.MOVE : Perm.COPY, await deps.fs.changeSet([[src, dst]]));
        },
      },
    );
  const upload = defineTask(
    UPLOAD_TASK,
    async ({ tmp, spec: s }, run) => {
      const spec = { ...s, asTask: false, companions: null, mtime: s.mtime ? new Date(s.mtime) : undefined };
      try {
        await requireSpool(tmp);
        await deps.uploads.store(spec, spooled(tmp, run.signal, (n) => run.progress(n, spec.size)));
      } finally {
        // The spool file is the task's only copy of the bytes: keep it when the task will resume.
        if (!run.willResume()) await rm(tmp, { force: true });
      }
    },
    {
      authorize: async ({ spec }, user: User) => {
        requireWithinBase(user, spec.full);
        await deps.folderAccess.requireWriteIn(user, parentOf(spec.full));
        await deps.folderAccess.requireChange(user, null, [spec.full]);
      },
    },
  );
  return [upload, transfer('copy'), transfer('move')] as TaskDefinition[];
}

/** The spool file of an as-task upload is still there (it is gone after a failed run). */
async function requireSpool(tmp: string): Promise<void> {
  try {
    await access(tmp);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new AppError(410, 'the uploaded bytes are no longer kept (a failed upload task drops them): upload the file again');
    throw e;
  }
}

/**
 * The spooled bytes as a lazy iterable: the file is opened when the upload starts consuming, and a read error
 * surfaces in that consumer (a stream opened ahead of its consumer emitted 'error' with no listener, which took
 * the process down).
 */
async function* spooled(tmp: string, signal: AbortSignal, progress: (done: number) => void): AsyncGenerator<Uint8Array> {
  let done = 0;
  for await (const chunk of createReadStream(tmp) as AsyncIterable<Buffer>) {
    signal.throwIfAborted();
    progress((done += chunk.byteLength));
    yield chunk;
  }
}
