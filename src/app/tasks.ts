/** Every task definition, registered on the task service by each process that runs tasks (serve, worker). */
import { fsTasks } from '../modules/fs/fs.task.js';
import { searchTasks } from '../modules/search/search.task.js';
import { offlineTasks } from '../modules/offline/offline.tasks.js';
import { seedTasks } from '../modules/seeds/seeds.task.js';
import { thumbsTasks } from '../modules/thumbs/thumbs.task.js';
import { combineTasks, type TaskDefinition } from '../modules/tasks/task-definition.js';
import { TASK_TYPES } from '../modules/tasks/task.model.js';
import type { Services } from './services.js';

/** Registers every definition; fails loudly when a declared task type has none. */
export function registerTasks(s: Services): void {
  // one definition per type: a type several modules run (offline_download) is combined
  const byType = new Map<string, TaskDefinition[]>();
  for (const def of [...fsTasks(s), ...seedTasks(s.seeds), ...searchTasks(s), ...offlineTasks(s.offline), ...thumbsTasks(s)]) byType.set(def.type, [...(byType.get(def.type) ?? []), def]);
  for (const [type, defs] of byType) s.tasks.register(combineTasks(type, defs));
  s.tasks.requireDefinitions(TASK_TYPES);
}
