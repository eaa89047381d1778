/**
 * `ferry worker`: a process with no HTTP (or SFTP) listener claims and runs background tasks; a task whose
 * stored payload is malformed fails with a clear error and the worker keeps running the others.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { pendingTaskRow, TaskState } from '../../src/modules/tasks/task.model.js';
import { BIN, ferryCli, requireBuild } from '../support/process.js';

describe('ferry worker', { timeout: 120_000 }, () => {
  let dataDir: string;
  let worker: ChildProcess | null = null;
  let out = '';
  const env = () => ({ ...process.env, FERRY_DATA_DIR: dataDir, FERRY_ADMIN_PASSWORD: 'worker-pass-1', FERRY_LOG_LEVEL: 'info', FERRY_TASK_POLL_MS: '100' });
  const db = () => new SQLite(join(dataDir, 'ferry.db'));

  before(() => {
    requireBuild();
    dataDir = mkdtempSync(join(tmpdir(), 'ferry-worker-'));
    ferryCli(['admin', 'show'], env()); // first start: database, admin, the `/` storage
  });
  after(async () => {
    if (worker && worker.exitCode === null) {
      worker.kill('SIGTERM');
      await once(worker, 'exit');
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('runs queued tasks without any listener; a malformed payload fails that task only', async () => {
    const spool = join(dataDir, 'tmp', 'upload-from-test');
    writeFileSync(spool, 'bytes the worker stores');
    const good = randomUUID();
    const bad = randomUUID();
    const conn = db();
    const insert = conn.prepare('INSERT INTO tasks (id, type, name, creator_id, state, status, progress, total_bytes, done_bytes, error, payload, result, runner, heartbeat_at, attempts, created_at, start_time, end_time) VALUES (@id, @type, @name, @creator_id, @state, @status, @progress, @total_bytes, @done_bytes, @error, @payload, @result, @runner, @heartbeat_at, @attempts, @created_at, @start_time, @end_time)');
    insert.run(pendingTaskRow({ id: bad, type: 'upload', name: 'malformed', creator_id: 1, payload: JSON.stringify({ tmp: 42 }) }));
    insert.run(pendingTaskRow({ id: good, type: 'upload', name: 'good', creator_id: 1, payload: JSON.stringify({ tmp: spool, spec: { full: '/from-worker/file.txt', overwrite: true, size: 23, expectedHashes: {} } }) }));
    conn.close();

    worker = spawn(process.execPath, [BIN, 'worker'], { env: env(), stdio: ['ignore', 'pipe', 'pipe'] });
    worker.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    worker.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const state = (id: string) => {
      const c = db();
      try {
        return c.prepare('SELECT state, error FROM tasks WHERE id = ?').get(id) as { state: number; error: string };
      } finally {
        c.close();
      }
    };
    const end = Date.now() + 60_000;
    while ((state(good).state < TaskState.SUCCEEDED || state(bad).state < TaskState.SUCCEEDED) && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
    assert.equal(state(good).state, TaskState.SUCCEEDED, `${state(good).error}\n${out}`);
    assert.equal(readFileSync(join(dataDir, 'files', 'from-worker', 'file.txt'), 'utf8'), 'bytes the worker stores');
    assert.equal(existsSync(spool), false, 'the spool file is removed once stored');
    assert.equal(state(bad).state, TaskState.FAILED);
    assert.match(state(bad).error, /stored upload task payload is malformed/);
    assert.equal(worker.exitCode, null, 'the worker is still running');
    assert.match(out, /Ferry worker is running tasks/);
    assert.doesNotMatch(out, /"address"/, 'the worker listens on nothing');
  });

  test('stops cleanly on SIGTERM', async () => {
    const exited = once(worker!, 'exit');
    worker!.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    assert.equal(code, 0, out);
  });
});
