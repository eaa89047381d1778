/**
 * The storage-driver interface (contract §7). A driver owns the bytes of one storage;
 * it knows nothing of users, mounts or permissions. Paths given to a driver are
 * already-cleaned absolute paths *inside the storage* (`/`, `/a/b.txt`); drivers still
 * refuse `..`/`.` segments, empty segments and NUL bytes defensively (`invalid_path`).
 *
 * Writes are two-phase: `beginWrite` → stream bytes into `PendingWrite.stream`
 * (or `pipeFrom`) → `commit()` or `abort()`. Nothing is visible at the target path
 * before `commit()` resolves; after `abort()` (or a failed stream) nothing is left behind.
 */
import type { Readable, Writable } from 'node:stream';
import { AppError } from '../../../lib/errors.js';

import type { HashName, Hashes } from '../../../lib/hashes.js';
export { HASH_NAMES, type HashName, type Hashes } from '../../../lib/hashes.js';

export interface Entry {
  /** Base name (`''` for the root). */
  name: string;
  /** Absolute path inside the storage. */
  path: string;
  /** Bytes; 0 for directories. */
  size: number;
  isDir: boolean;
  modified: Date;
  created?: Date;
  /** Hashes the driver can vouch for without reading the file. Absent = none known. */
  hashes?: Hashes;
}

/**
 * A folder's entries as columns, row `i` one entry (`Entry` fields, no object per entry): what a huge listing is
 * presented from. Times are whole milliseconds; `births[i]` is NaN when the birth time is unknown.
 */
export interface EntryColumns {
  names: string[];
  /** 1 folder, 0 anything else. */
  dirs: Uint8Array;
  sizes: Float64Array;
  mtimes: Float64Array;
  births: Float64Array;
  /** Hashes the driver vouches for, per row (drivers that list them; absent = none for any row). */
  hashes?: Array<Hashes | undefined>;
}

/** Inclusive byte range, like HTTP `Range: bytes=start-end`. `end` defaults to the last byte. */
export interface ByteRange {
  start: number;
  end?: number;
}

export interface WriteOptions {
  /** Declared size; a different byte count fails the write (`size_mismatch`). */
  size?: number;
  /** Replace an existing file (default true). `false` → `exists` at begin or at commit. */
  overwrite?: boolean;
  /** Modification time to set on the file (local; S3 keeps it in metadata only). */
  mtime?: Date;
  /**
   * Hashes the driver computes itself while the bytes flow through (default: the storage's
   * `hash_on_write` and every declared kind).
   * Pass `[]` when the caller hashes the stream itself and hands the digests to `commit`.
   */
  computeHashes?: readonly HashName[];
  /** Kinds hashed besides that default (what a client will compare afterwards); recorded like the rest. */
  alsoHash?: readonly HashName[];
  /** Hashes declared up front (e.g. `X-File-Sha256`); checked at commit against computed ones. */
  expectedHashes?: Hashes;
}

export interface CommitOptions {
  /** Hashes computed by the caller over exactly the bytes written; stored with the file. */
  hashes?: Hashes;
}

export interface PendingWrite {
  readonly path: string;
  /** Bytes accepted so far. */
  readonly bytesWritten: number;
  /**
   * Sink with back-pressure (constant memory). Destroying it with an error aborts the write.
   * Usable in `stream.pipeline(source, hasher, pending.stream)`.
   */
  readonly stream: Writable;
  /** `pipeline(src, this.stream)`; rejects (and aborts) when the source fails or is destroyed. */
  pipeFrom(src: Readable | AsyncIterable<Uint8Array>): Promise<number>;
  /**
   * Makes the file visible atomically (last commit wins). Checks the declared size and
   * expected hashes first. On any failure the write is aborted and the previous file is intact.
   */
  commit(opts?: CommitOptions): Promise<Entry>;
  /** Drops everything written. Idempotent; safe after a failed commit. */
  abort(reason?: unknown): Promise<void>;
}

export interface MoveOptions {
  /** Replace an existing *file* at the destination (default false → `exists`). */
  overwrite?: boolean;
}

export interface PresignOptions {
  /** Lifetime in seconds (default: the driver's configured lifetime). */
  expiresSec?: number;
  /** File name for `Content-Disposition: attachment` (default: the base name). */
  filename?: string;
}

export interface DriverCapabilities {
  /** Hash kinds this driver can provide without reading (per file, `hashes()` says which are known). */
  hashes: readonly HashName[];
  /** The server may stream this storage's content (false: downloads redirect via `presign`). */
  streamable: boolean;
  /** `presign` is available. */
  presign: boolean;
  /**
   * Digests live with each stored object (S3 metadata and ETags), so a listing shows them even for objects
   * another client wrote. False: only what Ferry recorded in its hash index is known without a read.
   */
  hashesWithObjects: boolean;
}

export interface StorageUsage {
  total: number;
  used: number;
  free: number;
}

export interface StaleCleanupOptions {
  /** Temp files/objects whose last write is older than this (epoch ms) are removed. */
  tempBefore: number;
  /** Multipart uploads whose last part (or start, without parts) is older than this (epoch ms) are aborted. */
  uploadsBefore: number;
  signal?: AbortSignal;
}

export interface StaleCleanupReport {
  /** In-storage paths (or keys) of the temp files/objects removed. */
  temps: string[];
  /** Keys of the multipart uploads aborted. */
  uploads: string[];
}

export interface StorageDriver {
  /** Registry key: `local`, `s3`. */
  readonly kind: string;
  readonly capabilities: DriverCapabilities;
  /** Options after validation and normalisation (what the admin API persists as `addition`). */
  readonly options: Readonly<Record<string, unknown>>;
  /** The host folder behind the storage, when there is one (never shown to users). */
  readonly hostPath?: string;

  list(path: string): Promise<Entry[]>;
  /**
   * `list` as columns (no object per entry), for drivers that read folders that way; in `list`'s order, or in any
   * order with `unordered` (a walk that indexes every entry: no collation sort).
   */
  listColumns?(path: string, o?: { unordered?: boolean }): Promise<EntryColumns>;
  stat(path: string): Promise<Entry>;
  /** Whole file, or an inclusive range that must lie inside the file (`invalid_range` otherwise). */
  read(path: string, range?: ByteRange): Promise<Readable>;
  beginWrite(path: string, opts?: WriteOptions): Promise<PendingWrite>;
  /** Creates the directory and missing parents; an existing directory is fine, a file is `exists`. */
  mkdir(path: string): Promise<Entry>;
  /** Rename inside the same directory. */
  rename(path: string, newName: string): Promise<Entry>;
  /** Move file or directory to the full destination path (its parent must exist). */
  move(src: string, dst: string, opts?: MoveOptions): Promise<Entry>;
  /** Copy file or directory (recursively) to the full destination path. */
  copy(src: string, dst: string, opts?: MoveOptions): Promise<Entry>;
  /** Removes a file or a directory with everything below it. The root cannot be removed. */
  remove(path: string): Promise<void>;
  /** Hashes known for the file's current content (empty object when none). */
  hashes(path: string): Promise<Hashes>;
  /** `hashes()` of many files of one listing (their entries as `list()` gave them), by path; files with none are absent. */
  hashesOfListed(files: readonly Entry[]): Promise<Map<string, Hashes>>;
  /**
   * Server-side copy of `srcPath` on another storage into `dstPath` here (overwriting), when this driver can
   * reach that storage's bytes without streaming them through Ferry (e.g. two S3 storages on one bucket).
   * Resolves false when it cannot; the caller then streams.
   */
  copyFrom?(source: StorageDriver, srcPath: string, dstPath: string, opts: { size: number }): Promise<boolean>;
  /** The host file behind an in-storage path, for tools that need a seekable file (ffmpeg); absent when there is none. */
  localFile?(path: string): string;
  /**
   * Sets a file's modification time (WebDAV PROPPATCH, as rclone and Windows do after an upload); the
   * digests known for the content stay known. Absent: the driver cannot change times after a write.
   */
  setModified?(path: string, mtime: Date): Promise<Entry>;
  /** A time-limited direct GET URL (only when `capabilities.presign`). */
  presign?(path: string, opts?: PresignOptions): Promise<string>;
  usage?(): Promise<StorageUsage>;
  /**
   * Start-up cleanup: removes what writes that died with their process left behind (temp
   * files/objects, unfinished multipart uploads) and that nobody has touched since the cutoffs,
   * so a live writer of another instance sharing the store is never disturbed.
   */
  cleanupStale?(opts: StaleCleanupOptions): Promise<StaleCleanupReport>;
  /** Releases sockets/handles. */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Errors

export type DriverErrorKind =
  | 'not_found'
  | 'exists'
  | 'not_a_directory'
  | 'is_a_directory'
  | 'invalid_path'
  | 'invalid_name'
  | 'invalid_option'
  | 'invalid_range'
  | 'invalid_operation'
  | 'size_mismatch'
  | 'hash_mismatch'
  | 'permission'
  | 'aborted'
  | 'io';

/** The HTTP status of each kind (a DriverError is an AppError with this code). */
export const DRIVER_ERROR_STATUS: Record<DriverErrorKind, number> = {
  not_found: 404,
  exists: 403, // OpenList: `file exists` is 403
  not_a_directory: 400,
  is_a_directory: 400,
  invalid_path: 403,
  invalid_name: 400,
  invalid_option: 400,
  invalid_range: 416,
  invalid_operation: 400,
  size_mismatch: 400,
  hash_mismatch: 400,
  permission: 403,
  aborted: 400,
  io: 500,
};

export class DriverError extends AppError {
  constructor(
    readonly kind: DriverErrorKind,
    message: string,
    readonly details: { path?: string; option?: string; cause?: unknown } = {},
  ) {
    super(DRIVER_ERROR_STATUS[kind], message, details.option === undefined ? null : { option: details.option });
    if (details.cause !== undefined) this.cause = details.cause;
    this.name = 'DriverError';
  }
  /** For `invalid_option`: the offending option name. */
  get option(): string | undefined {
    return this.details.option;
  }
  override replyMessage(): string {
    return this.code >= 500 ? `storage error: ${this.message}` : this.message;
  }
}

export function isDriverError(e: unknown, kind?: DriverErrorKind): e is DriverError {
  return e instanceof DriverError && (kind === undefined || e.kind === kind);
}


// ---------------------------------------------------------------------------------------------
// Option descriptors (what `/api/admin/driver/list` renders)

export interface OptionDescriptor {
  name: string;
  type: 'string' | 'number' | 'bool' | 'select';
  /** Typed default applied when the option is missing. */
  default: string | number | boolean;
  required: boolean;
  help: string;
  /** Allowed values for `select`. */
  options?: readonly string[];
}

// ---------------------------------------------------------------------------------------------
// Hashing engine: the digests a write records are computed while the bytes flow, off the event
// loop when the composition root injects the worker-thread engine (drivers never import it).

/** One streaming job computing whole-file digests of the bytes given to `update`, in order. */
export interface StreamHasher {
  /** Takes the next bytes; resolves once they are accepted (awaiting it is the back-pressure). */
  update(chunk: Uint8Array): Promise<void>;
  /** The digests (lowercase hex) of every byte given, once all are hashed. */
  digest(): Promise<Hashes>;
  /** Drops the job; pending and later calls reject. Idempotent. */
  abort(reason?: unknown): void;
}

/** Starts a digest job for `names`; `expectedSize` (bytes) when known. */
export type HashEngine = (names: readonly HashName[], expectedSize?: number) => StreamHasher;

// ---------------------------------------------------------------------------------------------
// Hash index (local driver). Keyed by path inside the storage; valid only for the size and
// mtime (integer milliseconds, `Math.floor(stat.mtimeMs)`) it was recorded for. Drivers call it
// after their disk change is done, so an implementation never rejects: when its store fails it
// answers "unknown" and forgets (or stops trusting) the rows involved; it never keeps a stale one.

export interface HashIndex {
  /** Hashes recorded for exactly this size+mtime, else undefined. */
  get(path: string, size: number, mtimeMs: number): Promise<Hashes | undefined>;
  /** Records hashes; merges with an entry of the same size+mtime, replaces any other. */
  put(path: string, size: number, mtimeMs: number, hashes: Hashes): Promise<void>;
  /** Forgets the path and, for directories, everything below it. */
  invalidate(path: string): Promise<void>;
  /** Re-keys the path and everything below it (`src` entries disappear). */
  move(src: string, dst: string): Promise<void>;
  /** Duplicates the entries of the path and everything below it. */
  copy(src: string, dst: string): Promise<void>;
  /**
   * Records a modification time a client set, valid for exactly this size+mtime (drivers whose storage keeps
   * its own time, such as S3's LastModified). Keeps the digests known for the same content.
   */
  setClientMtime(path: string, size: number, mtimeMs: number, clientMs: number): Promise<void>;
  /** The client-set times (ms) still valid for these files, by path; one query for a whole listing. */
  clientMtimes(files: ReadonlyArray<{ path: string; size: number; mtimeMs: number }>): Promise<Map<string, number>>;
  /** The digests still valid for these files (files with none are absent), by path; one query for a whole listing. */
  getMany(files: ReadonlyArray<{ path: string; size: number; mtimeMs: number }>): Promise<Map<string, Hashes>>;
}

function isUnder(root: string, p: string): boolean {
  return p === root || p.startsWith(root === '/' ? '/' : root + '/');
}

/** In-memory HashIndex for tests and for storages without a database. */
export class MemoryHashIndex implements HashIndex {
  readonly entries = new Map<string, { size: number; mtimeMs: number; hashes: Hashes; clientMs?: number }>();

  async get(path: string, size: number, mtimeMs: number): Promise<Hashes | undefined> {
    const e = this.entries.get(path);
    return e && e.size === size && e.mtimeMs === mtimeMs ? { ...e.hashes } : undefined;
  }
  async put(path: string, size: number, mtimeMs: number, hashes: Hashes): Promise<void> {
    const e = this.entries.get(path);
    const base = e && e.size === size && e.mtimeMs === mtimeMs ? e.hashes : {};
    this.entries.set(path, { size, mtimeMs, hashes: { ...base, ...hashes }, clientMs: e && e.size === size && e.mtimeMs === mtimeMs ? e.clientMs : undefined });
  }
  async setClientMtime(path: string, size: number, mtimeMs: number, clientMs: number): Promise<void> {
    const e = this.entries.get(path);
    const same = e && e.size === size && e.mtimeMs === mtimeMs;
    this.entries.set(path, { size, mtimeMs, hashes: same ? e.hashes : {}, clientMs });
  }
  async clientMtimes(files: ReadonlyArray<{ path: string; size: number; mtimeMs: number }>): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const f of files) {
      const e = this.entries.get(f.path);
      if (e && e.clientMs !== undefined && e.size === f.size && e.mtimeMs === f.mtimeMs) out.set(f.path, e.clientMs);
    }
    return out;
  }
  async getMany(files: ReadonlyArray<{ path: string; size: number; mtimeMs: number }>): Promise<Map<string, Hashes>> {
    const out = new Map<string, Hashes>();
    for (const f of files) {
      const h = await this.get(f.path, f.size, f.mtimeMs);
      if (h && Object.keys(h).length) out.set(f.path, h);
    }
    return out;
  }
  async invalidate(path: string): Promise<void> {
    for (const k of [...this.entries.keys()]) if (isUnder(path, k)) this.entries.delete(k);
  }
  async move(src: string, dst: string): Promise<void> {
    const moved: [string, { size: number; mtimeMs: number; hashes: Hashes; clientMs?: number }][] = [];
    for (const [k, v] of this.entries) if (isUnder(src, k)) moved.push([dst + k.slice(src.length), v]);
    await this.invalidate(src);
    await this.invalidate(dst);
    for (const [k, v] of moved) this.entries.set(k, v);
  }
  async copy(src: string, dst: string): Promise<void> {
    const copied: [string, { size: number; mtimeMs: number; hashes: Hashes; clientMs?: number }][] = [];
    for (const [k, v] of this.entries) if (isUnder(src, k)) copied.push([dst + k.slice(src.length), { ...v, hashes: { ...v.hashes } }]);
    await this.invalidate(dst);
    for (const [k, v] of copied) this.entries.set(k, v);
  }
}
