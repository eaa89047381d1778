/**
 * Paths whose hash rows must be forgotten but the database refused to delete them: until a retry
 * succeeds, no row at or below them is trusted (in this process). Kept per storage, bounded: past
 * `MAX_DOUBTS` paths a storage is doubted as a whole (its root), which only costs re-hashing.
 */
import { isWithin } from '../../lib/paths.js';

const MAX_DOUBTS = 256;

export class Doubts {
  private readonly byStorage = new Map<number, Set<string>>();
  /** Bumped on every `add`: lets an update notice that something was doubted while it ran. */
  generation = 0;

  add(storageId: number, path: string): void {
    this.generation++;
    let set = this.byStorage.get(storageId);
    if (!set) this.byStorage.set(storageId, (set = new Set()));
    if (set.has('/')) return;
    set.add(path);
    if (set.size > MAX_DOUBTS) {
      set.clear();
      set.add('/');
    }
  }

  /** Done: `path` (as added) was forgotten after all. */
  settle(storageId: number, path: string): void {
    const set = this.byStorage.get(storageId);
    set?.delete(path);
    if (set?.size === 0) this.byStorage.delete(storageId);
  }

  /** Storages with doubted paths. */
  storages(): number[] {
    return [...this.byStorage.keys()];
  }

  /** The doubted paths of a storage (a copy), oldest first. */
  of(storageId: number): string[] {
    return [...(this.byStorage.get(storageId) ?? [])];
  }

  /** Some doubted path is `path`, above it or (with `orBelow`) below it. */
  covers(storageId: number, path: string, orBelow = false): boolean {
    const set = this.byStorage.get(storageId);
    if (!set) return false;
    for (const d of set) if (isWithin(d, path) || (orBelow && isWithin(path, d))) return true;
    return false;
  }
}
