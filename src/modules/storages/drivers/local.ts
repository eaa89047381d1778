/**
 * `local` driver: a directory on the host.
 *
 * - Writes go to `<target dir>/.ferry-tmp-<random>`; commit = utimes → fsync → rename (or link for
 *   overwrite=false, which is atomic no-clobber) → fsync of the directory. Commits to the same
 *   path are serialised in-process so the hash index always describes the file that won.
 * - Hashes come from an injected HashIndex keyed by (path, size, mtime ms). It is filled on every
 *   committed write (the digests of the `hash_on_write` option, computed by the injected engine
 *   while the bytes arrive, or caller-supplied ones) and on every complete whole-file read, and it
 *   is moved/invalidated along with the files.
 * - Directory copies are built in a hidden temp directory and renamed into place at the end.
 */
import { constants as fsc, type Dirent, type Stats } from 'node:fs';
import * as fsp from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join, resolve, dirname, relative } from 'node:path';
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { BasePendingWrite, type WriteHashing } from './pending.js';
import { FileRangeStream, type RangeHooks } from './file-range.js';
import type { ListReply, ListRequest } from './local-list.worker.js';
import { entryAt } from './columns.js';
import { WorkerPool } from '../../../lib/worker-pool.js';
import {
  DriverError,
  HASH_NAMES,
  type ByteRange,
  type HashEngine,
  type HashName,
  type StreamHasher,
  type DriverCapabilities,
  type Entry,
  type EntryColumns,
  type HashIndex,
  type Hashes,
  type MoveOptions,
  type OptionDescriptor,
  type PendingWrite,
  type StaleCleanupOptions,
  type StaleCleanupReport,
  type StorageDriver,
  type StorageUsage,
  type WriteOptions,
} from './types.js';
import { hasAny } from '../../../lib/hashes.js';
import { baseName, joinPath, parentOf } from '../../../lib/paths.js';
import {
  HASH_ON_WRITE_OPTION,
  KeyedMutex,
  MultiHasher,
  TEMP_PREFIX,
  checkName,
  checkPath,
  checkRange,
  checkTransfer,
  inlineHashEngine,
  isTempName,
  parseHashOnWrite,
} from './util.js';

export const LOCAL_OPTIONS: readonly OptionDescriptor[] = [
  { name: 'root_folder_path', type: 'string', default: '', required: true, help: 'Host directory holding the files. It must exist; a relative path is made absolute.' },
  { name: 'show_hidden', type: 'bool', default: true, required: false, help: 'When false, names starting with "." are left out of listings.' },
  { name: 'mkdir_perm', type: 'string', default: '777', required: false, help: 'Octal mode for new folders (the process umask still applies).' },
  {
    name: 'recycle_bin_path',
    type: 'string',
    default: 'delete permanently',
    required: false,
    help: 'Empty or "delete permanently" deletes for real; otherwise removed items are moved under this host directory, mirroring their folder.',
  },
  HASH_ON_WRITE_OPTION,
];

const DELETE_PERMANENTLY = 'delete permanently';

/** Entries `list` makes between two turns of the event loop (a 100,000-entry folder: 25 slices of a few ms). */
const LIST_SLICE = 4096;

/**
 * Folder reads (readdir + a stat per entry) run on worker threads: a 100,000-entry folder costs the event loop
 * one message, not 100,000 promises, and its stats do not queue on libuv's pool ahead of everyone's downloads.
 */
const listing = new WorkerPool<ListRequest, ListReply>({
  module: new URL(import.meta.url.endsWith('.ts') ? './local-list.worker.ts' : './local-list.worker.js', import.meta.url),
  name: 'ferry-list',
  size: 2,
  maxQueue: 256,
  revive: (e) => Object.assign(new Error(e.message), { code: e.code }),
});

export interface LocalDeps {
  hashIndex: HashIndex;
  /** Computes the digests of writes; default: on the calling thread. */
  hashEngine?: HashEngine;
}

/**
 * Whole reads that hash for the index at once (each a job on the hashing engine): one per file, so 100
 * clients fetching the same new file hash it once, and a few in all, so many files read at once do not
 * fill the engine with jobs that slow clients keep open for long.
 */
const MAX_LEARNING_READS = 2;

/** Bytes an upload gathers into one writev while the previous batch is being written to disk. */
const WRITE_BATCH = 1024 * 1024;
/**
 * A write asks the disk to catch up (fdatasync, in the background) every this many bytes, so the
 * fsync before the rename finds little left to write instead of the whole file.
 */
const SYNC_EVERY = 64 * 1024 * 1024;

function mapFsError(e: unknown, path: string): DriverError {
  if (e instanceof DriverError) return e;
  const code = (e as NodeJS.ErrnoException)?.code;
  const msg = (e as Error)?.message ?? String(e);
  switch (code) {
    case 'ENOENT':
      return new DriverError('not_found', `object not found: ${path}`, { path, cause: e });
    case 'EEXIST':
    case 'ENOTEMPTY':
      return new DriverError('exists', `file exists: ${path}`, { path, cause: e });
    case 'ENOTDIR':
      return new DriverError('not_a_directory', `not a directory: ${path}`, { path, cause: e });
    case 'EISDIR':
      return new DriverError('is_a_directory', `is a directory: ${path}`, { path, cause: e });
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new DriverError('permission', `permission denied: ${path}`, { path, cause: e });
    case 'ENAMETOOLONG':
      return new DriverError('invalid_name', `name too long: ${path}`, { path, cause: e });
    case 'ELOOP':
      return new DriverError('invalid_path', `too many levels of symbolic links: ${path}`, { path, cause: e });
    default:
      // Node's message quotes host paths (`ENOSPC: no space left on device, write '/srv/…'`): never sent to users
      return new DriverError('io', `${msg.replace(/, \w+ '.*$/s, '').replace(/'\/[^']*'/g, "'…'")} (${path})`, { path, cause: e });
  }
}

const mtimeKey = (st: Stats) => Math.floor(st.mtimeMs);
/** Same inode, size and mtime: as far as stat can tell, the bytes did not change in between. */
const sameFile = (a: Stats, b: Stats) => a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;

/** A file a copy made, with the digests of the source bytes it was made from. */
interface CopiedFile {
  dst: string;
  copy: Stats;
  hashes: Hashes;
}

/** Longer than a file name may be on Linux file systems (NAME_MAX, in bytes). */
const NAME_MAX = 255;
const tooLong = (name: string) => name.length > NAME_MAX / 3 && Buffer.byteLength(name) > NAME_MAX;

async function exists(abs: string): Promise<Stats | null> {
  try {
    return await fsp.lstat(abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

async function fsyncDir(dir: string): Promise<void> {
  let fh: FileHandle | undefined;
  try {
    fh = await fsp.open(dir, 'r');
    await fh.sync();
  } catch {
    // some file systems refuse fsync on directories; the rename itself is still atomic
  } finally {
    await fh?.close().catch(() => undefined);
  }
}

const tmpName = () => TEMP_PREFIX + randomBytes(9).toString('hex');

export class LocalDriver implements StorageDriver {
  readonly kind = 'local';
  readonly capabilities: DriverCapabilities = { hashes: HASH_NAMES, streamable: true, presign: false, hashesWithObjects: false };
  readonly root: string;
  private readonly showHidden: boolean;
  private readonly dirMode: number;
  private readonly recycleBin: string | null;
  /** @internal used by LocalPendingWrite */
  readonly commitLock = new KeyedMutex();
  /** @internal used by LocalPendingWrite */
  readonly hashing: WriteHashing;
  /** Paths whose whole read is hashing for the index right now (see MAX_LEARNING_READS). */
  private readonly learning = new Set<string>();

  private constructor(
    readonly options: Readonly<Record<string, unknown>>,
    root: string,
    /** @internal */ readonly index: HashIndex,
    hashing: WriteHashing,
  ) {
    this.hashing = hashing;
    this.root = root;
    this.showHidden = options.show_hidden !== false;
    this.dirMode = parseInt(String(options.mkdir_perm || '777'), 8);
    const bin = String(options.recycle_bin_path ?? '').trim();
    this.recycleBin = bin === '' || bin === DELETE_PERMANENTLY ? null : resolve(bin);
  }

  /** `opts` must already be validated against LOCAL_OPTIONS. */
  static async create(opts: Record<string, unknown>, deps: LocalDeps): Promise<LocalDriver> {
    const rootOpt = String(opts.root_folder_path);
    const root = resolve(rootOpt);
    const st = await fsp.stat(root).catch(() => null);
    if (!st?.isDirectory()) {
      throw new DriverError('invalid_option', `root folder ${root} not exists`, { option: 'root_folder_path' });
    }
    const perm = String(opts.mkdir_perm || '777');
    if (!/^[0-7]{1,4}$/.test(perm)) throw new DriverError('invalid_option', `mkdir_perm must be octal, got ${perm}`, { option: 'mkdir_perm' });
    const onWrite = parseHashOnWrite(opts.hash_on_write ?? HASH_ON_WRITE_OPTION.default);
    return new LocalDriver({ ...opts, root_folder_path: root, hash_on_write: onWrite.normalized }, await fsp.realpath(root), deps.hashIndex, {
      engine: deps.hashEngine ?? inlineHashEngine,
      onWrite: onWrite.names,
    });
  }

  /** Host path for an in-storage path (validated). */
  get hostPath(): string {
    return this.root;
  }

  localFile(path: string): string {
    return this.abs(path);
  }

  abs(path: string): string {
    const segs = checkPath(path);
    // refused before any disk change (a mkdir -p would otherwise create the parents first)
    if (segs.some(tooLong)) throw new DriverError('invalid_name', `name too long: ${path}`, { path });
    return segs.length ? join(this.root, ...segs) : this.root;
  }

  private toEntry(path: string, st: Stats, hashes?: Hashes): Entry {
    const isDir = st.isDirectory();
    // whole milliseconds rounded down, as listings (new Date(mtimeMs)) and the hash index (mtimeKey) have them:
    // Node's st.mtime rounds, so a stat and a listing of one file could disagree by 1 ms (thumbnail keys, ETags)
    const e: Entry = { name: baseName(path), path, size: isDir ? 0 : st.size, isDir, modified: new Date(mtimeKey(st)) };
    if (st.birthtimeMs > 0) e.created = new Date(Math.floor(st.birthtimeMs));
    if (hasAny(hashes)) e.hashes = hashes;
    return e;
  }

  private async statAbs(abs: string, path: string): Promise<Stats> {
    try {
      return await fsp.stat(abs);
    } catch (e) {
      throw mapFsError(e, path);
    }
  }

  private async requireDir(path: string): Promise<void> {
    const st = await this.statAbs(this.abs(path), path);
    if (!st.isDirectory()) throw new DriverError('not_a_directory', `not a directory: ${path}`, { path });
  }

  async listColumns(path: string, o?: { unordered?: boolean }): Promise<EntryColumns> {
    try {
      return await listing.run({ dir: this.abs(path), showHidden: this.showHidden, tempPrefix: TEMP_PREFIX, unordered: o?.unordered });
    } catch (e) {
      throw mapFsError(e, path);
    }
  }

  async list(path: string): Promise<Entry[]> {
    const cols = await this.listColumns(path);
    const prefix = path === '/' ? '/' : path + '/';
    const entries: Entry[] = [];
    for (let i = 0; i < cols.names.length; i++) {
      // a huge folder's entries are made a slice at a time, the event loop free in between
      if (i > 0 && i % LIST_SLICE === 0) await nextTurn();
      entries.push(entryAt(cols, i, prefix + cols.names[i]!));
    }
    return entries;
  }

  async stat(path: string): Promise<Entry> {
    const st = await this.statAbs(this.abs(path), path);
    const hashes = st.isFile() ? await this.index.get(path, st.size, mtimeKey(st)) : undefined;
    return this.toEntry(path, st, hashes);
  }

  async setModified(path: string, mtime: Date): Promise<Entry> {
    const abs = this.abs(path);
    const st = await this.statAbs(abs, path);
    if (!st.isFile()) throw new DriverError('is_a_directory', `is a directory: ${path}`, { path });
    const known = await this.index.get(path, st.size, mtimeKey(st));
    try {
      await fsp.utimes(abs, st.atime, mtime);
    } catch (e) {
      throw mapFsError(e, path);
    }
    const now = await this.statAbs(abs, path);
    if (known && now.size === st.size) await this.index.put(path, now.size, mtimeKey(now), known);
    return this.toEntry(path, now, known);
  }

  async hashes(path: string): Promise<Hashes> {
    const st = await this.statAbs(this.abs(path), path);
    if (st.isDirectory()) throw new DriverError('is_a_directory', `is a directory: ${path}`, { path });
    return (await this.index.get(path, st.size, mtimeKey(st))) ?? {};
  }

  async hashesOfListed(files: readonly Entry[]): Promise<Map<string, Hashes>> {
    // a listing's times are whole milliseconds rounded down: the index's key (mtimeKey)
    return this.index.getMany(files.filter((e) => !e.isDir).map((e) => ({ path: e.path, size: e.size, mtimeMs: e.modified.getTime() })));
  }

  async read(path: string, range?: ByteRange): Promise<Readable> {
    const abs = this.abs(path);
    let fh: FileHandle;
    try {
      fh = await fsp.open(abs, 'r');
    } catch (e) {
      throw mapFsError(e, path);
    }
    let st: Stats;
    try {
      st = await fh.stat();
      if (st.isDirectory()) throw new DriverError('is_a_directory', `is a directory: ${path}`, { path });
    } catch (e) {
      await fh.close().catch(() => undefined);
      throw mapFsError(e, path);
    }
    const start = range ? range.start : 0;
    let end = st.size - 1;
    try {
      if (range) end = checkRange(path, st.size, range);
    } catch (e) {
      await fh.close().catch(() => undefined);
      throw e;
    }
    const whole = start === 0 && end === st.size - 1;
    const known = whole ? await this.index.get(path, st.size, mtimeKey(st)).catch(() => undefined) : undefined;
    const missing = HASH_NAMES.filter((n) => !known?.[n]);
    if (st.size === 0) {
      await fh.close().catch(() => undefined);
      if (missing.length) await this.index.put(path, 0, mtimeKey(st), new MultiHasher(missing).digest()).catch(() => undefined);
      return Readable.from([]);
    }
    const learn = whole && missing.length > 0 && !this.learning.has(path) && this.learning.size < MAX_LEARNING_READS;
    return new FileRangeStream(fh, start, end, learn ? this.learnHashes(path, abs, st, missing) : undefined);
  }

  /**
   * Hooks of a whole-file read whose digests the index lacks: the engine (worker threads in the server)
   * hashes the bytes on their way out, and the index records them if the file is still the one read.
   * A hashing failure only means nothing is learnt: the read goes on.
   */
  private learnHashes(path: string, abs: string, st: Stats, missing: HashName[]): RangeHooks {
    this.learning.add(path);
    let job: StreamHasher | null = this.hashing.engine(missing, st.size);
    const drop = (reason?: unknown) => {
      job?.abort(reason);
      job = null;
    };
    return {
      chunk: async (bytes) => {
        await job?.update(bytes).catch(drop);
      },
      end: async (complete) => {
        this.learning.delete(path);
        if (!complete) return drop();
        const digests = await job?.digest().catch(() => null);
        if (!digests) return;
        const now = await fsp.stat(abs).catch(() => null);
        if (now && sameFile(now, st)) await this.index.put(path, st.size, mtimeKey(st), digests).catch(() => undefined);
      },
    };
  }

  async beginWrite(path: string, opts: WriteOptions = {}): Promise<PendingWrite> {
    const abs = this.abs(path);
    if (path === '/') throw new DriverError('is_a_directory', 'cannot write the root', { path });
    await this.mkdirp(parentOf(path), true);
    const cur = await exists(abs).catch((e: unknown) => {
      throw mapFsError(e, path);
    });
    if (cur?.isDirectory()) throw new DriverError('is_a_directory', `is a directory: ${path}`, { path });
    if (cur && opts.overwrite === false) throw new DriverError('exists', 'file exists', { path });
    const tmp = join(dirname(abs), tmpName());
    let fh: FileHandle;
    try {
      fh = await fsp.open(tmp, 'wx', 0o666);
    } catch (e) {
      throw mapFsError(e, path);
    }
    return new LocalPendingWrite(this, path, abs, tmp, fh, opts);
  }

  /** mkdir -p; a file at `path` itself is `exists` unless `asParent` (then `not_a_directory`). */
  private async mkdirp(path: string, asParent = false): Promise<void> {
    const abs = this.abs(path);
    try {
      await fsp.mkdir(abs, { recursive: true, mode: this.dirMode });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' || code === 'ENOTDIR') {
        const st = await exists(abs).catch(() => null);
        if (st && !st.isDirectory() && code === 'EEXIST' && !asParent) throw new DriverError('exists', `file exists: ${path}`, { path });
        throw new DriverError('not_a_directory', `a parent of ${path} is not a directory`, { path, cause: e });
      }
      throw mapFsError(e, path);
    }
  }

  async mkdir(path: string): Promise<Entry> {
    await this.mkdirp(path);
    const st = await this.statAbs(this.abs(path), path);
    if (!st.isDirectory()) throw new DriverError('exists', `file exists: ${path}`, { path });
    return this.toEntry(path, st);
  }

  async rename(path: string, newName: string): Promise<Entry> {
    checkName(newName);
    if (tooLong(newName)) throw new DriverError('invalid_name', `name too long: ${newName}`, { path });
    checkPath(path);
    return this.move(path, joinPath(parentOf(path), newName));
  }

  /** Shared checks for move/copy; returns the source stats. */
  private async prepareTransfer(src: string, dst: string, opts: MoveOptions, verb: string): Promise<{ sst: Stats; replace: boolean }> {
    checkTransfer(src, dst, verb);
    const sst = await this.statAbs(this.abs(src), src);
    await this.requireDir(parentOf(dst)).catch((e: unknown) => {
      throw e instanceof DriverError && e.kind === 'not_found' ? new DriverError('not_found', `destination folder not found: ${parentOf(dst)}`, { path: dst }) : e;
    });
    const dst0 = src === dst ? null : await exists(this.abs(dst));
    if (dst0 && !(opts.overwrite && dst0.isFile() && sst.isFile())) throw new DriverError('exists', `file [${baseName(dst)}] exists`, { path: dst });
    return { sst, replace: !!dst0 };
  }

  async move(src: string, dst: string, opts: MoveOptions = {}): Promise<Entry> {
    const { sst, replace } = await this.prepareTransfer(src, dst, opts, 'move');
    if (src === dst) return this.stat(src);
    const a = this.abs(src);
    const b = this.abs(dst);
    try {
      if (sst.isFile() && !replace) {
        // atomic no-clobber for files; directories fall back to check-then-rename
        try {
          await fsp.link(a, b);
          await fsp.unlink(a);
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          if (code === 'EEXIST') throw e;
          await fsp.rename(a, b);
        }
      } else {
        await fsp.rename(a, b);
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw mapFsError(e, dst);
      await this.copy(src, dst, opts);
      await this.remove(src);
      return this.stat(dst);
    }
    await fsyncDir(dirname(b));
    await this.index.move(src, dst);
    return this.stat(dst);
  }

  async copy(src: string, dst: string, opts: MoveOptions = {}): Promise<Entry> {
    if (src === dst) throw new DriverError('invalid_operation', 'cannot copy onto itself', { path: dst });
    const { sst } = await this.prepareTransfer(src, dst, opts, 'copy');
    const b = this.abs(dst);
    const tmp = join(dirname(b), tmpName());
    const copied: CopiedFile[] = [];
    try {
      if (sst.isDirectory()) await this.copyTree(this.abs(src), tmp, src, dst, copied);
      else await this.copyOneFile(this.abs(src), tmp, sst, src, dst, copied);
      if (sst.isDirectory()) {
        // no-clobber for directories: rename fails with ENOTEMPTY/EEXIST only if dst is non-empty
        if (await exists(b)) throw new DriverError('exists', `file [${baseName(dst)}] exists`, { path: dst });
        await fsp.rename(tmp, b);
      } else if (opts.overwrite) {
        await fsp.rename(tmp, b);
      } else {
        await fsp.link(tmp, b);
        await fsp.unlink(tmp);
      }
      await fsyncDir(dirname(b));
    } catch (e) {
      await fsp.rm(tmp, { recursive: true, force: true }).catch(() => undefined);
      throw mapFsError(e, dst);
    }
    await this.index.invalidate(dst);
    for (const c of copied) {
      // only while the copy at `dst` is still the file made from those bytes
      const now = await fsp.stat(this.abs(c.dst)).catch(() => null);
      if (now && sameFile(now, c.copy)) await this.index.put(c.dst, now.size, mtimeKey(now), c.hashes);
    }
    return this.stat(dst);
  }

  /**
   * Copies one file; when the index knew the source's digests before the copy and the source is the same
   * file (inode, size, mtime) after it, the copy is listed with them: these are the bytes hashed.
   */
  private async copyOneFile(a: string, b: string, st: Stats, srcPath: string, dstPath: string, copied: CopiedFile[]): Promise<void> {
    const known = await this.index.get(srcPath, st.size, mtimeKey(st));
    await fsp.copyFile(a, b, fsc.COPYFILE_FICLONE | fsc.COPYFILE_EXCL);
    await fsp.utimes(b, st.atimeMs / 1000, st.mtimeMs / 1000); // sub-millisecond times kept: the copy lists as its source does
    const fh = await fsp.open(b, 'r+');
    let copy: Stats;
    try {
      await fh.sync();
      copy = await fh.stat();
    } finally {
      await fh.close();
    }
    if (!known) return;
    const after = await fsp.stat(a).catch(() => null);
    if (after && sameFile(after, st)) copied.push({ dst: dstPath, copy, hashes: known });
  }

  private async copyTree(a: string, b: string, srcPath: string, dstPath: string, copied: CopiedFile[]): Promise<void> {
    const dst = await fsp.stat(a);
    await fsp.mkdir(b, { mode: this.dirMode });
    for (const d of await fsp.readdir(a, { withFileTypes: true })) {
      if (isTempName(d.name)) continue;
      const ca = join(a, d.name);
      const cb = join(b, d.name);
      const sp = joinPath(srcPath, d.name);
      const dp = joinPath(dstPath, d.name);
      if (d.isSymbolicLink()) await fsp.symlink(await fsp.readlink(ca), cb);
      else if (d.isDirectory()) await this.copyTree(ca, cb, sp, dp, copied);
      else if (d.isFile()) await this.copyOneFile(ca, cb, await fsp.stat(ca), sp, dp, copied);
      else throw new DriverError('invalid_operation', `cannot copy a device: ${sp}`, { path: sp });
    }
    await fsp.utimes(b, dst.atimeMs / 1000, dst.mtimeMs / 1000);
  }

  async remove(path: string): Promise<void> {
    const abs = this.abs(path);
    if (path === '/') throw new DriverError('invalid_operation', 'cannot remove the root', { path });
    const st = await exists(abs).catch((e: unknown) => {
      throw mapFsError(e, path);
    });
    if (!st) throw new DriverError('not_found', `object not found: ${path}`, { path });
    try {
      if (this.recycleBin) await this.recycle(abs, path);
      else await fsp.rm(abs, { recursive: true, force: false });
    } catch (e) {
      throw mapFsError(e, path);
    }
    await this.index.invalidate(path);
  }

  private async recycle(abs: string, path: string): Promise<void> {
    const bin = this.recycleBin as string;
    const dir = join(bin, relative(this.root, dirname(abs)));
    await fsp.mkdir(dir, { recursive: true, mode: this.dirMode });
    let target = join(dir, baseName(path));
    if (await exists(target)) {
      const d = new Date();
      const p2 = (n: number) => String(n).padStart(2, '0');
      target += `_${d.getFullYear()}${p2(d.getMonth() + 1)}${p2(d.getDate())}${p2(d.getHours())}${p2(d.getMinutes())}${p2(d.getSeconds())}`;
    }
    try {
      await fsp.rename(abs, target);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
      await fsp.cp(abs, target, { recursive: true, preserveTimestamps: true });
      await fsp.rm(abs, { recursive: true });
    }
  }

  async usage(): Promise<StorageUsage> {
    const s = await fsp.statfs(this.root);
    const total = s.blocks * s.bsize;
    return { total, free: s.bavail * s.bsize, used: total - s.bfree * s.bsize };
  }

  /**
   * Removes `.ferry-tmp-*` files and directories (uploads, copies) anywhere below the root whose
   * newest change (mtime or ctime, over the whole tree for a directory) is older than the cutoff.
   * Symbolic links are not followed.
   */
  async cleanupStale(opts: StaleCleanupOptions): Promise<StaleCleanupReport> {
    const report: StaleCleanupReport = { temps: [], uploads: [] };
    const walk = async (dir: string, path: string): Promise<void> => {
      opts.signal?.throwIfAborted();
      const dirents = await fsp.readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[]);
      for (const d of dirents) {
        const abs = join(dir, d.name);
        const p = joinPath(path, d.name);
        if (isTempName(d.name)) {
          const last = await lastChange(abs);
          if (last !== null && last < opts.tempBefore) {
            await fsp.rm(abs, { recursive: true, force: true });
            report.temps.push(p);
          }
        } else if (d.isDirectory()) await walk(abs, p);
      }
    };
    await walk(this.root, '/');
    return report;
  }

  async close(): Promise<void> {}
}

/** Newest mtime/ctime of a file, or of a directory and everything below it; null when gone. */
export async function lastChange(abs: string): Promise<number | null> {
  const st = await fsp.lstat(abs).catch(() => null);
  if (!st) return null;
  let last = Math.max(st.mtimeMs, st.ctimeMs);
  if (st.isDirectory()) {
    for (const name of await fsp.readdir(abs).catch(() => [] as string[])) {
      const t = await lastChange(join(abs, name));
      if (t !== null && t > last) last = t;
    }
  }
  return last;
}

/** The chunks after the first `n` bytes (a short writev). */
function dropBytes(chunks: Buffer[], n: number): Buffer[] {
  let i = 0;
  while (i < chunks.length && n >= chunks[i]!.length) n -= chunks[i++]!.length;
  const rest = chunks.slice(i);
  if (n > 0 && rest.length) rest[0] = rest[0]!.subarray(n);
  return rest;
}

class LocalPendingWrite extends BasePendingWrite {
  private fhOpen = true;
  private stored = 0;
  private syncedAt = 0;
  /** The background fdatasync in flight; a failure fails the write at the next batch or at commit. */
  private syncing: Promise<void> | null = null;
  private syncError: unknown = null;

  constructor(
    private readonly driver: LocalDriver,
    path: string,
    private readonly abs: string,
    private readonly tmp: string,
    private readonly fh: FileHandle,
    opts: WriteOptions,
  ) {
    super(path, opts, driver.hashing, WRITE_BATCH);
  }

  protected async sink(chunks: Buffer[], bytes: number): Promise<void> {
    if (this.syncError) throw this.syncError;
    let left = chunks;
    let unwritten = bytes;
    while (unwritten > 0) {
      const { bytesWritten } = await this.fh.writev(left);
      unwritten -= bytesWritten;
      if (unwritten > 0) left = dropBytes(left, bytesWritten);
    }
    this.stored += bytes;
    if (!this.syncing && this.stored - this.syncedAt >= SYNC_EVERY) {
      this.syncedAt = this.stored;
      this.syncing = this.fh
        .datasync()
        .catch((e: unknown) => {
          this.syncError ??= e;
        })
        .finally(() => (this.syncing = null));
    }
  }

  protected async finish(): Promise<void> {
    await this.syncing;
    if (this.syncError) throw mapFsError(this.syncError, this.path);
  }

  protected async publish(hashes: Hashes): Promise<Entry> {
    const { fh, path, abs, tmp, driver } = this;
    try {
      if (this.opts.mtime) await fh.utimes(this.opts.mtime, this.opts.mtime);
      await fh.sync();
      const st = await fh.stat();
      this.fhOpen = false;
      await fh.close();
      await driver.commitLock.run(abs, async () => {
        const cur = await exists(abs);
        if (cur?.isDirectory()) throw new DriverError('is_a_directory', `is a directory: ${path}`, { path });
        if (this.opts.overwrite === false) {
          await fsp.link(tmp, abs); // EEXIST → exists: atomic no-clobber
          await fsp.unlink(tmp);
        } else {
          await fsp.rename(tmp, abs);
        }
        await fsyncDir(dirname(abs));
        await driver.index.invalidate(path);
        if (hasAny(hashes)) await driver.index.put(path, st.size, mtimeKey(st), hashes);
      });
      const e: Entry = { name: baseName(path), path, size: st.size, isDir: false, modified: st.mtime };
      if (st.birthtimeMs > 0) e.created = st.birthtime;
      if (hasAny(hashes)) e.hashes = hashes;
      return e;
    } catch (e) {
      throw mapFsError(e, path);
    }
  }

  protected async discard(): Promise<void> {
    await this.syncing;
    if (this.fhOpen) {
      this.fhOpen = false;
      await this.fh.close().catch(() => undefined);
    }
    await fsp.unlink(this.tmp).catch(() => undefined);
  }
}
