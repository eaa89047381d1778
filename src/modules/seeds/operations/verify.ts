/**
 * Verification of what seed operations land (contract §10.5): every file is checked against the
 * seed's hashes, and a mismatch leaves nothing behind.
 *
 * - `landVerified`: bytes from outside (or from another storage) stream into a two-phase driver
 *   write while one hashing job computes every whole-file digest (stored with the file, so the
 *   content is found again by hash) and the seed's piece digests; the seed's hashes are compared
 *   BEFORE commit, so a mismatch aborts the write and nothing appears.
 * - `verifyStored`: a server-side copy is checked by size and the hashes its storage vouches for;
 *   what the storage cannot vouch for is re-hashed in one streamed read. A mismatch removes it.
 */
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { SeedsDeps } from '../seeds.deps.js';
import { forbidden } from '../../../lib/errors.js';
import { byteCounter } from '../../../lib/streams.js';
import { isDriverError, pathExists, type Entry, type Hashes, type PendingWrite, type StorageDriver } from '../../storages/drivers/index.js';
import { HASH_NAMES, type HashName, type SeedFile } from '../formats/index.js';
import { createHasher, type FileHashes } from '../hashing/index.js';
import { parentOf } from '../../../lib/paths.js';

/** The landed bytes do not match the seed. Messages start with `hash mismatch`. */
export class HashMismatch extends Error {
  override readonly name = 'HashMismatch';
}

export const isHashMismatch = (e: unknown) => e instanceof HashMismatch || isDriverError(e, 'hash_mismatch');

/** The seed file's whole-file hashes, lowercase. */
export function seedWholeHashes(f: SeedFile): Hashes {
  const out: Hashes = {};
  for (const a of HASH_NAMES) {
    const v = f.hashes[a];
    if (v) out[a] = v.toLowerCase();
  }
  return out;
}

/** Piece algorithms the seed lists for this file. */
export function seedPieceAlgs(f: SeedFile): HashName[] {
  return HASH_NAMES.filter((a) => (f.hashes.pieces?.[a]?.length ?? 0) > 0);
}

/** True when the seed carries any hash a landed file can be checked against. */
export function isVerifiable(f: SeedFile): boolean {
  return f.size === 0 || Object.keys(seedWholeHashes(f)).length > 0 || seedPieceAlgs(f).length > 0;
}

/** What disagrees between the seed and `got` (every kind both have), or null. */
export function compareWhole(f: SeedFile, got: Hashes): string | null {
  const want = seedWholeHashes(f);
  for (const a of HASH_NAMES) {
    const g = got[a]?.toLowerCase();
    if (want[a] && g && want[a] !== g) return `${a} is ${g}, the seed says ${want[a]}`;
  }
  return null;
}

/** Compares a full hashing result (whole and pieces) with the seed. */
export function compareComputed(f: SeedFile, got: FileHashes): string | null {
  if (got.size !== f.size) return `${got.size} bytes, the seed says ${f.size}`;
  const whole = compareWhole(f, got);
  if (whole) return whole;
  for (const a of seedPieceAlgs(f)) {
    const want = f.hashes.pieces![a]!;
    const have = got.pieces?.[a] ?? [];
    const i = want.findIndex((w, k) => w.toLowerCase() !== have[k]);
    if (i >= 0) return `${a} of piece ${i} differs from the seed`;
  }
  return null;
}

const mismatch = (shown: string, why: string) => new HashMismatch(`hash mismatch: ${shown}: ${why}`);

export interface LandOptions {
  /** Full virtual path of the file to create. */
  full: string;
  /** How the user sees it (messages). */
  shown: string;
  file: SeedFile;
  pieceSize: number;
  overwrite: boolean;
  body: Readable;
  signal?: AbortSignal;
  onBytes?: (n: number) => void;
}

/** Streams `body` into `full`, verified against the seed before it becomes visible. */
export async function landVerified(deps: Pick<SeedsDeps, 'fs'>, o: LandOptions): Promise<Entry> {
  let pending: PendingWrite;
  try {
    const { driver, inner } = await deps.fs.locate(o.full);
    if (!o.overwrite && (await pathExists(driver, inner))) throw forbidden(`file exists: ${o.shown}`);
    const parent = parentOf(inner);
    if (parent !== '/') await driver.mkdir(parent);
    const mtime = o.file.modified && Number.isFinite(Date.parse(o.file.modified)) ? new Date(o.file.modified) : undefined;
    pending = await driver.beginWrite(inner, { size: o.file.size, overwrite: o.overwrite, mtime, computeHashes: [], expectedHashes: seedWholeHashes(o.file) });
  } catch (e) {
    o.body.destroy();
    throw e;
  }
  return deps.fs.track(
    (async () => {
      const hasher = createHasher({ whole: HASH_NAMES, pieces: seedPieceAlgs(o.file), pieceSize: o.pieceSize, expectedSize: o.file.size, signal: o.signal });
      try {
        await hasher.startFile();
        await pipeline(o.body, byteCounter((n) => o.onBytes?.(n)), hasher.tee(), pending.stream, o.signal ? { signal: o.signal } : {});
        const got = (await hasher.finish()).files[0]!;
        const why = compareComputed(o.file, got);
        if (why) throw mismatch(o.shown, why);
        const landed = await pending.commit({ hashes: { md5: got.md5, sha1: got.sha1, sha256: got.sha256 } });
        await deps.fs.notify({ kind: 'written', full: o.full });
        return landed;
      } catch (e) {
        hasher.abort(e);
        o.body.destroy();
        await pending.abort(e);
        if (isDriverError(e, 'hash_mismatch')) throw mismatch(o.shown, e.message);
        if (isDriverError(e, 'exists') && !o.overwrite) throw forbidden(`file exists: ${o.shown}`);
        throw e;
      }
    })(),
  );
}

/**
 * Checks a file that a server-side copy created at `full` against the seed; a mismatch (or a
 * check that cannot finish) removes it. Returns the hashes now known for it.
 */
export async function verifyStored(deps: Pick<SeedsDeps, 'fs'>, full: string, shown: string, file: SeedFile, pieceSize: number, signal?: AbortSignal): Promise<Hashes> {
  const { driver, inner } = await deps.fs.locate(full);
  try {
    const e = await driver.stat(inner);
    if (e.isDir || e.size !== file.size) throw mismatch(shown, `${e.isDir ? 'a folder' : `${e.size} bytes`}, the seed says ${file.size} bytes`);
    const known = e.hashes ?? {};
    const want = seedWholeHashes(file);
    const why = compareWhole(file, known);
    if (why) throw mismatch(shown, why);
    if (Object.keys(want).length > 0 && Object.keys(want).every((a) => known[a as HashName])) return known;
    // The storage cannot vouch for every hash the seed has: one streamed read.
    const hasher = createHasher({ whole: HASH_NAMES, pieces: seedPieceAlgs(file), pieceSize, expectedSize: file.size, signal });
    try {
      await hasher.startFile();
      for await (const c of await driver.read(inner)) await hasher.update(c as Uint8Array);
      const got = (await hasher.finish()).files[0]!;
      const bad = compareComputed(file, got);
      if (bad) throw mismatch(shown, bad);
      return { md5: got.md5, sha1: got.sha1, sha256: got.sha256 };
    } catch (err) {
      hasher.abort(err);
      throw err;
    }
  } catch (err) {
    // Unverified is as bad as wrong: the copy goes.
    await driver.remove(inner).catch(() => undefined);
    throw err;
  }
}
