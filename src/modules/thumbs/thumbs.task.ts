/**
 * The `thumbnails` task: makes the missing thumbnails of a folder (and, with `recursive`, of every folder below it)
 * ahead of time, under the thumbnail service's bounded concurrency, skipping files that get none and names hidden
 * from the task's creator. Progress counts media files; cancel stops it between files (at most `concurrency`
 * thumbnails in flight finish); a taken-over run starts again and finds what is already cached.
 */
import { Type } from 'typebox';
import { joinPath } from '../../lib/paths.js';
import { requireWithinBase, type FolderAccess } from '../fs/access.js';
import type { FsService } from '../fs/fs.service.js';
import type { Entry } from '../storages/drivers/index.js';
import { defineTask, taskKind, type TaskDefinition } from '../tasks/task-definition.js';
import type { TaskCreators } from '../tasks/tasks.service.js';
import type { Thumbnails } from './thumbs.service.js';

export const THUMBNAILS_TASK = taskKind('thumbnails', Type.Object({ path: Type.String(), recursive: Type.Boolean() }));

/** Folders deeper than this below the task's folder are not walked (a loop of links cannot run forever). */
export const MAX_THUMB_DEPTH = 64;

export interface ThumbsTaskDeps {
  fs: Pick<FsService, 'list' | 'locate'>;
  thumbs: Pick<Thumbnails, 'ensure' | 'has' | 'concurrency'>;
  folderAccess: Pick<FolderAccess, 'visibleIn'>;
  usersRepo: TaskCreators;
}

export interface ThumbsTaskResult {
  files: number;
  made: number;
  cached: number;
  failed: number;
  /** Subfolders that could not be listed (skipped). */
  unreadable: number;
}

export function thumbsTasks(deps: ThumbsTaskDeps): TaskDefinition[] {
  const task = defineTask(
    THUMBNAILS_TASK,
    async ({ path, recursive }, run): Promise<ThumbsTaskResult> => {
      const viewer = await deps.usersRepo.byId(run.creatorId);
      const files: { full: string; e: Entry }[] = [];
      let unreadable = 0;
      const folders: { dir: string; depth: number }[] = [{ dir: path, depth: 0 }];
      run.status('looking for images and videos');
      for (let f = folders.pop(); f; f = folders.pop()) {
        run.signal.throwIfAborted();
        let entries: Entry[];
        try {
          entries = await deps.fs.list(f.dir);
        } catch (err) {
          if (f.dir === path) throw err;
          unreadable++;
          continue;
        }
        const visible = await deps.folderAccess.visibleIn(viewer, f.dir);
        for (const e of entries) {
          if (!visible(e.name)) continue;
          const full = joinPath(f.dir, e.name);
          if (e.isDir) {
            if (recursive && f.depth < MAX_THUMB_DEPTH) folders.push({ dir: full, depth: f.depth + 1 });
          } else if (deps.thumbs.has(e.name)) files.push({ full, e });
        }
      }
      const result: ThumbsTaskResult = { files: files.length, made: 0, cached: 0, failed: 0, unreadable };
      run.status(`making thumbnails of ${files.length} files`);
      run.progress(0, files.length);
      let next = 0;
      let done = 0;
      const worker = async () => {
        while (next < files.length) {
          run.signal.throwIfAborted();
          const { full, e } = files[next++]!;
          const outcome = await deps.fs.locate(full).then((loc) => deps.thumbs.ensure(loc, e), () => 'failed' as const);
          result[outcome]++;
          run.progress(++done, files.length);
        }
      };
      // every worker settles (a thumbnail in flight is finished) before the task ends, canceled or not
      const settled = await Promise.allSettled(Array.from({ length: deps.thumbs.concurrency }, worker));
      run.signal.throwIfAborted();
      for (const s of settled) if (s.status === 'rejected') throw s.reason;
      return result;
    },
    { authorize: ({ path }, user) => requireWithinBase(user, path) },
  );
  return [task] as TaskDefinition[];
}
