// Main-thread side of one job running on the pool: a SharedArrayBuffer byte ring the caller
// writes into, segment messages to every participating worker, acks that free the space.
//
// Ring protocol: `written` counts bytes put into the ring, `consumed[w]` the bytes worker w has
// hashed. Free space is ring − (written − min consumed). A segment never wraps the ring; it is
// sent when it reaches `segment` bytes, at the ring end, when a file ends, or FLUSH_DELAY_MS
// after its first byte (slow producers).
// Every worker sees every byte: whole-hash lanes sit on one worker each, piece lanes are
// shared by piece ownership (lanes.ts), so the bytes are read by all but copied by none.
import type { FileLaneOutput, LaneSpec, PieceDigests } from './lanes.js';
import type { HashPool, PoolWorker } from './pool.js';
import { CTL_ABORTED, RING_HEADER_BYTES } from './protocol.js';
import type { FromWorker } from './protocol.js';

interface Waiter {
  need: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** Bytes waiting longer than this for their segment to fill are sent to the workers anyway. */
const FLUSH_DELAY_MS = 20;

export class WorkerJob {
  readonly id: number;
  private readonly workers: PoolWorker[];
  private readonly ring: SharedArrayBuffer;
  private readonly bytes: Buffer;
  private readonly ctl: Int32Array;
  private readonly size: number;
  private written = 0;
  private segStart = 0;
  private beginPending = false;
  private readonly consumed: number[];
  private readonly filesAcked: number[];
  private hashed = 0;
  /** Per file index, what each worker computed. */
  readonly fileOutputs: FileLaneOutput[][] = [];
  readonly torrentParts: PieceDigests[] = [];
  private waiter: Waiter | undefined;
  private closing: { left: number; resolve: () => void; reject: (e: unknown) => void } | undefined;
  private readonly settled: boolean[];
  private failure: unknown;
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pool: HashPool,
    planFor: (workers: number) => LaneSpec[][],
    ringBytes: number,
    private readonly segment: number,
    private readonly onHashed: (bytes: number) => void,
  ) {
    this.id = pool.newJobId();
    this.size = ringBytes;
    const available = pool.pick(pool.size);
    const per = planFor(available.length);
    this.workers = available.slice(0, per.length);
    this.ring = pool.takeRing(ringBytes);
    this.bytes = Buffer.from(this.ring, RING_HEADER_BYTES, ringBytes);
    this.ctl = new Int32Array(this.ring, 0, RING_HEADER_BYTES / 4);
    this.consumed = this.workers.map(() => 0);
    this.filesAcked = this.workers.map(() => 0);
    this.settled = this.workers.map(() => false);
    this.workers.forEach((w, i) => {
      w.attach(this.id, (m) => this.onMessage(i, m));
      w.post({ t: 'open', job: this.id, sab: this.ring, lanes: per[i]! });
    });
  }

  private get free(): number {
    let min = Infinity;
    for (const c of this.consumed) if (c < min) min = c;
    return this.size - (this.written - min);
  }

  private onMessage(w: number, m: FromWorker): void {
    switch (m.t) {
      case 'ack': {
        this.consumed[w]! += m.len;
        if (m.file) (this.fileOutputs[this.filesAcked[w]!++] ??= []).push(m.file);
        let min = Infinity;
        for (const c of this.consumed) if (c < min) min = c;
        if (min > this.hashed) {
          this.hashed = min;
          this.onHashed(min);
        }
        const wt = this.waiter;
        if (wt && this.free >= wt.need) {
          this.waiter = undefined;
          wt.resolve();
        }
        return;
      }
      case 'closed':
        if (m.torrent) this.torrentParts.push(m.torrent);
        this.settle(w);
        if (this.closing && --this.closing.left === 0) this.closing.resolve();
        return;
      case 'cancelled':
        this.settle(w);
        return;
      case 'error':
        this.settle(w);
        this.fail(new Error(m.message));
        return;
    }
  }

  private settle(w: number): void {
    if (this.settled[w]) return;
    this.settled[w] = true;
    this.workers[w]!.detach(this.id);
    // An aborted job's ring may still be the target of a read in flight: never reuse it.
    if (this.settled.every(Boolean) && this.failure === undefined) this.pool.giveRing(this.ring);
  }

  /** Stops the job: workers skip what is queued and drop it; pending calls reject with `reason`. */
  fail(reason: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = reason;
    Atomics.store(this.ctl, CTL_ABORTED, 1);
    if (this.flushTimer !== undefined) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.workers.forEach((w, i) => {
      if (!this.settled[i]) w.post({ t: 'cancel', job: this.id });
    });
    const wt = this.waiter;
    this.waiter = undefined;
    wt?.reject(reason);
    const cl = this.closing;
    this.closing = undefined;
    cl?.reject(reason);
  }

  get failed(): boolean {
    return this.failure !== undefined;
  }

  /**
   * A writable view of the ring (at most `want` bytes, contiguous); resolves once the workers
   * have freed enough space. Call commit() with the bytes actually written before reserving again.
   */
  reserve(want: number): Buffer | Promise<Buffer> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    const off = this.written % this.size;
    // Never past the ring end nor past the current segment's end, so segments stay ≤ `segment`.
    const need = Math.max(1, Math.min(want, this.size - off, this.segment - (this.written - this.segStart)));
    const free = this.free;
    if (free >= need) return this.bytes.subarray(off, off + Math.min(need, free));
    return new Promise<void>((resolve, reject) => {
      this.waiter = { need, resolve, reject };
    }).then(() => this.reserve(want));
  }

  commit(n: number): void {
    this.written += n;
    if (this.written - this.segStart >= this.segment || this.written % this.size === 0) this.flush(false);
    else if (this.written > this.segStart && this.flushTimer === undefined) {
      // A slow producer (an upload, a throttled stream) must not leave bytes unhashed until a
      // whole segment has gathered: progress and the final wait would lag behind the source.
      this.flushTimer = setTimeout(() => {
        this.flushTimer = undefined;
        this.flush(false);
      }, FLUSH_DELAY_MS);
    }
  }

  /** Copies `chunk` into the ring, waiting for space as needed. */
  async write(chunk: Uint8Array): Promise<void> {
    let off = 0;
    while (off < chunk.length) {
      const r = this.reserve(chunk.length - off);
      const view = r instanceof Promise ? await r : r;
      const n = Math.min(view.length, chunk.length - off);
      view.set(off === 0 && n === chunk.length ? chunk : chunk.subarray(off, off + n));
      off += n;
      this.commit(n);
    }
  }

  beginFile(): void {
    this.beginPending = true;
  }

  endFile(): void {
    this.flush(true);
  }

  private flush(end: boolean): void {
    if (this.flushTimer !== undefined) {
      clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
    }
    const len = this.written - this.segStart;
    if (len === 0 && !end && !this.beginPending) return;
    if (this.failure !== undefined) return;
    const msg = { t: 'seg', job: this.id, off: this.segStart % this.size, len } as const;
    const full = this.beginPending ? (end ? { ...msg, b: 1, e: 1 } : { ...msg, b: 1 }) : end ? { ...msg, e: 1 } : msg;
    for (const w of this.workers) w.post(full as typeof msg);
    this.beginPending = false;
    this.segStart = this.written;
  }

  /** Asks every worker for its final digests; resolves once all have answered. */
  close(): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    this.flush(false);
    return new Promise<void>((resolve, reject) => {
      this.closing = { left: this.workers.length, resolve, reject };
      for (const w of this.workers) w.post({ t: 'close', job: this.id });
    });
  }
}
