/**
 * Decoding a seed document and working out what each container lacks (conversions, diagnostics) is pure CPU:
 * for a hostile 100,000-file torrent it is seconds. Documents above INLINE_BYTES are analysed on a worker thread
 * so the event loop keeps serving everyone else; small ones (nearly every real seed) inline, which is cheaper
 * than the round trip. The number of files a seed may list is capped by the `seed_max_files` setting.
 */
import { availableParallelism } from 'node:os';
import { SeedFormatError, type SeedDiagnostic, type SeedFormat, type DecodedSeed, type Seed, type TorrentPieceStream } from '../formats/index.js';
import { WorkerPool, type SerializedError } from '../../../lib/worker-pool.js';
import { analyzeDecoded, analyzeBytes, type AnalyzeRequest, type Conversions } from './seed-analysis.core.js';

export type { Conversions } from './seed-analysis.core.js';

export interface SeedAnalysis {
  decoded: DecodedSeed;
  conversions: Conversions;
  diagnostics: SeedDiagnostic[];
}

/** Documents (or models) below this many bytes (or files × 64) are analysed on the calling thread. */
const INLINE_BYTES = 256 * 1024;

let pool: WorkerPool<AnalyzeRequest, SeedAnalysis> | null = null;

function revive(e: SerializedError): Error {
  if (e.name === 'SeedFormatError') return new SeedFormatError(String(e.field), String(e.reason), e.file === undefined ? undefined : String(e.file));
  return Object.assign(new Error(e.message), { name: e.name });
}

function workers(): WorkerPool<AnalyzeRequest, SeedAnalysis> {
  pool ??= new WorkerPool({
    module: new URL(import.meta.url.endsWith('.ts') ? './seed-analysis.worker.ts' : './seed-analysis.worker.js', import.meta.url),
    name: 'ferry-seed-analysis',
    // one core stays with the event loop
    size: Math.max(1, Math.min(2, availableParallelism() - 1)),
    maxQueue: 16,
    revive,
  });
  return pool;
}

/** A worker's result has plain Uint8Arrays where Buffers went in. */
function fromWorker(a: SeedAnalysis): SeedAnalysis {
  const tp = a.decoded.torrent_pieces;
  if (tp) a.decoded.torrent_pieces = { pieceSize: tp.pieceSize, hashes: Buffer.from(tp.hashes.buffer, tp.hashes.byteOffset, tp.hashes.byteLength) };
  return a;
}

/** Decodes and analyses a seed document (detecting its container unless `format` is given). */
export async function analyzeSeed(bytes: Uint8Array, opts: { filename?: string; format?: SeedFormat; now?: Date; maxFiles: number }): Promise<SeedAnalysis> {
  const req: AnalyzeRequest = { op: 'bytes', bytes, filename: opts.filename, format: opts.format, now: opts.now?.getTime(), maxFiles: opts.maxFiles };
  if (bytes.length < INLINE_BYTES) return analyzeBytes(req);
  return fromWorker(await workers().run(req));
}

/** Analyses a seed already in memory (after edits or a recalculation). */
export async function analyzeModel(seed: Seed, format: SeedFormat, torrentPieces?: TorrentPieceStream): Promise<SeedAnalysis> {
  const decoded: DecodedSeed = { format, seed, torrent_pieces: torrentPieces, notes: [] };
  if (seed.files.length * 64 < INLINE_BYTES) return analyzeDecoded(decoded);
  return fromWorker(await workers().run({ op: 'model', decoded }));
}

/** Stops the workers (tests; a server simply lets them go with the process). */
export async function closeSeedAnalysis(): Promise<void> {
  await pool?.close();
  pool = null;
}
