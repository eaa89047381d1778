// Streaming hash engine for transfer seeds (contract §10.2): every selected whole-file and
// per-piece digest plus the BitTorrent piece stream from one read, on worker threads.
export { Hasher, createHasher } from './hasher.js';
export type { HasherTuning } from './hasher.js';
export { hashFiles, hashInput } from './sources.js';
export type { HashInput } from './sources.js';
export { HashPool, defaultHashPool } from './pool.js';
export { UPLOAD_RING_BYTES, UPLOAD_SEGMENT_BYTES, wholeFileDigests } from './whole-file.js';
export type { WholeFileJob } from './whole-file.js';
export type { HashPoolOptions } from './pool.js';
export { DEFAULT_INLINE_THRESHOLD, DEFAULT_PIECE_SIZE, HASH_NAMES } from './types.js';
export type { FileHashes, HashName, HashOptions, HashResult, HashSelection, PieceHashes } from './types.js';
