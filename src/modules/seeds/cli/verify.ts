// `seed verify FILE DATA_DIR`: re-hash the data a seed describes and name every file and
// piece that differs.
import { open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { hashFiles } from '../hashing/index.js';
import type { HashName, HashInput } from '../hashing/index.js';
import { HASH_NAMES, torrentFileOrder, torrentPiecesFromSeed } from '../formats/index.js';
import type { DecodedSeed, SeedFile } from '../formats/index.js';
import { progressMeter } from './progress.js';

export interface FileVerdict {
  path: string;
  /** `ok`, content differs (`bad`), absent (`missing`) or of another size (`size`). */
  status: 'ok' | 'bad' | 'missing' | 'size';
  expectedSize: number;
  actualSize?: number;
  problems: string[];
}

export interface PieceSpan {
  path: string;
  start: number;
  end: number;
}

export interface VerifyReport {
  root: string;
  files: FileVerdict[];
  /** Torrent pieces over all files (torrents whose stream is not just the per-file SHA-1 lists). */
  torrent?: { pieces: number; bad: { index: number; spans: PieceSpan[] }[] };
  ok: boolean;
}

const fileSize = (p: string) => stat(p).then((s) => (s.isFile() ? s.size : undefined), () => undefined);

/** DATA_DIR holds the seed's paths, or (torrent-client layout) a folder named after the seed that does. */
async function pickRoot(dataDir: string, d: DecodedSeed): Promise<string> {
  const count = async (root: string) => {
    let n = 0;
    for (const f of d.seed.files) if ((await fileSize(join(root, f.path))) !== undefined) n++;
    return n;
  };
  const direct = await count(dataDir);
  if (direct === d.seed.files.length || d.seed.files.length === 1) return dataDir;
  const nested = join(dataDir, d.seed.name);
  return (await count(nested)) > direct ? nested : dataDir;
}

/** The file's first `size` bytes, zero-padded when it is shorter (keeps the torrent stream aligned). */
async function* padded(path: string | undefined, size: number): AsyncGenerator<Buffer> {
  const chunk = 1024 * 1024;
  const fh = path === undefined ? undefined : await open(path, 'r');
  try {
    for (let off = 0; off < size; ) {
      const n = Math.min(chunk, size - off);
      const buf = Buffer.alloc(n);
      let got = 0;
      while (fh && got < n) {
        const { bytesRead } = await fh.read(buf, got, n - got, off + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      yield buf;
      off += n;
    }
  } finally {
    await fh?.close();
  }
}

const range = (start: number, endExclusive: number) => `bytes ${start}-${endExclusive - 1}`;

export async function verifySeed(d: DecodedSeed, dataDir: string, signal?: AbortSignal): Promise<VerifyReport> {
  const seed = d.seed;
  const ps = seed.piece_size;
  const root = await pickRoot(dataDir, d);
  const ordered = torrentFileOrder(seed.files);
  const actual = await Promise.all(ordered.map((f) => fileSize(join(root, f.path))));

  let stream = d.torrent_pieces?.pieceSize === ps ? Buffer.from(d.torrent_pieces.hashes) : undefined;
  const derived = stream ? torrentPiecesFromSeed({ ...seed, files: ordered }) : null;
  if (stream && derived && derived.equals(stream)) stream = undefined; // the per-file SHA-1 lists already cover it
  const whole = HASH_NAMES.filter((a) => seed.files.some((f) => f.hashes[a])) as HashName[];
  const pieces = HASH_NAMES.filter((a) => seed.files.some((f) => (f.hashes.pieces?.[a]?.length ?? 0) > 0)) as HashName[];

  const inputs: HashInput[] = ordered.map((f, i) => {
    const have = actual[i];
    if (have === f.size) return join(root, f.path);
    if (!stream) return Buffer.alloc(0);
    return () => padded(have === undefined ? undefined : join(root, f.path), f.size);
  });
  const total = ordered.reduce((n, f) => n + f.size, 0);
  const meter = progressMeter('verifying', total);
  let result;
  try {
    result = await hashFiles(inputs, { whole, pieces, pieceSize: ps, torrentPieceSize: stream ? ps : undefined, signal, onProgress: (n) => meter.update(n) });
  } finally {
    meter.done();
  }

  const files: FileVerdict[] = ordered.map((f: SeedFile, i) => {
    const have = actual[i];
    const v: FileVerdict = { path: f.path, status: 'ok', expectedSize: f.size, actualSize: have, problems: [] };
    if (have === undefined) {
      v.status = 'missing';
      v.problems.push('missing');
      return v;
    }
    if (have !== f.size) {
      v.status = 'size';
      v.problems.push(`${have} bytes, the seed says ${f.size}`);
      return v;
    }
    const got = result.files[i]!;
    for (const alg of whole) {
      const want = f.hashes[alg];
      if (want && want.toLowerCase() !== got[alg]) v.problems.push(`${alg} differs (seed ${want.toLowerCase()}, data ${got[alg]})`);
    }
    for (const alg of pieces) {
      const want = f.hashes.pieces?.[alg];
      const list = got.pieces?.[alg] ?? [];
      if (!want || want.length === 0) continue;
      want.forEach((h, j) => {
        if (h.toLowerCase() !== list[j]) {
          v.problems.push(`${alg} piece ${j} of ${want.length} (${range(j * ps, Math.min((j + 1) * ps, f.size))}) differs`);
        }
      });
    }
    if (v.problems.length > 0) v.status = 'bad';
    return v;
  });

  let torrent: VerifyReport['torrent'];
  if (stream) {
    const got = result.torrentPieces!;
    const offsets: number[] = [];
    ordered.reduce((off, f) => (offsets.push(off), off + f.size), 0);
    const bad: { index: number; spans: PieceSpan[] }[] = [];
    for (let i = 0; i * 20 < stream.length; i++) {
      if (stream.subarray(i * 20, i * 20 + 20).equals(got.subarray(i * 20, i * 20 + 20))) continue;
      const start = i * ps;
      const end = Math.min(start + ps, total);
      const spans: PieceSpan[] = [];
      ordered.forEach((f, j) => {
        const fs = offsets[j]!;
        const fe = fs + f.size;
        if (f.size > 0 && fe > start && fs < end) spans.push({ path: f.path, start: Math.max(start, fs) - fs, end: Math.min(end, fe) - fs });
      });
      bad.push({ index: i, spans });
    }
    torrent = { pieces: stream.length / 20, bad };
    // A bad torrent piece indicts the files it covers, except those whose own digests verified.
    const ownChecks = new Set(ordered.filter((f) => whole.some((a) => f.hashes[a]) || pieces.some((a) => (f.hashes.pieces?.[a]?.length ?? 0) > 0)).map((f) => f.path));
    for (const b of bad) {
      for (const sp of b.spans) {
        const v = files.find((x) => x.path === sp.path)!;
        if (v.status === 'missing' || v.status === 'size' || (v.status === 'ok' && ownChecks.has(v.path))) continue;
        v.status = 'bad';
        v.problems.push(`torrent piece ${b.index} of ${stream.length / 20} (${range(sp.start, sp.end)} of this file) differs`);
      }
    }
  }
  return { root, files, torrent, ok: files.every((f) => f.status === 'ok') && (torrent?.bad.length ?? 0) === 0 };
}

/** The report as text: one line per file problem, then a summary. */
export function verifyText(r: VerifyReport, seedName: string): string {
  const lines = [`verifying "${seedName}" against ${r.root}`];
  for (const f of r.files) {
    if (f.status === 'ok') lines.push(`OK       ${f.path}`);
    else for (const p of f.problems) lines.push(`${f.status.toUpperCase().padEnd(8)} ${f.path}: ${p}`);
  }
  for (const b of r.torrent?.bad ?? []) {
    lines.push(`BAD      torrent piece ${b.index} of ${r.torrent!.pieces}: ${b.spans.map((sp) => `${sp.path} ${range(sp.start, sp.end)}`).join(', ')}`);
  }
  const bad = r.files.filter((f) => f.status !== 'ok').length;
  const pieces = r.torrent ? `; torrent pieces: ${r.torrent.pieces - r.torrent.bad.length} of ${r.torrent.pieces} OK` : '';
  lines.push(bad === 0 && r.ok ? `all ${r.files.length} files OK${pieces}` : `${bad} of ${r.files.length} files failed${pieces}`);
  return lines.join('\n') + '\n';
}
