/**
 * A value read from the database (a small table: settings, metas, storage versions) and reused by every caller,
 * for the instances sharing that database to notice each other's changes within a bounded time:
 *
 * - up to `freshMs` after its read began, the value is served as it is;
 * - then up to `maxStaleMs`, it is still served at once while exactly one reload runs in the background
 *   (stale-while-revalidate), so a request never waits for a reload that is merely due;
 * - past `maxStaleMs` (or with no value yet, or after `invalidate`), callers wait for the reload, all sharing one.
 *
 * Ages count from the moment a read began, so no caller ever gets data older than `maxStaleMs`: a change
 * committed by another instance is seen within `freshMs` plus one read while requests keep coming, and never later
 * than `maxStaleMs`. A change made through this instance calls `invalidate`, and is seen by the next caller.
 */
export const MAX_STALE_MS = 2000;

export interface SharedCacheOptions<T> {
  load: () => Promise<T>;
  /** How long a read is served without reloading (ms). */
  freshMs: number;
  /** After this long (ms), callers wait for a new read instead of being served the old one. */
  maxStaleMs?: number;
  /** A background reload failed (callers keep the old value until `maxStaleMs`, then see the error). */
  onError?: (e: unknown) => void;
}

export class SharedCache<T> {
  private value: { at: number; v: T } | null = null;
  /** The read in flight, shared by every caller that waits. */
  private loading: Promise<T> | null = null;
  /** Bumped by `invalidate`: a read that began before it must not refill the cache. */
  private generation = 0;
  private readonly maxStaleMs: number;

  constructor(private readonly o: SharedCacheOptions<T>) {
    this.maxStaleMs = Math.max(o.maxStaleMs ?? MAX_STALE_MS, o.freshMs);
  }

  get(): Promise<T> {
    const c = this.value;
    if (c) {
      const age = Date.now() - c.at;
      if (age <= this.o.freshMs) return Promise.resolve(c.v);
      if (age <= this.maxStaleMs) {
        this.reload().catch((e: unknown) => this.o.onError?.(e));
        return Promise.resolve(c.v);
      }
    }
    return this.reload();
  }

  /** Forgets the value (a change made here): the next caller waits for a read that begins after this call. */
  invalidate(): void {
    this.value = null;
    this.loading = null;
    this.generation++;
  }

  private reload(): Promise<T> {
    if (this.loading) return this.loading;
    // `at` is taken before the read, so the value never outlives the data it holds
    const at = Date.now();
    const gen = this.generation;
    const p = this.o.load().then(
      (v) => {
        if (gen === this.generation && (!this.value || this.value.at <= at)) this.value = { at, v };
        if (this.loading === p) this.loading = null;
        return v;
      },
      (e: unknown) => {
        if (this.loading === p) this.loading = null;
        throw e;
      },
    );
    this.loading = p;
    return p;
  }
}
