// A small pool of hashing worker threads, shared by every job in the process.
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { IdleTimer, spawnWorker, WORKER_IDLE_MS } from '../../../lib/worker-pool.js';
import { algorithmCosts } from './job-plan.js';
import type { AlgorithmCosts } from './job-plan.js';
import { RING_HEADER_BYTES } from './protocol.js';
import type { FromWorker, ToWorker } from './protocol.js';

export interface HashPoolOptions {
  /** Number of worker threads; default: the available parallelism, clamped to 1…4. */
  size?: number;
  /** Relative per-byte costs of the algorithms; default: measured once on this machine. */
  costs?: AlgorithmCosts;
  /** A worker without jobs for this many milliseconds exits (default `WORKER_IDLE_MS`). */
  idleMs?: number;
}

type Handler = (m: FromWorker) => void;

export class PoolWorker {
  readonly handlers = new Map<number, Handler>();
  private dead = false;
  private readonly idle: IdleTimer;

  constructor(
    readonly worker: Worker,
    private readonly onDeath: (w: PoolWorker) => void,
    idleMs = WORKER_IDLE_MS,
  ) {
    worker.unref();
    // an isolate of its own (~10–20 MB of RSS): a worker without jobs leaves its slot and exits
    this.idle = new IdleTimer(idleMs, () => {
      if (this.dead || this.handlers.size > 0) return;
      this.dead = true;
      this.onDeath(this);
      void worker.terminate();
    });
    this.idle.idle();
    worker.on('message', (m: FromWorker) => this.handlers.get(m.job)?.(m));
    const fail = (message: string) => {
      this.idle.busy();
      if (this.dead) return;
      this.dead = true;
      this.onDeath(this);
      for (const [job, h] of [...this.handlers]) h({ t: 'error', job, message });
      this.handlers.clear();
    };
    worker.on('error', (err) => fail(`hash worker failed: ${err.message}`));
    worker.on('exit', (code) => fail(`hash worker exited with code ${code}`));
  }

  get load(): number {
    return this.handlers.size;
  }

  attach(job: number, h: Handler): void {
    if (this.handlers.size === 0) this.worker.ref();
    this.idle.busy();
    this.handlers.set(job, h);
  }

  detach(job: number): void {
    if (this.handlers.delete(job) && this.handlers.size === 0) {
      this.worker.unref();
      this.idle.idle();
    }
  }

  post(m: ToWorker): void {
    this.worker.postMessage(m);
  }
}

let nextJob = 1;

export class HashPool {
  readonly size: number;
  private readonly slots: (PoolWorker | undefined)[];
  private readonly freeRings: SharedArrayBuffer[] = [];
  private readonly costsOverride: AlgorithmCosts | undefined;
  private readonly idleMs: number | undefined;
  private destroyed = false;

  constructor(opts: HashPoolOptions = {}) {
    this.size = Math.max(1, Math.floor(opts.size ?? Math.min(4, Math.max(1, availableParallelism()))));
    this.slots = new Array<PoolWorker | undefined>(this.size).fill(undefined);
    this.costsOverride = opts.costs;
    this.idleMs = opts.idleMs;
  }

  costs(): AlgorithmCosts {
    return this.costsOverride ?? algorithmCosts();
  }

  newJobId(): number {
    return nextJob++;
  }

  /** `n` workers (spawned on demand), least busy first. */
  pick(n: number): PoolWorker[] {
    if (this.destroyed) throw new Error('hash pool destroyed');
    for (let i = 0; i < this.size; i++) {
      if (!this.slots[i]) {
        const pw: PoolWorker = new PoolWorker(
          spawnWorker(new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url), 'ferry-hash'),
          (dead) => {
            const at = this.slots.indexOf(dead);
            if (at >= 0) this.slots[at] = undefined;
            // the last worker gone: the reusable rings (MiBs each) go too
            if (this.started === 0) this.freeRings.length = 0;
          },
          this.idleMs,
        );
        this.slots[i] = pw;
      }
    }
    const all = this.slots.filter((w): w is PoolWorker => w !== undefined);
    return all
      .map((w, i) => ({ w, i }))
      .sort((a, b) => a.w.load - b.w.load || a.i - b.i)
      .slice(0, Math.min(n, all.length))
      .map((e) => e.w);
  }

  /** Jobs currently attached to a worker (each counted once per participating worker). */
  get busy(): number {
    return this.slots.reduce((n, w) => n + (w?.load ?? 0), 0);
  }

  /** Workers started so far. */
  get started(): number {
    return this.slots.filter(Boolean).length;
  }

  /** A zero-based ring of `bytes` payload bytes plus the control header; reused between jobs. */
  takeRing(bytes: number): SharedArrayBuffer {
    const i = this.freeRings.findIndex((r) => r.byteLength === bytes + RING_HEADER_BYTES);
    if (i >= 0) {
      const r = this.freeRings.splice(i, 1)[0]!;
      new Int32Array(r, 0, RING_HEADER_BYTES / 4).fill(0);
      return r;
    }
    return new SharedArrayBuffer(bytes + RING_HEADER_BYTES);
  }

  giveRing(r: SharedArrayBuffer): void {
    if (!this.destroyed && this.freeRings.length < this.size) this.freeRings.push(r);
  }

  /** Terminates the workers; jobs still running fail. */
  async destroy(): Promise<void> {
    this.destroyed = true;
    this.freeRings.length = 0;
    const ws = this.slots.filter((w): w is PoolWorker => w !== undefined);
    this.slots.fill(undefined);
    await Promise.all(ws.map((w) => w.worker.terminate()));
  }
}

let shared: HashPool | undefined;

/** The process-wide pool (idle workers do not keep the process alive). */
export function defaultHashPool(): HashPool {
  shared ??= new HashPool();
  return shared;
}
