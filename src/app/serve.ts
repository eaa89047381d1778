/** `ferry serve`: HTTP (and SFTP when configured) plus the task runner, until SIGINT/SIGTERM. */
import { join } from 'node:path';
import type { Config } from '../config/config.js';
import type { SftpServer } from '../modules/sftp/sftp.server.js';
import { closeApp, openApp, type App } from './bootstrap.js';
import { buildHttpServer } from './http.js';
import { registerTasks } from './tasks.js';

const SHUTDOWN_GRACE_MS = 10_000;

/** Starts the SFTP server of an opened app (ssh2 is large: loaded only when SFTP is on). */
export async function startSftp(app: App, listen: { host: string; port: number }): Promise<SftpServer> {
  const { startSftpServer } = await import('../modules/sftp/sftp.server.js');
  return startSftpServer(
    {
      fs: app.fs,
      folderAccess: app.folderAccess,
      uploads: app.uploads,
      auth: app.auth,
      appPasswords: app.appPasswords,
      keys: app.sshKeysRepo,
      users: app.usersRepo,
      settings: app.settings,
      logger: app.logger,
      version: app.version,
      hostKeyDir: join(app.config.dataDir, 'ssh'),
    },
    listen,
  );
}

/** Calls `stop` once on SIGINT/SIGTERM, then exits. */
export function onShutdownSignal(app: App, stop: () => Promise<void>): void {
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.logger.info({ signal }, 'shutting down');
    await stop();
    await closeApp(app);
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

export async function serve(config: Config): Promise<void> {
  const app = await openApp(config);
  registerTasks(app);
  const http = await buildHttpServer(app);
  let sftp: SftpServer | null = null;
  onShutdownSignal(app, async () => {
    await sftp?.close();
    // A client that stops sending mid-upload would hold the HTTP server open forever:
    // after a grace period its connection is cut (its upload aborts and cleans up).
    const deadline = setTimeout(() => http.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    deadline.unref();
    await http.close();
    clearTimeout(deadline);
  });
  if (config.sftpListen) {
    sftp = await startSftp(app, config.sftpListen);
    app.logger.info({ sftp: `${sftp.address.host}:${sftp.address.port}` }, 'SFTP is listening');
  }
  const address = await http.listen({ port: config.port, host: config.host });
  app.tasks.start();
  app.logger.info({ address, database: app.database.dialect, dataDir: config.dataDir }, 'Ferry is listening');
  if (!(await app.settings.getBool('sign_all'))) {
    // installs from before private-by-default had every default saved, sign_all=false included
    app.logger.warn('sign_all is off: /d/ and /p/ serve any file to anyone who knows its path; save sign_all=true to require signed links');
  }
}
