/**
 * Rapid upload (contract §10.5): the content of a seed file is already stored somewhere the user
 * can read (inside their base path), found by size plus any whole-file hash the seed has — MD5
 * alone (`.cas` seeds) is enough. Then a server-side copy, with zero bytes from outside Ferry:
 *  - same storage: the driver's copy (local: copyFile with reflink; S3: CopyObject);
 *  - two S3 storages on the same endpoint and bucket: CopyObject;
 *  - otherwise the bytes stream from the other storage (still nothing from outside).
 * The copy is verified against the seed (see verify.ts).
 *
 * Lookup: `hash_index` by (digest, size) — the local driver's index, plus objects of other
 * storages recorded here (what seed operations wrote, and S3 objects met while scanning). Each
 * hit is re-checked against what the storage says now. When the index knows nothing, storages
 * without an index of their own (S3) are listed, bounded, inside the user's reach: objects of
 * the right size are HEADed (Ferry's hash metadata, or a single-part ETag as MD5) and recorded.
 */
import type { AppContext } from '../../../app/context.js';
import { cleanPath, isWithin, stripBasePath } from '../../../lib/path-safety.js';
import { joinPath, parentOf } from '../../fs/fs.service.js';
import { isDriverError, type Entry, type Hashes, type StorageDriver } from '../../storages/drivers/index.js';
import type { S3Driver } from '../../storages/drivers/s3.js';
import { DbHashIndex } from '../../storages/hash-index.repo.js';
import type { MountedStorage } from '../../storages/storages.service.js';
import type { User } from '../../users/user.model.js';
import { HASH_ALGORITHMS, type SeedFile } from '../formats/index.js';
import { landVerified, seedWholeHashes, verifyStored } from './verify.js';

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

const fullOf = (mountPath: string, inner: string) => (mountPath === '/' ? inner : inner === '/' ? mountPath : mountPath + inner);

function agrees(want: Hashes, have: Hashes): boolean {
  return HASH_ALGORITHMS.some((a) => want[a] && have[a]) && HASH_ALGORITHMS.every((a) => !want[a] || !have[a] || want[a] === have[a]!.toLowerCase());
}

/** Records digests of a file on a storage without an index of its own (the local driver keeps its own). */
export async function recordHashes(ctx: AppContext, storage: MountedStorage, inner: string, entry: Entry, hashes: Hashes): Promise<void> {
  if (storage.record.driver === 'local' || entry.isDir) return;
  await new DbHashIndex(ctx.database.db, storage.record.id).put(inner, entry.size, entry.modified.getTime(), hashes).catch(() => undefined);
}

/** `inner` on `storage` when `user` may read it there and no nested mount hides it; its current entry. */
async function readable(ctx: AppContext, user: User, storage: MountedStorage, inner: string, file: SeedFile, want: Hashes): Promise<StoredFile | null> {
  const driver = storage.driver;
  if (!driver) return null;
  const full = fullOf(storage.record.mountPath, inner);
  if (!isWithin(cleanPath(user.basePath), full)) return null;
  const owner = await ctx.storages.owner(full);
  if (owner?.storage.record.id !== storage.record.id) return null;
  const entry = await driver.stat(inner).catch(async (e: unknown) => {
    // a recorded object that is gone: forget it (the local driver keeps its own index tidy)
    if (isDriverError(e, 'not_found') && storage.record.driver !== 'local') await new DbHashIndex(ctx.database.db, storage.record.id).invalidate(inner).catch(() => undefined);
    return null;
  });
  if (!entry || entry.isDir || entry.size !== file.size) return null;
  const have = entry.hashes ?? {};
  if (!agrees(want, have)) return null;
  await recordHashes(ctx, storage, inner, entry, have);
  return { full, storage, driver, inner, entry };
}

async function fromIndex(ctx: AppContext, user: User, file: SeedFile, want: Hashes): Promise<StoredFile | null> {
  const db = ctx.database.db;
  const seen = new Set<string>();
  for (const alg of HASH_ALGORITHMS) {
    const h = want[alg];
    if (!h) continue;
    const rows = await db.selectFrom('hash_index').select(['storage_id', 'path']).where(alg, '=', h).where('size', '=', file.size).limit(INDEX_HITS_PER_HASH).execute();
    for (const r of rows) {
      const key = `${r.storage_id}:${r.path}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const storage = ctx.storages.list().find((m) => m.record.id === Number(r.storage_id) && !m.record.disabled);
      if (!storage) continue;
      const hit = await readable(ctx, user, storage, r.path, file, want);
      if (hit) return hit;
    }
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
    private readonly ctx: AppContext,
    private readonly user: User,
  ) {}

  private async build(): Promise<Map<number, Listed[]>> {
    const out = new Map<number, Listed[]>();
    let entries = 0;
    let folders = 0;
    for (const storage of this.ctx.storages.list()) {
      if (!storage.driver || storage.record.disabled || storage.record.driver === 'local') continue;
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
      const hit = await readable(this.ctx, this.user, c.storage, c.inner, file, want);
      if (hit) return hit;
    }
    return null;
  }
}

/** A stored file `user` can read whose size and hashes match the seed file, or null. */
export async function findStored(ctx: AppContext, user: User, file: SeedFile, scan = new ScanCache(ctx, user)): Promise<StoredFile | null> {
  const want = seedWholeHashes(file);
  if (Object.keys(want).length === 0) return null;
  return (await fromIndex(ctx, user, file, want)) ?? (await scan.find(file, want));
}

function sameS3Bucket(a: StorageDriver, b: StorageDriver): boolean {
  if (a.kind !== 's3' || b.kind !== 's3') return false;
  const keys = ['endpoint', 'region', 'bucket', 'access_key_id'] as const;
  return keys.every((k) => String(a.options[k] ?? '') === String(b.options[k] ?? ''));
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
export async function copyStored(ctx: AppContext, src: StoredFile, t: CopyTarget): Promise<'copy' | 'stream'> {
  const d = await ctx.fs.locate(t.full);
  if (src.storage.record.id === d.storage.record.id || sameS3Bucket(src.driver, d.driver)) {
    const parent = parentOf(d.inner);
    if (parent !== '/') await d.driver.mkdir(parent);
    if (src.storage.record.id === d.storage.record.id) await d.driver.copy(src.inner, d.inner, { overwrite: t.overwrite });
    else {
      const s3 = d.driver as unknown as S3Driver;
      await s3.copyKey((src.driver as unknown as S3Driver).key(src.inner), s3.key(d.inner), src.entry.size, d.inner);
    }
    const hashes = await verifyStored(ctx, t.full, t.shown, t.file, t.pieceSize, t.signal);
    const entry = await d.driver.stat(d.inner);
    await recordHashes(ctx, d.storage, d.inner, entry, hashes);
    return 'copy';
  }
  if (!src.storage.record.proxy || !src.driver.capabilities.streamable) {
    throw new Error(`the storage ${src.storage.record.mountPath} does not let the server read its files (proxy is off)`);
  }
  const entry = await landVerified(ctx, { full: t.full, shown: t.shown, file: t.file, pieceSize: t.pieceSize, overwrite: t.overwrite, body: await src.driver.read(src.inner), signal: t.signal });
  await recordHashes(ctx, d.storage, d.inner, entry, entry.hashes ?? {});
  return 'stream';
}

export type RapidOutcome = { ok: true; from: string; how: 'copy' | 'stream' | 'present' } | { ok: false; reason: string; failed?: boolean };

/** Rapid upload of one seed file to `t.full` as `user` (`scan`: shared by the files of one request). */
export async function rapidUpload(ctx: AppContext, user: User, t: CopyTarget, scan?: ScanCache): Promise<RapidOutcome> {
  if (Object.keys(seedWholeHashes(t.file)).length === 0) return { ok: false, reason: 'the seed has no whole-file hash to find the content by' };
  const found = await findStored(ctx, user, t.file, scan);
  if (!found) return { ok: false, reason: 'no stored file you can read has this size and hash' };
  const from = stripBasePath(user.basePath, found.full);
  if (found.full === t.full) return { ok: true, from, how: 'present' };
  try {
    return { ok: true, from, how: await copyStored(ctx, found, t) };
  } catch (e) {
    return { ok: false, failed: true, reason: `rapid upload from ${from} failed: ${(e as Error).message}` };
  }
}
