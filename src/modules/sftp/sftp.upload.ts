/**
 * One SFTP upload (a handle opened for writing): WRITE requests at any offsets become the one
 * ordered stream the upload service stores (the same two-phase pipeline as HTTP uploads).
 *
 *  - Pipelined: a WRITE is answered as soon as its bytes are accepted, not when they reach the
 *    disk (the storage batches them); the reply waits only while the upload buffer is full,
 *    which is the back-pressure the client feels (it keeps a bounded number of requests in flight).
 *  - Out of order: a WRITE ahead of the next expected offset is held until the bytes before it
 *    arrive (clients with concurrent writers send them so). What is held is bounded per session
 *    (`HeldBudget`); past the bound, or on a write that overlaps bytes already sent, the upload is
 *    cancelled with a clear message.
 *  - All or nothing: any failure, a gap left at CLOSE, or an abort (session end, lost rights)
 *    cancels the upload; the file appears only once CLOSE has stored and committed every byte.
 */
import { PassThrough, type Readable } from 'node:stream';
import { failure } from './sftp.util.js';

/** Buffered upload bytes per handle before WRITE replies wait. */
export const UPLOAD_BUFFER = 1 << 20;
/** Bytes of out-of-order writes one session may hold (OpenSSH's client keeps 2 MiB in flight). */
export const MAX_HELD_BYTES = 16 << 20;

/** The out-of-order bytes held by every upload of one session. */
export interface HeldBudget {
  bytes: number;
}

/** Called once per WRITE: null when accepted, else why the upload failed. */
export type WriteReply = (err: Error | null) => void;

const MiB = (n: number) => `${Math.round(n / (1 << 20))} MiB`;

export class SftpUpload {
  /** Next expected offset = bytes passed on in order. */
  private next = 0;
  /** Writes ahead of `next`, by offset. */
  private readonly held = new Map<number, Buffer>();
  private heldBytes = 0;
  /** Replies waiting for the buffer to drain. */
  private waiting: WriteReply[] = [];
  private readonly pass = new PassThrough({ highWaterMark: UPLOAD_BUFFER });
  private error: Error | null = null;
  private settled = false;
  /** The upload: resolves once committed or failed (the failure lands in `error`). */
  private readonly done: Promise<void>;

  /** `store` consumes the stream and commits the file when it ends (UploadService.store). */
  constructor(
    store: (body: Readable) => Promise<void>,
    private readonly budget: HeldBudget,
  ) {
    this.pass.on('error', () => undefined); // reported through `error`
    this.pass.on('drain', () => this.release());
    this.pass.on('close', () => this.release());
    this.done = store(this.pass).then(
      () => {
        this.settled = true;
      },
      (e: unknown) => {
        this.settled = true;
        this.fail(e instanceof Error ? e : new Error(String(e)));
      },
    );
  }

  /** Bytes the client has written so far, holes included (FSTAT). */
  get size(): number {
    let end = this.next;
    for (const [off, b] of this.held) end = Math.max(end, off + b.length);
    return end;
  }

  /** A WRITE of `data` at `offset`; `reply` is called exactly once. */
  write(offset: number, data: Buffer, reply: WriteReply): void {
    if (this.error) return reply(this.failed());
    if (data.length === 0) return reply(null);
    const end = offset + data.length;
    if (offset < this.next || this.overlapsHeld(offset, end)) {
      this.fail(failure(`overlapping write at offset ${offset}: those bytes were already sent, and Ferry stores SFTP uploads as one stream that cannot be rewritten; the upload was cancelled`));
      return reply(this.failed());
    }
    if (offset > this.next) {
      if (this.budget.bytes + data.length > MAX_HELD_BYTES) {
        this.fail(
          failure(
            `out-of-order write at offset ${offset} (expected ${this.next}): more than ${MiB(MAX_HELD_BYTES)} would wait for earlier bytes; Ferry stores SFTP uploads as one stream; the upload was cancelled`,
          ),
        );
        return reply(this.failed());
      }
      this.held.set(offset, data);
      this.heldBytes += data.length;
      this.budget.bytes += data.length;
      return reply(null);
    }
    let room = this.push(data);
    for (let h = this.held.get(this.next); h; h = this.held.get(this.next)) {
      this.unhold(this.next, h);
      room = this.push(h);
    }
    if (room) reply(null);
    else this.waiting.push(reply);
  }

  /** CLOSE: stores what is left and commits; throws (nothing committed) if the upload failed. */
  async close(): Promise<void> {
    if (!this.error && this.held.size > 0) {
      const first = Math.min(...this.held.keys());
      this.fail(failure(`the upload has a gap: bytes ${this.next} to ${first - 1} were never written; the upload was cancelled`));
    }
    if (!this.error) this.pass.end();
    await this.done;
    if (this.error) throw this.failed();
  }

  /** Cancels an unfinished upload (nothing is committed); resolves once it is cleaned up. */
  abort(err: Error): Promise<void> {
    if (!this.settled) this.fail(err);
    return this.done;
  }

  private push(b: Buffer): boolean {
    this.next += b.length;
    return this.pass.write(b);
  }

  private unhold(offset: number, b: Buffer): void {
    this.held.delete(offset);
    this.heldBytes -= b.length;
    this.budget.bytes -= b.length;
  }

  private overlapsHeld(start: number, end: number): boolean {
    for (const [off, b] of this.held) if (start < off + b.length && off < end) return true;
    return false;
  }

  private failed(): Error {
    return failure(`upload failed: ${this.error!.message}`);
  }

  private fail(err: Error): void {
    this.error ??= err;
    this.budget.bytes -= this.heldBytes;
    this.heldBytes = 0;
    this.held.clear();
    this.pass.destroy(this.error);
    this.release();
  }

  private release(): void {
    const w = this.waiting;
    this.waiting = [];
    for (const reply of w) reply(this.error ? this.failed() : null);
  }
}
