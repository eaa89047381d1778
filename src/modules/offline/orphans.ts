/**
 * Offline downloads whose task is gone (deleted while its instance was dead, or cleared after `delete_never`):
 * at start-up every `<data dir>/offline/<task id>` folder that no offline task refers to any more (neither the
 * download task `<task id>` nor a transfer reading from it) and whose entries have not changed recently (the tool
 * may still be writing into its files) is removed from every configured tool (stopped, forgotten) and deleted.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { OfflineDeps } from './offline.deps.js';
import { OFFLINE_TOOL_TASK, OFFLINE_TRANSFER_TASK } from './offline.tasks.js';
import { BT_TOOLS, toolOf } from './tool-access.js';

/** Removes the orphaned download folders for which `stale(abs)` holds; returns their names (task ids). */
export async function removeOfflineOrphans(
  deps: Pick<OfflineDeps, 'workDir' | 'tasks' | 'settings'>,
  stale: (abs: string) => Promise<boolean>,
  signal: AbortSignal,
): Promise<string[]> {
  const names = await readdir(deps.workDir).catch(() => [] as string[]);
  if (names.length === 0) return [];
  const rows = [];
  for (const type of [OFFLINE_TOOL_TASK.type, OFFLINE_TRANSFER_TASK.type]) for (const done of [false, true]) rows.push(...(await deps.tasks.list(type, done, null)));
  const removed: string[] = [];
  for (const name of names) {
    signal.throwIfAborted();
    const abs = join(deps.workDir, name);
    if (rows.some((r) => r.id === name || r.payload.includes(JSON.stringify(abs)))) continue;
    if (!(await stale(abs))) continue;
    for (const t of BT_TOOLS) {
      const tool = await toolOf(deps, t).catch(() => null);
      await tool?.tool.clear(abs, null);
    }
    await rm(abs, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
