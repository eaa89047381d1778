import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { getPriority } from 'node:os';
import { WORKER_NICE_OFFSET, WorkerPool } from './worker-pool.js';

type Reply = { threadId: number; nice: number | null; req: string };
const echo = (idleMs: number) =>
  new WorkerPool<string, Reply>({ module: new URL('./test-support/echo.worker.ts', import.meta.url), name: 'echo', size: 1, maxQueue: 8, idleMs });

test('a worker stays while it gets work and exits once idle for idleMs; the next request starts a new one', async () => {
  const pool = echo(300);
  try {
    const first = await pool.run('a');
    assert.equal(first.req, 'a');
    // requests closer together than idleMs keep the same thread
    await sleep(100);
    assert.equal((await pool.run('b')).threadId, first.threadId);
    await sleep(100);
    assert.equal((await pool.run('c')).threadId, first.threadId);
    // idle longer than idleMs: that thread has exited; a new one answers
    await sleep(900);
    const later = await pool.run('d');
    assert.equal(later.req, 'd');
    assert.notEqual(later.threadId, first.threadId);
  } finally {
    await pool.close();
  }
});

test('requests queued while the pool is busy all get answered in order', async () => {
  const pool = echo(50);
  try {
    const got = await Promise.all(['1', '2', '3', '4', '5'].map((r) => pool.run(r)));
    assert.deepEqual(got.map((g) => g.req), ['1', '2', '3', '4', '5']);
    assert.equal(new Set(got.map((g) => g.threadId)).size, 1, 'size 1: one thread');
  } finally {
    await pool.close();
  }
});

test('a worker thread runs WORKER_NICE_OFFSET nicer than the process (Linux); the main thread keeps its priority', { skip: process.platform !== 'linux' && 'thread priorities are set on Linux only' }, async () => {
  const before = getPriority();
  const pool = echo(50);
  try {
    const got = await pool.run('x');
    assert.equal(got.nice, Math.min(19, before + WORKER_NICE_OFFSET));
    assert.equal(getPriority(), before);
  } finally {
    await pool.close();
  }
});
