/**
 * Start-up cleanup: what writes that died with their process (kill -9, power loss) left behind.
 *
 * - In every mounted storage that offers `cleanupStale`: `.ferry-tmp-*` files/directories
 *   (local) and `.ferry-tmp-*` objects and unfinished multipart uploads (S3).
 * - In `<data dir>/tmp`: spool files (as-task uploads) that no unfinished task refers to.
 * - In `<data dir>/offline`: download folders whose offline task is gone, removed from the tools too
 *   (src/modules/offline/orphans.ts).
 *
 * Several instances may share a database, storages and even a data dir, so nothing is removed
 * that was written recently: local temp files and spool files need no change for
 * FERRY_STALE_TEMP_MS (default 10 min); S3 multipart uploads and temp objects no new part for
 * FERRY_STALE_MULTIPART_MS (default 1 h). Everything removed is logged.
 *
 * It runs in the background once the storages are mounted; `closeApp` stops it. Before it, and
 * before any request is served, the write sets a crash interrupted are settled (WriteSets.recover).
 */
import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/config.js';
import type { Services } from './services.js';

type CleanupDeps = Pick<Services, 'config' | 'logger' | 'storages' | 'tasks' | 'offline'>;
import { lastChange } from '../modules/storages/drivers/local.js';
import { removeOfflineOrphans } from '../modules/offline/orphans.js';
import { TASK_TYPES } from '../modules/tasks/task.model.js';

export interface CleanupAges {
  /** Local temp files and spool files untouched for this long are stale. */
  tempMs: number;
  /** S3 multipart uploads and temp objects without a new part for this long are stale. */
  multipartMs: number;
}

export interface CleanupSummary {
  /** Per storage mount path: temp files/objects removed and multipart uploads aborted. */
  storages: { mountPath: string; temps: string[]; uploads: string[]; error?: string }[];
  /** Spool files removed from `<data dir>/tmp` (names). */
  spool: string[];
  /** Orphaned offline-download folders removed from `<data dir>/offline` (task ids). */
  offline: string[];
}

/** The ages from the configuration (FERRY_STALE_TEMP_MS, FERRY_STALE_MULTIPART_MS). */
export function cleanupAges(config: Config): CleanupAges {
  return { tempMs: config.staleTempMs, multipartMs: config.staleMultipartMs };
}

/** Payloads of every task that has not finished (their spool files must stay). */
async function unfinishedPayloads(ctx: CleanupDeps): Promise<string[]> {
  const out: string[] = [];
  for (const type of TASK_TYPES) for (const t of await ctx.tasks.list(type, false, null)) out.push(t.payload);
  return out;
}

async function cleanSpool(ctx: CleanupDeps, before: number, signal: AbortSignal): Promise<string[]> {
  const dir = join(ctx.config.dataDir, 'tmp');
  const names = await readdir(dir).catch(() => [] as string[]);
  if (names.length === 0) return [];
  const payloads = await unfinishedPayloads(ctx);
  const removed: string[] = [];
  for (const name of names) {
    signal.throwIfAborted();
    const abs = join(dir, name);
    // Named by the payload of a task that has not finished (it holds the task's bytes): keep.
    if (payloads.some((p) => p.includes(name))) continue;
    const last = await lastChange(abs);
    if (last === null || last >= before) continue;
    await rm(abs, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/** Runs the cleanup once; failures of one storage are reported and do not stop the others. */
export async function runStartupCleanup(ctx: CleanupDeps, ages: CleanupAges = cleanupAges(ctx.config), signal: AbortSignal = new AbortController().signal): Promise<CleanupSummary> {
  const now = Date.now();
  const summary: CleanupSummary = { storages: [], spool: [], offline: [] };
  for (const m of ctx.storages.list()) {
    const driver = m.driver;
    if (!driver?.cleanupStale) continue;
    signal.throwIfAborted();
    try {
      const r = await driver.cleanupStale({ tempBefore: now - ages.tempMs, uploadsBefore: now - ages.multipartMs, signal });
      summary.storages.push({ mountPath: m.record.mountPath, ...r });
    } catch (e) {
      if (signal.aborted) throw e;
      summary.storages.push({ mountPath: m.record.mountPath, temps: [], uploads: [], error: (e as Error).message || String(e) });
    }
  }
  summary.spool = await cleanSpool(ctx, now - ages.tempMs, signal);
  // the folder itself, not its content: a tool may still be writing into an orphan's files
  const stale = async (abs: string) => {
    const st = await lstat(abs).catch(() => null);
    return st !== null && Math.max(st.mtimeMs, st.ctimeMs) < now - ages.tempMs;
  };
  summary.offline = await removeOfflineOrphans(ctx.offline, stale, signal);
  return summary;
}

/** The cleanup running in the background after start-up; `stop` (at shutdown) waits for it to let go. */
export class StartupCleanup {
  private running: { abort: AbortController; done: Promise<void> } | null = null;

  constructor(
    private readonly deps: CleanupDeps,
    private readonly ages: CleanupAges = cleanupAges(deps.config),
  ) {}

  /** Starts the cleanup; logs each removal and a final `startup cleanup done`. */
  start(): void {
    if (this.running) return;
    const abort = new AbortController();
    const log = this.deps.logger;
    const done = (async () => {
      try {
        const s = await runStartupCleanup(this.deps, this.ages, abort.signal);
        for (const st of s.storages) {
          if (st.error) log.warn({ storage: st.mountPath, err: st.error }, 'startup cleanup failed for a storage');
          if (st.temps.length) log.info({ storage: st.mountPath, removed: st.temps }, 'startup cleanup: removed stale temp files');
          if (st.uploads.length) log.info({ storage: st.mountPath, aborted: st.uploads }, 'startup cleanup: aborted stale multipart uploads');
        }
        if (s.spool.length) log.info({ removed: s.spool }, 'startup cleanup: removed stale spool files');
        if (s.offline.length) log.info({ removed: s.offline }, 'startup cleanup: removed orphaned offline downloads');
        const count = (k: 'temps' | 'uploads') => s.storages.reduce((n, st) => n + st[k].length, 0);
        log.info({ temps: count('temps'), uploads: count('uploads'), spool: s.spool.length, offline: s.offline.length }, 'startup cleanup done');
      } catch (e) {
        if (!abort.signal.aborted) log.warn({ err: (e as Error).message }, 'startup cleanup failed');
      }
    })();
    this.running = { abort, done };
  }

  /** Stops a running cleanup (shutdown) and waits for it to let go of the storages. */
  async stop(): Promise<void> {
    const r = this.running;
    if (!r) return;
    r.abort.abort(new Error('shutting down'));
    await r.done;
    this.running = null;
  }
}
