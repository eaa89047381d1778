/**
 * Two-phase S3 write (see s3.ts for the strategy): small bodies are buffered and PUT at commit;
 * larger ones stream as multipart parts, to the final key when all hashes were declared up front,
 * else to a hidden temp key that commit copies to the final key together with hash metadata.
 */
import { randomBytes } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { BasePendingWrite } from './pending.js';
import type { S3Driver } from './s3.js';
import { META, MiB, hashMetadata, mapS3Error, md5b64Off, unsignedPayload } from './s3-shared.js';
import { DriverError, HASH_NAMES, type Entry, type Hashes, type WriteOptions } from './types.js';
import { hasAny } from '../../../lib/hashes.js';
import { baseName } from '../../../lib/paths.js';
import { TEMP_PREFIX } from './util.js';

/**
 * Parts are gathered by copying the incoming chunks into part buffers that this write reuses: a buffer whose
 * part has been sent fills the next part. The chunks then die young (freed by the next scavenge), and a
 * 1 GiB upload allocates `concurrency + 1` part buffers instead of 128 parts of garbage plus their chunks,
 * which lived long enough to be promoted and waited for a full collection (~120 MB of buffers at the peak).
 */
export class S3PendingWrite extends BasePendingWrite {
  /** The part being filled (null before the first byte and after each flush). */
  private part: Buffer | null = null;
  private partLen = 0;
  /** Bytes the part being filled holds once full. */
  private partTarget = 0;
  /** Part buffers whose upload has finished, ready for the next part. */
  private readonly spare: Buffer[] = [];
  /** Bytes sent as parts so far. */
  private flushed = 0;
  private upload: { key: string; id: string; direct: boolean } | null = null;
  private creating: Promise<void> | null = null;
  private readonly parts: { PartNumber: number; ETag: string | undefined }[] = [];
  private readonly partsInFlight = new Set<Promise<void>>();
  private partNo = 0;
  private failure: unknown = null;
  private tempCompleted = false;

  constructor(
    private readonly d: S3Driver,
    path: string,
    private readonly key: string,
    opts: WriteOptions,
  ) {
    super(path, opts, d.hashing, 256 * 1024);
  }

  /** Part size for the next part: fits the declared size in 10 000 parts, or grows with the count. */
  private nextPartSize(): number {
    const base = this.d.partSize;
    if (this.declaredSize !== undefined) return Math.max(base, Math.ceil(this.declaredSize / 9_000 / MiB) * MiB);
    return base * (1 + Math.floor(this.partNo / 1000));
  }

  protected async sink(chunks: Buffer[]): Promise<void> {
    if (this.failure) throw this.failure;
    for (const c of chunks) {
      for (let off = 0; off < c.length; ) {
        const part = this.roomyPart();
        const n = c.copy(part, this.partLen, off, Math.min(c.length, off + part.length - this.partLen));
        this.partLen += n;
        off += n;
        if (this.partLen >= this.partTarget) await this.flushPart();
      }
    }
  }

  /**
   * The part being filled, with room for at least one more byte. A new part takes a spare buffer, or a new one
   * no larger than what a declared size leaves (the last part, or a body small enough for one PutObject).
   */
  private roomyPart(): Buffer {
    if (!this.part) {
      this.partTarget = this.nextPartSize();
      const want = this.declaredSize === undefined ? this.partTarget : Math.min(this.partTarget, Math.max(1, this.declaredSize - this.flushed));
      const i = this.spare.findIndex((b) => b.length >= want);
      // allocUnsafeSlow: outside Node's small-buffer pool, and pages never written are never touched
      this.part = i >= 0 ? this.spare.splice(i, 1)[0]! : Buffer.allocUnsafeSlow(want);
      this.partLen = 0;
    } else if (this.partLen >= this.part.length) {
      // more than the declared size would leave (refused before it gets here): grow to the full part
      const bigger = Buffer.allocUnsafeSlow(this.partTarget);
      this.part.copy(bigger, 0, 0, this.partLen);
      this.part = bigger;
    }
    return this.part;
  }

  /** The bytes gathered and not yet sent as a part (the part buffer is kept until `release`). */
  private gathered(): Buffer {
    return this.part ? this.part.subarray(0, this.partLen) : Buffer.alloc(0);
  }

  protected async finish(): Promise<void> {
    if (this.upload || this.creating) {
      if (this.partLen > 0) await this.flushPart();
      await this.drain();
    }
  }

  private async drain(): Promise<void> {
    await Promise.allSettled([...this.partsInFlight]);
    if (this.failure) throw this.failure;
  }

  private extraMeta(): Record<string, string> {
    return this.opts.mtime ? { [META.mtime]: String(this.opts.mtime.getTime()) } : {};
  }

  private async ensureUpload(): Promise<{ key: string; id: string; direct: boolean }> {
    if (!this.upload) {
      this.creating ??= (async () => {
        const exp = this.expected;
        const direct = HASH_NAMES.every((n) => exp[n]);
        const key = direct ? this.key : this.key.slice(0, this.key.lastIndexOf('/') + 1) + TEMP_PREFIX + randomBytes(9).toString('hex');
        const r = await this.d.client.send(
          new CreateMultipartUploadCommand({ Bucket: this.d.bucket, Key: key, ...(direct ? { Metadata: hashMetadata(exp, this.extraMeta()) } : {}) }),
        );
        this.upload = { key, id: r.UploadId as string, direct };
      })();
      await this.creating;
    }
    return this.upload as { key: string; id: string; direct: boolean };
  }

  private async flushPart(): Promise<void> {
    const buffer = this.part!;
    const body = this.gathered();
    this.flushed += body.length;
    this.part = null;
    this.partLen = 0;
    const up = await this.ensureUpload().catch((e: unknown) => {
      throw mapS3Error(e, this.path);
    });
    while (this.partsInFlight.size >= this.d.concurrency) await Promise.race(this.partsInFlight);
    if (this.failure) throw this.failure;
    const n = ++this.partNo;
    const engine = this.d.hashing.engine;
    const p = md5b64Off(engine, body)
      .then((md5) =>
        this.d.client.send(
          unsignedPayload(new UploadPartCommand({ Bucket: this.d.bucket, Key: up.key, UploadId: up.id, PartNumber: n, Body: body, ContentLength: body.length, ContentMD5: md5 })),
        ),
      )
      .then((r) => {
        this.parts.push({ PartNumber: n, ETag: r.ETag });
      })
      .catch((e: unknown) => {
        this.failure ??= mapS3Error(e, this.path);
      })
      .finally(() => {
        this.partsInFlight.delete(p);
        // the SDK is done with the body once send settles: the buffer can take the next part
        if (!this.failure) this.spare.push(buffer);
      });
    this.partsInFlight.add(p);
  }

  protected async publish(hashes: Hashes): Promise<Entry> {
    const d = this.d;
    const path = this.path;
    const noClobber = this.opts.overwrite === false;
    try {
      if (noClobber && (await d.head(this.key, path))) throw new DriverError('exists', 'file exists', { path });
      const meta = hashMetadata(hashes, this.extraMeta());
      if (!this.upload) {
        const body = this.gathered();
        const put = new PutObjectCommand({
          Bucket: d.bucket,
          Key: this.key,
          Body: body,
          ContentLength: body.length,
          ContentMD5: await md5b64Off(d.hashing.engine, body),
          Metadata: meta,
          ...(d.sendChecksums && hashes.sha256 ? { ChecksumSHA256: Buffer.from(hashes.sha256, 'hex').toString('base64') } : {}),
          ...(noClobber ? { IfNoneMatch: '*' } : {}),
        });
        await d.client.send(unsignedPayload(put));
        this.part = null;
      } else {
        await this.drain();
        this.spare.length = 0;
        const up = this.upload;
        const parts = [...this.parts].sort((a, b) => a.PartNumber - b.PartNumber);
        await d.client.send(new CompleteMultipartUploadCommand({ Bucket: d.bucket, Key: up.key, UploadId: up.id, MultipartUpload: { Parts: parts } }));
        if (!up.direct) {
          this.tempCompleted = true;
          await d.copyKey(up.key, this.key, this.bytesWritten, path, meta);
          await d.client.send(new DeleteObjectCommand({ Bucket: d.bucket, Key: up.key })).catch(() => undefined);
          this.tempCompleted = false;
        }
        this.upload = null;
      }
      const h = await d.head(this.key, path);
      const e: Entry = { name: baseName(path), path, size: this.bytesWritten, isDir: false, modified: h?.LastModified ?? new Date() };
      await d.index.invalidate(path).catch(() => undefined);
      if (hasAny(hashes)) {
        e.hashes = hashes;
        await d.index.put(path, e.size, e.modified.getTime(), hashes).catch(() => undefined);
      }
      if (this.opts.mtime) {
        // the client's time (also in the object's metadata): listings read it from the index
        await d.index.setClientMtime(path, e.size, e.modified.getTime(), this.opts.mtime.getTime()).catch(() => undefined);
        e.modified = this.opts.mtime;
      }
      return e;
    } catch (e) {
      throw mapS3Error(e, path);
    }
  }

  protected async discard(): Promise<void> {
    this.part = null;
    this.partLen = 0;
    this.spare.length = 0;
    await this.creating?.catch(() => undefined);
    await Promise.allSettled([...this.partsInFlight]);
    const up = this.upload;
    if (!up) return;
    this.upload = null;
    if (this.tempCompleted) {
      await this.d.client.send(new DeleteObjectCommand({ Bucket: this.d.bucket, Key: up.key })).catch(() => undefined);
    } else {
      await this.d.client.send(new AbortMultipartUploadCommand({ Bucket: this.d.bucket, Key: up.key, UploadId: up.id })).catch(() => undefined);
    }
  }
}

