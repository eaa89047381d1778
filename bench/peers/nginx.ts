// nginx 1.22 as the PUT / GET / listing yardstick, with its own config in a temp dir:
//   PUT  /dav/<name>      -> <dir>/root/dav/<name>  (dav_methods PUT DELETE MKCOL)
//   GET  /files/<path>    -> <filesDir>/<path>      (static, sendfile: the same files Ferry serves)
//   GET  /listing/<dir>/  -> autoindex JSON of <filesDir>/<dir>/
// Runs as root (`user root;`): otherwise its workers (www-data) cannot write into our
// root-owned temp folders and PUT answers 500.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startDaemon, freePort, type Daemon } from './daemon.js';

export interface Nginx {
  url: string;
  /** Folder receiving `PUT /dav/<name>` (as `<davDir>/<name>`). */
  davDir: string;
  daemon: Daemon;
  stop(): Promise<void>;
}

/** Starts nginx on a free 127.0.0.1 port; `filesDir` is served read-only under /files/ and /listing/. */
export async function startNginx(dir: string, filesDir: string): Promise<Nginx> {
  const port = await freePort();
  const root = join(dir, 'root');
  const davDir = join(root, 'dav');
  await mkdir(davDir, { recursive: true });
  await mkdir(join(dir, 'tmp'), { recursive: true });
  const conf = join(dir, 'nginx.conf');
  await writeFile(
    conf,
    `user root;
worker_processes 2;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  client_body_temp_path ${dir}/tmp;
  client_max_body_size 0;
  proxy_temp_path ${dir}/tmp;
  fastcgi_temp_path ${dir}/tmp;
  uwsgi_temp_path ${dir}/tmp;
  scgi_temp_path ${dir}/tmp;
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    location /dav/ { dav_methods PUT DELETE MKCOL; create_full_put_path on; }
    location /files/ { alias ${filesDir}/; }
    location /listing/ { alias ${filesDir}/; autoindex on; autoindex_format json; }
  }
}
`,
  );
  const daemon = await startDaemon('nginx', 'nginx', ['-c', conf, '-e', join(dir, 'error.log')], { port });
  return { url: `http://127.0.0.1:${port}`, davDir, daemon, stop: () => daemon.stop() };
}
