/**
 * Ferry's own check of what a BitTorrent tool downloaded from a `.torrent` Ferry handed it (a stored torrent or a
 * seed operation's): every v1 piece of the tool's copy is hashed on the hashing workers and compared with
 * `info.pieces` before anything is transferred. The tools check pieces themselves; this catches one that did not
 * (or a copy changed afterwards) and names the file and the piece, and nothing of the download lands.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { decodeTorrent } from '../seeds/formats/index.js';
import { hashFiles, type HashInput } from '../seeds/hashing/index.js';

const SHA1_LEN = 20;
const ZEROS = 1 << 20;

/** The tool's copy does not match the torrent: the message names the file(s) and the piece. */
export class PieceMismatch extends Error {
  override readonly name = 'PieceMismatch';
}

/** Zero bytes for a BEP 47 padding file (tools do not write them). */
function* zeros(size: number): Iterable<Uint8Array> {
  const block = new Uint8Array(Math.min(size, ZEROS));
  for (let left = size; left > 0; left -= block.length) yield left >= block.length ? block : block.subarray(0, left);
}

/** Throws PieceMismatch unless every piece of the files below `work` hashes to the torrent's `info.pieces`. */
export async function checkTorrentPieces(work: string, torrent: Uint8Array, signal?: AbortSignal, onBytes?: (n: number) => void): Promise<void> {
  const t = decodeTorrent(torrent);
  const relOf = (path: string) => (t.single_file ? t.info_name : `${t.info_name}/${path}`);
  const inputs: HashInput[] = [];
  for (const f of t.layout) {
    if (f.padding) {
      inputs.push(zeros(f.size));
      continue;
    }
    const rel = relOf(f.path);
    const abs = join(work, ...rel.split('/'));
    const st = await stat(abs).catch(() => null);
    // some tools never create a torrent's empty files
    if (!st && f.size === 0) {
      inputs.push(new Uint8Array(0));
      continue;
    }
    if (!st?.isFile() || st.size !== f.size) throw new PieceMismatch(`${rel}: the tool's copy has ${st?.isFile() ? `${st.size} bytes` : 'no file'}, the torrent says ${f.size} bytes`);
    inputs.push(abs);
  }
  const got = (await hashFiles(inputs, { torrentPieceSize: t.piece_length, expectedSize: t.total_size, signal, onProgress: onBytes })).torrentPieces ?? Buffer.alloc(0);
  const count = t.pieces.length / SHA1_LEN;
  for (let i = 0; i < count; i++) {
    const at = i * SHA1_LEN;
    if (got.subarray(at, at + SHA1_LEN).equals(t.pieces.subarray(at, at + SHA1_LEN))) continue;
    const start = i * t.piece_length;
    const end = Math.min(start + t.piece_length, t.total_size);
    const files = t.layout.filter((f) => !f.padding && f.size > 0 && f.offset < end && f.offset + f.size > start).map((f) => relOf(f.path));
    throw new PieceMismatch(`piece ${i} of ${count} (bytes ${start}–${end - 1}, in ${files.join(', ')}) does not match the torrent's SHA-1: the download was dropped, nothing landed`);
  }
}
