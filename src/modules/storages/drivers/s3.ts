/**
 * `s3` driver (AWS SDK v3) for any S3-compatible endpoint.
 *
 * Layout: a storage path `/a/b.txt` is the key `<prefix>a/b.txt`; directories are key prefixes,
 * `mkdir` writes an empty marker object `<prefix>a/` so empty folders exist, and removing or moving
 * the last item out of a folder re-creates its marker so the folder stays.
 *
 * Writes (two-phase, nothing visible before commit):
 *  - up to one part size: buffered in memory, `PutObject` at commit (with Content-MD5, metadata and
 *    an `x-amz-checksum-sha256`; `If-None-Match: *` when overwrite=false);
 *  - larger: multipart upload, parts sent while the stream flows (bounded memory: part size ×
 *    (concurrency + 1)). If all three hashes were declared up front, the upload targets the final
 *    key with hash metadata and `CompleteMultipartUpload` is the commit. Otherwise it targets a
 *    hidden temp key `<dir>/.ferry-tmp-…`, and commit = complete + server-side copy to the final
 *    key with hash metadata (one atomic object write, so concurrent writers never mix) + delete.
 *
 * Hashes: Ferry stores the digests it computed (or was given) as user metadata `ferry-md5`,
 * `ferry-sha1`, `ferry-sha256` (`x-amz-meta-…`). Readers take, per kind: a full-object checksum
 * (`x-amz-checksum-sha1/-sha256`, when the server keeps them), else Ferry metadata, else for MD5 a
 * single-part ETag. Ceph RGW 16 (Pacific) accepts but does not store checksums, so on it the
 * metadata is what provides SHA-1/SHA-256 (and MD5 of multipart objects).
 */
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsCommand,
  ListObjectsV2Command,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCopyCommand,
  type HeadObjectCommandOutput,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { S3PendingWrite } from './s3-write.js';
import { META, MiB, hashMetadata, hashesFromHead, mapS3Error, md5FromEtag, statusOf } from './s3-shared.js';
import {
  DriverError,
  HASH_NAMES,
  type ByteRange,
  type HashEngine,
  type DriverCapabilities,
  type Entry,
  type Hashes,
  type MoveOptions,
  type OptionDescriptor,
  type PendingWrite,
  type PresignOptions,
  type StaleCleanupOptions,
  type StaleCleanupReport,
  type StorageDriver,
  type WriteOptions,
  type HashIndex,
  MemoryHashIndex,
} from './types.js';
import { hasAny } from '../../../lib/hashes.js';
import { baseName, joinPath, parentOf } from '../../../lib/paths.js';
import { HASH_ON_WRITE_OPTION, checkName, checkPath, checkTransfer, inlineHashEngine, isTempName, mapLimit, parseHashOnWrite } from './util.js';
import type { WriteHashing } from './pending.js';

const GiB = 1024 * MiB;
/** HEAD requests at once when listed files need their metadata (hashesOfListed). */
const HEADS_AT_ONCE = 8;

export { S3_OPTIONS } from './s3-options.js';

export interface S3Deps {
  /** Storage-level `proxy` flag: false → downloads should redirect to `presign` links. */
  proxy?: boolean;
  /**
   * The storage's hash index, kept current so content can be found by hash (rapid upload). The digests an
   * object carries are read from the object itself (metadata, checksums, ETag); the index only finds them.
   */
  hashIndex?: HashIndex;
  /** Computes the digests of writes; default: on the calling thread. */
  hashEngine?: HashEngine;
  /** Test knobs. */
  tuning?: { minPartSize?: number; maxCopyObjectSize?: number; copyPartSize?: number };
}

/** RFC 5987 encoding for filename*=. */
const rfc5987 = (s: string) => encodeURIComponent(s).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());

interface ListedObject {
  key: string;
  size: number;
  modified: Date;
  etag?: string;
}

/** The client-set modification time kept in an object's metadata, if any. */
function clientTime(h: HeadObjectCommandOutput): Date | null {
  const v = h.Metadata?.[META.mtime];
  return v && /^\d{1,15}$/.test(v) ? new Date(Number(v)) : null;
}

export class S3Driver implements StorageDriver {
  readonly kind = 's3';
  readonly capabilities: DriverCapabilities;
  /** @internal */ readonly client: S3Client;
  /** @internal */ readonly bucket: string;
  private readonly prefix: string;
  /** @internal */ readonly partSize: number;
  /** @internal */ readonly concurrency: number;
  /** @internal */ readonly sendChecksums: boolean;
  private readonly maxCopyObjectSize: number;
  private readonly copyPartSize: number;
  private readonly placeholder: string;
  /** @internal */ readonly index: HashIndex;
  /** @internal */ readonly hashing: WriteHashing;

  private constructor(
    readonly options: Readonly<Record<string, unknown>>,
    deps: S3Deps,
  ) {
    const o = options;
    this.capabilities = { hashes: HASH_NAMES, streamable: deps.proxy ?? true, presign: true, hashesWithObjects: true };
    this.bucket = String(o.bucket);
    const root = String(o.root_folder_path ?? '/').replace(/^\/+|\/+$/g, '');
    this.prefix = root ? root + '/' : '';
    const minPart = deps.tuning?.minPartSize ?? 5 * MiB;
    this.partSize = Math.max(minPart, Math.round(Number(o.upload_part_size) * MiB));
    this.concurrency = Math.max(1, Math.floor(Number(o.upload_concurrency) || 1));
    this.sendChecksums = o.send_checksums !== false;
    this.maxCopyObjectSize = deps.tuning?.maxCopyObjectSize ?? 5 * GiB;
    this.copyPartSize = deps.tuning?.copyPartSize ?? 256 * MiB;
    this.placeholder = String(o.placeholder ?? '');
    this.index = deps.hashIndex ?? new MemoryHashIndex();
    this.hashing = { engine: deps.hashEngine ?? inlineHashEngine, onWrite: parseHashOnWrite(o.hash_on_write).names };
    const endpoint = String(o.endpoint ?? '');
    const keepAlive = { keepAlive: true, maxSockets: 64 };
    this.client = new S3Client({
      region: String(o.region || 'us-east-1'),
      ...(endpoint ? { endpoint } : {}),
      forcePathStyle: o.force_path_style === true,
      credentials: {
        accessKeyId: String(o.access_key_id),
        secretAccessKey: String(o.secret_access_key),
        ...(o.session_token ? { sessionToken: String(o.session_token) } : {}),
      },
      // Flexible checksums only when an API requires them: the default (CRC32 trailers with
      // aws-chunked streaming) is refused by many S3-compatible servers, Ceph RGW 16 included (411).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      // Our own agents: plain http for http:// endpoints (no TLS settings from the environment,
      // e.g. AWS_CA_BUNDLE, can interfere), keep-alive for both.
      requestHandler: { httpAgent: new http.Agent(keepAlive), httpsAgent: new https.Agent(keepAlive), connectionTimeout: 15_000 },
      maxAttempts: 3,
      ...(o.user_agent ? { customUserAgent: String(o.user_agent) } : {}),
    });
  }

  /** `opts` must already be validated against S3_OPTIONS. */
  static async create(opts: Record<string, unknown>, deps: S3Deps = {}): Promise<S3Driver> {
    const bad = (option: string, why: string) => new DriverError('invalid_option', `option ${option}: ${why}`, { option });
    let endpoint = String(opts.endpoint ?? '').trim();
    if (endpoint) {
      if (!/^https?:\/\//i.test(endpoint)) endpoint = 'https://' + endpoint;
      try {
        new URL(endpoint);
      } catch {
        throw bad('endpoint', `not a URL: ${endpoint}`);
      }
    }
    if (!/^[a-zA-Z0-9][a-zA-Z0-9._-]{1,254}$/.test(String(opts.bucket))) throw bad('bucket', 'invalid bucket name');
    if (Number(opts.upload_part_size) < 5 && !deps.tuning?.minPartSize) throw bad('upload_part_size', 'must be at least 5 (MiB)');
    if (!(Number(opts.sign_url_expire) > 0)) throw bad('sign_url_expire', 'must be positive');
    const root = '/' + String(opts.root_folder_path ?? '/').replace(/^\/+|\/+$/g, '');
    if (root !== '/') checkPath(root);
    const onWrite = parseHashOnWrite(opts.hash_on_write ?? HASH_ON_WRITE_OPTION.default);
    return new S3Driver({ ...opts, endpoint, root_folder_path: root, hash_on_write: onWrite.normalized }, deps);
  }

  // ------------------------------------------------------------------ keys

  /** @internal */ key(path: string): string {
    checkPath(path);
    return this.prefix + path.slice(1);
  }
  /** @internal */ dirKey(path: string): string {
    return path === '/' ? (checkPath(path), this.prefix) : this.key(path) + '/';
  }

  private isHiddenName(name: string): boolean {
    return name === '' || isTempName(name) || (this.placeholder !== '' && name === this.placeholder);
  }

  // ------------------------------------------------------------------ low-level helpers

  /** @internal */ async head(key: string, path: string): Promise<HeadObjectCommandOutput | null> {
    if (key === '' || key.endsWith('/')) return null;
    try {
      return await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key, ChecksumMode: 'ENABLED' }));
    } catch (e) {
      if (statusOf(e) === 404 || (e as Error).name === 'NotFound') return null;
      throw mapS3Error(e, path);
    }
  }

  private async listPage(prefix: string, delimiter: string | undefined, token: string | undefined, maxKeys = 1000) {
    if (this.options.list_object_version === 'v1') {
      const r = await this.client.send(new ListObjectsCommand({ Bucket: this.bucket, Prefix: prefix, Delimiter: delimiter, Marker: token, MaxKeys: maxKeys }));
      const contents = r.Contents ?? [];
      const prefixes = (r.CommonPrefixes ?? []).map((p) => p.Prefix ?? '');
      let next: string | undefined;
      if (r.IsTruncated) next = r.NextMarker ?? [contents.at(-1)?.Key ?? '', prefixes.at(-1) ?? ''].sort().at(-1);
      return { contents, prefixes, next };
    }
    const r = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, Delimiter: delimiter, ContinuationToken: token, MaxKeys: maxKeys }));
    return { contents: r.Contents ?? [], prefixes: (r.CommonPrefixes ?? []).map((p) => p.Prefix ?? ''), next: r.IsTruncated ? r.NextContinuationToken : undefined };
  }

  /** Every object under a prefix (recursive), in key order. */
  private async *walk(prefix: string, path: string): AsyncGenerator<ListedObject> {
    let token: string | undefined;
    try {
      do {
        const page = await this.listPage(prefix, undefined, token);
        for (const c of page.contents) {
          if (c.Key) yield { key: c.Key, size: c.Size ?? 0, modified: c.LastModified ?? new Date(0), etag: c.ETag };
        }
        token = page.next;
      } while (token);
    } catch (e) {
      throw mapS3Error(e, path);
    }
  }

  /** The first object under a dir prefix, or null when the prefix is empty. */
  private async firstUnder(dirKey: string, path: string): Promise<ListedObject | null> {
    try {
      const page = await this.listPage(dirKey, undefined, undefined, 1);
      const c = page.contents[0];
      return c?.Key ? { key: c.Key, size: c.Size ?? 0, modified: c.LastModified ?? new Date(0) } : null;
    } catch (e) {
      throw mapS3Error(e, path);
    }
  }

  private async isDir(path: string): Promise<boolean> {
    return path === '/' || (await this.firstUnder(this.dirKey(path), path)) !== null;
  }

  private async putEmpty(key: string, path: string): Promise<void> {
    try {
      await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: Buffer.alloc(0), ContentLength: 0 }));
    } catch (e) {
      throw mapS3Error(e, path);
    }
  }

  /** Keeps a folder alive (marker) after its last item was removed or moved away. */
  private async keepDir(path: string): Promise<void> {
    if (path === '/') return;
    if (!(await this.isDir(path))) await this.putEmpty(this.dirKey(path), path);
  }

  /** Refuses when any ancestor of `path` is a file. */
  private async checkAncestors(path: string): Promise<void> {
    const ancestors: string[] = [];
    for (let p = parentOf(path); p !== '/'; p = parentOf(p)) ancestors.push(p);
    const heads = await Promise.all(ancestors.map((p) => this.head(this.key(p), p)));
    const i = heads.findIndex((h) => h !== null);
    if (i >= 0) throw new DriverError('not_a_directory', `not a directory: ${ancestors[i]}`, { path });
  }

  private async deleteKeys(keys: string[], path: string): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      try {
        const r = await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true } }));
        const err = r.Errors?.find((x) => x.Code !== 'NoSuchKey');
        if (err) throw new DriverError('io', `delete failed for ${err.Key}: ${err.Code} ${err.Message ?? ''}`, { path });
      } catch (e) {
        throw mapS3Error(e, path);
      }
    }
  }

  private copySource(key: string): string {
    return `${this.bucket}/${encodeURIComponent(key).replace(/%2F/g, '/')}`;
  }

  /**
   * Server-side copy. `metadata` given → replaced (REPLACE), else copied. Objects above the
   * CopyObject limit go through UploadPartCopy.
   * @internal
   */
  async copyKey(src: string, dst: string, size: number, path: string, metadata?: Record<string, string>, contentType?: string): Promise<void> {
    try {
      if (size <= this.maxCopyObjectSize) {
        await this.client.send(
          new CopyObjectCommand({
            Bucket: this.bucket,
            Key: dst,
            CopySource: this.copySource(src),
            ...(metadata ? { MetadataDirective: 'REPLACE', Metadata: metadata, ...(contentType ? { ContentType: contentType } : {}) } : { MetadataDirective: 'COPY' }),
          }),
        );
        return;
      }
      let meta = metadata;
      if (!meta) {
        const h = await this.head(src, path);
        if (!h) throw new DriverError('not_found', `object not found: ${path}`, { path });
        // the copy will be multipart: keep the MD5 its single-part ETag vouched for
        meta = { ...hashMetadata(hashesFromHead(h)), ...(h.Metadata ?? {}) };
      }
      const partSize = Math.max(this.copyPartSize, Math.ceil(size / 10_000));
      const mp = await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: dst, Metadata: meta, ...(contentType ? { ContentType: contentType } : {}) }));
      const uploadId = mp.UploadId as string;
      try {
        const ranges: [number, number][] = [];
        for (let off = 0; off < size; off += partSize) ranges.push([off, Math.min(size, off + partSize) - 1]);
        const parts = await mapLimit(ranges, this.concurrency, async ([a, b], i) => {
          const r = await this.client.send(
            new UploadPartCopyCommand({ Bucket: this.bucket, Key: dst, UploadId: uploadId, PartNumber: i + 1, CopySource: this.copySource(src), CopySourceRange: `bytes=${a}-${b}` }),
          );
          return { PartNumber: i + 1, ETag: r.CopyPartResult?.ETag };
        });
        await this.client.send(new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: dst, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
      } catch (e) {
        await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: dst, UploadId: uploadId })).catch(() => undefined);
        throw e;
      }
    } catch (e) {
      throw mapS3Error(e, path);
    }
  }

  /**
   * A file's entry from its HEAD. Its modification time is the one a client set (`x-amz-meta-ferry-mtime`,
   * written at upload or by `setModified`, as rclone's S3 backend keeps it), else S3's LastModified.
   */
  private fileEntry(path: string, h: HeadObjectCommandOutput): Entry {
    const e: Entry = { name: baseName(path), path, size: h.ContentLength ?? 0, isDir: false, modified: clientTime(h) ?? h.LastModified ?? new Date(0) };
    const hashes = hashesFromHead(h);
    if (hasAny(hashes)) e.hashes = hashes;
    return e;
  }

  private dirEntry(path: string, modified = new Date(0)): Entry {
    return { name: baseName(path), path, size: 0, isDir: true, modified };
  }

  // ------------------------------------------------------------------ StorageDriver

  async stat(path: string): Promise<Entry> {
    if (path === '/') return (checkPath(path), this.dirEntry('/'));
    const h = await this.head(this.key(path), path);
    if (h) return this.fileEntry(path, h);
    const dk = this.dirKey(path);
    const first = await this.firstUnder(dk, path);
    if (!first) throw new DriverError('not_found', `object not found: ${path}`, { path });
    return this.dirEntry(path, first.key === dk ? first.modified : new Date(0));
  }

  /**
   * S3 objects cannot change their LastModified: the time goes into the object's metadata (a CopyObject onto
   * itself with REPLACE, keeping the other metadata and the content type) and into the index for listings.
   */
  async setModified(path: string, mtime: Date): Promise<Entry> {
    const key = this.key(path);
    const h = await this.head(key, path);
    if (!h) {
      if (await this.isDir(path)) throw new DriverError('is_a_directory', `is a directory: ${path}`, { path });
      throw new DriverError('not_found', `object not found: ${path}`, { path });
    }
    const ms = mtime.getTime();
    const meta = { ...(h.Metadata ?? {}), ...hashMetadata(hashesFromHead(h)), [META.mtime]: String(ms) };
    await this.copyKey(key, key, h.ContentLength ?? 0, path, meta, h.ContentType);
    const now = await this.head(key, path);
    if (!now) throw new DriverError('not_found', `object not found: ${path}`, { path });
    const stored = now.LastModified?.getTime() ?? 0;
    const hashes = hashesFromHead(now);
    await this.index.invalidate(path);
    if (hasAny(hashes)) await this.index.put(path, now.ContentLength ?? 0, stored, hashes);
    await this.index.setClientMtime(path, now.ContentLength ?? 0, stored, ms);
    return this.fileEntry(path, now);
  }

  async hashes(path: string): Promise<Hashes> {
    const h = path === '/' ? null : await this.head(this.key(path), path);
    if (h) return hashesFromHead(h);
    if (await this.isDir(path)) throw new DriverError('is_a_directory', `is a directory: ${path}`, { path });
    throw new DriverError('not_found', `object not found: ${path}`, { path });
  }

  async hashesOfListed(files: readonly Entry[]): Promise<Map<string, Hashes>> {
    // the index first (rows recorded against HEAD's whole-second LastModified), one HEAD per file it lacks
    // (its metadata), a few at a time; a file whose listed time is a client-set one always takes the HEAD
    const listed = files.filter((e) => !e.isDir);
    const out = await this.index.getMany(listed.map((e) => ({ path: e.path, size: e.size, mtimeMs: Math.floor(e.modified.getTime() / 1000) * 1000 })));
    const rest = listed.filter((e) => !out.has(e.path));
    for (let i = 0; i < rest.length; i += HEADS_AT_ONCE) {
      await Promise.all(
        rest.slice(i, i + HEADS_AT_ONCE).map(async (e) => {
          const h = await this.hashes(e.path).catch(() => ({}) as Hashes);
          if (hasAny(h)) out.set(e.path, h);
        }),
      );
    }
    return out;
  }

  async list(path: string): Promise<Entry[]> {
    const dk = this.dirKey(path);
    const out: Entry[] = [];
    let any = false;
    let token: string | undefined;
    try {
      do {
        const page = await this.listPage(dk, '/', token);
        for (const c of page.contents) {
          if (!c.Key) continue;
          any = true;
          const name = c.Key.slice(dk.length);
          if (this.isHiddenName(name)) continue;
          const e: Entry = { name, path: joinPath(path, name), size: c.Size ?? 0, isDir: false, modified: c.LastModified ?? new Date(0) };
          const md5 = md5FromEtag(c.ETag, false);
          if (md5) e.hashes = { md5 };
          out.push(e);
        }
        for (const p of page.prefixes) {
          any = true;
          const name = p.slice(dk.length, -1);
          if (this.isHiddenName(name) || name.includes('/')) continue;
          out.push(this.dirEntry(joinPath(path, name)));
        }
        token = page.next;
      } while (token);
    } catch (e) {
      throw mapS3Error(e, path);
    }
    if (!any && path !== '/') {
      if (await this.head(this.key(path), path)) throw new DriverError('not_a_directory', `not a directory: ${path}`, { path });
      throw new DriverError('not_found', `object not found: ${path}`, { path });
    }
    // ListObjectsV2 carries no metadata: client-set times come from the index, in one query per listing. They
    // were recorded against HEAD's LastModified (an HTTP date: whole seconds); a listing's has milliseconds.
    const files = out.filter((e) => !e.isDir);
    const times = await this.index.clientMtimes(files.map((e) => ({ path: e.path, size: e.size, mtimeMs: Math.floor(e.modified.getTime() / 1000) * 1000 })));
    for (const e of files) {
      const t = times.get(e.path);
      if (t !== undefined) e.modified = new Date(t);
    }
    return out;
  }

  async read(path: string, range?: ByteRange): Promise<Readable> {
    if (path === '/') throw (checkPath(path), new DriverError('is_a_directory', 'is a directory: /', { path }));
    const key = this.key(path);
    if (range && (!Number.isSafeInteger(range.start) || range.start < 0 || (range.end !== undefined && (!Number.isSafeInteger(range.end) || range.end < range.start)))) {
      throw new DriverError('invalid_range', `invalid range ${range.start}-${range.end ?? ''}`, { path });
    }
    let res;
    try {
      res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end ?? ''}` : undefined }));
    } catch (e) {
      const err = mapS3Error(e, path);
      if (err.kind === 'not_found' && (await this.isDir(path))) throw new DriverError('is_a_directory', `is a directory: ${path}`, { path });
      throw err;
    }
    const body = res.Body as Readable;
    if (range) {
      // S3 clamps an end past the last byte; the driver contract says that is unsatisfiable.
      const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(res.ContentRange ?? '');
      const total = m ? Number(m[3]) : undefined;
      if (!m || (range.end !== undefined && total !== undefined && range.end >= total)) {
        body.destroy();
        throw new DriverError('invalid_range', `range ${range.start}-${range.end ?? ''} not satisfiable for size ${total ?? '?'}`, { path });
      }
    }
    return body;
  }

  async beginWrite(path: string, opts: WriteOptions = {}): Promise<PendingWrite> {
    if (path === '/') throw (checkPath(path), new DriverError('is_a_directory', 'cannot write the root', { path }));
    const key = this.key(path);
    const [, cur, dir] = await Promise.all([this.checkAncestors(path), this.head(key, path), this.isDir(path)]);
    if (dir) throw new DriverError('is_a_directory', `is a directory: ${path}`, { path });
    if (cur && opts.overwrite === false) throw new DriverError('exists', 'file exists', { path });
    return new S3PendingWrite(this, path, key, opts);
  }

  async mkdir(path: string): Promise<Entry> {
    if (path === '/') return (checkPath(path), this.dirEntry('/'));
    const key = this.key(path);
    if (await this.head(key, path)) throw new DriverError('exists', `file exists: ${path}`, { path });
    await this.checkAncestors(path);
    await this.putEmpty(key + '/', path);
    if (this.placeholder) await this.putEmpty(key + '/' + this.placeholder, path);
    return this.stat(path);
  }

  async rename(path: string, newName: string): Promise<Entry> {
    checkName(newName);
    checkPath(path);
    return this.move(path, joinPath(parentOf(path), newName));
  }

  /** Source kind + size, destination checks. */
  private async prepareTransfer(src: string, dst: string, opts: MoveOptions, verb: string) {
    checkTransfer(src, dst, verb);
    const sh = await this.head(this.key(src), src);
    if (!sh && !(await this.isDir(src))) throw new DriverError('not_found', `object not found: ${src}`, { path: src });
    const parent = parentOf(dst);
    if (parent !== '/' && !(await this.isDir(parent))) {
      if (await this.head(this.key(parent), parent)) throw new DriverError('not_a_directory', `not a directory: ${parent}`, { path: dst });
      throw new DriverError('not_found', `destination folder not found: ${parent}`, { path: dst });
    }
    if (src !== dst) {
      const [dh, dd] = await Promise.all([this.head(this.key(dst), dst), this.isDir(dst)]);
      if (dd || (dh && !(opts.overwrite && sh))) throw new DriverError('exists', `file [${baseName(dst)}] exists`, { path: dst });
    }
    return sh;
  }

  /** Copies a tree; returns the source keys copied. */
  private async copyTree(src: string, dst: string): Promise<string[]> {
    const sk = this.dirKey(src);
    const dk = this.dirKey(dst);
    const objs: ListedObject[] = [];
    for await (const o of this.walk(sk, src)) {
      if (o.key.slice(sk.length).split('/').some(isTempName)) continue;
      objs.push(o);
    }
    await mapLimit(objs, 8, (o) => this.copyKey(o.key, dk + o.key.slice(sk.length), o.size, src));
    if (!objs.some((o) => o.key === sk)) await this.putEmpty(dk, dst);
    return objs.map((o) => o.key);
  }

  async copy(src: string, dst: string, opts: MoveOptions = {}): Promise<Entry> {
    if (src === dst) throw new DriverError('invalid_operation', 'cannot copy onto itself', { path: dst });
    const sh = await this.prepareTransfer(src, dst, opts, 'copy');
    if (sh) await this.copyKey(this.key(src), this.key(dst), sh.ContentLength ?? 0, src);
    else await this.copyTree(src, dst);
    await this.index.copy(src, dst);
    return this.stat(dst);
  }

  async move(src: string, dst: string, opts: MoveOptions = {}): Promise<Entry> {
    const sh = await this.prepareTransfer(src, dst, opts, 'move');
    if (src === dst) return this.stat(src);
    if (sh) {
      await this.copyKey(this.key(src), this.key(dst), sh.ContentLength ?? 0, src);
      await this.deleteKeys([this.key(src)], src);
    } else {
      const keys = await this.copyTree(src, dst);
      await this.deleteKeys(keys, src);
    }
    await this.index.move(src, dst);
    await this.keepDir(parentOf(src));
    return this.stat(dst);
  }

  async remove(path: string): Promise<void> {
    if (path === '/') throw (checkPath(path), new DriverError('invalid_operation', 'cannot remove the root', { path }));
    const key = this.key(path);
    if (await this.head(key, path)) {
      try {
        await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
      } catch (e) {
        throw mapS3Error(e, path);
      }
    } else {
      const keys: string[] = [];
      for await (const o of this.walk(key + '/', path)) keys.push(o.key);
      if (!keys.length) throw new DriverError('not_found', `object not found: ${path}`, { path });
      await this.deleteKeys(keys, path);
    }
    await this.index.invalidate(path);
    await this.keepDir(parentOf(path));
  }

  /** Two S3 storages on the same endpoint, bucket and credentials: one CopyObject (or UploadPartCopy). */
  async copyFrom(source: StorageDriver, srcPath: string, dstPath: string, opts: { size: number }): Promise<boolean> {
    if (!(source instanceof S3Driver)) return false;
    const keys = ['endpoint', 'region', 'bucket', 'access_key_id'] as const;
    if (!keys.every((k) => String(source.options[k] ?? '') === String(this.options[k] ?? ''))) return false;
    await this.copyKey(source.key(srcPath), this.key(dstPath), opts.size, dstPath);
    await this.index.invalidate(dstPath);
    return true;
  }

  async presign(path: string, opts: PresignOptions = {}): Promise<string> {
    const key = this.key(path);
    const expiresIn = Math.max(1, Math.floor(opts.expiresSec ?? Number(this.options.sign_url_expire) * 3600));
    const name = opts.filename ?? baseName(path);
    const customHost = String(this.options.custom_host ?? '');
    const disposition = this.options.add_filename_to_disposition
      ? `attachment; filename="${encodeURIComponent(name).replace(/%20/g, ' ')}"; filename*=utf-8''${rfc5987(name)}`
      : `attachment; filename*=UTF-8''${rfc5987(name)}`;
    let url: string;
    if (customHost && !this.options.enable_custom_host_presign) {
      url = `${this.endpointBase()}/${encodeURIComponent(key).replace(/%2F/g, '/')}`;
    } else {
      const cmd = new GetObjectCommand({ Bucket: this.bucket, Key: key, ...(customHost ? {} : { ResponseContentDisposition: disposition }) });
      url = await getSignedUrl(this.client, cmd, { expiresIn });
    }
    if (!customHost) return url;
    const u = new URL(url);
    const c = new URL(/^https?:\/\//i.test(customHost) ? customHost : `${u.protocol}//${customHost}`);
    u.protocol = c.protocol;
    u.host = c.host;
    return u.toString();
  }

  private endpointBase(): string {
    const ep = String(this.options.endpoint || `https://s3.${String(this.options.region || 'us-east-1')}.amazonaws.com`).replace(/\/+$/, '');
    return `${ep}/${this.bucket}`;
  }

  /**
   * Aborts multipart uploads under this storage's prefix whose last part (or start, without
   * parts) is older than `uploadsBefore`, and deletes `.ferry-tmp-*` objects (completed temp
   * uploads whose copy to the final key never finished) older than both cutoffs.
   */
  async cleanupStale(opts: StaleCleanupOptions): Promise<StaleCleanupReport> {
    const report: StaleCleanupReport = { temps: [], uploads: [] };
    const Bucket = this.bucket;
    try {
      let KeyMarker: string | undefined;
      let UploadIdMarker: string | undefined;
      do {
        opts.signal?.throwIfAborted();
        const r = await this.client.send(new ListMultipartUploadsCommand({ Bucket, Prefix: this.prefix, KeyMarker, UploadIdMarker }));
        for (const u of r.Uploads ?? []) {
          if (!u.Key || !u.UploadId) continue;
          const last = (await this.lastPartAt(u.Key, u.UploadId)) ?? u.Initiated?.getTime() ?? 0;
          if (last >= opts.uploadsBefore) continue;
          await this.client.send(new AbortMultipartUploadCommand({ Bucket, Key: u.Key, UploadId: u.UploadId })).catch((e: unknown) => {
            if ((e as Error).name !== 'NoSuchUpload') throw e;
          });
          report.uploads.push(u.Key);
        }
        [KeyMarker, UploadIdMarker] = r.IsTruncated ? [r.NextKeyMarker, r.NextUploadIdMarker] : [undefined, undefined];
      } while (KeyMarker);
    } catch (e) {
      throw mapS3Error(e, '/');
    }
    const cutoff = Math.min(opts.tempBefore, opts.uploadsBefore);
    for await (const o of this.walk(this.prefix, '/')) {
      opts.signal?.throwIfAborted();
      if (o.key.slice(this.prefix.length).split('/').some(isTempName) && o.modified.getTime() < cutoff) report.temps.push(o.key);
    }
    await this.deleteKeys(report.temps, '/');
    return report;
  }

  /** Time of the newest part of a multipart upload, or null when it has none. */
  private async lastPartAt(Key: string, UploadId: string): Promise<number | null> {
    let last: number | null = null;
    let PartNumberMarker: string | undefined;
    do {
      const r = await this.client.send(new ListPartsCommand({ Bucket: this.bucket, Key, UploadId, PartNumberMarker }));
      for (const p of r.Parts ?? []) {
        const t = p.LastModified?.getTime();
        if (t !== undefined && (last === null || t > last)) last = t;
      }
      PartNumberMarker = r.IsTruncated ? r.NextPartNumberMarker : undefined;
    } while (PartNumberMarker);
    return last;
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
