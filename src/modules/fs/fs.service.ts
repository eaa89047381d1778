/**
 * The virtual tree: user paths → (storage, inner path), listings merged with mount
 * points, and file operations across storages. Paths here are FULL virtual paths
 * (already joined under the user's base path by the routes, through lib/path-safety).
 */
import { pipeline } from 'node:stream/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { listedOrder } from '../../lib/name-order.js';
import { AppError, badRequest, forbidden, notFound } from '../../lib/errors.js';
import { assertSafeName } from '../../lib/path-safety.js';
import { byteCounter } from '../../lib/streams.js';
import { isDriverError, pathExists, type Entry, type EntryColumns, type StorageDriver } from '../storages/drivers/index.js';
import { concatColumns, entryColumns } from '../storages/drivers/columns.js';
import type { MountedStorage, StorageRegistry } from '../storages/storages.service.js';
import { NO_COMPANIONS, type CompanionFiles, type TreeChange, type TreeObserver } from './fs.ports.js';
import { baseName, isWithin, joinPath, parentOf } from '../../lib/paths.js';


/** Entries `listed` checks between two turns of the event loop. */
const ORDER_SLICE = 8192;

export interface Located {
  storage: MountedStorage;
  driver: StorageDriver;
  inner: string;
}

/** A folder as a listing shows it: the rows of `cols` to show, in order (folders first, then by name). */
export interface Listing {
  cols: EntryColumns;
  rows: number[];
}

export interface TransferProgress {
  (bytes: number): void;
}

function virtualDir(name: string, modified: number): Entry {
  return { name, path: '', size: 0, isDir: true, modified: new Date(modified) };
}

export class FsService {
  private readonly observers: TreeObserver[] = [];
  /** @param companions files that travel with a file (seed sidecars): rename, move, copy and remove carry them along. */
  constructor(
    private readonly storages: StorageRegistry,
    private readonly companions: CompanionFiles = NO_COMPANIONS,
  ) {}

  /** Adds an observer of every change made through Ferry (the composition root registers them). */
  observe(observer: TreeObserver): void {
    this.observers.push(observer);
  }

  /** Tells every observer of a change that has happened; an observer's failure never undoes it. */
  async notify(change: TreeChange): Promise<void> {
    for (const o of this.observers) await o.treeChanged(change).catch(() => undefined);
  }

  /**
   * Registers a write that must end (commit, or abort and clean up) before the storages close at shutdown.
   * Returns `work` unchanged.
   */
  track<T>(work: Promise<T>): Promise<T> {
    return this.storages.track(work);
  }

  /**
   * The existing companions of `full` with the path each goes to (`to` names the new file), when they
   * follow and `full` is a file; folders are never followed.
   */
  private async followers(full: string, to?: string): Promise<{ from: string; to: string }[]> {
    if (!(await this.companions.followEnabled())) return [];
    const { driver, inner } = await this.locate(full);
    const e = await driver.stat(inner).catch(() => null);
    if (!e || e.isDir) return [];
    const dir = parentOf(full);
    const out: { from: string; to: string }[] = [];
    const target = to ? this.companions.namesOf(baseName(to)) : [];
    for (const [i, name] of this.companions.namesOf(baseName(full)).entries()) {
      const from = joinPath(dir, name);
      const loc = await this.locate(from).catch(() => null);
      const st = loc ? await loc.driver.stat(loc.inner).catch(() => null) : null;
      if (st && !st.isDir) out.push({ from, to: to ? joinPath(parentOf(to), target[i]!) : from });
    }
    return out;
  }

  /**
   * The existing objects that the sidecars following `from` (renamed, moved or copied to `to`) would replace.
   * Sidecars follow their file whatever the folder rules say of their names (they are part of the file), but
   * these replaced paths go through the caller's FolderAccess.requireChange with the request's own paths, before
   * anything changes: a following sidecar never replaces an object the user may not change.
   */
  async sidecarsReplaced(from: string, to: string): Promise<string[]> {
    const out: string[] = [];
    for (const f of await this.followers(from, to)) {
      if (f.to === f.from) continue;
      const loc = await this.locate(f.to).catch(() => null);
      if (loc && (await pathExists(loc.driver, loc.inner))) out.push(f.to);
    }
    return out;
  }

  /** Every source and target of `pairs` (from → to) and what their following sidecars would replace: the paths a change check needs. */
  async changeSet(pairs: readonly (readonly [string, string])[]): Promise<string[]> {
    const out: string[] = [];
    for (const [from, to] of pairs) out.push(from, to, ...(await this.sidecarsReplaced(from, to)));
    return out;
  }

  /** The storage holding `full` (404 when none, 500 when it is broken). */
  locate(full: string): Promise<Located> {
    return this.storages.resolve(full);
  }

  async stat(full: string): Promise<Entry & { storage: MountedStorage | null }> {
    const owner = await this.storages.owner(full);
    if (owner?.storage.driver) {
      try {
        const e = await owner.storage.driver.stat(owner.inner);
        return { ...e, name: full === '/' ? 'root' : baseName(full), storage: owner.storage };
      } catch (err) {
        if (!isDriverError(err, 'not_found')) throw err;
      }
    }
    const virt = await this.storages.virtualChildren(full);
    if (virt.length > 0 || full === '/') {
      const m = virt[0]?.storage.record.modified ?? Date.now();
      return { ...virtualDir(full === '/' ? 'root' : baseName(full), m), storage: owner?.storage ?? null };
    }
    if (owner && !owner.storage.driver) throw new AppError(500, `storage ${owner.storage.record.mountPath} is unavailable: ${owner.storage.status}`);
    throw notFound('object not found');
  }

  /**
   * Sets a file's modification time where the storage can (false when it cannot: the write keeps the time it
   * got at upload).
   */
  async setModified(full: string, mtime: Date): Promise<boolean> {
    const { driver, inner } = await this.locate(full);
    if (!driver.setModified) return false;
    await driver.setModified(inner, mtime);
    return true;
  }

  /** Directory listing: the owning storage's entries plus mount points below `full`. */
  async list(full: string): Promise<Entry[]> {
    const { got: entries, virt } = await this.fromOwner(full, (d, inner) => d.list(inner), []);
    if (virt.length === 0) return entries;
    const shadowed = new Set(virt.map((v) => v.name));
    const merged = entries.filter((e) => !shadowed.has(e.name));
    for (const v of virt) merged.push({ ...virtualDir(v.name, v.storage.record.modified), path: joinPath(full, v.name) });
    return merged;
  }

  /**
   * `list` as a listing shows it, without an object per entry: the storage's columns (`listColumns`, or its
   * entries as columns) with the mount points below `full` as more rows, and the rows `visible` keeps, folders
   * first then by name (`compareListed`, the order paging relies on). Drivers mostly list in that order already:
   * it is checked a slice at a time, the event loop free in between, and the rows are sorted only when they are not.
   */
  async listed(full: string, visible: (name: string) => boolean): Promise<Listing> {
    const { got, virt } = await this.fromOwner(full, async (d, inner) => (d.listColumns ? d.listColumns(inner) : entryColumns(await d.list(inner))), null);
    let cols = got ?? entryColumns([]);
    const stored = cols.names.length;
    const shadowed = new Set(virt.map((v) => v.name));
    if (virt.length) cols = concatColumns(cols, entryColumns(virt.map((v) => virtualDir(v.name, v.storage.record.modified))));
    const { names, dirs } = cols;
    const rows: number[] = [];
    let sorted = true;
    for (let i = 0; i < names.length; i++) {
      if (i > 0 && i % ORDER_SLICE === 0) await nextTurn();
      const name = names[i]!;
      if ((i < stored && shadowed.has(name)) || !visible(name)) continue;
      if (sorted && rows.length > 0) {
        const last = rows[rows.length - 1]!;
        if (listedOrder(dirs[last] === 1, names[last]!, dirs[i] === 1, name) > 0) sorted = false;
      }
      rows.push(i);
    }
    if (!sorted) rows.sort((a, b) => listedOrder(dirs[a] === 1, names[a]!, dirs[b] === 1, names[b]!));
    return { cols, rows };
  }

  /** What the storage owning `full` gives (`empty` when a mount point stands in for a missing folder), and the mount points below. */
  private async fromOwner<T>(full: string, read: (driver: StorageDriver, inner: string) => Promise<T>, empty: T) {
    const virt = await this.storages.virtualChildren(full);
    const owner = await this.storages.owner(full);
    let got = empty;
    if (owner?.storage.driver) {
      try {
        got = await read(owner.storage.driver, owner.inner);
      } catch (err) {
        if (!(isDriverError(err, 'not_found') && virt.length > 0)) throw err;
      }
    } else if (owner && virt.length === 0) {
      throw new AppError(500, `storage ${owner.storage.record.mountPath} is unavailable: ${owner.storage.status}`);
    } else if (!owner && virt.length === 0 && full !== '/') {
      throw notFound('object not found');
    }
    return { got, virt };
  }

  async mkdir(full: string): Promise<void> {
    const { driver, inner } = await this.locate(full);
    if (inner === '/') return;
    await driver.mkdir(inner);
    await this.notify({ kind: 'mkdir', full });
  }

  /** Renames inside the folder; sidecars follow (keeping their suffix). Returns the sidecar paths that moved. */
  async rename(full: string, newName: string, overwrite: boolean): Promise<string[]> {
    assertSafeName(newName);
    const follow = await this.followers(full, joinPath(parentOf(full), newName));
    await this.renameOne(full, newName, overwrite);
    for (const f of follow) if (f.from !== f.to) await this.renameOne(f.from, baseName(f.to), true);
    return follow.map((f) => f.from);
  }

  private async renameOne(full: string, newName: string, overwrite: boolean): Promise<void> {
    const { driver, inner } = await this.locate(full);
    if (inner === '/') throw forbidden('a mount point cannot be renamed here; change the storage instead');
    const target = joinPath(parentOf(inner), newName);
    if (target === inner) return;
    const taken = await pathExists(driver, target);
    if (taken && !overwrite) throw forbidden(`file [${newName}] exists`);
    if (taken) await driver.move(inner, target, { overwrite: true });
    else await driver.rename(inner, newName);
    await this.notify({ kind: 'moved', from: full, to: joinPath(parentOf(full), newName) });
  }

  /** Removes a file (with its sidecars) or a folder. Returns the sidecar paths removed with it. */
  async remove(full: string): Promise<string[]> {
    const { driver, inner } = await this.locate(full);
    if (inner === '/') throw forbidden('a mount point cannot be removed');
    const follow = await this.followers(full);
    await driver.remove(inner);
    await this.notify({ kind: 'removed', full });
    for (const f of follow) {
      const loc = await this.locate(f.from);
      await loc.driver.remove(loc.inner).then(
        () => this.notify({ kind: 'removed', full: f.from }),
        (e: unknown) => {
          if (!isDriverError(e, 'not_found')) throw e;
        },
      );
    }
    return follow.map((f) => f.from);
  }

  /** Total bytes below `full` (a file's size, or the sum of a folder's files). */
  async totalSize(full: string): Promise<number> {
    const e = await this.stat(full);
    if (!e.isDir) return e.size;
    let sum = 0;
    for (const c of await this.list(full)) sum += await this.totalSize(joinPath(full, c.name));
    return sum;
  }

  /** True when src and dst live on the same storage (the driver can move/copy natively). */
  async sameStorage(a: string, b: string): Promise<boolean> {
    const [x, y] = await Promise.all([this.locate(a), this.locate(b)]);
    return x.storage.record.id === y.storage.record.id;
  }

  /**
   * Moves or copies `src` to `dst` (full paths). Same storage: natively. Across storages:
   * streamed (never buffered whole), each file committed only when complete; a move then
   * removes the source.
   */
  async transfer(kind: 'move' | 'copy', src: string, dst: string, opts: { overwrite: boolean; signal?: AbortSignal; progress?: TransferProgress }): Promise<string[]> {
    const follow = await this.followers(src, dst);
    await this.transferOne(kind, src, dst, opts);
    for (const f of follow) await this.transferOne(kind, f.from, f.to, { ...opts, overwrite: true });
    return follow.map((f) => f.from);
  }

  private async transferOne(kind: 'move' | 'copy', src: string, dst: string, opts: { overwrite: boolean; signal?: AbortSignal; progress?: TransferProgress }): Promise<void> {
    if (isWithin(src, dst)) throw badRequest(`cannot ${kind} ${src} into itself`);
    const s = await this.locate(src);
    const d = await this.locate(dst);
    if (s.inner === '/') throw forbidden(`a mount point cannot be ${kind === 'move' ? 'moved' : 'copied'}`);
    if (!opts.overwrite && (await pathExists(d.driver, d.inner))) throw forbidden(`file [${baseName(dst)}] exists`);
    if (s.storage.record.id === d.storage.record.id) {
      if (kind === 'move') await s.driver.move(s.inner, d.inner, { overwrite: opts.overwrite });
      else await s.driver.copy(s.inner, d.inner, { overwrite: opts.overwrite });
      opts.progress?.(0);
    } else {
      await this.streamCopy(s.driver, s.inner, d.driver, d.inner, opts);
      if (kind === 'move') await s.driver.remove(s.inner);
    }
    await this.notify(kind === 'move' ? { kind: 'moved', from: src, to: dst } : { kind: 'copied', from: src, to: dst });
  }

  private async streamCopy(
    from: StorageDriver,
    src: string,
    to: StorageDriver,
    dst: string,
    opts: { overwrite: boolean; signal?: AbortSignal; progress?: TransferProgress },
  ): Promise<void> {
    opts.signal?.throwIfAborted();
    const e = await from.stat(src);
    if (e.isDir) {
      await to.mkdir(dst);
      for (const c of await from.list(src)) await this.streamCopy(from, joinPath(src, c.name), to, joinPath(dst, c.name), opts);
      return;
    }
    const pending = await to.beginWrite(dst, { size: e.size, overwrite: opts.overwrite, mtime: e.modified });
    await this.track(
      (async () => {
        try {
          const body = await from.read(src);
          await pipeline(body, byteCounter((n) => opts.progress?.(n)), pending.stream, opts.signal ? { signal: opts.signal } : {});
          await pending.commit();
        } catch (err) {
          await pending.abort(err);
          throw err;
        }
      })(),
    );
  }
}
