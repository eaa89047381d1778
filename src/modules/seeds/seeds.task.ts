/** The seeds module's background tasks: `seed_generate` (large generations) and `offline_download`. */
import { defineTask, type TaskDefinition } from '../tasks/task-definition.js';
import { SEED_GENERATE_TASK, authorizeGeneration, executeGeneration, prepareGeneration } from './generation/generate.js';
import { OFFLINE_DOWNLOAD_TASK, authorizeOffline, runOffline } from './operations/offline.js';
import type { SeedsDeps } from './seeds.deps.js';

export function seedTasks(deps: SeedsDeps): TaskDefinition[] {
  const generate = defineTask(SEED_GENERATE_TASK, async (payload, run) => {
    const user = await deps.users.byId(payload.user_id);
    if (!user || user.disabled) throw new Error('the user who queued this seed no longer exists or is disabled');
    run.status('checking sources');
    const p = await prepareGeneration(deps, user, payload.body);
    run.progress(0, p.downloadBytes);
    run.status('generating seed');
    const r = await executeGeneration(deps, user, p, {
      signal: run.signal,
      origin: payload.origin,
      taskId: run.taskId,
      onProgress: (done, total) => run.progress(done, total),
    });
    return { paths: r.paths, files: r.files, diagnostics: r.diagnostics };
  }, { authorize: (payload, user) => authorizeGeneration(deps, user, payload.body) });
  const offline = defineTask(OFFLINE_DOWNLOAD_TASK, (payload, run) => runOffline(deps, payload, run), { authorize: async (job, user) => void (await authorizeOffline(deps, user, job)) });
  return [generate, offline] as TaskDefinition[];
}
