/** `ferry serve`: opens the data dir and listens until SIGINT/SIGTERM. */
import type { Config } from '../config/config.js';
import { buildHttpServer } from '../http/server.js';
import type { SftpServer } from '../modules/sftp/sftp.server.js';
import { closeApp, openApp } from './bootstrap.js';

const SHUTDOWN_GRACE_MS = 10_000;

export async function serve(config: Config): Promise<void> {
  const ctx = await openApp(config);
  const app = await buildHttpServer(ctx);
  let sftp: SftpServer | null = null;
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    ctx.logger.info({ signal }, 'shutting down');
    await sftp?.close();
    // A client that stops sending mid-upload would hold the HTTP server open forever:
    // after a grace period its connection is cut (its upload aborts and cleans up).
    const deadline = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    deadline.unref();
    await app.close();
    clearTimeout(deadline);
    await closeApp(ctx);
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  if (config.sftpListen) {
    // Loaded only when enabled (ssh2 is large).
    const { startSftpServer } = await import('../modules/sftp/sftp.server.js');
    sftp = await startSftpServer(ctx);
    ctx.logger.info({ sftp: `${sftp.address.host}:${sftp.address.port}` }, 'SFTP is listening');
  }
  const address = await app.listen({ port: config.port, host: config.host });
  ctx.logger.info({ address, database: ctx.database.dialect, dataDir: config.dataDir }, 'Ferry is listening');
}
