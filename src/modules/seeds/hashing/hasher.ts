// The push-style hashing API: feed files chunk by chunk (for instance from an upload that is
// being written to storage at the same time) and get every selected digest from one pass.
import { Transform, Writable } from 'node:stream';
import { LaneSet } from './lanes.js';
import type { FileLaneOutput, PieceDigests } from './lanes.js';
import { normalizeSelection, planLanes, selectionIsEmpty, singleParticipantLanes } from './job-plan.js';
import type { NormalizedSelection } from './job-plan.js';
import { defaultHashPool } from './pool.js';
import type { HashPool } from './pool.js';
import { DEFAULT_INLINE_THRESHOLD, HASH_NAMES } from './types.js';
import type { FileHashes, HashOptions, HashResult, PieceHashes } from './types.js';
import { DIGEST_BYTES } from './lanes.js';
import { WorkerJob } from './worker-job.js';

/** Tuning knobs (measured in bench/hashing.ts); exposed for benchmarks. */
export interface HasherTuning {
  /** Shared ring per job, bytes. */
  ringBytes?: number;
  /** Bytes per segment message. */
  segmentBytes?: number;
}

const DEFAULT_RING = 16 * 1024 * 1024;
const DEFAULT_SEGMENT = 2 * 1024 * 1024;

type LogEntry = { t: 'begin' } | { t: 'data'; buf: Buffer } | { t: 'end' };

const abortError = (signal: AbortSignal | undefined): unknown =>
  signal?.reason ?? Object.assign(new Error('hashing aborted'), { name: 'AbortError' });

/**
 * One hashing job over a sequence of files. Calls are serialised internally, but each returns
 * a promise that resolves once its bytes are accepted (copied into the job's shared ring, or
 * buffered while the job is still small): awaiting it is the back-pressure.
 *
 * ```ts
 * const h = createHasher({ whole: ['md5', 'sha256'], pieces: ['sha1'], pieceSize: 1 << 20 });
 * await h.startFile();
 * for await (const chunk of body) await h.update(chunk);
 * await h.endFile();
 * const { files } = await h.finish();
 * ```
 */
export class Hasher {
  private readonly sel: NormalizedSelection;
  private readonly pool: HashPool;
  private readonly threshold: number;
  private readonly tuning: Required<HasherTuning>;
  private mode: 'pending' | 'workers' | 'inline' = 'pending';
  private log: LogEntry[] = [];
  private logBytes = 0;
  private job: WorkerJob | undefined;
  private inline: LaneSet | undefined;
  private inlineOutputs: FileLaneOutput[][] = [];
  private inlineTorrent: PieceDigests | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private error: unknown;
  private fileOpen = false;
  private readonly sizes: number[] = [];
  private total = 0;
  private finished = false;
  private readonly detachSignal: (() => void) | undefined;

  constructor(private readonly opts: HashOptions & HasherTuning = {}) {
    this.sel = normalizeSelection(opts);
    this.pool = opts.pool ?? defaultHashPool();
    this.threshold = Math.max(0, opts.inlineThreshold ?? DEFAULT_INLINE_THRESHOLD);
    const segment = Math.max(4096, opts.segmentBytes ?? DEFAULT_SEGMENT);
    this.tuning = { segmentBytes: segment, ringBytes: Math.max(2 * segment, opts.ringBytes ?? DEFAULT_RING) };
    const signal = opts.signal;
    if (signal) {
      if (signal.aborted) this.error = abortError(signal);
      const onAbort = () => this.abort(abortError(signal));
      signal.addEventListener('abort', onAbort, { once: true });
      this.detachSignal = () => signal.removeEventListener('abort', onAbort);
    }
    if (selectionIsEmpty(this.sel)) this.startInline();
    else if (this.error === undefined && opts.expectedSize !== undefined && opts.expectedSize > this.threshold) this.startWorkers();
  }

  /** Bytes accepted so far. */
  get bytesWritten(): number {
    return this.total;
  }

  private enqueue<T>(op: () => T | Promise<T>): Promise<T> {
    const p = this.chain.then(() => {
      if (this.error !== undefined) throw this.error;
      if (this.finished) throw new Error('hasher already finished');
      return op();
    });
    this.chain = p.catch(() => undefined);
    return p;
  }

  /** Starts the next file (ends the current one first, if open). */
  startFile(): Promise<void> {
    return this.enqueue(() => {
      if (this.fileOpen) this.doEndFile();
      this.doStartFile();
    });
  }

  /** Adds bytes to the current file (starting one if none is open). The chunk may be reused once the promise resolves. */
  update(chunk: Uint8Array): Promise<void> {
    return this.enqueue(() => this.doUpdate(chunk));
  }

  /**
   * Zero-copy variant of update(): `fill` receives a buffer to write up to `buf.length` bytes
   * into (e.g. `fh.read(buf, 0, buf.length, pos)`) and returns how many it wrote. Resolves with that count.
   */
  fill(fill: (buf: Buffer) => Promise<number>, max = this.tuning.segmentBytes): Promise<number> {
    return this.enqueue(async () => {
      if (!this.fileOpen) this.doStartFile();
      if (this.mode === 'workers') {
        const r = this.job!.reserve(max);
        const view = r instanceof Promise ? await r : r;
        const n = await fill(view);
        if (this.error !== undefined) throw this.error;
        if (n > 0) {
          this.total += n;
          this.sizes[this.sizes.length - 1]! += n;
          this.job!.commit(n);
        }
        return n;
      }
      const buf = Buffer.allocUnsafe(Math.min(max, Math.max(this.threshold + 1 - this.logBytes, 64 * 1024)));
      const n = await fill(buf);
      if (n > 0) await this.doUpdate(buf.subarray(0, n), false);
      return n;
    });
  }

  /** Ends the current file. */
  endFile(): Promise<void> {
    return this.enqueue(() => {
      if (this.fileOpen) this.doEndFile();
    });
  }

  /** Ends the open file and returns every digest. */
  finish(): Promise<HashResult> {
    return this.enqueue(async () => {
      try {
        if (this.fileOpen) this.doEndFile();
        if (this.mode === 'pending') this.startInline();
        if (this.mode === 'workers') await this.job!.close();
        else this.inlineTorrent = this.inline!.finish();
        this.finished = true;
        return this.assemble();
      } finally {
        this.detachSignal?.();
      }
    });
  }

  /** Cancels the job; every pending or later call rejects with `reason`. */
  abort(reason: unknown = abortError(undefined)): void {
    if (this.error !== undefined || this.finished) return;
    this.error = reason;
    this.job?.fail(reason);
    this.log = [];
    this.detachSignal?.();
  }

  /**
   * A pass-through stream for the "tee" case: bytes written to it are hashed as the current
   * file and passed on unchanged once accepted, e.g.
   * `await pipeline(request, hasher.tee(), storageWriteStream); const r = await hasher.finish();`.
   * It does not end the file; finish() does.
   */
  tee(): Transform {
    return new Transform({
      transform: (chunk: Buffer, _enc, cb) => {
        this.update(chunk).then(
          () => cb(null, chunk),
          (e: unknown) => cb(e as Error),
        );
      },
    });
  }

  /** A sink that hashes what is written to it as the current file; final() ends the file. */
  writable(): Writable {
    return new Writable({
      write: (chunk: Buffer, _enc, cb) => {
        this.update(chunk).then(
          () => cb(),
          (e: unknown) => cb(e as Error),
        );
      },
      final: (cb) => {
        this.endFile().then(
          () => cb(),
          (e: unknown) => cb(e as Error),
        );
      },
    });
  }

  private onHashed = (bytes: number): void => {
    this.opts.onProgress?.(bytes);
  };

  private startInline(): void {
    this.mode = 'inline';
    this.inline = new LaneSet(singleParticipantLanes(this.sel));
    const log = this.log;
    this.log = [];
    let done = 0;
    for (const e of log) {
      if (e.t === 'begin') this.inline.beginFile();
      else if (e.t === 'end') this.inlineOutputs.push([this.inline.endFile()]);
      else {
        this.inline.update(e.buf);
        done += e.buf.length;
      }
    }
    if (done > 0) this.onHashed(done);
  }

  private startWorkers(): void {
    const sel = this.sel;
    const costs = this.pool.costs();
    this.job = new WorkerJob(this.pool, (k) => planLanes(sel, k, costs), this.tuning.ringBytes, this.tuning.segmentBytes, this.onHashed);
    this.mode = 'workers';
  }

  /** Moves the buffered start of a job that outgrew the inline threshold to the workers. */
  private async promote(): Promise<void> {
    this.startWorkers();
    const log = this.log;
    this.log = [];
    this.logBytes = 0;
    for (const e of log) {
      if (e.t === 'begin') this.job!.beginFile();
      else if (e.t === 'end') this.job!.endFile();
      else await this.job!.write(e.buf);
    }
  }

  private doStartFile(): void {
    this.fileOpen = true;
    this.sizes.push(0);
    if (this.mode === 'workers') this.job!.beginFile();
    else if (this.mode === 'inline') this.inline!.beginFile();
    else this.log.push({ t: 'begin' });
  }

  private doEndFile(): void {
    this.fileOpen = false;
    if (this.mode === 'workers') this.job!.endFile();
    else if (this.mode === 'inline') this.inlineOutputs.push([this.inline!.endFile()]);
    else this.log.push({ t: 'end' });
  }

  private async doUpdate(chunk: Uint8Array, copy = true): Promise<void> {
    if (!this.fileOpen) this.doStartFile();
    if (chunk.length === 0) return;
    this.total += chunk.length;
    this.sizes[this.sizes.length - 1]! += chunk.length;
    if (this.mode === 'workers') return this.job!.write(chunk);
    if (this.mode === 'inline') {
      this.inline!.update(chunk);
      this.onHashed(this.total);
      return;
    }
    if (this.logBytes + chunk.length > this.threshold) {
      await this.promote();
      return this.job!.write(chunk);
    }
    this.log.push({ t: 'data', buf: copy ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length) });
    this.logBytes += chunk.length;
  }

  private assemble(): HashResult {
    const outputs = this.mode === 'workers' ? this.job!.fileOutputs : this.inlineOutputs;
    const files: FileHashes[] = this.sizes.map((size, i) => this.mergeFile(size, outputs[i] ?? []));
    const result: HashResult = { files, totalBytes: this.total };
    const tps = this.sel.torrentPieceSize;
    if (tps !== undefined) {
      const parts = this.mode === 'workers' ? this.job!.torrentParts : this.inlineTorrent ? [this.inlineTorrent] : [];
      result.torrentPieces = gather(parts, Math.ceil(this.total / tps), 20, 'torrent');
    }
    return result;
  }

  private mergeFile(size: number, outs: FileLaneOutput[]): FileHashes {
    const fh: FileHashes = { size };
    for (const alg of HASH_NAMES) {
      if (!this.sel.whole.includes(alg)) continue;
      const hex = outs.find((o) => o.whole[alg] !== undefined)?.whole[alg];
      if (hex === undefined) throw new Error(`internal: no ${alg} digest for a file of ${size} bytes`);
      fh[alg] = hex;
    }
    if (this.sel.pieces.length > 0) {
      const pieces: PieceHashes = {};
      const n = Math.ceil(size / this.sel.pieceSize);
      for (const alg of this.sel.pieces) {
        const parts = outs.map((o) => o.pieces[alg]).filter((d): d is PieceDigests => d !== undefined);
        const raw = gather(parts, n, DIGEST_BYTES[alg], `${alg} pieces`);
        const w = DIGEST_BYTES[alg];
        const list = new Array<string>(n);
        for (let i = 0; i < n; i++) list[i] = raw.toString('hex', i * w, (i + 1) * w);
        pieces[alg] = list;
      }
      fh.pieces = pieces;
    }
    return fh;
  }
}

/** Places each participant's digests at their piece index; every index must be covered once. */
function gather(parts: PieceDigests[], n: number, width: number, what: string): Buffer {
  const out = Buffer.alloc(n * width);
  let seen = 0;
  for (const p of parts) {
    const dig = Buffer.from(p.dig.buffer, p.dig.byteOffset, p.dig.byteLength);
    for (let i = 0; i < p.idx.length; i++) {
      const at = p.idx[i]!;
      if (at >= n) throw new Error(`internal: ${what} index ${at} out of range ${n}`);
      dig.copy(out, at * width, i * width, (i + 1) * width);
      seen++;
    }
  }
  if (seen !== n) throw new Error(`internal: ${what}: got ${seen} digests, expected ${n}`);
  return out;
}

export function createHasher(opts: HashOptions & HasherTuning = {}): Hasher {
  return new Hasher(opts);
}
