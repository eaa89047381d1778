/**
 * Name search over an index in Ferry's own database (issue #20).
 *
 * - `search`: a user's query, limited in SQL to what that user may see (inside the base path, storages that are
 *   enabled and indexed, no object hidden by a nested mount) before paging, so totals never count the unseen.
 * - Freshness: the service observes every change Ferry makes to the tree (fs.ports TreeObserver) and applies it
 *   to the index right after the change. Changes behind Ferry's back are reconciled by an update walk (tasks).
 * - Walks go through the storage driver port (`list`, `stat`), one folder at a time, with batched writes.
 */
import type { Logger } from 'pino';
import { badRequest, notFound } from '../../lib/errors.js';
import { cleanPath, joinBasePath, stripBasePath } from '../../lib/path-safety.js';
import { pacer } from '../../lib/time.js';
import { baseName, isWithin, joinPath, parentOf, relativeTo, under } from '../../lib/paths.js';
import type { FolderAccess } from '../fs/access.js';
import type { TreeChange, TreeObserver } from '../fs/fs.ports.js';
import { fileType } from '../fs/fs.present.js';
import type { SettingsReader } from '../settings/settings.service.js';
import { entryColumns } from '../storages/drivers/columns.js';
import type { Entry, EntryColumns, StorageDriver } from '../storages/drivers/index.js';
import type { MountedStorage, StorageRegistry } from '../storages/storages.service.js';
import type { User } from '../users/user.model.js';
import type { IndexedNode, SearchArea, SearchRepo } from './search.repo.js';

/** Longest keywords string accepted (characters). */
export const MAX_KEYWORDS_CHARS = 256;
/** Most words in one query. */
export const MAX_WORDS = 16;
/**
 * Rows gathered before a walk writes them, in one transaction (SQLite has one connection: a longer transaction
 * would make other requests wait longer).
 */
const FLUSH = 2000;
/** Folders listed at once during a walk. */
const LIST_AHEAD = 4;

export interface SearchRequest {
  parent: string;
  keywords: string;
  scope?: number;
  page: number;
  per_page: number;
}

export interface SearchHit {
  parent: string;
  name: string;
  is_dir: boolean;
  size: number;
  type: number;
}

export interface WalkOptions {
  /** Reconcile with what the index holds (update) instead of only adding (build after a clear). */
  reconcile: boolean;
  maxDepth: number;
  signal?: AbortSignal;
  /** Objects seen so far (for task progress). */
  onCount?: (n: number) => void;
  /** At most this many folder listings a second (OpenList's scan `limit`); absent or 0: no limit. */
  listRate?: number;
}

export interface SearchDeps {
  repo: SearchRepo;
  /** Metas (hidden names, folder passwords): results are filtered with them before paging. */
  access: Pick<FolderAccess, 'searchRules' | 'visibleIn'>;
  storages: Pick<StorageRegistry, 'owner' | 'list' | 'refresh'>;
  settings: SettingsReader;
  logger: Logger;
}

/** The words of a query: split on white space, lower-cased, each once. Empty or too long: 400. */
export function queryWords(keywords: string): string[] {
  if (keywords.length > MAX_KEYWORDS_CHARS) throw badRequest(`keywords: too long (${keywords.length} characters; at most ${MAX_KEYWORDS_CHARS})`);
  const words = [...new Set(keywords.toLowerCase().split(/\s+/u).filter(Boolean))];
  if (words.length === 0) throw badRequest('keywords: empty (give at least one character)');
  if (words.length > MAX_WORDS) throw badRequest(`keywords: too many words (${words.length}; at most ${MAX_WORDS})`);
  return words;
}

function indexable(m: MountedStorage): boolean {
  return !m.record.disabled && !m.record.disableIndex;
}

/** A storage that hides dot files from listings hides them from search too. */
function hiddenOn(m: MountedStorage, inner: string): boolean {
  return m.record.addition.show_hidden === false && inner.split('/').some((s) => s.startsWith('.'));
}

export class SearchService implements TreeObserver {
  constructor(private readonly deps: SearchDeps) {}

  async enabled(): Promise<boolean> {
    return (await this.deps.settings.get('search_index')) !== 'none';
  }

  async requireEnabled(): Promise<void> {
    if (!(await this.enabled())) throw notFound('search not available: the search_index setting is "none"');
  }

  private async ignored(): Promise<string[]> {
    const text = await this.deps.settings.get('ignore_paths');
    return text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .flatMap((l) => {
        try {
          return [cleanPath(l)];
        } catch {
          return [];
        }
      });
  }

  /** Mounted storages, with each one's nested mount points as paths inside it. */
  private async mounts(): Promise<{ m: MountedStorage; nested: string[] }[]> {
    await this.deps.storages.refresh();
    const all = this.deps.storages.list().filter((m) => !m.record.disabled);
    return all.map((m) => ({
      m,
      nested: all
        .filter((o) => o !== m && o.record.mountPath !== m.record.mountPath && isWithin(m.record.mountPath, o.record.mountPath))
        .map((o) => relativeTo(m.record.mountPath, o.record.mountPath)),
    }));
  }

  /** The index areas below the virtual folder `root`. */
  private async areas(root: string): Promise<SearchArea[]> {
    const out: SearchArea[] = [];
    for (const { m, nested } of await this.mounts()) {
      if (!indexable(m)) continue;
      const mp = m.record.mountPath;
      const inner = isWithin(mp, root) ? relativeTo(mp, root) : isWithin(root, mp) ? '/' : null;
      if (inner === null || nested.some((n) => isWithin(n, inner))) continue;
      const excludes = nested.filter((n) => isWithin(inner, n));
      out.push({ storageId: m.record.id, under: inner, excludes });
    }
    return out;
  }

  async search(user: User, req: SearchRequest): Promise<{ content: SearchHit[]; total: number }> {
    await this.requireEnabled();
    const words = queryWords(req.keywords);
    const root = joinBasePath(user.basePath, req.parent || '/');
    const byId = new Map(this.deps.storages.list().map((m) => [m.record.id, m.record.mountPath]));
    const areas = await this.visibleAreas(user, root, words, req.scope ?? 0, byId);
    const { rows, total } = await this.deps.repo.search({
      areas,
      words,
      scope: req.scope ?? 0,
      offset: (req.page - 1) * req.per_page,
      limit: req.per_page,
    });
    const content = rows.map((r) => {
      const full = under(byId.get(r.storage_id) ?? '/', r.path);
      const isDir = r.is_dir === 1;
      return { parent: stripBasePath(user.basePath, parentOf(full)), name: r.name, is_dir: isDir, size: isDir ? 0 : r.size, type: isDir ? 1 : fileType(r.name) };
    });
    return { content, total };
  }

  /**
   * The areas below `root` less what metas keep from `user`: everything below a folder whose password guards it,
   * and each hidden object (a name a `hide` pattern matches, in a folder the pattern applies to) with everything
   * below it. Hidden objects are found among the matches below folders with `hide` patterns, so totals and pages
   * only ever count what the user may see.
   */
  private async visibleAreas(user: User, root: string, words: string[], scope: number, byId: Map<number, string>): Promise<SearchArea[]> {
    let areas = await this.areas(root);
    const { guarded, hiding } = await this.deps.access.searchRules(user);
    for (const g of guarded) areas = cut(areas, byId, g, false);
    const scopes = outermost(hiding).filter((h) => isWithin(h, root) || isWithin(root, h));
    if (scopes.length === 0 || areas.length === 0) return areas;
    const candidates = scopes.flatMap((h) => narrow(areas, byId, isWithin(h, root) ? root : h));
    const top = cleanPath(user.basePath);
    const rules = new Map<string, Promise<(name: string) => boolean>>();
    const visibleIn = (dir: string) => {
      let r = rules.get(dir);
      if (!r) rules.set(dir, (r = this.deps.access.visibleIn(user, dir)));
      return r;
    };
    const hidden = new Set<string>();
    for (const m of await this.deps.repo.matches({ areas: candidates, words, scope })) {
      const full = under(byId.get(m.storage_id) ?? '/', m.path);
      // the outermost hidden object on the way down from the base path hides this match
      let out: string | null = null;
      for (let p = full; p !== '/' && p !== top && isWithin(top, p); p = parentOf(p)) {
        if (!(await visibleIn(parentOf(p)))(baseName(p))) out = p;
      }
      if (out) hidden.add(out);
    }
    for (const x of outermost([...hidden])) areas = cut(areas, byId, x, true);
    return areas;
  }

  // ---- walks (build / update tasks) ----

  /**
   * Indexes everything below the virtual path `root` on every indexed storage, at most `maxDepth` folder levels
   * down. Returns the number of objects seen.
   */
  async walk(root: string, o: WalkOptions): Promise<number> {
    const ignore = await this.ignored();
    const pace = pacer(o.listRate ?? 0, o.signal);
    let count = 0;
    for (const { m, nested } of await this.mounts()) {
      if (!indexable(m) || !m.driver) continue;
      const mp = m.record.mountPath;
      const inner = isWithin(mp, root) ? relativeTo(mp, root) : isWithin(root, mp) ? '/' : null;
      if (inner === null || nested.some((n) => isWithin(n, inner))) continue;
      const depth = Math.max(0, o.maxDepth - (inner === '/' && mp !== root ? depthOf(relativeTo(root, mp)) : 0));
      count += await this.walkStorage(m, m.driver, inner, { ...o, maxDepth: depth, pace, onCount: (n) => o.onCount?.(count + n) }, nested, ignore);
    }
    return count;
  }

  private async walkStorage(
    m: MountedStorage,
    driver: StorageDriver,
    top: string,
    o: WalkOptions & { pace?: (folders: number) => Promise<void> },
    nested: string[],
    ignore: string[],
  ): Promise<number> {
    const id = m.record.id;
    const skip = (inner: string) =>
      nested.some((n) => isWithin(n, inner)) || ignore.some((i) => isWithin(i, under(m.record.mountPath, inner))) || hiddenOn(m, inner);
    if (top !== '/') {
      if (skip(top)) return 0;
      const e = await driver.stat(top).catch(() => null);
      if (!e) {
        await this.deps.repo.removeTree(id, top);
        return 0;
      }
      await this.deps.repo.upsert([node(id, top, e)]);
      await this.ensureAncestors(id, top);
      if (!e.isDir) return 1;
    }
    let count = 0;
    let pending: IndexedNode[] = [];
    // Writes of one batch overlap the listing of the next folders; a failed write surfaces at the next await.
    let writing: Promise<void> = Promise.resolve();
    const flush = async () => {
      const batch = pending;
      pending = [];
      await writing;
      if (batch.length === 0) return;
      writing = o.reconcile ? this.deps.repo.upsert(batch) : this.deps.repo.insert(batch);
      writing.catch(() => undefined);
    };
    const stack: { dir: string; depth: number }[] = [{ dir: top, depth: 1 }];
    // Listings run ahead (the local driver reads folders on its worker threads) while this thread writes rows:
    // up to `ahead` are in flight, taken from the top of the stack (a paced walk lists one folder at a time below
    // 4 listings a second).
    const ahead = Math.min(LIST_AHEAD, Math.max(1, Math.floor(o.listRate || LIST_AHEAD)));
    const inflight: { dir: string; depth: number; entries: Promise<EntryColumns | null> }[] = [];
    // columns in any order (no object per entry, no collation sort): every entry becomes a row whatever its place
    const list = (dir: string) =>
      (driver.listColumns ? driver.listColumns(dir, { unordered: true }) : driver.list(dir).then(entryColumns)).catch((e: unknown) => {
        this.deps.logger.warn({ err: (e as Error).message, storage: m.record.mountPath, dir }, 'search index: a folder could not be listed');
        return null;
      });
    // bounded: every folder is pushed once (by its parent's listing) and taken once
    while (stack.length || inflight.length) {
      o.signal?.throwIfAborted();
      if (inflight.length < ahead && stack.length) {
        const wave = stack.splice(-Math.min(ahead - inflight.length, stack.length));
        await o.pace?.(wave.length);
        for (const w of wave) inflight.push({ ...w, entries: list(w.dir) });
      }
      const { dir, depth, entries: pendingList } = inflight.shift()!;
      const cols = await pendingList;
      if (!cols) continue;
      const seen = new Set<string>();
      const prefix = dir === '/' ? '/' : `${dir}/`;
      for (let i = 0; i < cols.names.length; i++) {
        const name = cols.names[i]!;
        const p = prefix + name;
        if (skip(p)) continue;
        const isDir = cols.dirs[i] === 1;
        if (o.reconcile) seen.add(name);
        pending.push({ storageId: id, path: p, parent: dir, name, isDir, size: isDir ? 0 : cols.sizes[i]!, modified: cols.mtimes[i]! });
        count++;
        if (isDir && depth < o.maxDepth) stack.push({ dir: p, depth: depth + 1 });
      }
      if (o.reconcile) {
        for (const [name] of await this.deps.repo.children(id, dir)) if (!seen.has(name)) await this.deps.repo.removeTree(id, joinPath(dir, name));
      }
      if (pending.length >= FLUSH) {
        await flush();
        o.onCount?.(count);
      }
    }
    await flush();
    await writing;
    o.onCount?.(count);
    return count;
  }

  /** Rows for the folders above `inner` that the index lacks (a write may have created them). */
  private async ensureAncestors(storageId: number, inner: string): Promise<void> {
    const rows: IndexedNode[] = [];
    for (let p = parentOf(inner); p !== '/'; p = parentOf(p)) rows.push({ storageId, path: p, name: baseName(p), isDir: true, size: 0, modified: Date.now() });
    await this.deps.repo.insertMissing(rows);
  }

  /** Drops the index rows of everything below the virtual folder `root` (before a build walks it again). */
  async removeUnder(root: string): Promise<void> {
    const clean = cleanPath(root);
    if (clean === '/') return this.deps.repo.clear();
    for (const a of await this.areas(clean)) {
      if (a.under !== '/') await this.deps.repo.removeTree(a.storageId, a.under);
      else await this.deps.repo.removeTree(a.storageId, '/');
    }
  }

  /** Starts a build's bulk load; `all`: the whole index is rebuilt (emptied first). Pair with `finishLoad`. */
  beginLoad(all: boolean): Promise<void> {
    return this.deps.repo.beginLoad(all);
  }

  /** Ends a build's bulk load; at start-up, finishes one a crash interrupted (nothing to do otherwise). */
  finishLoad(): Promise<void> {
    return this.deps.repo.finishLoad();
  }

  async clear(): Promise<void> {
    await this.deps.repo.clear();
  }

  count(): Promise<number> {
    return this.deps.repo.count();
  }

  // ---- freshness: Ferry's own writes ----

  async treeChanged(change: TreeChange): Promise<void> {
    try {
      if (!(await this.enabled())) return;
      await this.apply(change);
    } catch (e) {
      this.deps.logger.warn({ err: (e as Error).message, change }, 'search index: a change was not recorded (an update walk heals it)');
    }
  }

  private async owner(full: string): Promise<{ m: MountedStorage; inner: string } | null> {
    const o = await this.deps.storages.owner(full);
    if (!o || !indexable(o.storage) || o.inner === '/') return null;
    return { m: o.storage, inner: o.inner };
  }

  /** Indexes (or drops) the object at `full` and, for a folder, everything below it. */
  private async reindex(full: string): Promise<void> {
    const o = await this.owner(full);
    if (!o?.m.driver) return;
    const { nested } = (await this.mounts()).find((x) => x.m.record.id === o.m.record.id) ?? { nested: [] };
    const depth = await this.deps.settings.getNumber('max_index_depth');
    await this.walkStorage(o.m, o.m.driver, o.inner, { reconcile: true, maxDepth: depth }, nested, await this.ignored());
  }

  private async apply(c: TreeChange): Promise<void> {
    switch (c.kind) {
      case 'written':
      case 'mkdir':
      case 'copied':
        return this.reindex(c.kind === 'copied' ? c.to : c.full);
      case 'removed': {
        const o = await this.owner(c.full);
        if (o) await this.deps.repo.removeTree(o.m.record.id, o.inner);
        return;
      }
      case 'moved': {
        const [a, b] = await Promise.all([this.owner(c.from), this.owner(c.to)]);
        const ignore = await this.ignored();
        if (a && b && a.m.record.id === b.m.record.id && !hiddenOn(b.m, b.inner) && !ignore.some((i) => isWithin(i, c.to))) {
          await this.deps.repo.moveTree(a.m.record.id, a.inner, b.inner);
          await this.ensureAncestors(b.m.record.id, b.inner);
          return;
        }
        if (a) await this.deps.repo.removeTree(a.m.record.id, a.inner);
        return this.reindex(c.to);
      }
    }
  }
}

function node(storageId: number, path: string, e: Entry, parent?: string): IndexedNode {
  return { storageId, path, parent, name: baseName(path), isDir: e.isDir, size: e.isDir ? 0 : e.size, modified: e.modified.getTime() };
}

/** Paths with those inside another one of them dropped. */
function outermost(paths: string[]): string[] {
  const sorted = [...new Set(paths)].sort((a, b) => a.length - b.length);
  return sorted.filter((p, i) => !sorted.slice(0, i).some((q) => isWithin(q, p)));
}

/** `areas` less the virtual subtree at `full` (`self`: its root too; otherwise only what lies below it). */
function cut(areas: SearchArea[], byId: Map<number, string>, full: string, self: boolean): SearchArea[] {
  return areas.flatMap((a) => {
    const mp = byId.get(a.storageId) ?? '/';
    if (isWithin(full, mp)) return []; // the whole storage lies below `full` (its root row is never indexed)
    if (!isWithin(mp, full)) return [a];
    const inner = relativeTo(mp, full);
    if (isWithin(inner, a.under)) return []; // the area is `inner`'s descendants or some of them
    if (!isWithin(a.under, inner)) return [a];
    return [self ? { ...a, excludes: [...a.excludes, inner] } : { ...a, below: [...(a.below ?? []), inner] }];
  });
}

/** The parts of `areas` strictly below the virtual folder `full`. */
function narrow(areas: SearchArea[], byId: Map<number, string>, full: string): SearchArea[] {
  return areas.flatMap((a) => {
    const mp = byId.get(a.storageId) ?? '/';
    if (isWithin(full, mp)) return [a];
    if (!isWithin(mp, full)) return [];
    const inner = relativeTo(mp, full);
    if (isWithin(inner, a.under)) return [a];
    return isWithin(a.under, inner) ? [{ ...a, under: inner }] : [];
  });
}

function depthOf(p: string): number {
  return p.split('/').filter(Boolean).length;
}
