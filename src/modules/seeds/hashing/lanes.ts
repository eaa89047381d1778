// The hashing core shared by the worker threads and the inline (main-thread) path.
//
// A "lane" is one digest stream: a whole-file hash, the per-file piece hashes of one
// algorithm (pieces restart at every file), or the BitTorrent v1 piece SHA-1 stream
// (pieces run over all files concatenated). Whole-file lanes are inherently sequential;
// piece lanes are divisible: every participant sees every byte, but only hashes the
// pieces it owns, so one piece lane can be spread over several workers.
import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import type { HashName } from './types.js';

/** Which pieces of a divisible lane a participant owns: [lo, hi) of the unit interval. */
export type Share = readonly [lo: number, hi: number];

export type LaneSpec =
  | { readonly kind: 'whole'; readonly alg: HashName }
  | { readonly kind: 'pieces'; readonly alg: HashName; readonly pieceSize: number; readonly share: Share }
  | { readonly kind: 'torrent'; readonly pieceSize: number; readonly share: Share };

/** Piece digests owned by one participant: `idx[i]` is the piece index of digest i. */
export interface PieceDigests {
  idx: Uint32Array;
  dig: Uint8Array;
}

/** What one participant computed for one file. */
export interface FileLaneOutput {
  whole: Partial<Record<HashName, string>>;
  pieces: Partial<Record<HashName, PieceDigests>>;
}

export const DIGEST_BYTES: Readonly<Record<HashName, number>> = { md5: 16, sha1: 20, sha256: 32 };

const PHI = 0.6180339887498949;
/**
 * Owner position of the g-th piece of a lane: the golden-ratio sequence spreads any run of
 * consecutive pieces evenly over [0, 1), so every participant gets its share of even a short
 * file. Every participant evaluates the same expression, so ownership is a partition.
 */
export const piecePosition = (g: number): number => (g * PHI) % 1;
const owns = (share: Share, g: number): boolean => {
  if (share[0] <= 0 && share[1] >= 1) return true;
  const x = piecePosition(g);
  return x >= share[0] && x < share[1];
};

/** Cuts a byte stream into fixed-size pieces, hashing the ones this participant owns. */
class PieceCutter {
  private open = false;
  private owned = false;
  private filled = 0;
  private hash: Hash | undefined;
  /** Pieces started so far over the whole job (drives ownership). */
  private started = 0;
  /** Index of the current piece in its numbering (per file, or over the whole torrent). */
  private index = 0;
  private idx: number[] = [];
  private digs: Buffer[] = [];

  constructor(
    private readonly alg: HashName,
    private readonly pieceSize: number,
    private readonly share: Share,
  ) {}

  update(buf: Uint8Array): void {
    let off = 0;
    const len = buf.length;
    while (off < len) {
      if (!this.open) {
        this.open = true;
        this.filled = 0;
        this.owned = owns(this.share, this.started++);
        this.hash = this.owned ? createHash(this.alg) : undefined;
      }
      const take = Math.min(this.pieceSize - this.filled, len - off);
      if (this.owned) this.hash!.update(off === 0 && take === len ? buf : buf.subarray(off, off + take));
      this.filled += take;
      off += take;
      if (this.filled === this.pieceSize) this.close();
    }
  }

  /** Ends the current (partial) piece, if any byte is pending. */
  close(): void {
    if (!this.open) return;
    if (this.owned) {
      this.idx.push(this.index);
      this.digs.push(this.hash!.digest());
      this.hash = undefined;
    }
    this.index++;
    this.open = false;
  }

  /** Restarts the numbering (a new file); call close() first. */
  restart(): void {
    this.index = 0;
  }

  take(): PieceDigests {
    const out = { idx: Uint32Array.from(this.idx), dig: new Uint8Array(Buffer.concat(this.digs)) };
    this.idx = [];
    this.digs = [];
    return out;
  }
}

/** A participant's set of lanes, fed the byte stream of a sequence of files. */
export class LaneSet {
  private readonly whole: { alg: HashName; hash: Hash | undefined }[] = [];
  private readonly pieces: { alg: HashName; cutter: PieceCutter }[] = [];
  private readonly torrent: PieceCutter | undefined;
  private inFile = false;

  constructor(specs: readonly LaneSpec[]) {
    let torrent: PieceCutter | undefined;
    for (const s of specs) {
      if (s.kind === 'whole') this.whole.push({ alg: s.alg, hash: undefined });
      else if (s.kind === 'pieces') this.pieces.push({ alg: s.alg, cutter: new PieceCutter(s.alg, s.pieceSize, s.share) });
      else torrent = new PieceCutter('sha1', s.pieceSize, s.share);
    }
    this.torrent = torrent;
  }

  beginFile(): void {
    if (this.inFile) this.endFile();
    this.inFile = true;
    for (const w of this.whole) w.hash = createHash(w.alg);
    for (const p of this.pieces) p.cutter.restart();
  }

  update(buf: Uint8Array): void {
    if (buf.length === 0) return;
    for (const w of this.whole) w.hash!.update(buf);
    for (const p of this.pieces) p.cutter.update(buf);
    this.torrent?.update(buf);
  }

  endFile(): FileLaneOutput {
    const out: FileLaneOutput = { whole: {}, pieces: {} };
    for (const w of this.whole) {
      out.whole[w.alg] = w.hash!.digest('hex');
      w.hash = undefined;
    }
    for (const p of this.pieces) {
      p.cutter.close();
      out.pieces[p.alg] = p.cutter.take();
    }
    this.inFile = false;
    return out;
  }

  /** Closes the torrent stream's last partial piece and returns the torrent digests this participant owns. */
  finish(): PieceDigests | undefined {
    if (!this.torrent) return undefined;
    this.torrent.close();
    return this.torrent.take();
  }
}
