/**
 * The hash index: what Ferry knows of stored files' digests without reading them, and the content lookup
 * behind rapid upload. This service is the only owner of the `hash_index` table. Drivers keep their
 * storage's rows current through the `HashIndex` port they are given (`forStorage`): a committed write
 * records its digests, moves and copies re-key them, removals forget them. A row is valid only for the
 * size and mtime (integer milliseconds) it was recorded with.
 */
import type { Hashes } from '../../lib/hashes.js';
import { HASH_NAMES } from '../../lib/hashes.js';
import type { HashIndex } from '../storages/drivers/types.js';
import type { HashIndexRepo } from './hash-index.repo.js';

export interface IndexedFile {
  storageId: number;
  /** Path inside the storage. */
  path: string;
}

export class HashIndexService {
  constructor(private readonly repo: HashIndexRepo) {}

  /** The index of one storage, as its driver uses it. */
  forStorage(storageId: number): HashIndex {
    const repo = this.repo;
    const get = async (path: string, size: number, mtimeMs: number): Promise<Hashes | undefined> => {
      const r = await repo.get(storageId, path);
      return r && r.size === size && r.mtime === mtimeMs ? r.hashes : undefined;
    };
    return {
      get,
      async put(path, size, mtimeMs, hashes) {
        // merged with what is known for the same content; anything recorded for other content is replaced
        const known = (await get(path, size, mtimeMs)) ?? {};
        await repo.upsert(storageId, path, size, mtimeMs, { ...known, ...hashes });
      },
      invalidate: (path) => repo.deleteUnder(storageId, path),
      move: (src, dst) => repo.move(storageId, src, dst),
      copy: (src, dst) => repo.copy(storageId, src, dst),
    };
  }

  /**
   * Stored files whose size and any of `want`'s digests match, at most `perHash` per digest kind, without
   * duplicates. Callers re-check each against what its storage says now: rows may be stale.
   */
  async find(want: Hashes, size: number, perHash = 64): Promise<IndexedFile[]> {
    const seen = new Set<string>();
    const out: IndexedFile[] = [];
    for (const alg of HASH_NAMES) {
      const h = want[alg];
      if (!h) continue;
      for (const r of await this.repo.find(alg, h, size, perHash)) {
        const key = `${r.storageId}:${r.path}`;
        if (seen.has(key)) continue;
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

  /** Forgets a path and everything below it (e.g. a recorded object that is gone). */
  forget(storageId: number, path: string): Promise<void> {
    return this.repo.deleteUnder(storageId, path);
  }

  /** Drops a whole storage's rows (deleted, or its root or options changed). */
  clearStorage(storageId: number): Promise<void> {
    return this.repo.deleteStorage(storageId);
  }
}
