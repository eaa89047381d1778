/**
 * The driver-independent half of a two-phase write: a Writable sink that counts, enforces the
 * declared size, hashes (one pass) and forwards chunks to the driver; commit/abort bookkeeping;
 * automatic abort when the stream is destroyed with an error (client disconnect).
 */
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DriverError, HASH_NAMES, type CommitOptions, type Entry, type Hashes, type PendingWrite, type WriteOptions } from './types.js';
import { normalizeHashes } from '../../../lib/hashes.js';
import { MultiHasher, assertHashesAgree, toError } from './util.js';

type State = 'open' | 'committing' | 'committed' | 'aborted';

export abstract class BasePendingWrite implements PendingWrite {
  readonly stream: Writable;
  private written = 0;
  private state: State = 'open';
  private readonly hasher: MultiHasher | null;
  private abortPromise: Promise<void> | null = null;
  private streamError: Error | null = null;
  /** The sink/finish call in progress; discard waits for it so nothing lands after cleanup. */
  private inflight: Promise<void> | null = null;
  protected readonly declaredSize: number | undefined;
  protected readonly expected: Hashes;

  protected constructor(
    readonly path: string,
    protected readonly opts: WriteOptions,
    highWaterMark = 1 << 20,
  ) {
    const compute = opts.computeHashes ?? HASH_NAMES;
    this.hasher = compute.length ? new MultiHasher(compute) : null;
    this.declaredSize = opts.size;
    if (this.declaredSize !== undefined && !(Number.isSafeInteger(this.declaredSize) && this.declaredSize >= 0)) {
      throw new DriverError('invalid_operation', `invalid size ${String(opts.size)}`, { path });
    }
    this.expected = normalizeHashes(opts.expectedHashes);
    this.stream = new Writable({
      highWaterMark,
      write: (chunk: Buffer, _enc, cb) => {
        this.track(this.accept(chunk)).then(() => cb(), (e: unknown) => cb(toError(e)));
      },
      final: (cb) => {
        if (this.state !== 'open') return cb(new DriverError('aborted', 'write is no longer open', { path }));
        this.track(this.finish()).then(() => cb(), (e: unknown) => cb(toError(e)));
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

  /** Stores one chunk (called in order, one at a time; awaiting it applies back-pressure). */
  protected abstract sink(chunk: Buffer): Promise<void>;
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

  private async accept(chunk: Buffer): Promise<void> {
    if (this.state !== 'open') throw new DriverError('aborted', 'write is no longer open', { path: this.path });
    if (this.declaredSize !== undefined && this.written + chunk.length > this.declaredSize) {
      throw new DriverError('size_mismatch', `more than the declared ${this.declaredSize} bytes`, { path: this.path });
    }
    this.written += chunk.length;
    this.hasher?.update(chunk);
    await this.sink(chunk);
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
      const computed = this.hasher?.digest() ?? {};
      const supplied = normalizeHashes(copts.hashes);
      assertHashesAgree(this.path, supplied, computed, 'supplied vs computed');
      const all: Hashes = { ...supplied, ...computed };
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
    if (!this.abortPromise) {
      if (!this.stream.destroyed) this.stream.destroy();
      const pending = this.inflight;
      this.abortPromise = (async () => {
        await pending?.catch(() => undefined);
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
