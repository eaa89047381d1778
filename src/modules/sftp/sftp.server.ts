/**
 * The SFTP server (contract §1, §6): ssh2 on `FERRY_SFTP_LISTEN`, host keys from
 * `<data dir>/ssh/`, the `sftp` subsystem only (no shell, exec or forwarding).
 * `close()` stops listening, ends every connection, aborts unfinished uploads and waits
 * for them to be cleaned up.
 */
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import ssh2 from 'ssh2';
import type { Connection } from 'ssh2';
import type { SftpDeps } from './sftp.deps.js';
import { loadHostKeys, type HostKey } from './host-keys.js';
import { SftpAuthenticator } from './sftp.auth.js';
import { SessionGuard, type LoginGrant } from './sftp.guard.js';
import { SftpSession } from './sftp.session.js';

/** Failed authentication attempts before the connection is dropped (as OpenSSH's MaxAuthTries). */
export const MAX_AUTH_FAILURES = 6;
/** Time allowed from connection to login (as OpenSSH's LoginGraceTime). */
export const LOGIN_GRACE_MS = 60_000;
/** How long close() waits for clients to hang up before cutting their sockets. */
const CLOSE_GRACE_MS = 2_000;

export interface SftpServer {
  /** The address actually bound (port resolved when 0 was asked for). */
  readonly address: { host: string; port: number };
  readonly hostKeys: readonly HostKey[];
  close(): Promise<void>;
}

/** `::ffff:1.2.3.4` → `1.2.3.4`, so lockout keys match what HTTP records. */
export function normaliseIp(ip: string | undefined): string {
  if (!ip) return 'unknown';
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

/**
 * ssh2 writes every SSH packet (each SFTP reply, each window adjust) to the socket on its own.
 * With Nagle's algorithm a small reply then waits for the peer's ACK, and the client, which keeps
 * a bounded window of requests in flight, stalls (a 1 GiB put spent most of its time idle). So:
 * no Nagle, and the replies produced while one incoming chunk is parsed (OpenSSH's client sends
 * dozens of WRITEs per chunk) leave in one write, as OpenSSH's channel buffer does.
 * Called right after `injectSocket`: ssh2 has paused the socket and attaches its own 'data'
 * listener later, so this one runs first and never starts the flow.
 */
function batchReplies(socket: Socket): void {
  socket.setNoDelay(true);
  const flush = () => socket.uncork();
  socket.prependListener('data', () => {
    socket.cork();
    process.nextTick(flush);
  });
}

export async function startSftpServer(deps: SftpDeps, listen: { host: string; port: number }): Promise<SftpServer> {
  const log = deps.logger.child({ module: 'sftp' });
  const hostKeys = await loadHostKeys(deps.hostKeyDir);
  const auth = new SftpAuthenticator(deps);
  const connections = new Set<Connection>();
  const sockets = new Set<Socket>();
  const sessions = new Set<SftpSession>();
  let closing = false;

  const ssh = new ssh2.Server({ hostKeys: hostKeys.map((k) => k.privateKey), ident: `Ferry_${deps.version}` }, (client, info) => {
    if (closing) {
      client.end();
      return;
    }
    connections.add(client);
    const ip = normaliseIp(info.ip);
    let grant: LoginGrant | null = null;
    let failures = 0;
    const grace = setTimeout(() => {
      log.info({ ip }, 'sftp login timed out');
      client.end();
    }, LOGIN_GRACE_MS);
    grace.unref();

    client.on('authentication', (actx) => {
      auth.handle(actx, ip, (g) => (grant = g)).then(
        (outcome) => {
          if (outcome.kind === 'accepted') {
            log.info({ ip, user: outcome.user.username, method: actx.method }, 'sftp login');
          } else if (outcome.kind === 'rejected' && actx.method !== 'none') {
            log.info({ ip, user: actx.username, method: actx.method, reason: outcome.reason }, 'sftp login refused');
            if (++failures >= MAX_AUTH_FAILURES) client.end();
          }
        },
        (e: unknown) => {
          log.error({ err: e, ip }, 'sftp authentication failed');
          try {
            actx.reject(['publickey']);
          } catch {
            /* already answered */
          }
        },
      );
    });

    client.on('ready', () => {
      clearTimeout(grace);
      if (!grant) {
        client.end();
        return;
      }
      const who = grant.user;
      // Re-checks the login's rights while the connection lasts (sftp.guard.ts).
      const guard = new SessionGuard(deps, grant);
      const mine = new Set<SftpSession>();
      guard.onRevoked((reason) => {
        log.info({ ip, user: who.username, reason }, 'sftp session revoked');
        // Unfinished uploads are aborted before the connection goes (nothing is committed).
        void Promise.all([...mine].map((s) => s.shutdown(`the session was revoked (${reason})`))).finally(() => client.end());
      });
      client.on('session', (accept) => {
        const session = accept();
        session.on('sftp', (acceptSftp) => {
          if (closing) return;
          const sftp = acceptSftp();
          const s = new SftpSession(deps, guard, sftp, log.child({ user: who.username }));
          sessions.add(s);
          mine.add(s);
          sftp.on('close', () => {
            void s.shutdown('the SFTP channel closed').finally(() => {
              sessions.delete(s);
              mine.delete(s);
            });
          });
        });
        // shell, exec, pty, subsystems other than sftp: no listener, so ssh2 refuses them.
      });
    });

    client.on('error', (e: Error) => log.debug({ err: e, ip }, 'sftp connection error'));
    client.on('close', () => {
      clearTimeout(grace);
      connections.delete(client);
    });
  });
  ssh.on('error', (e: Error) => log.error({ err: e }, 'sftp server error'));

  // Our own listener hands sockets to ssh2, so close() can cut the ones that linger.
  const net: NetServer = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    ssh.injectSocket(socket);
    batchReplies(socket);
  });
  await new Promise<void>((resolve, reject) => {
    net.once('error', reject);
    net.listen(listen.port, listen.host, () => {
      net.off('error', reject);
      resolve();
    });
  });
  net.on('error', (e) => log.error({ err: e }, 'sftp listener error'));
  const bound = net.address();
  const address = { host: listen.host, port: typeof bound === 'object' && bound ? bound.port : listen.port };

  let closed: Promise<void> | null = null;
  return {
    address,
    hostKeys,
    close() {
      closed ??= (async () => {
        closing = true;
        const stopped = new Promise<void>((resolve) => net.close(() => resolve()));
        for (const c of connections) c.end();
        await Promise.all([...sessions].map((s) => s.shutdown('the server is shutting down')));
        const deadline = Date.now() + CLOSE_GRACE_MS;
        while (sockets.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        for (const s of sockets) s.destroy();
        await stopped;
      })();
      return closed;
    },
  };
}
