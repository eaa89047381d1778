// `seed create PATH…`: hash local files once and write the seed in every requested container.
import { access, mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { hashFiles } from '../hashing/index.js';
import type { HashName as EngineAlgorithm, HashResult } from '../hashing/index.js';
import {
  EMPTY_HASH_MATRIX,
  HASH_NAMES,
  SeedFormatError,
  createSeed,
  decodeTorrent,
  encodeSeed,
  formatSeedTime,
  isPieceAligned,
  parseHashMatrixText,
  planSeedHashes,
  seedFileName,
  seedNameProblem,
} from '../formats/index.js';
import type { HashMatrix, Seed, SeedFile, SeedFormat, TorrentPieceStream } from '../formats/index.js';
import { collectInputs } from './files.js';
import type { LocalFile } from './files.js';
import { ferryVersion, parseByteSize, parseFormats } from './options.js';
import { progressMeter } from './progress.js';

export interface CreateOptions {
  format?: string;
  matrix?: string;
  pieceSize?: string;
  name?: string;
  tracker?: string[];
  comment?: string;
  output?: string;
  force?: boolean;
}

export interface CreateResult {
  seed: Seed;
  written: { format: SeedFormat; path: string; infoHash?: string }[];
}

/** What the engine must compute for a matrix; the torrent stream only when per-file SHA-1 pieces cannot be joined into it. */
export function engineSelection(matrix: HashMatrix, pieceSize: number, files: readonly { size: number }[], formats: readonly SeedFormat[]) {
  const whole = HASH_NAMES.filter((a) => matrix[a].whole) as EngineAlgorithm[];
  const pieces = HASH_NAMES.filter((a) => matrix[a].pieces) as EngineAlgorithm[];
  const stream = formats.includes('torrent') && !isPieceAligned(files, pieceSize);
  return { whole, pieces, pieceSize, torrentPieceSize: stream ? pieceSize : undefined };
}

function seedFiles(files: readonly LocalFile[], result: HashResult): SeedFile[] {
  return files.map((f, i) => {
    const h = result.files[i]!;
    if (h.size !== f.size) throw new Error(`${f.abs}: changed while it was being hashed (${f.size} → ${h.size} bytes)`);
    return {
      path: f.path,
      size: h.size,
      modified: formatSeedTime(f.mtime),
      hashes: { md5: h.md5, sha1: h.sha1, sha256: h.sha256, pieces: h.pieces },
    };
  });
}

const exists = (p: string) => access(p).then(() => true, () => false);

export async function createSeeds(paths: string[], opts: CreateOptions, signal?: AbortSignal): Promise<CreateResult> {
  const formats = parseFormats(opts.format ?? 'oss');
  const matrix = opts.matrix === undefined ? EMPTY_HASH_MATRIX : parseHashMatrixText(opts.matrix, '--matrix');
  const requestedPiece = opts.pieceSize === undefined ? undefined : parseByteSize(opts.pieceSize);
  const plan = planSeedHashes({ matrix, formats, pieceSize: requestedPiece });
  if (requestedPiece !== undefined && requestedPiece !== plan.pieceSize) {
    process.stderr.write(`note: .cas needs 10 MiB pieces; using ${plan.pieceSize} instead of ${requestedPiece}\n`);
  }
  const input = await collectInputs(paths, opts.name);
  const problem = seedNameProblem(input.name);
  if (problem) throw new SeedFormatError('--name', `invalid seed name: ${problem}`);

  const outDir = resolve(opts.output ?? '.');
  // Refuse before hashing anything if we would overwrite.
  const targets = formats.map((f) => ({ format: f, path: join(outDir, `${input.name}.${f}`) }));
  if (!opts.force) {
    for (const t of targets) if (await exists(t.path)) throw new Error(`${t.path} exists (use --force to overwrite)`);
  }

  const total = input.files.reduce((n, f) => n + f.size, 0);
  const meter = progressMeter('hashing', total);
  const sel = engineSelection(plan.matrix, plan.pieceSize, input.files, formats);
  let result: HashResult;
  try {
    result = await hashFiles(
      input.files.map((f) => f.abs),
      { ...sel, expectedSize: total, signal, onProgress: (n) => meter.update(n) },
    );
  } finally {
    meter.done();
  }

  const seed = createSeed({
    name: input.name,
    files: seedFiles(input.files, result),
    createdBy: `Ferry ${ferryVersion()}`,
    pieceSize: plan.pieceSize,
    comment: opts.comment,
    trackers: opts.tracker,
  });
  const stream: TorrentPieceStream | undefined = result.torrentPieces ? { pieceSize: plan.pieceSize, hashes: result.torrentPieces } : undefined;
  const encoded = formats.map((format) => ({ format, data: encodeSeed(seed, format, { pieces: stream, layout: input.singleFile ? 'auto' : 'multi' }) }));
  await mkdir(outDir, { recursive: true });
  const written: CreateResult['written'] = [];
  for (const e of encoded) {
    const path = join(outDir, seedFileName(seed, e.format));
    await writeFile(path, e.data);
    written.push({ format: e.format, path, infoHash: e.format === 'torrent' ? decodeTorrent(e.data).info_hash : undefined });
  }
  return { seed, written };
}
