/**
 * A small pool of worker threads for CPU-heavy work that must not block the event loop (parsing hostile seed
 * documents, password hashing). Requests queue (bounded) and run on at most `size` workers, started on first use
 * and unref'd while idle so they never hold the process open. A worker idle for `idleMs` exits: each is a V8
 * isolate of its own (~10–20 MB of RSS), so a quiet server holds none. A worker that dies fails its job and is
 * replaced.
 *
 * A worker module calls `serveWorker(handler)`: each message `{id, req}` is answered `{id, ok}` or
 * `{id, err: {name, message, ...fields}}`; the pool turns `err` back into an Error through `revive`.
 */
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { AppError } from './errors.js';

interface Job<Req, Res> {
  id: number;
  req: Req;
  resolve: (r: Res) => void;
  reject: (e: Error) => void;
}

export interface SerializedError {
  name: string;
  message: string;
  [field: string]: unknown;
}

export interface WorkerPoolOptions {
  /** The worker module (a URL next to the caller's module, `.ts` under tsx or `.js` when built). */
  module: URL;
  name: string;
  size: number;
  /** Jobs waiting beyond the running ones; more are refused with 503. */
  maxQueue: number;
  /** Rebuilds a worker's error (default: a plain Error with its message). */
  revive?: (e: SerializedError) => Error;
  /** An idle worker exits after this many milliseconds (default `WORKER_IDLE_MS`). */
  idleMs?: number;
}

/** How long an idle worker thread stays before it exits (worker pools and the hashing pool). */
export const WORKER_IDLE_MS = 10_000;

/**
 * Calls `retire` once the thread has been idle for `ms` (an unref'd timer: it never holds the process open).
 * `busy()` cancels; `idle()` (re)starts the wait.
 */
export class IdleTimer {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ms: number,
    private readonly retire: () => void,
  ) {}

  idle(): void {
    this.busy();
    this.timer = setTimeout(this.retire, this.ms);
    this.timer.unref();
  }

  busy(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/**
 * V8's young generation of each worker thread, in MiB. The default (three 16 MiB semi-spaces) is sized for a
 * main thread; a worker that builds a 10,000-entry listing or hashes a stream grows it to its limit and keeps it,
 * so each busy worker held ~50 MB. Small young generations cost these workers nothing measurable.
 */
export const WORKER_YOUNG_GENERATION_MB = 6;

/** Starts a worker module; under tsx (sources run as .ts) the worker registers tsx itself. */
export function spawnWorker(module: URL, name: string): Worker {
  const options = { name, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB } };
  if (module.pathname.endsWith('.ts')) {
    const api = import.meta.resolve('tsx/esm/api');
    const boot = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(module.href)}); });`;
    return new Worker(boot, { ...options, eval: true });
  }
  return new Worker(module, options);
}

export class WorkerPool<Req, Res> {
  private readonly idle: Worker[] = [];
  private readonly timers = new Map<Worker, IdleTimer>();
  private readonly busy = new Map<Worker, Job<Req, Res>>();
  private readonly queue: Job<Req, Res>[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly o: WorkerPoolOptions) {}

  /** Runs one request on a worker; rejects with 503 when the queue is full. */
  run(req: Req): Promise<Res> {
    if (this.closed) return Promise.reject(new Error(`${this.o.name}: the pool is closed`));
    if (this.queue.length >= this.o.maxQueue) return Promise.reject(new AppError(503, `server busy (${this.o.name}): try again in a moment`));
    return new Promise<Res>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, req, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let w = this.idle.pop();
      if (!w) {
        if (this.busy.size + this.idle.length >= this.o.size) return;
        w = this.start();
      }
      const job = this.queue.shift()!;
      this.timers.get(w)?.busy();
      this.busy.set(w, job);
      w.ref();
      w.postMessage({ id: job.id, req: job.req });
    }
  }

  private start(): Worker {
    const w = spawnWorker(this.o.module, this.o.name);
    this.timers.set(
      w,
      new IdleTimer(this.o.idleMs ?? WORKER_IDLE_MS, () => {
        const i = this.idle.indexOf(w);
        if (i < 0) return;
        this.idle.splice(i, 1);
        this.timers.delete(w);
        void w.terminate();
      }),
    );
    w.on('message', (m: { id: number; ok?: Res; err?: SerializedError }) => {
      const job = this.busy.get(w);
      if (!job || job.id !== m.id) return;
      this.busy.delete(w);
      w.unref();
      this.idle.push(w);
      this.timers.get(w)?.idle();
      if (m.err) job.reject(this.o.revive?.(m.err) ?? Object.assign(new Error(m.err.message), { name: m.err.name }));
      else job.resolve(m.ok as Res);
      this.pump();
    });
    const fail = (why: string) => {
      this.timers.get(w)?.busy();
      this.timers.delete(w);
      const job = this.busy.get(w);
      this.busy.delete(w);
      const i = this.idle.indexOf(w);
      if (i >= 0) this.idle.splice(i, 1);
      job?.reject(new Error(`${this.o.name} worker ${why}`));
      if (!this.closed) this.pump();
    };
    w.on('error', (e) => fail(`failed: ${e.message}`));
    w.on('exit', (code) => fail(`exited with code ${code}`));
    return w;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers.values()) t.busy();
    for (const job of this.queue.splice(0)) job.reject(new Error(`${this.o.name}: the pool is closed`));
    await Promise.all([...this.idle, ...this.busy.keys()].map((w) => w.terminate()));
  }
}

/**
 * How much nicer than the thread that starts them worker threads run. On a box with few cores the event loop
 * competes with the workers for CPU; workers that yield to it (the scheduler lets a woken loop preempt a
 * lower-priority thread) keep requests answered while they list or hash passwords (issue #17). Not for a
 * worker that consumes a stream the loop produces with back-pressure (the hashing engine's ring): there the
 * loop waits for the worker, and a worker starved whenever the loop and the client are both running turns
 * the pipeline into a relay race (see `lowerWorkerPriority`'s offset argument).
 */
export const WORKER_NICE_OFFSET = 10;

/**
 * Lowers the calling worker thread's scheduling priority by `offset` (default WORKER_NICE_OFFSET; at most to
 * nice 19; 0 or less: no change). Linux: setpriority on the thread's own id, read from /proc/thread-self;
 * making a thread nicer needs no privilege. Elsewhere, or when refused, the thread keeps its priority. Does
 * nothing on the main thread.
 */
export function lowerWorkerPriority(offset = WORKER_NICE_OFFSET): void {
  if (isMainThread || offset <= 0) return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, Math.min(19, getPriority(tid) + offset));
  } catch {
    // not Linux, or /proc is not mounted: the worker runs at the process's priority
  }
}

/** The worker side: answers each request with `handler`'s result or its error (name, message, own fields). */
export function serveWorker<Req, Res>(handler: (req: Req) => Res | Promise<Res>): void {
  const port = parentPort;
  if (!port) throw new Error('serveWorker must run in a worker thread');
  lowerWorkerPriority();
  port.on('message', async (m: { id: number; req: Req }) => {
    try {
      port.postMessage({ id: m.id, ok: await handler(m.req) });
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      port.postMessage({ id: m.id, err: { ...(err as unknown as Record<string, unknown>), name: err.name, message: err.message } });
    }
  });
}
