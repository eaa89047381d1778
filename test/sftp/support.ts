/**
 * Helpers for the SFTP suites: keys from `ssh-keygen`, the real OpenSSH `sftp` client in
 * batch mode, `ssh-keyscan`, and ssh2's own Client for what `sftp` cannot do (password
 * logins without sshpass, raw protocol requests).
 *
 * Everything that talks to an in-process server is asynchronous (a spawnSync would block
 * the event loop the server runs on) and bounded by a timeout.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import type { ConnectConfig, ParsedKey, SFTPWrapper } from 'ssh2';
import { requireCommand, run } from '../support/commands.js';

export const SFTP_READ = 1 << 10;
export const SFTP_WRITE = 1 << 11;

export interface Key {
  /** Private key file (for `sftp -i`). */
  file: string;
  /** The public key line from the .pub file. */
  pub: string;
  /** ssh2's parsed private key. */
  parsed: ParsedKey;
}

let keyDir: string | null = null;
const keyCache = new Map<string, Key>();

export function scratchDir(prefix = 'ferry-sftp-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A fresh key pair made by ssh-keygen (cached by name for the test process). */
export function keygen(name: string, type: 'ed25519' | 'rsa' | 'ecdsa', bits?: number): Key {
  const cached = keyCache.get(name);
  if (cached) return cached;
  requireCommand('ssh-keygen', 'openssh-client');
  if (!keyDir) {
    const dir = scratchDir('ferry-sftp-keys-');
    keyDir = dir;
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  const file = join(keyDir, name);
  run('ssh-keygen', ['-q', '-t', type, ...(bits ? ['-b', String(bits)] : []), '-N', '', '-C', `${name}@ferry-test`, '-f', file]);
  const parsed = ssh2.utils.parseKey(readFileSync(file));
  if (parsed instanceof Error || Array.isArray(parsed)) throw new Error(`ssh2 cannot parse ${file}`);
  const key = { file, pub: readFileSync(`${file}.pub`, 'utf8').trim(), parsed };
  keyCache.set(name, key);
  return key;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
}

/** Runs a command asynchronously; kills it after `timeoutMs` (then `timedOut` is true). */
export function runAsync(cmd: string, args: string[], opts: { timeoutMs?: number; input?: string } = {}): Promise<RunResult> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - t0, timedOut });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * `sftp -b - -P PORT -i KEY … user@127.0.0.1` with the given batch lines (a line starting
 * with `-` may fail without stopping the batch, as in sftp(1)).
 */
export function sftpBatch(port: number, key: Key, user: string, lines: string[], timeoutMs = 60_000): Promise<RunResult> {
  requireCommand('sftp', 'openssh-client');
  return runAsync(
    'sftp',
    [
      '-b', '-',
      '-P', String(port),
      '-i', key.file,
      '-o', 'StrictHostKeyChecking=no',
      '-o', 'UserKnownHostsFile=/dev/null',
      '-o', 'IdentitiesOnly=yes',
      '-o', 'BatchMode=yes',
      '-o', 'LogLevel=ERROR',
      `${user}@127.0.0.1`,
    ],
    { timeoutMs, input: lines.join('\n') + '\n' },
  );
}

/** The host keys the server presents, as `type base64` lines (sorted), via ssh-keyscan. */
export async function scanHostKeys(port: number): Promise<string[]> {
  requireCommand('ssh-keyscan', 'openssh-client');
  const r = await runAsync('ssh-keyscan', ['-T', '10', '-p', String(port), '-t', 'ed25519,rsa', '127.0.0.1'], { timeoutMs: 30_000 });
  if (r.code !== 0) throw new Error(`ssh-keyscan failed (${r.code}): ${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => l.split(/\s+/).slice(1, 3).join(' '))
    .sort();
}

export async function sha256File(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

export interface Ssh2Login {
  ok: boolean;
  /** ssh2's error when the login failed. */
  error?: Error & { level?: string };
  client: InstanceType<typeof ssh2.Client>;
}

/** Connects with ssh2's Client; resolves when logged in or refused (bounded). */
export function ssh2Connect(port: number, cfg: Omit<ConnectConfig, 'host' | 'port'>, timeoutMs = 30_000): Promise<Ssh2Login> {
  return new Promise((resolve) => {
    const client = new ssh2.Client();
    let done = false;
    const finish = (r: Ssh2Login) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(r);
    };
    const timer = setTimeout(() => {
      client.end();
      finish({ ok: false, error: new Error(`no answer in ${timeoutMs} ms`), client });
    }, timeoutMs);
    client.on('ready', () => finish({ ok: true, client }));
    client.on('error', (e) => {
      client.end();
      finish({ ok: false, error: e, client });
    });
    client.on('close', () => finish({ ok: false, error: new Error('connection closed before login'), client }));
    client.connect({ host: '127.0.0.1', port, readyTimeout: timeoutMs, tryKeyboard: false, ...cfg });
  });
}

/** Logs in with ssh2 and opens the SFTP subsystem. */
export async function ssh2Sftp(port: number, cfg: Omit<ConnectConfig, 'host' | 'port'>): Promise<{ client: InstanceType<typeof ssh2.Client>; sftp: SFTPWrapper }> {
  const login = await ssh2Connect(port, cfg);
  if (!login.ok) throw new Error(`ssh2 login failed: ${login.error?.message}`);
  const sftp = await new Promise<SFTPWrapper>((resolve, reject) => login.client.sftp((e, s) => (e ? reject(e) : resolve(s))));
  return { client: login.client, sftp };
}

/** Promisified ssh2 SFTP client calls that resolve with `{err, value}` (err has `code`, the SFTP status). */
export type SftpErr = Error & { code?: number };
export function call<T>(fn: (cb: (err: SftpErr | null | undefined, value?: T) => void) => void, timeoutMs = 30_000): Promise<{ err: SftpErr | null; value: T | undefined }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`SFTP request got no answer in ${timeoutMs} ms`)), timeoutMs);
    fn((err, value) => {
      clearTimeout(timer);
      resolve({ err: err ?? null, value });
    });
  });
}

/** Waits for `pred` to hold, polling every 20 ms, for at most `timeoutMs`. */
export async function waitFor(pred: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await pred()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

export { ssh2 };
