/**
 * Start-up cleanup: what writes that died with their process (kill -9, power loss) left behind.
 *
 * - In every mounted storage that offers `cleanupStale`: `.ferry-tmp-*` files/directories
 *   (local) and `.ferry-tmp-*` objects and unfinished multipart uploads (S3).
 * - In `<data dir>/tmp`: spool files (as-task uploads) that no unfinished task refers to.
 *
 * Several instances may share a database, storages and even a data dir, so nothing is removed
 * that was written recently: local temp files and spool files need no change for
 * FERRY_STALE_TEMP_MS (default 10 min); S3 multipart uploads and temp objects no new part for
 * FERRY_STALE_MULTIPART_MS (default 1 h). Everything removed is logged.
 *
 * It runs in the background once the storages are mounted; `closeApp` stops it. Before it, and
 * before any request is served, `settleInterruptedCommits` replays the sidecar commit journal.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Config } from '../config/config.js';
import type { AppContext } from './context.js';
import { recoverJournal } from '../modules/seeds/sidecars/journal.js';
import { lastChange } from '../modules/storages/drivers/local.js';
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
}

/** The ages from the configuration (FERRY_STALE_TEMP_MS, FERRY_STALE_MULTIPART_MS). */
export function cleanupAges(config: Config): CleanupAges {
  return { tempMs: config.staleTempMs, multipartMs: config.staleMultipartMs };
}

/** Payloads of every task that has not finished (their spool files must stay). */
async function unfinishedPayloads(ctx: AppContext): Promise<string[]> {
  const out: string[] = [];
  for (const type of TASK_TYPES) for (const t of await ctx.tasks.list(type, false, null)) out.push(t.payload);
  return out;
}

async function cleanSpool(ctx: AppContext, before: number, signal: AbortSignal): Promise<string[]> {
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
export async function runStartupCleanup(ctx: AppContext, ages: CleanupAges = cleanupAges(ctx.config), signal: AbortSignal = new AbortController().signal): Promise<CleanupSummary> {
  const now = Date.now();
  const summary: CleanupSummary = { storages: [], spool: [] };
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
  return summary;
}

/**
 * Uploads with sidecars killed between their commits (journal in `<data dir>/journal`): settled
 * before the server accepts requests, so no upload can touch those files meanwhile. A failure is
 * logged; the entries stay for the next start.
 */
export async function settleInterruptedCommits(ctx: AppContext): Promise<void> {
  const driverFor = (id: number) => ctx.storages.list().find((m) => m.record.id === id)?.driver ?? undefined;
  try {
    const n = await recoverJournal(ctx.config.dataDir, driverFor, ctx.logger);
    if (n > 0) ctx.logger.info({ settled: n }, 'startup: settled uploads interrupted between commits');
  } catch (e) {
    ctx.logger.warn({ err: (e as Error).message }, 'startup: settling interrupted uploads failed');
  }
}

const running = new WeakMap<AppContext, { abort: AbortController; done: Promise<void> }>();

/** Starts the cleanup in the background; logs each removal and a final `startup cleanup done`. */
export function startStartupCleanup(ctx: AppContext, ages: CleanupAges = cleanupAges(ctx.config)): void {
  if (running.has(ctx)) return;
  const abort = new AbortController();
  const log = ctx.logger;
  const done = (async () => {
    try {
      const s = await runStartupCleanup(ctx, ages, abort.signal);
      for (const st of s.storages) {
        if (st.error) log.warn({ storage: st.mountPath, err: st.error }, 'startup cleanup failed for a storage');
        if (st.temps.length) log.info({ storage: st.mountPath, removed: st.temps }, 'startup cleanup: removed stale temp files');
        if (st.uploads.length) log.info({ storage: st.mountPath, aborted: st.uploads }, 'startup cleanup: aborted stale multipart uploads');
      }
      if (s.spool.length) log.info({ removed: s.spool }, 'startup cleanup: removed stale spool files');
      const count = (k: 'temps' | 'uploads') => s.storages.reduce((n, st) => n + st[k].length, 0);
      log.info({ temps: count('temps'), uploads: count('uploads'), spool: s.spool.length }, 'startup cleanup done');
    } catch (e) {
      if (!abort.signal.aborted) log.warn({ err: (e as Error).message }, 'startup cleanup failed');
    }
  })();
  running.set(ctx, { abort, done });
}

/** Stops a running cleanup (shutdown) and waits for it to let go of the storages. */
export async function stopStartupCleanup(ctx: AppContext): Promise<void> {
  const r = running.get(ctx);
  if (!r) return;
  r.abort.abort(new Error('shutting down'));
  await r.done;
  running.delete(ctx);
}
