/**
 * Index build and update as typed tasks: progress (objects walked), cancel (`/api/admin/index/stop`), and
 * take-over by another instance (both restart from their payload: a build clears its paths again, an update
 * reconciles again).
 */
import { Type, type Static } from 'typebox';
import { forbidden } from '../../lib/errors.js';
import { defineTask, taskKind, type TaskDefinition } from '../tasks/task-definition.js';
import type { TaskRunContext } from '../tasks/tasks.service.js';
import { isAdmin, type User } from '../users/user.model.js';
import type { SearchService } from './search.service.js';

const IndexPayload = Type.Object({
  paths: Type.Array(Type.String(), { minItems: 1 }),
  max_depth: Type.Integer({ minimum: 1 }),
  /** Folder listings a second at most (a scan's `limit`); absent: no limit. */
  list_rate: Type.Optional(Type.Number({ minimum: 0 })),
});
export const INDEX_BUILD_TASK = taskKind('index_build', IndexPayload);
export const INDEX_UPDATE_TASK = taskKind('index_update', IndexPayload);
/** OpenList's "scan": an update of one path, usually paced (`/api/admin/scan/*`). */
export const INDEX_SCAN_TASK = taskKind('index_scan', IndexPayload);
export const INDEX_TASK_TYPES = [INDEX_BUILD_TASK.type, INDEX_UPDATE_TASK.type, INDEX_SCAN_TASK.type];

const adminOnly = (_: unknown, user: User) => {
  if (!isAdmin(user)) throw forbidden('permission denied (index tasks are for admins)');
};

/** Status text (a task row write) at most this often; progress has its own throttle. */
const STATUS_EVERY_MS = 1000;

/** Reports `n` objects walked: progress always, the status text now and then. */
function counter(run: TaskRunContext): (n: number) => void {
  let last = 0;
  return (n) => {
    run.progress(n);
    const now = Date.now();
    if (now - last < STATUS_EVERY_MS) return;
    last = now;
    run.status(`${n} objects`);
  };
}

export function searchTasks(deps: { search: SearchService }): TaskDefinition[] {
  const { search } = deps;
  const build = defineTask(
    INDEX_BUILD_TASK,
    async ({ paths, max_depth }, run) => {
      let base = 0;
      const count = counter(run);
      // a bulk load: rows are indexed for matching once, at the end (also after a cancel or a failure)
      const all = paths.includes('/');
      await search.beginLoad(all);
      try {
        for (const p of paths) {
          run.signal.throwIfAborted();
          if (!all) await search.removeUnder(p);
          base += await search.walk(p, { reconcile: false, maxDepth: max_depth, signal: run.signal, onCount: (n) => count(base + n) });
        }
      } finally {
        await search.finishLoad();
      }
      return { obj_count: base };
    },
    { authorize: adminOnly },
  );
  const reconcile = async ({ paths, max_depth, list_rate }: Static<typeof IndexPayload>, run: TaskRunContext) => {
    let base = 0;
    const count = counter(run);
    for (const p of paths) {
      base += await search.walk(p, { reconcile: true, maxDepth: max_depth, listRate: list_rate, signal: run.signal, onCount: (n) => count(base + n) });
    }
    return { obj_count: base };
  };
  const update = defineTask(INDEX_UPDATE_TASK, reconcile, { authorize: adminOnly });
  const scan = defineTask(INDEX_SCAN_TASK, reconcile, { authorize: adminOnly });
  return [build, update, scan] as TaskDefinition[];
}
