/**
 * Runs the BUILT server (`node dist/src/app/bin.js serve`, what `npm start` runs) as a
 * child process on a random loopback port.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';

export const ROOT = new URL('../..', import.meta.url).pathname;
export const BIN = join(ROOT, 'dist/src/app/bin.js');

/**
 * How `npm start` runs Node (package.json "start", README "Memory"): glibc's malloc settings go in the
 * environment, V8's in flags. Servers started here use the same, so tests and benchmarks run what users run
 * (test/e2e/launch-settings.test.ts keeps the two in step).
 */
export const SERVE_ENV: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '1048576' };
export const SERVE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=8', '--heap-growing-percent=100'];

export function requireBuild(): void {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run "npm run build" first (npm test does)`);
}

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stop(): Promise<number | null>;
}

export async function startServer(env: Record<string, string>, timeoutMs = 60_000): Promise<ServerProcess> {
  requireBuild();
  const child = spawn(process.execPath, [...SERVE_NODE_FLAGS, BIN, 'serve'], {
    // The listening line is logged at info level: a test that sets a higher level gets a timeout.
    env: { ...process.env, ...SERVE_ENV, FERRY_PORT: '0', FERRY_HOST: '127.0.0.1', FERRY_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // never leave a half-started server behind
      reject(new Error(`server did not start in ${timeoutMs} ms:\n${out}\n${err}`));
    }, timeoutMs);
    const check = () => {
      const m = /"address":"(http:\/\/[^"]+)"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    // 'close' (not 'exit'): by then stdout/stderr have been read to the end.
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${out}\n${err}`));
    });
  });
  return {
    child,
    url,
    stdout: () => out,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = (await once(child, 'exit')) as [number | null];
      return code;
    },
  };
}

/** Runs the built CLI with the given env; returns stdout, throws on a non-zero exit. */
export function ferryCli(args: string[], env: Record<string, string>): string {
  requireBuild();
  const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ferry ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

export async function api(base: string, method: string, path: string, opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const res = await fetch(base + path, {
    method,
    headers: {
      ...opts.headers,
      ...(opts.token ? { authorization: opts.token } : {}),
      ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
  });
  const text = await res.text();
  let body: { code: number; message: string; data: any };
  try {
    body = JSON.parse(text);
  } catch {
    body = { code: -1, message: text, data: null };
  }
  return { status: res.status, body };
}
