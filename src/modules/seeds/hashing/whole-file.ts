// Whole-file digests of a byte stream on the worker pool: the hashing engine behind every storage
// write's hash index (the drivers' `HashEngine` port, wired in src/app/services.ts).
import { Hasher } from './hasher.js';
import type { HashPool } from './pool.js';
import type { HashName } from './types.js';

/** A push job over one file: `update` in order, then `digest`. */
export interface WholeFileJob {
  /** Resolves once the bytes are copied into the workers' ring (they may be reused then). */
  update(chunk: Uint8Array): Promise<void>;
  digest(): Promise<Partial<Record<HashName, string>>>;
  abort(reason?: unknown): void;
}

/**
 * Ring and segment of a write job: an upload arrives slower than a disk reads and every
 * concurrent write holds a ring (and the pool keeps one per worker for reuse): 8 MiB in 2 MiB
 * segments rides out a slow worker and keeps the wake-ups of the workers few
 * (measured with `npm run bench -- datapath --only upload`).
 */
const WRITE_RING_BYTES = 8 * 1024 * 1024;
const WRITE_SEGMENT_BYTES = 2 * 1024 * 1024;

/** Starts a job computing `names` over one file; `expectedSize` lets big files go to the workers at once. */
export function wholeFileDigests(names: readonly HashName[], expectedSize?: number, pool?: HashPool): WholeFileJob {
  const h = new Hasher({ whole: names, expectedSize, pool, ringBytes: WRITE_RING_BYTES, segmentBytes: WRITE_SEGMENT_BYTES });
  // one file, opened now: an empty file still has digests
  h.startFile().catch(() => undefined);
  return {
    update: (chunk) => h.update(chunk),
    async digest() {
      const f = (await h.finish()).files[0];
      const out: Partial<Record<HashName, string>> = {};
      for (const n of names) if (f?.[n]) out[n] = f[n];
      return out;
    },
    abort: (reason) => h.abort(reason),
  };
}
