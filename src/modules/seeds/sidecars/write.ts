/**
 * An upload with sidecars: the body flows once through the hasher into the file's pending
 * write; then the seed is built from the digests, every `<file name>.<format>` is staged, and
 * everything is committed together — sidecars first (their previous content is kept in memory
 * and put back if anything later fails), the file last, so a failure at any point leaves the
 * previous file and sidecars as they were and nothing new visible.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AppContext } from '../../../app/context.js';
import { AppError, badRequest } from '../../../lib/errors.js';
import { joinPath, parentOf, type Located } from '../../fs/fs.service.js';
import { HASH_NAMES, isDriverError, readBuffer, writeBuffer, type Hashes, type PendingWrite, type StorageDriver } from '../../storages/drivers/index.js';
import { applyHashMatrix, createSeed, encodeSeed, formatSeedTime, HASH_ALGORITHMS, type SeedFile, type SeedFormat } from '../formats/index.js';
import { createHasher, type HashResult } from '../hashing/index.js';
import { openJournal, type OpenEntry } from './journal.js';
import { sidecarName } from './names.js';
import type { SidecarPlan } from './plan.js';

export interface SidecarUpload {
  /** Full virtual path of the file. */
  full: string;
  overwrite: boolean;
  size?: number;
  mtime?: Date;
  expectedHashes: Hashes;
}

interface StagedSidecar {
  located: Located;
  pending: PendingWrite;
  /** Content of the sidecar this one replaces (restored on failure); null when there was none. */
  previous: Buffer | null;
}

const UPLOAD_RING_BYTES = 4 * 1024 * 1024;
const UPLOAD_SEGMENT_BYTES = 1024 * 1024;

/**
 * A file at a sidecar's name larger than this is no seed (seed documents are capped far below):
 * the upload is refused rather than replacing it without a copy to restore.
 */
const MAX_BACKUP_BYTES = 64 * 1024 * 1024;

async function readPrevious(driver: StorageDriver, inner: string): Promise<Buffer | null> {
  try {
    const e = await driver.stat(inner);
    if (e.isDir) throw new AppError(409, `cannot write sidecar ${inner}: a folder of that name exists`);
    if (e.size > MAX_BACKUP_BYTES) throw new AppError(409, `cannot write sidecar ${inner}: a ${e.size}-byte file that is no seed is there`);
    return await readBuffer(driver, inner);
  } catch (e) {
    if (isDriverError(e, 'not_found')) return null;
    throw e;
  }
}

/** Puts back what committed sidecars replaced (or removes them when they were new). Best effort. */
async function restore(committed: StagedSidecar[]): Promise<void> {
  for (const s of committed) {
    const { driver, inner } = s.located;
    try {
      if (s.previous) await writeBuffer(driver, inner, s.previous);
      else await driver.remove(inner);
    } catch {
      // nothing more can be done; the error that caused the rollback is reported
    }
  }
}

function seedFile(name: string, r: HashResult, plan: SidecarPlan, mtime: Date | undefined): SeedFile {
  const h = r.files[0]!;
  const file: SeedFile = {
    path: name,
    size: h.size,
    modified: formatSeedTime(mtime ?? new Date()),
    hashes: { md5: h.md5, sha1: h.sha1, sha256: h.sha256, ...(h.pieces ? { pieces: { ...h.pieces } } : {}) },
    sources: [],
  };
  return applyHashMatrix(file, plan.matrix);
}

/** Encodes every sidecar of the plan; a seed that cannot be encoded is a 400 (nothing has been committed yet). */
function encodeSidecars(ctx: AppContext, name: string, r: HashResult, plan: SidecarPlan, mtime: Date | undefined): { format: SeedFormat; data: Buffer }[] {
  try {
    const seed = createSeed({ name, files: [seedFile(name, r, plan, mtime)], createdBy: `Ferry ${ctx.version}`, pieceSize: plan.pieceSize, trackers: plan.trackers });
    // One file: its BitTorrent piece stream is exactly its per-file SHA-1 pieces (same piece size).
    const sha1 = r.files[0]?.pieces?.sha1;
    const pieces = plan.formats.includes('torrent') && sha1 ? { pieceSize: plan.pieceSize, hashes: Buffer.concat(sha1.map((h) => Buffer.from(h, 'hex'))) } : undefined;
    return plan.formats.map((format) => ({ format, data: encodeSeed(seed, format, { pieces, layout: 'auto' }) }));
  } catch (e) {
    throw badRequest(`generate seed sidecar: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * Streams `body` into `main` while hashing it, then commits the sidecars and the file together.
 * The caller has checked `overwrite` and created the parent folder.
 */
export async function storeWithSidecars(
  ctx: AppContext,
  up: SidecarUpload,
  plan: SidecarPlan,
  main: Located,
  body: Readable | AsyncIterable<Uint8Array>,
): Promise<void> {
  const name = up.full.slice(up.full.lastIndexOf('/') + 1);
  const m = plan.matrix;
  const hasher = createHasher({
    whole: HASH_ALGORITHMS,
    // torrent forces sha1 pieces (normalizeHashMatrix): no separate torrent piece lane is needed
    pieces: HASH_ALGORITHMS.filter((a) => m[a].pieces),
    pieceSize: plan.pieceSize,
    expectedSize: up.size,
    // A smaller ring than for file hashing: an upload arrives slower than a disk reads, and
    // every concurrent upload holds one (measured with `npm run bench -- upload`).
    ringBytes: UPLOAD_RING_BYTES,
    segmentBytes: UPLOAD_SEGMENT_BYTES,
  });
  // The hasher computes every whole digest the driver would: the driver hashes nothing itself.
  const pending = await main.driver.beginWrite(main.inner, {
    size: up.size,
    overwrite: up.overwrite,
    mtime: up.mtime,
    expectedHashes: up.expectedHashes,
    computeHashes: [],
  });
  const staged: StagedSidecar[] = [];
  const committed: StagedSidecar[] = [];
  let journal: OpenEntry | undefined;
  await ctx.storages.track(
    (async () => {
      try {
        await hasher.startFile();
        const source = body instanceof Readable ? body : Readable.from(body);
        await pipeline(source, hasher.tee(), pending.stream);
        await hasher.endFile();
        const r = await hasher.finish();
        if (up.size !== undefined && r.totalBytes !== up.size) {
          throw badRequest(`seed sidecar requires a complete stream: read ${r.totalBytes} of ${up.size} bytes`);
        }
        if (pending.bytesWritten !== r.totalBytes) {
          throw new AppError(500, `seed sidecar: hashed ${r.totalBytes} bytes but stored ${pending.bytesWritten}`);
        }
        const dir = parentOf(up.full);
        for (const s of encodeSidecars(ctx, name, r, plan, up.mtime)) {
          const located = await ctx.fs.locate(joinPath(dir, sidecarName(name, s.format)));
          const previous = await readPrevious(located.driver, located.inner);
          const p = await located.driver.beginWrite(located.inner, { size: s.data.length, overwrite: true, mtime: up.mtime });
          staged.push({ located, pending: p, previous });
          await p.pipeFrom(Readable.from([s.data]));
        }
        journal = await openJournal(ctx.config.dataDir, {
          storageId: main.storage.record.id,
          main: main.inner,
          size: r.totalBytes,
          md5: r.files[0]!.md5!,
          sidecars: staged.map((s) => ({ storageId: s.located.storage.record.id, inner: s.located.inner, previous: s.previous })),
        });
        while (staged.length > 0) {
          const s = staged[0]!;
          await s.pending.commit();
          staged.shift();
          committed.push(s);
        }
        const digests: Hashes = {};
        for (const a of HASH_NAMES) if (r.files[0]?.[a]) digests[a] = r.files[0][a];
        await pending.commit({ hashes: digests });
        // everything is committed; an entry that cannot be removed is settled as "committed" at the next start
        await journal.close().catch(() => undefined);
      } catch (e) {
        hasher.abort(e);
        await pending.abort(e);
        for (const s of staged) await s.pending.abort(e).catch(() => undefined);
        await restore(committed);
        await journal?.close();
        throw e;
      }
    })(),
  );
}
