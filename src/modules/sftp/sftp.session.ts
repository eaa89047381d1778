/**
 * One SFTP session of a logged-in user: the SFTP v3 requests mapped onto Ferry's virtual
 * tree (the same FsService and storages as HTTP), confined to the user's `base_path`.
 *
 *  - Every client path goes through `joinBasePath` (the one path-safety module); paths
 *    shown back (REALPATH) are relative to the base path, which the user sees as `/`.
 *  - Reads: one range stream per handle, reopened when the client asks for a
 *    non-sequential offset.
 *  - Writes: pipelined into the upload service (sftp.upload.ts: out-of-order writes are put
 *    back in order, back-pressure through the replies); the file appears at CLOSE. A failed
 *    write, a gap or a session that ends before CLOSE aborts the upload and leaves nothing.
 *  - Bit 10 (login + read) is checked at login; every write needs bit 11.
 *  - Every request first asks the connection's guard (sftp.guard.ts) whether the login's
 *    rights still hold: a revoked session answers PERMISSION_DENIED (and the server ends
 *    it); a session that lost bit 11 turns read-only and aborts its unfinished uploads.
 */
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { SFTPWrapper } from 'ssh2';
import { assertSafeName, cleanPath, joinBasePath, stripBasePath } from '../../lib/path-safety.js';
import { type Located } from '../fs/fs.service.js';
import type { SftpDeps } from './sftp.deps.js';
import { isDriverError, type Entry } from '../storages/drivers/index.js';
import type { User } from '../users/user.model.js';
import type { SessionGuard, Verdict } from './sftp.guard.js';
import { SftpUpload, type HeldBudget } from './sftp.upload.js';
import {
  attrsOf,
  denied,
  failure,
  isNotFound,
  longName,
  noSuchFile,
  OpenFlag,
  realUserPath,
  Status,
  statusOf,
  type PathViews,
} from './sftp.util.js';
import { baseName, parentOf } from '../../lib/paths.js';

/** Names per READDIR reply. */
const READDIR_BATCH = 128;
/** Open handles per session. */
const MAX_HANDLES = 256;
/** Largest READ answered in one reply (as OpenSSH's sftp-server); clients handle short reads. */
const MAX_READ = 256 * 1024 - 1024;

/** Sequential reader over `driver.read(inner, {start})`, reopened on a jump. */
export class RangeReader {
  private it: AsyncIterator<Buffer> | null = null;
  private stream: Readable | null = null;
  private chunks: Buffer[] = [];
  private buffered = 0;
  private pos = -1;
  private ended = false;
  /** Streams opened (1 for a purely sequential read). */
  opens = 0;

  constructor(
    private readonly loc: Located,
    private readonly size: number,
  ) {}

  /** Up to `len` bytes at `offset`; null at end of file. */
  async read(offset: number, len: number): Promise<Buffer | null> {
    if (offset >= this.size || len <= 0) return null;
    if (offset !== this.pos) {
      this.close();
      try {
        this.stream = await this.loc.driver.read(this.loc.inner, { start: offset });
      } catch (e) {
        if (isDriverError(e, 'invalid_range')) return null; // the file shrank meanwhile
        throw e;
      }
      this.opens++;
      this.it = this.stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      this.pos = offset;
      this.ended = false;
    }
    while (this.buffered < len && !this.ended) {
      const r = await this.it!.next();
      if (r.done) this.ended = true;
      else {
        const chunk = Buffer.isBuffer(r.value) ? r.value : Buffer.from(r.value as Uint8Array);
        this.chunks.push(chunk);
        this.buffered += chunk.length;
      }
    }
    if (this.buffered === 0) return null;
    const n = Math.min(len, this.buffered);
    let out: Buffer;
    const first = this.chunks[0]!;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
    } else {
      const all = Buffer.concat(this.chunks);
      out = all.subarray(0, n);
      this.chunks = all.length > n ? [all.subarray(n)] : [];
    }
    this.buffered -= n;
    this.pos += n;
    return out;
  }

  close(): void {
    this.stream?.destroy();
    this.stream = null;
    this.it = null;
    this.chunks = [];
    this.buffered = 0;
    this.pos = -1;
  }
}

interface HandleBase {
  full: string;
  /** For error messages: the hidden paths → the user's view. */
  views: PathViews;
}

interface ReadHandle extends HandleBase {
  kind: 'read';
  reader: RangeReader;
  queue: Promise<void>;
}

interface WriteHandle extends HandleBase {
  kind: 'write';
  upload: SftpUpload;
}

interface DirHandle extends HandleBase {
  kind: 'dir';
  names: Array<{ filename: string; longname: string; attrs: ReturnType<typeof attrsOf> }>;
  next: number;
}

type Handle = ReadHandle | WriteHandle | DirHandle;

export class SftpSession {
  private readonly handles = new Map<number, Handle>();
  /** Uploads whose CLOSE is committing them (no longer in `handles`). */
  private readonly committing = new Set<Promise<void>>();
  /** Out-of-order write bytes held by this session's uploads. */
  private readonly held: HeldBudget = { bytes: 0 };
  private nextId = 1;
  private ended = false;
  /** Fixed for the session: a change of base path ends it (sftp.guard.ts). */
  private readonly base: string;
  /** The user as last re-checked, and whether they may write (bit 11) now. */
  private user: User;
  private writable: boolean;

  constructor(
    private readonly deps: Pick<SftpDeps, 'fs' | 'uploads' | 'folderAccess'>,
    private readonly guard: SessionGuard,
    private readonly sftp: SFTPWrapper,
    private readonly log: Logger,
  ) {
    this.user = guard.grant.user;
    this.base = cleanPath(this.user.basePath);
    this.writable = false; // set by the verdict every request gets first (admit)
    this.attach();
  }

  // ---------------------------------------------------------------------------------------
  // plumbing

  private attach(): void {
    const s = this.sftp;
    // The client ended the SFTP stream: end ours too, or OpenSSH's `sftp` hangs at `bye`.
    s.on('end', () => {
      void this.shutdown('the client ended the SFTP session');
      s.end();
    });
    s.on('close', () => void this.shutdown('the SFTP channel closed'));
    s.on('error', (e: Error) => this.log.debug({ err: e }, 'sftp channel error'));

    const route = (event: string, fn: (reqid: number, ...args: any[]) => Promise<void> | void, views: (...args: any[]) => PathViews = () => []) => {
      s.on(event, (reqid: number, ...args: unknown[]) => {
        // Taken before the request runs: CLOSE forgets its handle while it works.
        const v = views(...args);
        const run = (verdict: Verdict) => {
          if (!this.admit(reqid, verdict)) return;
          let r: Promise<void> | void;
          try {
            r = fn.call(this, reqid, ...args);
          } catch (e) {
            this.fail(reqid, e, v);
            return;
          }
          if (r) r.catch((e: unknown) => this.fail(reqid, e, v));
        };
        // Synchronous while the guard's verdict is fresh; otherwise requests wait for the
        // same re-check and then run in the order they arrived.
        const verdict = this.guard.current();
        if (verdict instanceof Promise) void verdict.then(run);
        else run(verdict);
      });
    };
    const pathViews = (p: unknown) => this.views(String(p));
    route('REALPATH', this.onRealpath, pathViews);
    route('STAT', this.onStat, pathViews);
    route('LSTAT', this.onStat, pathViews);
    route('FSTAT', this.onFstat, (h) => this.handleViews(h as Buffer));
    route('OPEN', this.onOpen, pathViews);
    route('READ', this.onRead, (h) => this.handleViews(h as Buffer));
    route('WRITE', this.onWrite, (h) => this.handleViews(h as Buffer));
    route('CLOSE', this.onClose, (h) => this.handleViews(h as Buffer));
    route('OPENDIR', this.onOpendir, pathViews);
    route('READDIR', this.onReaddir, (h) => this.handleViews(h as Buffer));
    route('MKDIR', this.onMkdir, pathViews);
    route('RMDIR', this.onRmdir, pathViews);
    route('REMOVE', this.onRemove, pathViews);
    route('RENAME', this.onRename, (a, b) => [...this.views(String(a)), ...this.views(String(b))]);
    route('SETSTAT', this.onSetstat, pathViews);
    route('FSETSTAT', this.onFsetstat, (h) => this.handleViews(h as Buffer));
    route('READLINK', (reqid: number) => this.reply(reqid, Status.OP_UNSUPPORTED, 'symbolic links are not supported'));
    route('SYMLINK', (reqid: number) => this.reply(reqid, Status.OP_UNSUPPORTED, 'symbolic links are not supported'));
  }

  /** Applies the guard's verdict; false (and the request refused) when it does not pass. */
  private admit(reqid: number, verdict: Verdict): boolean {
    if (this.ended) return false;
    if (!verdict.ok) {
      this.reply(reqid, verdict.final ? Status.PERMISSION_DENIED : Status.FAILURE, verdict.final ? `permission denied: the session was revoked (${verdict.reason})` : verdict.reason);
      return false;
    }
    this.apply(verdict);
    return true;
  }

  private apply(verdict: Verdict & { ok: true }): void {
    this.user = verdict.user;
    if (this.writable && !verdict.writable) {
      // Bit 11 was withdrawn: uploads not yet closed are aborted (nothing is committed).
      for (const h of this.handles.values()) {
        if (h.kind === 'write') void h.upload.abort(denied('permission denied: this user may no longer write over SFTP'));
      }
    }
    this.writable = verdict.writable;
  }

  private reply(reqid: number, code: number, message?: string): void {
    if (this.ended) return;
    try {
      this.sftp.status(reqid, code, message);
    } catch (e) {
      this.log.debug({ err: e }, 'sftp reply failed');
    }
  }

  private ok(reqid: number): void {
    this.reply(reqid, Status.OK);
  }

  private fail(reqid: number, e: unknown, views: PathViews): void {
    const { code, message } = statusOf(e, views);
    if (code === Status.FAILURE && !(e instanceof Error && /^(SftpError|AppError|DriverError)$/.test(e.name))) {
      this.log.warn({ err: e, user: this.user.username }, 'sftp request failed');
    }
    this.reply(reqid, code, message);
  }

  /** The full virtual path of a client path (throws 403 for `..`, NUL, …). */
  private full(p: string): string {
    return joinBasePath(this.base, p);
  }

  /** What the user sees for a full path: relative to the base path. */
  private shown(full: string): string {
    return stripBasePath(this.base, full);
  }

  /** Pairs (hidden path → user's path) used to keep the base path out of error messages. */
  private views(p: string): PathViews {
    try {
      return this.fullViews(this.full(p));
    } catch {
      return [];
    }
  }

  private fullViews(full: string): PathViews {
    return this.base === '/' ? [] : [[full, this.shown(full)], [this.base, '/']];
  }

  private handleViews(h: Buffer): PathViews {
    return this.handles.get(this.handleId(h))?.views ?? [];
  }

  private requireWrite(): void {
    if (!this.writable) throw denied('permission denied: this user may not write over SFTP');
  }

  /**
   * Changing `paths` (created, replaced, removed, renamed from or to): bit 11 — or, to create (`create`: a folder
   * or an upload), a meta's write grant on the parent folder, as over HTTP — and no path hidden from the user
   * (FolderAccess.requireChange, the check every protocol makes).
   */
  private async requireChange(paths: string[], create?: string): Promise<void> {
    const access = this.deps.folderAccess;
    if (!this.writable && !(create !== undefined && access && (await access.metaGrantsWrite(parentOf(create))))) this.requireWrite();
    if (access) await access.requireChange(this.user, null, paths);
  }

  /** Reading `full` (stat, open, list): refused when it or a folder above it is hidden from the user. */
  private async requireVisible(full: string): Promise<void> {
    if (this.deps.folderAccess && !(await this.deps.folderAccess.isVisible(this.user, full, this.base))) throw denied('permission denied');
  }

  private handleId(h: Buffer): number {
    return h.length === 4 ? h.readUInt32BE(0) : 0;
  }

  private roomForHandle(): void {
    if (this.handles.size >= MAX_HANDLES) throw failure(`too many open handles (at most ${MAX_HANDLES})`);
  }

  private newHandle(h: Handle): Buffer {
    this.roomForHandle();
    const id = this.nextId++;
    this.handles.set(id, h);
    const b = Buffer.alloc(4);
    b.writeUInt32BE(id);
    return b;
  }

  private handle(h: Buffer): Handle {
    const handle = this.handles.get(this.handleId(h));
    if (!handle) throw failure('invalid handle');
    return handle;
  }

  private async statFull(full: string): Promise<Entry> {
    return this.deps.fs.stat(full);
  }

  private async exists(full: string): Promise<Entry | null> {
    try {
      return await this.statFull(full);
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  /** The parent of `full` must be an existing directory. */
  private async requireParentDir(full: string): Promise<void> {
    const parent = parentOf(full);
    const e = await this.exists(parent);
    if (!e) throw noSuchFile('no such file or directory (the parent folder does not exist)');
    if (!e.isDir) throw failure('a parent of the path is not a directory');
  }

  /** The user's own root cannot be removed, renamed or replaced. */
  private notTheRoot(full: string): void {
    if (full === this.base) throw denied('the root folder cannot be changed');
  }

  // ---------------------------------------------------------------------------------------
  // paths and attributes

  private onRealpath(reqid: number, p: string): void {
    const shown = realUserPath(this.base, p);
    if (this.ended) return;
    this.sftp.name(reqid, [{ filename: shown, longname: shown, attrs: {} as never }]);
  }

  private async onStat(reqid: number, p: string): Promise<void> {
    const full = this.full(p);
    await this.requireVisible(full);
    const e = await this.statFull(full);
    if (!this.ended) this.sftp.attrs(reqid, attrsOf(e, this.writable));
  }

  private async onFstat(reqid: number, h: Buffer): Promise<void> {
    const handle = this.handle(h);
    const attrs =
      handle.kind === 'write'
        ? attrsOf({ isDir: false, size: handle.upload.size, modified: new Date() }, this.writable)
        : attrsOf(await this.statFull(handle.full), this.writable);
    if (!this.ended) this.sftp.attrs(reqid, attrs);
  }

  private async onSetstat(reqid: number, p: string): Promise<void> {
    const full = this.full(p);
    await this.requireChange([full]);
    await this.statFull(full);
    // No driver can change times or modes after the fact: accepted and ignored, as
    // clients (`put -p`, rsync-like tools) treat a failure here as a failed transfer.
    this.ok(reqid);
  }

  private onFsetstat(reqid: number, h: Buffer): void {
    this.handle(h);
    this.requireWrite();
    this.ok(reqid);
  }

  // ---------------------------------------------------------------------------------------
  // files

  private async onOpen(reqid: number, p: string, flags: number, attrs: { mtime?: number } | undefined): Promise<void> {
    const full = this.full(p);
    if (flags & (OpenFlag.WRITE | OpenFlag.APPEND)) return this.openWrite(reqid, full, flags, attrs);
    await this.requireVisible(full);
    const e = await this.statFull(full);
    if (e.isDir) throw failure('is a directory');
    const loc = await this.deps.fs.locate(full);
    const handle = this.newHandle({ kind: 'read', full, views: this.fullViews(full), reader: new RangeReader(loc, e.size), queue: Promise.resolve() });
    if (!this.ended) this.sftp.handle(reqid, handle);
  }

  private async openWrite(reqid: number, full: string, flags: number, attrs: { mtime?: number } | undefined): Promise<void> {
    await this.requireChange([full], full);
    if (flags & OpenFlag.READ) throw failure('opening a file for reading and writing at once is not supported');
    this.notTheRoot(full);
    if (full === '/') throw failure('is a directory');
    assertSafeName(baseName(full));
    const cur = await this.exists(full);
    if (cur?.isDir) throw failure('is a directory');
    if (cur && flags & OpenFlag.EXCL) throw failure('file exists');
    if (!cur && !(flags & OpenFlag.CREAT)) throw noSuchFile();
    if (cur && cur.size > 0 && !(flags & OpenFlag.TRUNC)) {
      throw failure('changing or appending to an existing file in place is not supported: upload the whole file (it replaces the old one when complete)');
    }
    await this.requireParentDir(full);
    // No await from here on: the handle is registered before the session can end, so
    // shutdown() always finds (and aborts) the upload.
    if (this.ended) throw failure('the session has ended');

    const mtime = attrs?.mtime ? new Date(attrs.mtime * 1000) : undefined;
    const spec = { full, overwrite: !(flags & OpenFlag.EXCL), asTask: false, mtime, expectedHashes: {} };
    this.roomForHandle(); // before the upload starts
    const upload = new SftpUpload((body: Readable) => this.deps.uploads.store(spec, body), this.held);
    this.sftp.handle(reqid, this.newHandle({ kind: 'write', full, views: this.fullViews(full), upload }));
  }

  private onRead(reqid: number, h: Buffer, offset: number, len: number): void {
    const handle = this.handle(h);
    if (handle.kind !== 'read') throw failure(handle.kind === 'dir' ? 'is a directory' : 'the file was opened for writing');
    // Requests of one handle run in order: the stream then serves sequential offsets.
    handle.queue = handle.queue.then(async () => {
      try {
        const data = await handle.reader.read(offset, Math.min(len, MAX_READ));
        if (data === null) this.reply(reqid, Status.EOF);
        else if (!this.ended) this.sftp.data(reqid, data);
      } catch (e) {
        handle.reader.close();
        this.fail(reqid, e, handle.views);
      }
    });
  }

  private onWrite(reqid: number, h: Buffer, offset: number, data: Buffer): void {
    const handle = this.handle(h);
    if (handle.kind !== 'write') throw failure('the file was not opened for writing');
    handle.upload.write(offset, data, (err) => (err ? this.fail(reqid, err, handle.views) : this.ok(reqid)));
  }

  private async onClose(reqid: number, h: Buffer): Promise<void> {
    const id = this.handleId(h);
    const handle = this.handle(h);
    this.handles.delete(id);
    if (handle.kind === 'read') {
      await handle.queue;
      handle.reader.close();
      return this.ok(reqid);
    }
    if (handle.kind === 'dir') return this.ok(reqid);
    const closing = handle.upload.close();
    const settled = closing.catch(() => undefined);
    this.committing.add(settled);
    try {
      await closing;
    } finally {
      this.committing.delete(settled);
    }
    this.ok(reqid);
  }

  // ---------------------------------------------------------------------------------------
  // folders

  private async onOpendir(reqid: number, p: string): Promise<void> {
    const full = this.full(p);
    await this.requireVisible(full);
    const e = await this.statFull(full);
    if (!e.isDir) throw failure('not a directory');
    const visible = this.deps.folderAccess ? await this.deps.folderAccess.visibleIn(this.user, full) : () => true;
    const entries = (await this.deps.fs.list(full)).filter((c) => visible(c.name));
    const now = Date.now();
    const names = entries.map((c) => ({
      filename: c.name,
      longname: longName(c.name, c, this.user.username, this.writable, now),
      attrs: attrsOf(c, this.writable),
    }));
    const handle = this.newHandle({ kind: 'dir', full, views: this.fullViews(full), names, next: 0 });
    if (!this.ended) this.sftp.handle(reqid, handle);
  }

  private onReaddir(reqid: number, h: Buffer): void {
    const handle = this.handle(h);
    if (handle.kind !== 'dir') throw failure('not a directory handle');
    if (handle.next >= handle.names.length) return this.reply(reqid, Status.EOF);
    const batch = handle.names.slice(handle.next, handle.next + READDIR_BATCH);
    handle.next += batch.length;
    if (!this.ended) this.sftp.name(reqid, batch);
  }

  private async onMkdir(reqid: number, p: string): Promise<void> {
    const full = this.full(p);
    await this.requireChange([full], full);
    if (full !== '/') assertSafeName(baseName(full));
    if (await this.exists(full)) throw failure('file exists');
    await this.requireParentDir(full);
    await this.deps.fs.mkdir(full);
    this.ok(reqid);
  }

  private async onRmdir(reqid: number, p: string): Promise<void> {
    const full = this.full(p);
    await this.requireChange([full]);
    this.notTheRoot(full);
    const e = await this.statFull(full);
    if (!e.isDir) throw failure('not a directory');
    if ((await this.deps.fs.list(full)).length > 0) throw failure('directory not empty');
    await this.deps.fs.remove(full);
    this.ok(reqid);
  }

  private async onRemove(reqid: number, p: string): Promise<void> {
    const full = this.full(p);
    await this.requireChange([full]);
    this.notTheRoot(full);
    const e = await this.statFull(full);
    if (e.isDir) throw failure('is a directory (use rmdir)');
    await this.deps.fs.remove(full);
    this.ok(reqid);
  }

  private async onRename(reqid: number, from: string, to: string): Promise<void> {
    const src = this.full(from);
    const dst = this.full(to);
    await this.requireChange(await this.deps.fs.changeSet([[src, dst]]));
    this.notTheRoot(src);
    this.notTheRoot(dst);
    if (dst !== '/') assertSafeName(baseName(dst));
    await this.statFull(src);
    if (src === dst) return this.ok(reqid);
    // SFTP v3 RENAME does not replace an existing target.
    if (await this.exists(dst)) throw failure('file exists');
    await this.requireParentDir(dst);
    if (parentOf(src) === parentOf(dst)) await this.deps.fs.rename(src, baseName(dst), false);
    else await this.deps.fs.transfer('move', src, dst, { overwrite: false });
    this.ok(reqid);
  }

  // ---------------------------------------------------------------------------------------
  // end of session

  private shutdownPromise: Promise<void> | null = null;

  /** Aborts unfinished uploads (nothing is left behind) and closes read streams. Idempotent. */
  shutdown(reason: string): Promise<void> {
    this.shutdownPromise ??= (async () => {
      this.ended = true;
      const uploads: Promise<void>[] = [];
      for (const h of this.handles.values()) {
        if (h.kind === 'read') h.reader.close();
        else if (h.kind === 'write') uploads.push(h.upload.abort(new Error(`upload cancelled: ${reason} before the file was closed`)));
      }
      this.handles.clear();
      await Promise.all([...uploads, ...this.committing]);
    })();
    return this.shutdownPromise;
  }
}
