/**
 * `ferry worker`: claims and runs background tasks only (no HTTP, no SFTP), for deployments that keep long
 * work off the instances answering requests. Any number may run beside `ferry serve` instances on one database.
 */
import type { Config } from '../config/config.js';
import { openApp } from './bootstrap.js';
import { onShutdownSignal } from './serve.js';
import { registerTasks } from './tasks.js';

export async function worker(config: Config): Promise<void> {
  const app = await openApp(config);
  registerTasks(app);
  // The task runner's timers do not hold the process open (a serving process has its listeners): this does.
  const alive = setInterval(() => undefined, 60_000);
  onShutdownSignal(app, async () => clearInterval(alive));
  app.tasks.start();
  app.logger.info({ runner: app.tasks.runnerId, database: app.database.dialect, dataDir: config.dataDir }, 'Ferry worker is running tasks');
}
