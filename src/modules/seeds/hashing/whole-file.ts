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
 * Ring and segment of a hashing job fed by an upload (plain writes here, sidecar uploads in
 * sidecar-writer.ts): an upload arrives slower than a disk reads and every concurrent upload
 * holds a ring; one size for both lets the pool's free rings serve either (peak RSS, issue #17).
 */
export const UPLOAD_RING_BYTES = 4 * 1024 * 1024;
export const UPLOAD_SEGMENT_BYTES = 1024 * 1024;

/** Starts a job computing `names` over one file; `expectedSize` lets big files go to the workers at once. */
export function wholeFileDigests(names: readonly HashName[], expectedSize?: number, pool?: HashPool): WholeFileJob {
  const h = new Hasher({ whole: names, expectedSize, pool, ringBytes: UPLOAD_RING_BYTES, segmentBytes: UPLOAD_SEGMENT_BYTES });
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
