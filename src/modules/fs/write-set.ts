/**
 * Atomic write sets: several files written all or nothing (upload sidecars with their file; generated,
 * recalculated or converted seed artifacts). Every file is staged first (a pending driver write, nothing
 * visible) with a copy of what it replaces; then a crash journal entry is written; then the files are
 * committed one by one, the anchor last; then the entry goes. A failure at any point aborts what is staged
 * and puts back what was already committed; a crash is settled at the next start (write-journal.ts).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { AppError } from '../../lib/errors.js';
import { isDriverError, readBuffer, writeBuffer, type PendingWrite, type StorageDriver } from '../storages/drivers/index.js';
import type { FsService, Located } from './fs.service.js';
import { openJournal, recoverJournal, type OpenEntry } from './write-journal.js';

/** A small file of a set (its whole content in memory). */
export interface SetFile {
  /** Full virtual path. */
  full: string;
  data: Buffer;
  mtime?: Date;
}

/**
 * A file already streamed into a pending write, committed last: the set is complete exactly when the
 * anchor has its new content (size and MD5).
 */
export interface SetAnchor {
  located: Located;
  size: number;
  md5: string;
  /** Commits the anchor's pending write. */
  commit(): Promise<unknown>;
}

interface Staged {
  located: Located;
  pending: PendingWrite;
  /** Content it replaces (restored on failure); null when there was none. */
  previous: Buffer | null;
  size: number;
  md5: string;
}

/**
 * A file at a set's path larger than this is not what a set replaces (seed documents are capped far below):
 * the set is refused rather than replacing it without a copy to restore.
 */
export const MAX_BACKUP_BYTES = 64 * 1024 * 1024;

export interface WriteSetDeps {
  fs: Pick<FsService, 'locate' | 'track' | 'notify'>;
  /** The mounted driver of a storage id (journal recovery). */
  driverOf(storageId: number): StorageDriver | undefined;
  /** `<data dir>/journal`. */
  journalDir: string;
  logger: Logger;
}

async function readPrevious(driver: StorageDriver, inner: string): Promise<Buffer | null> {
  try {
    const e = await driver.stat(inner);
    if (e.isDir) throw new AppError(409, `cannot write ${inner}: a folder of that name exists`);
    if (e.size > MAX_BACKUP_BYTES) throw new AppError(409, `cannot write ${inner}: a ${e.size}-byte file is there`);
    return await readBuffer(driver, inner);
  } catch (e) {
    if (isDriverError(e, 'not_found')) return null;
    throw e;
  }
}

/** Puts back what committed files replaced (or removes them when they were new). Best effort. */
async function restore(committed: Staged[]): Promise<void> {
  for (const s of committed.reverse()) {
    const { driver, inner } = s.located;
    try {
      if (s.previous) await writeBuffer(driver, inner, s.previous);
      else await driver.remove(inner);
    } catch {
      // nothing more can be done; the error that caused the rollback is reported
    }
  }
}

const md5Hex = (b: Buffer) => createHash('md5').update(b).digest('hex');

export class WriteSets {
  constructor(private readonly deps: WriteSetDeps) {}

  /**
   * Writes `files` (and commits `anchor` last, when given) all or nothing. Without an anchor the last file is
   * the anchor. `signal` is checked until the first commit.
   */
  async write(files: SetFile[], opts: { anchor?: SetAnchor; signal?: AbortSignal } = {}): Promise<void> {
    await this.deps.fs.track(this.run(files, opts));
    for (const f of files) await this.deps.fs.notify({ kind: 'written', full: f.full });
  }

  private async run(files: SetFile[], opts: { anchor?: SetAnchor; signal?: AbortSignal }): Promise<void> {
    const staged: Staged[] = [];
    const committed: Staged[] = [];
    let journal: OpenEntry | undefined;
    try {
      for (const f of files) {
        opts.signal?.throwIfAborted();
        const located = await this.deps.fs.locate(f.full);
        const previous = await readPrevious(located.driver, located.inner);
        const pending = await located.driver.beginWrite(located.inner, { size: f.data.length, overwrite: true, mtime: f.mtime ?? new Date() });
        staged.push({ located, pending, previous, size: f.data.length, md5: md5Hex(f.data) });
        await pending.pipeFrom(Readable.from([f.data]));
      }
      opts.signal?.throwIfAborted();
      const last = opts.anchor ? null : staged.pop();
      const anchor: SetAnchor | undefined =
        opts.anchor ?? (last ? { located: last.located, size: last.size, md5: last.md5, commit: () => last.pending.commit() } : undefined);
      if (!anchor) return;
      journal = await openJournal(
        this.deps.journalDir,
        { storageId: anchor.located.storage.record.id, inner: anchor.located.inner, size: anchor.size, md5: anchor.md5 },
        staged.map((s) => ({ storageId: s.located.storage.record.id, inner: s.located.inner, previous: s.previous })),
      );
      if (last) staged.push(last); // aborted with the others if anything fails before its turn
      while (staged.length > (last ? 1 : 0)) {
        const s = staged.shift()!;
        await s.pending.commit();
        committed.push(s);
      }
      await anchor.commit();
      staged.length = 0;
      // everything is committed; an entry that cannot be removed is settled as "committed" at the next start
      await journal.close().catch(() => undefined);
    } catch (e) {
      for (const s of staged) await s.pending.abort(e).catch(() => undefined);
      await restore(committed);
      await journal?.close();
      throw e;
    }
  }

  /**
   * Settles sets interrupted by a crash (before requests are served). Returns how many were settled; a
   * failure is logged and the entries stay for the next start.
   */
  async recover(): Promise<number> {
    try {
      return await recoverJournal(this.deps.journalDir, (id) => this.deps.driverOf(id), this.deps.logger);
    } catch (e) {
      this.deps.logger.warn({ err: (e as Error).message }, 'startup: settling interrupted write sets failed');
      return 0;
    }
  }
}

/** `<data dir>/journal`. */
export const journalDirOf = (dataDir: string) => join(dataDir, 'journal');
