// Public types of the hashing engine.

import type { HashName } from '../../../lib/hashes.js';
export { HASH_NAMES, type HashName } from '../../../lib/hashes.js';

/** What to compute. Every list may be empty; duplicates are ignored. */
export interface HashSelection {
  /** Whole-file digests. */
  whole?: readonly HashName[];
  /** Per-file piece digests (pieces restart at each file; the last one may be short). */
  pieces?: readonly HashName[];
  /** Piece size for `pieces`, in bytes. Default 10 MiB. */
  pieceSize?: number;
  /** When set, also compute the BitTorrent v1 piece SHA-1 stream with this piece length (pieces span files). */
  torrentPieceSize?: number;
}

export interface HashOptions extends HashSelection {
  /** Aborts the job: pending and later calls reject with the signal's reason; workers are released promptly. */
  signal?: AbortSignal;
  /** Called with the running count of bytes fully hashed (every selected digest has consumed them). */
  onProgress?: (bytesHashed: number) => void;
  /**
   * Jobs whose total input stays at or below this many bytes are hashed on the calling thread
   * once complete (cheaper than a round trip to the workers). Default {@link DEFAULT_INLINE_THRESHOLD}.
   * 0 always uses the workers.
   */
  inlineThreshold?: number;
  /** Total bytes expected, when known: above the inline threshold the workers start at once. */
  expectedSize?: number;
  /** Worker pool to use; default: the process-wide pool. */
  pool?: import('./pool.js').HashPool;
}

export interface PieceHashes {
  md5?: string[];
  sha1?: string[];
  sha256?: string[];
}

/** Digests of one file, lowercase hex. `pieces` is present whenever piece digests were requested. */
export interface FileHashes {
  size: number;
  md5?: string;
  sha1?: string;
  sha256?: string;
  pieces?: PieceHashes;
}

export interface HashResult {
  files: FileHashes[];
  totalBytes: number;
  /** Concatenated 20-byte SHA-1 digests of the torrent pieces over all files (when `torrentPieceSize` was set). */
  torrentPieces?: Buffer;
}

/** Measured with `npm run bench -- hashing-threshold`: below this a job is cheaper on the calling thread (and blocks it < 0.5 ms). */
export const DEFAULT_INLINE_THRESHOLD = 128 * 1024;
export const DEFAULT_PIECE_SIZE = 10 * 1024 * 1024;
