// Apache 2.4 mod_dav_fs as the PROPFIND yardstick: a minimal config of our own (ServerRoot,
// PidFile, ErrorLog and DavLockDB in the temp dir, mpm_event, Listen 127.0.0.1:port) serving
// `docRoot` with `Dav On`. Started in the foreground (-DFOREGROUND) and stopped by PID.
//
// Apache refuses to serve as root, so its children run as www-data: every folder on the way to
// `docRoot` must be searchable by others (the caller makes its temp folders 0755), and the lock
// database lives in a folder www-data can write.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startDaemon, freePort, type Daemon } from './daemon.js';

export interface Apache {
  url: string;
  daemon: Daemon;
  stop(): Promise<void>;
}

const MODULES = '/usr/lib/apache2/modules';

/** Starts apache2 with WebDAV on `docRoot`, answering at `http://127.0.0.1:<port>/`. */
export async function startApacheDav(dir: string, docRoot: string): Promise<Apache> {
  const port = await freePort();
  await mkdir(dir, { recursive: true });
  const lockDir = join(dir, 'lock');
  await mkdir(lockDir, { recursive: true });
  await chmod(lockDir, 0o777);
  const conf = join(dir, 'httpd.conf');
  await writeFile(
    conf,
    `ServerRoot ${dir}
ServerName 127.0.0.1
Listen 127.0.0.1:${port}
PidFile ${join(dir, 'httpd.pid')}
ErrorLog ${join(dir, 'error.log')}
LogLevel warn
LoadModule mpm_event_module ${MODULES}/mod_mpm_event.so
LoadModule authz_core_module ${MODULES}/mod_authz_core.so
LoadModule dav_module ${MODULES}/mod_dav.so
LoadModule dav_fs_module ${MODULES}/mod_dav_fs.so
User www-data
Group www-data
DavLockDB ${join(lockDir, 'DavLock')}
DocumentRoot ${docRoot}
<Directory />
  Require all denied
</Directory>
<Directory ${docRoot}>
  Dav On
  Require all granted
</Directory>
`,
  );
  const daemon = await startDaemon('apache2', '/usr/sbin/apache2', ['-f', conf, '-DFOREGROUND'], { port, cwd: dir });
  return { url: `http://127.0.0.1:${port}`, daemon, stop: () => daemon.stop() };
}
