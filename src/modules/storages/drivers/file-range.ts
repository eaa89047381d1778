/**
 * A byte range of an open file (the local driver's `read`), readable two ways:
 *
 * - as an ordinary `Readable` (seed generation, copies to another storage, small reads): each chunk a
 *   fresh buffer, since a consumer may keep it;
 * - with `sendTo(dest)` (HTTP downloads, fs/serve-file.ts): reads of CHUNK_BYTES into a few buffers that
 *   are reused once `dest` has taken them (its write callback), written straight to `dest` with no stream
 *   layer between. Fresh buffers of this size are each mapped and faulted in by the allocator and unmapped
 *   again (the server runs with MALLOC_TRIM_THRESHOLD_, which keeps glibc's mmap threshold at 128 KiB):
 *   that page-fault work cost more CPU than the copies themselves (issue #17, row 4).
 *
 * Either way, `hooks.chunk` sees every chunk before it leaves (the hash index is filled on whole reads;
 * it resolves once the chunk may be reused) and `hooks.end` is awaited once: `true` after the last byte,
 * before the end is signalled; `false` when the read stops early (client gone, error, file shrank).
 */
import type { FileHandle } from 'node:fs/promises';
import { Readable, type Writable } from 'node:stream';

/**
 * Bytes per read. `sendTo` keeps at most SEND_BUFFERS of them per download (512 KiB, what a read stream and
 * the socket held before): one is read into while the other is being written, and a slow client holds no more.
 */
export const CHUNK_BYTES = 256 * 1024;
const SEND_BUFFERS = 2;

export interface RangeHooks {
  chunk?(bytes: Buffer): Promise<void>;
  end?(complete: boolean): Promise<void>;
}

/** A read whose bytes can be written straight to a destination (see file-range.ts). */
export interface DirectSendable {
  /** Writes every byte to `dest` (never ends it); rejects when `dest` closes first or a read fails. */
  sendTo(dest: Writable): Promise<void>;
}

export function isDirectSendable(x: unknown): x is DirectSendable {
  return typeof (x as Partial<DirectSendable> | null)?.sendTo === 'function';
}

export class FileRangeStream extends Readable implements DirectSendable {
  private pos: number;
  private mode: 'idle' | 'stream' | 'direct' = 'idle';
  private ended = false;

  /** Serves bytes `start`..`last` (inclusive) of `fh`, which it closes when done. */
  constructor(
    private readonly fh: FileHandle,
    start: number,
    private readonly last: number,
    private readonly hooks: RangeHooks = {},
  ) {
    super({ highWaterMark: CHUNK_BYTES });
    this.pos = start;
  }

  /** Calls `hooks.end` once (its failures are the hook's business, never the reader's). */
  private async finish(complete: boolean): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.hooks.end?.(complete).catch(() => undefined);
  }

  override _read(): void {
    this.mode = 'stream';
    void this.pull();
  }

  private async pull(): Promise<void> {
    try {
      const want = Math.min(CHUNK_BYTES, this.last - this.pos + 1);
      const buf = want > 0 ? Buffer.allocUnsafe(want) : null;
      const n = buf ? (await this.fh.read(buf, 0, want, this.pos)).bytesRead : 0;
      if (this.destroyed) return;
      if (n === 0) {
        // the last byte was read (or the file shrank under us: ends short, as fs.ReadStream does)
        await this.finish(this.pos > this.last);
        this.push(null);
        return;
      }
      this.pos += n;
      const chunk = n === want ? buf! : buf!.subarray(0, n);
      await this.hooks.chunk?.(chunk);
      if (!this.destroyed) this.push(chunk);
    } catch (e) {
      this.destroy(e as Error);
    }
  }

  override _destroy(err: Error | null, cb: (err?: Error | null) => void): void {
    void this.finish(false)
      .then(() => this.fh.close())
      .then(
        () => cb(err),
        (closeErr: unknown) => cb(err ?? (closeErr as Error)),
      );
  }

  async sendTo(dest: Writable): Promise<void> {
    if (this.mode !== 'idle') throw new Error('FileRangeStream: already being read');
    this.mode = 'direct';
    const free: Buffer[] = [];
    let made = 0;
    let wake: (() => void) | null = null;
    let gone: Error | null = null;
    const stop = (e?: Error | null) => {
      gone ??= e ?? new Error('the destination closed before the last byte');
      wake?.();
    };
    const onClose = () => stop();
    dest.once('close', onClose);
    dest.once('error', stop);
    /** A buffer to read into: a free one, a new one while fewer than SEND_BUFFERS exist, else the next released. */
    const take = async (): Promise<Buffer | null> => {
      for (;;) {
        if (gone) return null;
        const b = free.pop();
        if (b) return b;
        if (made < SEND_BUFFERS) {
          made++;
          return Buffer.allocUnsafeSlow(CHUNK_BYTES);
        }
        await new Promise<void>((r) => (wake = r));
        wake = null;
      }
    };
    const release = (b: Buffer) => (err?: Error | null) => {
      if (err) return stop(err);
      free.push(b);
      wake?.();
    };
    try {
      while (this.pos <= this.last) {
        const buf = await take();
        if (!buf) break;
        const want = Math.min(CHUNK_BYTES, this.last - this.pos + 1);
        const { bytesRead } = await this.fh.read(buf, 0, want, this.pos);
        if (bytesRead === 0) throw new Error('the file ended before the range did');
        this.pos += bytesRead;
        const chunk = bytesRead === buf.length ? buf : buf.subarray(0, bytesRead);
        await this.hooks.chunk?.(chunk);
        if (gone) break;
        dest.write(chunk, release(buf));
      }
      if (gone) throw gone;
      await this.finish(true);
    } finally {
      dest.off('close', onClose);
      dest.off('error', stop);
      this.destroy();
    }
  }
}
