/**
 * The driver-independent half of a two-phase write: a Writable sink that counts, enforces the
 * declared size, hashes (one pass, through the injected engine: worker threads in the server) and
 * forwards chunks to the driver; commit/abort bookkeeping; automatic abort when the stream is
 * destroyed with an error (client disconnect).
 *
 * Receiving, hashing and storing overlap: chunks gather into batches of `batchBytes`; while the
 * driver stores one batch (and the engine copies it for hashing), the next one gathers. Big
 * batches keep the per-call costs (a thread-pool round trip per write) off the per-chunk path.
 */
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DriverError, HASH_NAMES, type CommitOptions, type Entry, type HashEngine, type HashName, type Hashes, type PendingWrite, type StreamHasher, type WriteOptions } from './types.js';
import { normalizeHashes } from '../../../lib/hashes.js';
import { assertHashesAgree, toError } from './util.js';

/** How a driver's writes hash: the engine, and the digests recorded unless the caller says otherwise. */
export interface WriteHashing {
  engine: HashEngine;
  /** The storage's `hash_on_write`. */
  onWrite: readonly HashName[];
}

type State = 'open' | 'committing' | 'committed' | 'aborted';

export abstract class BasePendingWrite implements PendingWrite {
  readonly stream: Writable;
  private written = 0;
  private state: State = 'open';
  private readonly hasher: StreamHasher | null;
  private abortPromise: Promise<void> | null = null;
  private streamError: Error | null = null;
  /** The sink/finish call in progress; discard waits for it so nothing lands after cleanup. */
  private inflight: Promise<void> | null = null;
  /** The batch gathering, and the one being stored. */
  private batch: Buffer[] = [];
  private batchLen = 0;
  private storing: Promise<void> | null = null;
  protected readonly declaredSize: number | undefined;
  protected readonly expected: Hashes;

  protected constructor(
    readonly path: string,
    protected readonly opts: WriteOptions,
    hashing: WriteHashing,
    private readonly batchBytes = 1 << 20,
  ) {
    this.declaredSize = opts.size;
    if (this.declaredSize !== undefined && !(Number.isSafeInteger(this.declaredSize) && this.declaredSize >= 0)) {
      throw new DriverError('invalid_operation', `invalid size ${String(opts.size)}`, { path });
    }
    this.expected = normalizeHashes(opts.expectedHashes);
    // a declared digest is always checked, whatever the storage records on write
    const declared = HASH_NAMES.filter((n) => this.expected[n]);
    const compute = opts.computeHashes ?? HASH_NAMES.filter((n) => hashing.onWrite.includes(n) || declared.includes(n) || opts.alsoHash?.includes(n));
    this.hasher = compute.length ? hashing.engine(compute, this.declaredSize) : null;
    this.stream = new Writable({
      // what may wait here while a full batch waits for the previous one to be stored
      highWaterMark: Math.min(batchBytes, 256 * 1024),
      write: (chunk: Buffer, _enc, cb) => {
        try {
          if (!this.accept(chunk)) return cb();
        } catch (e) {
          return cb(toError(e));
        }
        this.track(this.dispatch()).then(() => cb(), (e: unknown) => cb(toError(e)));
      },
      final: (cb) => {
        if (this.state !== 'open') return cb(new DriverError('aborted', 'write is no longer open', { path }));
        this.track(
          (async () => {
            await this.dispatch();
            await this.storing;
            await this.finish();
          })(),
        ).then(() => cb(), (e: unknown) => cb(toError(e)));
      },
      destroy: (err, cb) => {
        if (err) {
          this.streamError ??= err;
          this.abort(err).then(() => cb(err), () => cb(err));
        } else cb(null);
      },
    });
  }

  get bytesWritten(): number {
    return this.written;
  }

  /** Stores a batch of chunks, `bytes` in all (called in order, one at a time; awaiting it applies back-pressure). */
  protected abstract sink(chunks: Buffer[], bytes: number): Promise<void>;
  /** All bytes were written (stream ended). */
  protected abstract finish(): Promise<void>;
  /** Makes the data visible at `path`. `hashes` = computed ∪ caller-supplied. */
  protected abstract publish(hashes: Hashes): Promise<Entry>;
  /** Drops the data; must tolerate any stage of progress and be called at most once. */
  protected abstract discard(): Promise<void>;

  private track(p: Promise<void>): Promise<void> {
    this.inflight = p;
    return p;
  }

  /** Counts and checks a chunk and adds it to the batch; true when the batch is full. */
  private accept(chunk: Buffer): boolean {
    if (this.state !== 'open') throw new DriverError('aborted', 'write is no longer open', { path: this.path });
    if (this.declaredSize !== undefined && this.written + chunk.length > this.declaredSize) {
      throw new DriverError('size_mismatch', `more than the declared ${this.declaredSize} bytes`, { path: this.path });
    }
    this.written += chunk.length;
    if (chunk.length === 0) return false;
    this.batch.push(chunk);
    this.batchLen += chunk.length;
    return this.batchLen >= this.batchBytes;
  }

  /**
   * Waits for the previous batch to be stored (its failure fails this call), then starts storing
   * the gathered one without waiting for it: the next batch gathers meanwhile.
   */
  private async dispatch(): Promise<void> {
    await this.storing;
    if (this.state !== 'open') throw new DriverError('aborted', 'write is no longer open', { path: this.path });
    if (this.batchLen === 0) return;
    const chunks = this.batch;
    const bytes = this.batchLen;
    this.batch = [];
    this.batchLen = 0;
    const h = this.hasher;
    // the engine copies the bytes while the driver stores them
    const p = h ? Promise.all([...chunks.map((c) => h.update(c)), this.sink(chunks, bytes)]).then(() => undefined) : this.sink(chunks, bytes);
    p.catch(() => undefined); // observed by the next dispatch, final() or abort()
    this.storing = p;
  }

  async pipeFrom(src: Readable | AsyncIterable<Uint8Array>): Promise<number> {
    try {
      await pipeline(src, this.stream);
    } catch (e) {
      await this.abort(e);
      throw e instanceof DriverError ? e : new DriverError('aborted', `upload stream failed: ${toError(e).message}`, { path: this.path, cause: e });
    }
    return this.written;
  }

  async commit(copts: CommitOptions = {}): Promise<Entry> {
    if (this.state !== 'open') {
      throw new DriverError('aborted', `cannot commit: write is ${this.state}`, { path: this.path, cause: this.streamError ?? undefined });
    }
    try {
      await this.endStream();
      if (this.state !== 'open') throw new DriverError('aborted', 'write was aborted', { path: this.path });
      this.state = 'committing';
      if (this.declaredSize !== undefined && this.written !== this.declaredSize) {
        throw new DriverError('size_mismatch', `received ${this.written} bytes, declared ${this.declaredSize}`, { path: this.path });
      }
      const computed = this.hasher ? await this.hasher.digest() : {};
      const supplied = normalizeHashes(copts.hashes);
      assertHashesAgree(this.path, supplied, computed, 'supplied vs computed');
      const all: Hashes = { ...supplied, ...computed };
      const unchecked = HASH_NAMES.filter((n) => this.expected[n] && !all[n]);
      if (unchecked.length) throw new DriverError('invalid_operation', `declared ${unchecked.join(', ')} was neither computed nor supplied`, { path: this.path });
      assertHashesAgree(this.path, this.expected, all, 'declared vs received');
      const entry = await this.publish(all);
      this.state = 'committed';
      return entry;
    } catch (e) {
      this.state = 'open'; // let abort() run its cleanup
      await this.abort(e);
      throw e;
    }
  }

  abort(reason?: unknown): Promise<void> {
    if (this.state === 'committed') return Promise.resolve();
    this.state = 'aborted';
    this.streamError ??= reason === undefined ? null : toError(reason);
    this.hasher?.abort(this.streamError ?? new DriverError('aborted', 'write aborted', { path: this.path }));
    if (!this.abortPromise) {
      if (!this.stream.destroyed) this.stream.destroy();
      const pending = this.inflight;
      const storing = this.storing;
      this.batch = [];
      this.batchLen = 0;
      this.abortPromise = (async () => {
        await pending?.catch(() => undefined);
        await storing?.catch(() => undefined);
        await this.discard();
      })().catch(() => undefined);
    }
    return this.abortPromise;
  }

  private async endStream(): Promise<void> {
    const s = this.stream;
    if (s.writableFinished) return;
    if (s.destroyed) throw new DriverError('aborted', 'upload stream was destroyed', { path: this.path, cause: this.streamError ?? undefined });
    await new Promise<void>((resolve, reject) => {
      const onFinish = () => {
        s.off('error', onError);
        resolve();
      };
      const onError = (e: Error) => {
        s.off('finish', onFinish);
        reject(e);
      };
      s.once('finish', onFinish);
      s.once('error', onError);
      if (!s.writableEnded) s.end();
    });
  }
}
