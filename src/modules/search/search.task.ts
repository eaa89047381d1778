/**
 * Index build and update as typed tasks: progress (objects walked), cancel (`/api/admin/index/stop`), and
 * take-over by another instance (both restart from their payload: a build clears its paths again, an update
 * reconciles again).
 */
import { Type } from 'typebox';
import { forbidden } from '../../lib/errors.js';
import { defineTask, taskKind, type TaskDefinition } from '../tasks/task-definition.js';
import { isAdmin, type User } from '../users/user.model.js';
import type { SearchService } from './search.service.js';

const IndexPayload = Type.Object({ paths: Type.Array(Type.String(), { minItems: 1 }), max_depth: Type.Integer({ minimum: 1 }) });
export const INDEX_BUILD_TASK = taskKind('index_build', IndexPayload);
export const INDEX_UPDATE_TASK = taskKind('index_update', IndexPayload);
export const INDEX_TASK_TYPES = [INDEX_BUILD_TASK.type, INDEX_UPDATE_TASK.type];

const adminOnly = (_: unknown, user: User) => {
  if (!isAdmin(user)) throw forbidden('permission denied (index tasks are for admins)');
};

export function searchTasks(deps: { search: SearchService }): TaskDefinition[] {
  const { search } = deps;
  const build = defineTask(
    INDEX_BUILD_TASK,
    async ({ paths, max_depth }, run) => {
      let base = 0;
      // a bulk load: rows are indexed for matching once, at the end (also after a cancel or a failure)
      const all = paths.includes('/');
      await search.beginLoad(all);
      try {
        for (const p of paths) {
          run.signal.throwIfAborted();
          if (!all) await search.removeUnder(p);
          base += await search.walk(p, { reconcile: false, maxDepth: max_depth, signal: run.signal, onCount: (n) => (run.progress(base + n), run.status(`${base + n} objects`)) });
        }
      } finally {
        await search.finishLoad();
      }
      return { obj_count: base };
    },
    { authorize: adminOnly },
  );
  const update = defineTask(
    INDEX_UPDATE_TASK,
    async ({ paths, max_depth }, run) => {
      let base = 0;
      for (const p of paths) {
        base += await search.walk(p, { reconcile: true, maxDepth: max_depth, signal: run.signal, onCount: (n) => (run.progress(base + n), run.status(`${base + n} objects`)) });
      }
      return { obj_count: base };
    },
    { authorize: adminOnly },
  );
  return [build, update] as TaskDefinition[];
}
