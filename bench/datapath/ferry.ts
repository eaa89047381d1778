// The Ferry under test: the BUILT server (`dist/src/app/bin.js serve`, what `npm start` runs)
// on a fresh data dir (SQLite, the default local storage at /), with SFTP on a loopback port and
// FERRY_EVENT_LOOP_STATS on (its histogram costs next to nothing; the event-loop row restarts
// the server to read one per phase). The JWT secret is fixed through FERRY_JWT_SECRET so the
// token survives restarts and the bare /api/me yardstick can verify the same tokens.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { api, startServer, type ServerProcess } from '../../test/support/process.js';

export interface Ferry {
  url: string;
  token: string;
  password: string;
  /** The FERRY_JWT_SECRET string. */
  jwtSecret: string;
  dataDir: string;
  /** Host folder of the default local storage mounted at `/`. */
  filesDir: string;
  sftpPort: number;
  pid(): number | undefined;
  /** A JSON API call as admin; throws unless HTTP 200 with code 200. Returns `data`. */
  call(method: string, path: string, body?: unknown): Promise<any>;
  /** The `sign` of a file's download link, taken from `/api/fs/get`'s `raw_url` ('' when unsigned). */
  signOf(path: string): Promise<string>;
  /** Stops and starts the server again on the same data dir; returns the stopped server's log. */
  restart(): Promise<string>;
  /**
   * When the server exited without being asked to (crash, OOM kill, someone else's signal): how
   * it ended and the end of its log; else null.
   */
  exitedUnexpectedly(): string | null;
  /** Starts a new server after an unexpected exit (same data dir, same token). */
  revive(): Promise<void>;
  /** Stops the server; returns its log (stdout). */
  stop(): Promise<string>;
}

export const ADMIN_PASSWORD = 'bench-admin-password';

/** `event_loop_delay_ms` that Ferry logs at shutdown with FERRY_EVENT_LOOP_STATS=true, or null. */
export function eventLoopStats(log: string): { p99: number; max: number } | null {
  const lines = log.split('\n').filter((l) => l.includes('"event_loop_delay_ms"'));
  const last = lines[lines.length - 1];
  if (!last) return null;
  const d = (JSON.parse(last) as { event_loop_delay_ms: { p99: number; max: number } }).event_loop_delay_ms;
  return { p99: d.p99, max: d.max };
}

/** Starts Ferry with its data under `dir`/data and logs in as admin. */
export async function startFerry(dir: string): Promise<Ferry> {
  const dataDir = join(dir, 'data');
  const jwtSecret = randomBytes(32).toString('base64url');
  const env = {
    FERRY_DATA_DIR: dataDir,
    FERRY_ADMIN_PASSWORD: ADMIN_PASSWORD,
    FERRY_JWT_SECRET: jwtSecret,
    FERRY_SFTP_LISTEN: '127.0.0.1:0',
    FERRY_EVENT_LOOP_STATS: 'true',
  };
  let stopping = false;
  let unexpected: string | null = null;
  let stderrTail = '';
  const launch = async (): Promise<ServerProcess> => {
    const s = await startServer(env, 60_000);
    stderrTail = '';
    s.child.stderr!.on('data', (d: Buffer) => (stderrTail = (stderrTail + d.toString()).slice(-8000)));
    s.child.once('exit', (code, signal) => {
      if (stopping) return;
      const tail = s.stdout().split('\n').slice(-15).join('\n');
      unexpected = `Ferry (pid ${s.child.pid}) exited on its own: code ${code}, signal ${signal}\n--- stdout (end)\n${tail}\n--- stderr (end)\n${stderrTail}`;
    });
    return s;
  };
  let server: ServerProcess = await launch();
  // if the benchmark dies (an exception past the finally blocks, a signal), never leave Ferry running
  process.on('exit', () => {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  });
  const sftpPortOf = (s: ServerProcess) => {
    const m = /"sftp":"[^"]*:(\d+)"/.exec(s.stdout());
    if (!m) throw new Error(`Ferry did not report its SFTP port:\n${s.stdout()}`);
    return Number(m[1]);
  };
  const login = await api(server.url, 'POST', '/api/auth/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
  if (login.status !== 200) throw new Error(`login failed: HTTP ${login.status} ${login.body.message}`);
  const token = login.body.data.token as string;

  const ferry: Ferry = {
    url: server.url,
    token,
    password: ADMIN_PASSWORD,
    jwtSecret,
    dataDir,
    filesDir: join(dataDir, 'files'),
    sftpPort: sftpPortOf(server),
    pid: () => server.child.pid,
    async call(method, path, body) {
      const r = await api(ferry.url, method, path, { token, body });
      if (r.status !== 200 || r.body.code !== 200) throw new Error(`${method} ${path}: HTTP ${r.status} ${r.body.message}`);
      return r.body.data;
    },
    async signOf(path) {
      const data = await ferry.call('POST', '/api/fs/get', { path });
      const raw = String(data.raw_url ?? '');
      if (!raw) throw new Error(`/api/fs/get ${path} has no raw_url`);
      return new URL(raw).searchParams.get('sign') ?? '';
    },
    async restart() {
      const log = await ferry.stop();
      server = await launch();
      ferry.url = server.url;
      ferry.sftpPort = sftpPortOf(server);
      return log;
    },
    async stop() {
      if (unexpected) throw new Error(unexpected);
      stopping = true;
      try {
        const code = await server.stop();
        if (code !== 0 && code !== null) throw new Error(`Ferry exited with ${code}:\n${server.stdout().slice(-4000)}\n${stderrTail}`);
        return server.stdout();
      } finally {
        stopping = false;
      }
    },
    exitedUnexpectedly: () => unexpected,
    async revive() {
      if (!unexpected) return;
      unexpected = null;
      server = await launch();
      ferry.url = server.url;
      ferry.sftpPort = sftpPortOf(server);
    },
  };
  return ferry;
}
