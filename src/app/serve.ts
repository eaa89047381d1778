/** `ferry serve`: opens the data dir and listens until SIGINT/SIGTERM. */
import type { Config } from '../config/config.js';
import { buildHttpServer } from '../http/server.js';
import { closeApp, openApp } from './bootstrap.js';

export async function serve(config: Config): Promise<void> {
  const ctx = await openApp(config);
  const app = await buildHttpServer(ctx);
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    ctx.logger.info({ signal }, 'shutting down');
    await app.close();
    await closeApp(ctx);
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  const address = await app.listen({ port: config.port, host: config.host });
  ctx.logger.info({ address, database: ctx.database.dialect, dataDir: config.dataDir }, 'Ferry is listening');
}
