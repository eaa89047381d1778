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
 * Ring and segment of a write job: the sizes the sidecar uploads use (sidecar-writer.ts), so the
 * pool's free rings serve both and a server keeps as few as possible (peak RSS, issue #17).
 * An upload arrives slower than a disk reads: 4 rings' worth of segments in flight are enough.
 */
const WRITE_RING_BYTES = 4 * 1024 * 1024;
const WRITE_SEGMENT_BYTES = 1024 * 1024;

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
