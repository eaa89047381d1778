/**
 * Helpers for the crash, multi-instance and kill-loop tests: Ferry processes that can be
 * killed with SIGKILL and restarted on the same data dir, waiting for log lines, reading task
 * rows straight from the database, and listing what is really stored (temp files included).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { once } from 'node:events';
import { join } from 'node:path';
import { ListMultipartUploadsCommand, type S3Client } from '@aws-sdk/client-s3';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { api, startServer, type ServerProcess } from '../support/process.js';

export const MiB = 1024 * 1024;

/** Task timings short enough for tests (heartbeat, take-over after a lapsed heartbeat, polling). */
export const FAST_TASKS = { FERRY_TASK_HEARTBEAT_MS: '200', FERRY_TASK_STALE_MS: '1500', FERRY_TASK_POLL_MS: '100' };

export interface Node {
  name: string;
  env: Record<string, string>;
  server: ServerProcess;
  url: string;
  pid: number;
}

export async function startNode(name: string, env: Record<string, string>, timeoutMs = 60_000): Promise<Node> {
  const server = await startServer(env, timeoutMs);
  return { name, env, server, url: server.url, pid: server.child.pid! };
}

/** SIGKILL (no shutdown code runs) and wait for the process to be gone. */
export async function killHard(node: Node): Promise<void> {
  const { child } = node.server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

/** Restarts a node on the same environment (same data dir and database). */
export function restart(node: Node, timeoutMs?: number): Promise<Node> {
  return startNode(node.name, node.env, timeoutMs);
}

/** Polls `fn` every `everyMs` until it returns a truthy value; fails after `ms` with `what`. */
export async function until<T>(fn: () => Promise<T | null | undefined | false>, ms: number, what: string, everyMs = 50): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Parsed pino lines of a node's stdout with `msg` equal to `msg`. */
export function logLines(node: Node, msg: string): Record<string, any>[] {
  const out: Record<string, any>[] = [];
  for (const line of node.server.stdout().split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const j = JSON.parse(line) as Record<string, any>;
      if (j.msg === msg) out.push(j);
    } catch {
      /* not a log line */
    }
  }
  return out;
}

/** Waits for the start-up cleanup to finish and returns every cleanup log line of that start. */
export async function cleanupLog(node: Node, ms = 30_000): Promise<{ done: Record<string, any>; removed: string[]; aborted: string[]; spool: string[] }> {
  const done = await until(async () => logLines(node, 'startup cleanup done')[0], ms, `the start-up cleanup of ${node.name}`);
  const removed = logLines(node, 'startup cleanup: removed stale temp files').flatMap((l) => l.removed as string[]);
  const aborted = logLines(node, 'startup cleanup: aborted stale multipart uploads').flatMap((l) => l.aborted as string[]);
  const spool = logLines(node, 'startup cleanup: removed stale spool files').flatMap((l) => l.removed as string[]);
  assert.equal(logLines(node, 'startup cleanup failed for a storage').length, 0, node.server.stdout());
  return { done, removed, aborted, spool };
}

export async function login(url: string, username: string, password: string, headers: Record<string, string> = {}): Promise<string> {
  const r = await api(url, 'POST', '/api/auth/login', { body: { username, password }, headers });
  assert.equal(r.status, 200, `login ${username}: ${r.body.message}`);
  return r.body.data.token as string;
}

/** Asserts a 200 envelope and returns `data`. */
export async function okData<T = any>(p: ReturnType<typeof api>): Promise<T> {
  const r = await p;
  assert.equal(r.status, 200, `expected 200, got ${r.status}: ${r.body.message}`);
  return r.body.data as T;
}

export async function sha256File(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const c of createReadStream(path)) h.update(c as Buffer);
  return h.digest('hex');
}

export async function hashFile(path: string, algos: string[]): Promise<Record<string, string>> {
  const hs = algos.map((a) => createHash(a));
  for await (const c of createReadStream(path)) for (const h of hs) h.update(c as Buffer);
  return Object.fromEntries(algos.map((a, i) => [a, hs[i]!.digest('hex')]));
}

/** Every file below `dir` (relative paths), split into visible files and `.ferry-tmp-*` leftovers. */
export async function filesBelow(dir: string): Promise<{ files: string[]; temps: string[] }> {
  const files: string[] = [];
  const temps: string[] = [];
  const walk = async (d: string, rel: string): Promise<void> => {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.name.startsWith('.ferry-tmp-')) temps.push(r);
      else if (e.isDirectory()) await walk(join(d, e.name), r);
      else files.push(r);
    }
  };
  await walk(dir, '');
  return { files: files.sort(), temps: temps.sort() };
}

/** Multipart uploads in progress below `prefix/` (keys relative to it). */
export async function multipartUploads(client: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let KeyMarker: string | undefined;
  let UploadIdMarker: string | undefined;
  do {
    const r = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix + '/', KeyMarker, UploadIdMarker }));
    for (const u of r.Uploads ?? []) out.push(u.Key!.slice(prefix.length + 1));
    [KeyMarker, UploadIdMarker] = r.IsTruncated ? [r.NextKeyMarker, r.NextUploadIdMarker] : [undefined, undefined];
  } while (KeyMarker);
  return out.sort();
}

/**
 * Runs a read-only query on a node's database: PostgreSQL when `dbUrl` is set, else the SQLite
 * file in `dataDir` (tests read columns the API does not show, such as a task's runner).
 */
export async function query<T = Record<string, unknown>>(dbUrl: string | null, dataDir: string, text: string, params: unknown[] = []): Promise<T[]> {
  if (dbUrl) {
    const c = new pg.Client({ connectionString: dbUrl });
    await c.connect();
    try {
      return (await c.query(text, params)).rows as T[];
    } finally {
      await c.end();
    }
  }
  const db = new SQLite(join(dataDir, 'ferry.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(text.replace(/\$\d+/g, '?')).all(...params) as T[];
  } finally {
    db.close();
  }
}

export interface TaskRowLite {
  id: string;
  type: string;
  state: number;
  runner: string | null;
  attempts: number;
  progress: number;
  error: string;
}

export async function taskRows(dbUrl: string | null, dataDir: string): Promise<TaskRowLite[]> {
  const rows = await query<TaskRowLite>(dbUrl, dataDir, 'SELECT id, type, state, runner, attempts, progress, error FROM tasks ORDER BY created_at');
  return rows.map((r) => ({ ...r, state: Number(r.state), attempts: Number(r.attempts), progress: Number(r.progress) }));
}

export async function taskRow(dbUrl: string | null, dataDir: string, id: string): Promise<TaskRowLite> {
  const r = (await taskRows(dbUrl, dataDir)).find((t) => t.id === id);
  assert.ok(r, `task ${id} exists`);
  return r;
}

/** Pid of the process in a runner id (`host:pid:random`). */
export const runnerPid = (runner: string | null): number | null => (runner ? Number(runner.split(':').at(-2)) : null);
