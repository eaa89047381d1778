/**
 * Rapid upload (contract §10.5): the content of a seed file is already stored somewhere the user
 * can read (inside their base path, not hidden from them, no folder password guarding it), found
 * by size plus any whole-file hash the seed has — MD5 alone (`.cas` seeds) is enough. Then a
 * server-side copy, with zero bytes from outside Ferry:
 *  - same storage: the driver's copy (e.g. copyFile with reflink, CopyObject);
 *  - another storage whose driver can copy from it (`copyFrom`, e.g. two S3 storages on one bucket);
 *  - otherwise the bytes stream from the other storage (still nothing from outside).
 * The copy is verified against the seed (see verify.ts).
 *
 * Lookup: the hash index by (digest, size) — what the drivers recorded for every file Ferry wrote
 * or read whole, and what seed operations verified. Each hit is re-checked against what the
 * storage says now. When the index knows nothing, storages whose digests live with the objects
 * (`capabilities.hashesWithObjects`, e.g. S3 metadata and ETags) are listed, bounded, inside the
 * user's reach: files of the right size are stat-ed and what they vouch for is recorded.
 */
import type { SeedsDeps } from '../seeds.deps.js';
import { cleanPath, stripBasePath } from '../../../lib/path-safety.js';
import { isDriverError, type Entry, type Hashes, type StorageDriver } from '../../storages/drivers/index.js';
import type { MountedStorage } from '../../storages/storages.service.js';
import type { User } from '../../users/user.model.js';
import { HASH_NAMES, type SeedFile } from '../formats/index.js';
import { landVerified, seedWholeHashes, verifyStored } from './verify.js';
import { canReadFile } from '../common/access.js';
import { isWithin, joinPath, parentOf, under } from '../../../lib/paths.js';

export interface StoredFile {
  full: string;
  storage: MountedStorage;
  driver: StorageDriver;
  inner: string;
  entry: Entry;
}

/** Bounds of the fallback scan of index-less storages, per request. */
export const SCAN_LIMITS = { entries: 20_000, folders: 2_000, heads: 64 };
const INDEX_HITS_PER_HASH = 64;

function agrees(want: Hashes, have: Hashes): boolean {
  return HASH_NAMES.some((a) => want[a] && have[a]) && HASH_NAMES.every((a) => !want[a] || !have[a] || want[a] === have[a]!.toLowerCase());
}

/**
 * Records digests Ferry verified for a stored file, so the content is found again by hash. Only for
 * storages whose digests live with the objects: a driver that keeps its own index (local) records
 * every write itself, keyed by its own mtime precision, which an `Entry`'s rounded date would spoil.
 */
export async function recordHashes(deps: Pick<SeedsDeps, 'hashes'>, storage: MountedStorage, inner: string, entry: Entry, hashes: Hashes): Promise<void> {
  if (entry.isDir || !storage.driver?.capabilities.hashesWithObjects) return;
  await deps.hashes.record(storage.record.id, inner, entry.size, entry.modified.getTime(), hashes).catch(() => undefined);
}

/**
 * `inner` on `storage` when `user` may read it there (inside their base path, not hidden from them, no folder
 * password guarding it) and no nested mount hides it; its current entry.
 */
async function readable(deps: Pick<SeedsDeps, 'hashes' | 'mounts' | 'folderAccess'>, user: User, storage: MountedStorage, inner: string, file: SeedFile, want: Hashes): Promise<StoredFile | null> {
  const driver = storage.driver;
  if (!driver) return null;
  const full = under(storage.record.mountPath, inner);
  if (!isWithin(cleanPath(user.basePath), full) || !(await canReadFile(deps, user, full))) return null;
  const owner = await deps.mounts.owner(full);
  if (owner?.storage.record.id !== storage.record.id) return null;
  const entry = await driver.stat(inner).catch(async (e: unknown) => {
    // a recorded file that is gone: forget it
    if (isDriverError(e, 'not_found')) await deps.hashes.forget(storage.record.id, inner).catch(() => undefined);
    return null;
  });
  if (!entry || entry.isDir || entry.size !== file.size) return null;
  const have = entry.hashes ?? {};
  if (!agrees(want, have)) return null;
  await recordHashes(deps, storage, inner, entry, have);
  return { full, storage, driver, inner, entry };
}

async function fromIndex(deps: Pick<SeedsDeps, 'hashes' | 'mounts' | 'folderAccess'>, user: User, file: SeedFile, want: Hashes): Promise<StoredFile | null> {
  for (const r of await deps.hashes.find(want, file.size, INDEX_HITS_PER_HASH)) {
    const storage = deps.mounts.list().find((m) => m.record.id === r.storageId && !m.record.disabled);
    if (!storage) continue;
    const hit = await readable(deps, user, storage, r.path, file, want);
    if (hit) return hit;
  }
  return null;
}

/** The folder inside `storage` below which `user` may read everything, or null. */
function reach(storage: MountedStorage, basePath: string): string | null {
  const base = cleanPath(basePath);
  const mp = storage.record.mountPath;
  if (isWithin(base, mp)) return '/';
  if (isWithin(mp, base)) return mp === '/' ? base : base.slice(mp.length) || '/';
  return null;
}

interface Listed {
  storage: MountedStorage;
  inner: string;
  md5?: string;
}

/**
 * One bounded listing, per request and user, of the storages without an index of their own
 * (S3), inside the user's reach: files grouped by size. Built on first use.
 */
export class ScanCache {
  private bySize: Promise<Map<number, Listed[]>> | null = null;
  private heads = 0;

  constructor(
    private readonly deps: Pick<SeedsDeps, 'mounts' | 'hashes' | 'folderAccess'>,
    private readonly user: User,
  ) {}

  private async build(): Promise<Map<number, Listed[]>> {
    const out = new Map<number, Listed[]>();
    let entries = 0;
    let folders = 0;
    for (const storage of this.deps.mounts.list()) {
      // only where digests live with the objects can a listing find content Ferry has not indexed
      if (!storage.driver || storage.record.disabled || !storage.driver.capabilities.hashesWithObjects) continue;
      const root = reach(storage, this.user.basePath);
      if (root === null) continue;
      const queue = [root];
      while (queue.length > 0 && folders++ < SCAN_LIMITS.folders) {
        const dir = queue.shift()!;
        for (const e of await storage.driver.list(dir).catch(() => [])) {
          if (++entries > SCAN_LIMITS.entries) return out;
          const inner = joinPath(dir, e.name);
          if (e.isDir) queue.push(inner);
          else out.set(e.size, [...(out.get(e.size) ?? []), { storage, inner, md5: e.hashes?.md5 }]);
        }
      }
    }
    return out;
  }

  /** A listed file matching the seed file (HEADs at most SCAN_LIMITS.heads objects per request). */
  async find(file: SeedFile, want: Hashes): Promise<StoredFile | null> {
    this.bySize ??= this.build();
    for (const c of (await this.bySize).get(file.size) ?? []) {
      if (want.md5 && c.md5 && c.md5 !== want.md5) continue;
      if (this.heads++ >= SCAN_LIMITS.heads) return null;
      const hit = await readable(this.deps, this.user, c.storage, c.inner, file, want);
      if (hit) return hit;
    }
    return null;
  }
}

/** A stored file `user` can read whose size and hashes match the seed file, or null. */
export async function findStored(deps: Pick<SeedsDeps, 'hashes' | 'mounts' | 'folderAccess'>, user: User, file: SeedFile, scan = new ScanCache(deps, user)): Promise<StoredFile | null> {
  const want = seedWholeHashes(file);
  if (Object.keys(want).length === 0) return null;
  return (await fromIndex(deps, user, file, want)) ?? (await scan.find(file, want));
}

export interface CopyTarget {
  /** Full virtual path of the new file, and how the user sees it. */
  full: string;
  shown: string;
  file: SeedFile;
  pieceSize: number;
  overwrite: boolean;
  signal?: AbortSignal;
}

/**
 * Copies a stored file to `t.full` without bytes from outside, verified against the seed (a
 * mismatch leaves nothing). Returns how it copied.
 */
export async function copyStored(deps: Pick<SeedsDeps, 'fs' | 'hashes'>, src: StoredFile, t: CopyTarget): Promise<'copy' | 'stream'> {
  const d = await deps.fs.locate(t.full);
  const parent = parentOf(d.inner);
  const serverSide = async () => {
    if (parent !== '/') await d.driver.mkdir(parent);
    if (src.storage.record.id === d.storage.record.id) {
      await d.driver.copy(src.inner, d.inner, { overwrite: t.overwrite });
      return true;
    }
    return (await d.driver.copyFrom?.(src.driver, src.inner, d.inner, { size: src.entry.size })) ?? false;
  };
  if (await serverSide()) {
    const hashes = await verifyStored(deps, t.full, t.shown, t.file, t.pieceSize, t.signal);
    const entry = await d.driver.stat(d.inner);
    await recordHashes(deps, d.storage, d.inner, entry, hashes);
    await deps.fs.notify({ kind: 'written', full: t.full });
    return 'copy';
  }
  if (!src.storage.record.proxy || !src.driver.capabilities.streamable) {
    throw new Error(`the storage ${src.storage.record.mountPath} does not let the server read its files (proxy is off)`);
  }
  const entry = await landVerified(deps, { full: t.full, shown: t.shown, file: t.file, pieceSize: t.pieceSize, overwrite: t.overwrite, body: await src.driver.read(src.inner), signal: t.signal });
  await recordHashes(deps, d.storage, d.inner, entry, entry.hashes ?? {});
  return 'stream';
}

export type RapidOutcome = { ok: true; from: string; how: 'copy' | 'stream' | 'present' } | { ok: false; reason: string; failed?: boolean };

/** Rapid upload of one seed file to `t.full` as `user` (`scan`: shared by the files of one request). */
export async function rapidUpload(deps: Pick<SeedsDeps, 'fs' | 'hashes' | 'mounts' | 'folderAccess'>, user: User, t: CopyTarget, scan?: ScanCache): Promise<RapidOutcome> {
  if (Object.keys(seedWholeHashes(t.file)).length === 0) return { ok: false, reason: 'the seed has no whole-file hash to find the content by' };
  const found = await findStored(deps, user, t.file, scan);
  if (!found) return { ok: false, reason: 'no stored file you can read has this size and hash' };
  const from = stripBasePath(user.basePath, found.full);
  if (found.full === t.full) return { ok: true, from, how: 'present' };
  try {
    return { ok: true, from, how: await copyStored(deps, found, t) };
  } catch (e) {
    return { ok: false, failed: true, reason: `rapid upload from ${from} failed: ${(e as Error).message}` };
  }
}
