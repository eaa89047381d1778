/**
 * Upload sidecars (contract §10.4), the seeds module's implementation of the file module's upload hook. The
 * body flows once through the hasher into the file's pending write; then the seed is built from the digests
 * and every `<file name>.<format>` is written with the file as one atomic write set (the file is the anchor,
 * committed last): a failure at any point, or a crash, leaves the previous file and sidecars as they were.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError, badRequest } from '../../../lib/errors.js';
import { HASH_NAMES, type Hashes } from '../../../lib/hashes.js';
import { joinPath, parentOf } from '../../../lib/paths.js';
import type { CompanionFiles, CompanionWriter, UploadCompanions, UploadTarget } from '../../fs/fs.ports.js';
import type { StorageRecord } from '../../storages/storage.model.js';
import { applyHashMatrix, createSeed, encodeSeed, formatSeedTime, type SeedFile, type SeedFormat } from '../formats/index.js';
import { UPLOAD_RING_BYTES, UPLOAD_SEGMENT_BYTES, createHasher, type HashResult } from '../hashing/index.js';
import type { SeedsDeps } from '../seeds.deps.js';
import { sidecarName, sidecarNamesOf } from './names.js';
import { resolveSidecarPlan, type SidecarHeaders, type SidecarPlan } from './sidecar-policy.js';

const SIDECAR_HEADERS = ['x-seed-sidecars', 'x-generate-seed', 'x-seed-format', 'x-seed-piece-size', 'x-seed-hash-matrix'] as const;

type SidecarDeps = Pick<SeedsDeps, 'settings' | 'writeSets' | 'version'>;

/** Sidecars as the file module's companions: their names, and whether they follow (`seed_follow`). */
export function sidecarCompanions(deps: Pick<SeedsDeps, 'settings'>): CompanionFiles {
  return {
    namesOf: (fileName) => sidecarNamesOf(fileName).map((s) => s.name),
    followEnabled: () => deps.settings.getBool('seed_follow'),
  };
}

/** The upload hook: decides an upload's sidecars from its headers and storage, and writes them with it. */
export function sidecarUploads(deps: SidecarDeps): UploadCompanions {
  return {
    async forUpload(headers: Readonly<Record<string, string>>, storage: StorageRecord): Promise<CompanionWriter | null> {
      const picked: SidecarHeaders = {};
      for (const h of SIDECAR_HEADERS) if (headers[h] !== undefined) picked[h] = headers[h];
      const plan = await resolveSidecarPlan(deps, picked, storage);
      return plan ? { store: (target, body) => storeWithSidecars(deps, target, plan, body) } : null;
    },
  };
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
function encodeSidecars(version: string, name: string, r: HashResult, plan: SidecarPlan, mtime: Date | undefined): { format: SeedFormat; data: Buffer }[] {
  try {
    const seed = createSeed({ name, files: [seedFile(name, r, plan, mtime)], createdBy: `Ferry ${version}`, pieceSize: plan.pieceSize, trackers: plan.trackers });
    // One file: its BitTorrent piece stream is exactly its per-file SHA-1 pieces (same piece size).
    const sha1 = r.files[0]?.pieces?.sha1;
    const pieces = plan.formats.includes('torrent') && sha1 ? { pieceSize: plan.pieceSize, hashes: Buffer.concat(sha1.map((h) => Buffer.from(h, 'hex'))) } : undefined;
    return plan.formats.map((format) => ({ format, data: encodeSeed(seed, format, { pieces, layout: 'auto' }) }));
  } catch (e) {
    throw badRequest(`generate seed sidecar: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Streams `body` into the target while hashing it, then commits the sidecars and the file together. */
async function storeWithSidecars(deps: SidecarDeps, up: UploadTarget, plan: SidecarPlan, body: Readable | AsyncIterable<Uint8Array>): Promise<void> {
  const name = up.full.slice(up.full.lastIndexOf('/') + 1);
  const m = plan.matrix;
  const hasher = createHasher({
    whole: HASH_NAMES,
    // torrent forces sha1 pieces (normalizeHashMatrix): no separate torrent piece lane is needed
    pieces: HASH_NAMES.filter((a) => m[a].pieces),
    pieceSize: plan.pieceSize,
    expectedSize: up.size,
    // A smaller ring than for file hashing: an upload arrives slower than a disk reads, and
    // every concurrent upload holds one (measured with `npm run bench -- upload`).
    ringBytes: UPLOAD_RING_BYTES,
    segmentBytes: UPLOAD_SEGMENT_BYTES,
  });
  // The hasher computes every whole digest the driver would: the driver hashes nothing itself.
  const pending = await up.main.driver.beginWrite(up.main.inner, {
    size: up.size,
    overwrite: up.overwrite,
    mtime: up.mtime,
    expectedHashes: up.expectedHashes,
    computeHashes: [],
  });
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
    const digests: Hashes = {};
    for (const a of HASH_NAMES) if (r.files[0]?.[a]) digests[a] = r.files[0][a];
    const dir = parentOf(up.full);
    const sidecars = encodeSidecars(deps.version, name, r, plan, up.mtime).map((s) => ({ full: joinPath(dir, sidecarName(name, s.format)), data: s.data, mtime: up.mtime }));
    await deps.writeSets.write(sidecars, {
      anchor: { located: up.main, size: r.totalBytes, md5: digests.md5!, commit: () => pending.commit({ hashes: digests }) },
    });
  } catch (e) {
    hasher.abort(e);
    await pending.abort(e);
    throw e;
  }
}
