// Runs a peer daemon (nginx, sshd, apache2, a bare Node server…) in the foreground as a child
// of the benchmark, waits until its loopback port accepts connections, and stops it by PID.
// A process 'exit' hook SIGKILLs whatever is still running if the benchmark dies early.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import net from 'node:net';

export interface Daemon {
  /** The PID of the process we started (the daemon's master process). */
  pid: number;
  /** Collected stdout+stderr of the daemon (for error messages). */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const c of running) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** A TCP port on 127.0.0.1 that was free a moment ago (the kernel picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** Resolves once `host:port` accepts a TCP connection; rejects after `timeoutMs`. */
export async function waitForPort(port: number, timeoutMs: number, alive: () => boolean = () => true, host = '127.0.0.1'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 10_000; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect({ port, host });
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (!alive()) throw new Error(`the process exited before ${host}:${port} accepted connections`);
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${host}:${port} did not accept connections within ${timeoutMs} ms`);
}

/**
 * Spawns `cmd args` (which must stay in the foreground) and waits for `port` to open.
 * `env` replaces the environment when given (peers get only what they need).
 */
export async function startDaemon(
  name: string,
  cmd: string,
  args: string[],
  opts: { port: number; env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number },
): Promise<Daemon> {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: opts.env ?? process.env, cwd: opts.cwd });
  running.add(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  child.stderr!.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-20_000)));
  const spawnError = new Promise<never>((_, reject) => child.once('error', (e) => reject(new Error(`${name}: cannot run ${cmd}: ${e.message}`))));
  spawnError.catch(() => undefined);
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const stop = async (graceMs = 5000): Promise<void> => {
    if (!exited()) {
      const gone = once(child, 'exit');
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await gone;
      clearTimeout(t);
    }
    running.delete(child);
  };
  try {
    await Promise.race([waitForPort(opts.port, opts.timeoutMs ?? 15_000, () => !exited()), spawnError]);
  } catch (e) {
    await stop(1000);
    throw new Error(`${name} did not start: ${(e as Error).message}\n${out}`);
  }
  return { pid: child.pid!, output: () => out, stop };
}
