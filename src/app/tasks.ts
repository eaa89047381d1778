/** Every task definition, registered on the task service by each process that runs tasks (serve, worker). */
import { fsTasks } from '../modules/fs/fs.task.js';
import { seedTasks } from '../modules/seeds/seeds.task.js';
import { TASK_TYPES } from '../modules/tasks/task.model.js';
import type { Services } from './services.js';

/** Registers every definition; fails loudly when a declared task type has none. */
export function registerTasks(s: Services): void {
  for (const def of [...fsTasks(s), ...seedTasks(s.seeds)]) s.tasks.register(def);
  s.tasks.requireDefinitions(TASK_TYPES);
}
