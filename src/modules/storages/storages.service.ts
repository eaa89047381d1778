/**
 * The storage registry: storages from the database mounted into one virtual tree.
 * The longest mount path that prefixes a path owns it. A storage that fails to
 * initialise is kept with its error as `status` and never takes the service down.
 * Instances sharing a database notice each other's changes through `modified`
 * (checked every REFRESH_MS while paths are resolved, in the background: see SharedCache).
 */
import type { Logger } from 'pino';
import { AppError, badRequest, conflict, notFound } from '../../lib/errors.js';
import { cleanPath } from '../../lib/path-safety.js';
import { drivers, getDriverDefinition, isDriverError, validateOptions, type HashEngine, type StorageDriver } from './drivers/index.js';
import type { HashIndexService } from '../hash-index/hash-index.service.js';
import { SEED_POLICIES, type SeedPolicy, type StorageRecord } from './storage.model.js';
import type { StoragesRepo } from './storages.repo.js';
import { isWithin, relativeTo } from '../../lib/paths.js';
import { SharedCache } from '../../lib/shared-cache.js';

const REFRESH_MS = 1000;

export interface MountedStorage {
  record: StorageRecord;
  driver: StorageDriver | null;
  status: string;
}

export interface Resolved {
  storage: MountedStorage;
  driver: StorageDriver;
  /** Path inside the storage. */
  inner: string;
}

export interface StorageInput {
  mount_path: string;
  driver: string;
  order?: number;
  remark?: string;
  disabled?: boolean;
  seed_policy?: string;
  proxy?: boolean;
  addition?: string | object;
  disable_index?: boolean;
}

function parseAddition(a: StorageInput['addition']): Record<string, unknown> {
  if (a === undefined || a === '') return {};
  if (typeof a === 'object') return a as Record<string, unknown>;
  try {
    const v: unknown = JSON.parse(a);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    /* fall through */
  }
  throw badRequest('addition: must be a JSON object (or a string holding one)');
}

const PROBE_TIMEOUT_MS = 10_000;
const CLOSE_GRACE_MS = 10_000;

/**
 * Some drivers connect lazily (S3 builds a client and sends nothing), so a storage pointing at
 * a dead endpoint or a missing bucket would report `work`. One cheap lookup of a name that is
 * normally absent proves the storage answers; `not_found` is the expected answer.
 */
async function probe(driver: StorageDriver): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the storage did not answer within ${PROBE_TIMEOUT_MS / 1000} s`)), PROBE_TIMEOUT_MS);
  });
  const lookup = driver.stat('/.ferry-probe').then(
    () => undefined,
    (e: unknown) => {
      if (!isDriverError(e, 'not_found')) throw e;
    },
  );
  try {
    await Promise.race([lookup, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export class StorageRegistry {
  private mounted = new Map<number, MountedStorage>();
  private versions = new Map<number, number>();
  /** The check for other instances' changes (`refresh`). */
  private readonly check: SharedCache<void>;
  /** Checks run one after another (a forced one waits for the one in flight): two would mount a storage twice. */
  private checking: Promise<void> = Promise.resolve();
  /** Writes in progress (uploads, streamed copies): `close` lets them commit or clean up first. */
  private readonly writes = new Set<Promise<unknown>>();

  constructor(
    private readonly repo: StoragesRepo,
    private readonly hashes: Pick<HashIndexService, 'forStorage' | 'clearStorage'>,
    private readonly logger: Logger,
    /** Computes the digests storages record on write (the worker-thread engine in the server). */
    private readonly hashEngine?: HashEngine,
  ) {
    this.check = new SharedCache({
      load: () => {
        const run = this.checking.then(() => this.pickUpChanges());
        this.checking = run.catch(() => undefined);
        return run;
      },
      freshMs: REFRESH_MS,
      onError: (e) => this.logger.warn({ err: String(e) }, 'checking the storages for changes failed'),
    });
  }

  /** Initialises every storage; errors are recorded per storage. */
  async loadAll(): Promise<void> {
    for (const r of await this.repo.all()) await this.mount(r);
    this.versions = await this.repo.versions();
  }

  /** Re-initialises every storage from the database (OpenList's "reload all"); removed ones are unmounted. */
  async reloadAll(): Promise<void> {
    await this.refresh(true);
    for (const r of await this.repo.all()) await this.mount(r);
  }

  private async mount(r: StorageRecord): Promise<MountedStorage> {
    // The previous instance keeps serving until the new one is ready (no window in which the
    // path falls through to the parent storage).
    let m: MountedStorage;
    if (r.disabled) m = { record: r, driver: null, status: 'disabled' };
    else {
      let driver: StorageDriver | null = null;
      try {
        driver = await getDriverDefinition(r.driver).create(r.addition, { hashIndex: this.hashes.forStorage(r.id), proxy: r.proxy, hashEngine: this.hashEngine });
        await probe(driver);
        m = { record: r, driver, status: 'work' };
      } catch (e) {
        await driver?.close().catch(() => {});
        const msg = (e as Error).message || String(e);
        this.logger.warn({ storage: r.mountPath, err: msg }, 'storage failed to initialise');
        m = { record: r, driver: null, status: msg };
      }
    }
    const old = this.mounted.get(r.id);
    this.mounted.set(r.id, m);
    if (old?.driver && old.driver !== m.driver) await old.driver.close().catch(() => {});
    return m;
  }

  private async unmount(id: number): Promise<void> {
    const old = this.mounted.get(id);
    this.mounted.delete(id);
    await old?.driver?.close().catch(() => {});
  }

  /**
   * Picks up changes made by other instances: `force`, now (the caller waits); else at most once per REFRESH_MS,
   * the caller waiting only when the last check is older than MAX_STALE_MS.
   */
  async refresh(force = false): Promise<void> {
    if (force) this.check.invalidate();
    await this.check.get();
  }

  private async pickUpChanges(): Promise<void> {
    const now = await this.repo.versions();
    for (const id of [...this.mounted.keys()]) if (!now.has(id)) await this.unmount(id);
    const changed = [...now].filter(([id, mod]) => this.versions.get(id) !== mod || !this.mounted.has(id));
    for (const [id] of changed) {
      const r = await this.repo.byId(id);
      if (r) await this.mount(r);
    }
    this.versions = now;
  }

  list(): MountedStorage[] {
    return [...this.mounted.values()].sort((a, b) => a.record.order - b.record.order || a.record.id - b.record.id);
  }

  /** The working driver of a storage, or undefined when it is gone, disabled or broken. */
  driverOf(id: number): StorageDriver | undefined {
    return this.mounted.get(id)?.driver ?? undefined;
  }

  get(id: number): MountedStorage {
    const m = this.mounted.get(id);
    if (!m) throw notFound('storage not found');
    return m;
  }

  /** The enabled storage owning `path` (longest mount prefix), or null when none does. */
  async owner(path: string): Promise<{ storage: MountedStorage; inner: string } | null> {
    await this.refresh();
    let best: MountedStorage | null = null;
    for (const m of this.mounted.values()) {
      if (m.record.disabled || !isWithin(m.record.mountPath, path)) continue;
      if (!best || m.record.mountPath.length > best.record.mountPath.length) best = m;
    }
    if (!best) return null;
    return { storage: best, inner: relativeTo(best.record.mountPath, path) };
  }

  /** Like `owner`, but 404 when nothing owns the path and 500 when its storage is broken. */
  async resolve(path: string): Promise<Resolved> {
    const o = await this.owner(path);
    if (!o) throw notFound('object not found');
    if (!o.storage.driver) throw new AppError(500, `storage ${o.storage.record.mountPath} is unavailable: ${o.storage.status}`);
    return { storage: o.storage, driver: o.storage.driver, inner: o.inner };
  }

  /** Names of mount points directly below `dir` that its own storage does not hold (virtual folders). */
  async virtualChildren(dir: string): Promise<{ name: string; storage: MountedStorage }[]> {
    await this.refresh();
    const out = new Map<string, MountedStorage>();
    for (const m of this.mounted.values()) {
      const mp = m.record.mountPath;
      if (m.record.disabled || mp === dir || !isWithin(dir, mp)) continue;
      const rest = dir === '/' ? mp.slice(1) : mp.slice(dir.length + 1);
      const name = rest.split('/')[0]!;
      if (!out.has(name)) out.set(name, m);
    }
    return [...out].map(([name, storage]) => ({ name, storage }));
  }

  // ---- admin operations ----

  private async validated(input: StorageInput, id?: number): Promise<Omit<StorageRecord, 'id'>> {
    const mountPath = cleanPath(input.mount_path);
    const def = (() => {
      try {
        return getDriverDefinition(input.driver);
      } catch {
        throw badRequest(`driver: no driver named ${JSON.stringify(input.driver)} (known: ${Object.keys(drivers).join(', ')})`);
      }
    })();
    const policy = input.seed_policy ?? 'inherit';
    if (!SEED_POLICIES.includes(policy as SeedPolicy)) throw badRequest(`seed_policy: must be one of ${SEED_POLICIES.join(', ')}`);
    const other = await this.repo.byMountPath(mountPath);
    if (other && other.id !== id) throw conflict(`mount path ${mountPath} is already used`);
    let addition: Record<string, unknown>;
    try {
      addition = validateOptions(def.options, parseAddition(input.addition));
    } catch (e) {
      if (isDriverError(e)) throw badRequest(`addition.${e.option ?? ''}: ${e.message}`, { option: e.option ?? null });
      throw e;
    }
    if (def.config.onlyProxy && input.proxy === false) throw badRequest(`proxy: the ${def.name} driver can only serve through the server`);
    return {
      mountPath,
      driver: def.name,
      order: input.order ?? 0,
      remark: input.remark ?? '',
      disabled: input.disabled ?? false,
      seedPolicy: policy as SeedPolicy,
      proxy: input.proxy ?? def.config.defaultProxy,
      addition,
      modified: Date.now(),
      disableIndex: input.disable_index ?? false,
    };
  }

  /** Invalid options are refused before anything is saved; a driver that then fails to start is saved with its error. */
  private async tryInit(rec: Omit<StorageRecord, 'id'>): Promise<void> {
    if (rec.disabled) return;
    let driver: StorageDriver | null = null;
    try {
      driver = await getDriverDefinition(rec.driver).create(rec.addition, { proxy: rec.proxy });
    } catch (e) {
      if (isDriverError(e, 'invalid_option')) throw badRequest(`addition.${e.option ?? ''}: ${e.message}`, { option: e.option ?? null });
    } finally {
      await driver?.close().catch(() => {});
    }
  }

  async create(input: StorageInput): Promise<MountedStorage> {
    const rec = await this.validated(input);
    await this.tryInit(rec);
    const saved = await this.repo.insert(rec);
    const m = await this.mount(saved);
    this.versions.set(saved.id, saved.modified);
    return m;
  }

  async update(id: number, input: StorageInput): Promise<MountedStorage> {
    const old = this.get(id).record;
    const rec = await this.validated(input, id);
    if (rec.driver !== old.driver) throw badRequest('driver: cannot be changed');
    await this.tryInit(rec);
    const next = { ...rec, id, modified: Math.max(rec.modified, old.modified + 1) };
    await this.repo.update(next);
    if (next.mountPath !== old.mountPath || JSON.stringify(next.addition) !== JSON.stringify(old.addition)) {
      await this.hashes.clearStorage(id);
    }
    this.versions.set(id, next.modified);
    return this.mount(next);
  }

  async setDisabled(id: number, disabled: boolean): Promise<void> {
    const r = this.get(id).record;
    if (r.disabled === disabled) throw badRequest(`storage is already ${disabled ? 'disabled' : 'enabled'}`);
    const next = { ...r, disabled, modified: Math.max(Date.now(), r.modified + 1) };
    await this.repo.update(next);
    this.versions.set(id, next.modified);
    await this.mount(next);
  }

  async delete(id: number): Promise<void> {
    this.get(id);
    // the index first: a crash in between leaves a storage with an empty index, never rows of a gone one
    await this.hashes.clearStorage(id);
    await this.repo.delete(id);
    this.versions.delete(id);
    await this.unmount(id);
  }

  /**
   * Registers a write that must end (commit, or abort and clean up: temp file, multipart upload)
   * before the drivers are closed. Returns `work` unchanged.
   */
  track<T>(work: Promise<T>): Promise<T> {
    const settled = work.then(
      () => undefined,
      () => undefined,
    );
    this.writes.add(settled);
    void settled.finally(() => this.writes.delete(settled));
    return work;
  }

  async close(): Promise<void> {
    // At shutdown the HTTP server has closed its connections, so request-bound writes are
    // aborting now: wait (bounded) for their cleanup before the drivers go away.
    if (this.writes.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.allSettled([...this.writes]), new Promise<void>((r) => (timer = setTimeout(r, CLOSE_GRACE_MS)))]);
      clearTimeout(timer);
    }
    for (const id of [...this.mounted.keys()]) await this.unmount(id);
  }
}
