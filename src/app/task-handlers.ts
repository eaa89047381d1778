/**
 * Every background task type and its handler, registered in one place by the process that
 * serves (buildHttpServer): an instance claims only task types it has a handler for, so each
 * serving instance must register all of them before its runner starts claiming.
 */
import type { AppContext } from './context.js';
import { registerTransferTasks } from '../modules/fs/fs.routes.js';
import { registerUploadTask } from '../modules/fs/upload.js';
import { registerSeedGenerateTask } from '../modules/seeds/generation/index.js';
import { registerOfflineTask } from '../modules/seeds/operations/offline.js';

export function registerTaskHandlers(ctx: AppContext): void {
  registerUploadTask(ctx); // upload (as_task)
  registerTransferTasks(ctx); // move, copy (across storages)
  registerSeedGenerateTask(ctx); // seed_generate
  registerOfflineTask(ctx); // offline_download
}
