/**
 * The hash index: what Ferry knows of stored files' digests without reading them, and the content lookup
 * behind rapid upload. This service is the only owner of the `hash_index` table. Drivers keep their
 * storage's rows current through the `HashIndex` port they are given (`forStorage`): a committed write
 * records its digests, moves and copies re-key them, removals forget them. A row is valid only for the
 * size and mtime (integer milliseconds) it was recorded with.
 *
 * The index is a cache that must never lie, and its failures must never fail a request whose disk change
 * is already done. So the port never rejects: a refused read answers "unknown", a refused write is
 * dropped, and a refused move/copy degrades to forgetting the rows involved. A refused forget is kept as
 * a doubt (hash-index.doubts.ts): rows at or below a doubted path are not trusted, nor returned by
 * `find`, nor carried elsewhere by a move or copy, until a retry (before each later use) deletes them.
 * Doubts live in this process only; a row that outlives one keeps its size+mtime key as last defence.
 */
import type { Hashes } from '../../lib/hashes.js';
import { HASH_NAMES } from '../../lib/hashes.js';
import type { HashIndex } from '../storages/drivers/types.js';
import { Doubts } from './hash-index.doubts.js';
import type { HashIndexRepo } from './hash-index.repo.js';

export interface IndexedFile {
  storageId: number;
  /** Path inside the storage. */
  path: string;
}

/** Where refused index updates are reported (the app logger). */
export interface IndexLog {
  warn(obj: object, msg: string): void;
}

export class HashIndexService {
  private readonly doubts = new Doubts();

  constructor(
    private readonly repo: HashIndexRepo,
    private readonly log?: IndexLog,
  ) {}

  /** The index of one storage, as its driver uses it. Never rejects (see above). */
  forStorage(storageId: number): HashIndex {
    const repo = this.repo;
    const get = async (path: string, size: number, mtimeMs: number): Promise<Hashes | undefined> => {
      await this.retry(storageId);
      if (this.doubts.covers(storageId, path)) return undefined;
      try {
        const r = await repo.get(storageId, path);
        return r && r.size === size && r.mtime === mtimeMs ? r.hashes : undefined;
      } catch (e) {
        this.refused(storageId, 'get', path, e);
        return undefined;
      }
    };
    /** The row recorded for exactly this size+mtime, if any. */
    const currentOne = async (path: string, size: number, mtimeMs: number) => {
      await this.retry(storageId);
      if (this.doubts.covers(storageId, path)) return undefined;
      try {
        const r = await repo.get(storageId, path);
        return r && r.size === size && r.mtime === mtimeMs ? r : undefined;
      } catch (e) {
        this.refused(storageId, 'get', path, e);
        return undefined;
      }
    };
    /** The rows still valid for these files (same size and mtime, not doubted): one query per 500 paths. */
    const current = async (files: ReadonlyArray<{ path: string; size: number; mtimeMs: number }>) => {
      await this.retry(storageId);
      if (files.length === 0) return [];
      try {
        const want = new Map(files.map((f) => [f.path, f]));
        return (await repo.getMany(storageId, [...want.keys()])).filter((r) => {
          const f = want.get(r.path);
          return f && r.size === f.size && r.mtime === f.mtimeMs && !this.doubts.covers(storageId, r.path);
        });
      } catch (e) {
        this.refused(storageId, 'get', files[0]!.path, e);
        return [];
      }
    };
    return {
      get,
      put: async (path, size, mtimeMs, hashes) => {
        // merged with what is known for the same content; anything recorded for other content is replaced
        const row = await currentOne(path, size, mtimeMs);
        await repo.upsert(storageId, path, size, mtimeMs, { ...row?.hashes, ...hashes }, row?.clientMtime ?? null).catch((e: unknown) => this.refused(storageId, 'put', path, e));
      },
      setClientMtime: async (path, size, mtimeMs, clientMs) => {
        const row = await currentOne(path, size, mtimeMs);
        await repo.upsert(storageId, path, size, mtimeMs, row?.hashes ?? {}, clientMs).catch((e: unknown) => this.refused(storageId, 'put', path, e));
      },
      clientMtimes: async (files) => {
        const out = new Map<string, number>();
        for (const r of await current(files)) if (r.clientMtime !== null) out.set(r.path, r.clientMtime);
        return out;
      },
      getMany: async (files) => {
        const out = new Map<string, Hashes>();
        for (const r of await current(files)) if (Object.keys(r.hashes).length) out.set(r.path, r.hashes);
        return out;
      },
      invalidate: async (path) => {
        await this.retry(storageId);
        await this.forgetOrDoubt(storageId, path);
      },
      move: (src, dst) => this.rekey(storageId, 'move', src, dst),
      copy: (src, dst) => this.rekey(storageId, 'copy', src, dst),
    };
  }

  private refused(storageId: number, op: string, path: string, e: unknown): void {
    this.log?.warn({ err: e instanceof Error ? e.message : String(e), storageId, path }, `hash index ${op} failed; its rows are forgotten`);
  }

  /** Deletes the rows at and below `path`; when the database refuses, doubts them instead. */
  private async forgetOrDoubt(storageId: number, path: string): Promise<void> {
    try {
      await this.repo.deleteUnder(storageId, path);
    } catch (e) {
      this.refused(storageId, 'forget', path, e);
      this.doubts.add(storageId, path);
    }
  }

  /** Retries the storage's doubted paths, oldest first; stops at the first refusal (the database is still down). */
  private async retry(storageId: number): Promise<void> {
    for (const path of this.doubts.of(storageId)) {
      const gen = this.doubts.generation;
      try {
        await this.repo.deleteUnder(storageId, path);
      } catch {
        return;
      }
      // doubted again meanwhile: keep it for the next retry
      if (this.doubts.generation === gen) this.doubts.settle(storageId, path);
    }
  }

  /**
   * Re-keys (move) or duplicates (copy) the rows of `src` and below as `dst`. Rows under a doubt are never
   * carried out of it; when that is the case, or the database refuses, or something was doubted while
   * the update ran, the rows of `dst` (and of `src` for a move) are forgotten instead.
   */
  private async rekey(storageId: number, op: 'move' | 'copy', src: string, dst: string): Promise<void> {
    await this.retry(storageId);
    const gen = this.doubts.generation;
    if (!this.doubts.covers(storageId, src, true)) {
      try {
        await this.repo[op](storageId, src, dst);
        if (this.doubts.generation === gen) return;
      } catch (e) {
        this.refused(storageId, op, src, e);
      }
    }
    if (op === 'move') await this.forgetOrDoubt(storageId, src);
    await this.forgetOrDoubt(storageId, dst);
  }

  /**
   * Stored files whose size and any of `want`'s digests match, at most `perHash` per digest kind, without
   * duplicates. Callers re-check each against what its storage says now: rows may be stale.
   */
  async find(want: Hashes, size: number, perHash = 64): Promise<IndexedFile[]> {
    for (const id of this.doubts.storages()) await this.retry(id);
    const seen = new Set<string>();
    const out: IndexedFile[] = [];
    for (const alg of HASH_NAMES) {
      const h = want[alg];
      if (!h) continue;
      for (const r of await this.repo.find(alg, h, size, perHash)) {
        const key = `${r.storageId}:${r.path}`;
        if (seen.has(key) || this.doubts.covers(r.storageId, r.path)) continue;
        seen.add(key);
        out.push(r);
      }
    }
    return out;
  }

  /** Records digests of a file Ferry verified without writing it (e.g. an object another client stored). */
  record(storageId: number, path: string, size: number, mtimeMs: number, hashes: Hashes): Promise<void> {
    return this.forStorage(storageId).put(path, size, mtimeMs, hashes);
  }

  /** Forgets a path and everything below it (e.g. a recorded object that is gone). Never rejects. */
  forget(storageId: number, path: string): Promise<void> {
    return this.forStorage(storageId).invalidate(path);
  }

  /** Drops a whole storage's rows (deleted, or its root or options changed). Rejects when refused, and then doubts them all. */
  async clearStorage(storageId: number): Promise<void> {
    try {
      await this.repo.deleteStorage(storageId);
    } catch (e) {
      this.doubts.add(storageId, '/');
      throw e;
    }
  }
}
