/**
 * The crash journal of atomic write sets (write-set.ts). Committing a set is several driver commits; a
 * process killed between them would leave part of the set new and part old. So before the first commit an
 * entry records every file of the set with a copy of what it replaces, and the content the anchor (the file
 * committed last) will have. It is removed once everything is committed or rolled back. At start-up an entry
 * still present means a process died in between: if the anchor has its new content the set is complete and
 * the entry is dropped; otherwise the other files are put back (or removed when they were new).
 *
 * Layout: `<data dir>/journal/<id>.json` plus `<id>.<n>.bak` backups, written before the `.json` is renamed
 * into place (an entry without its `.json` is ignored and swept).
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { isDriverError, writeBuffer, type StorageDriver } from '../storages/drivers/index.js';

/** A file of the set other than the anchor. */
export interface JournalItem {
  storageId: number;
  inner: string;
  /** The content it replaces, or null when there was none. */
  previous: Buffer | null;
}

/** The file committed last: its content after the commit tells whether the set completed. */
export interface JournalAnchor {
  storageId: number;
  inner: string;
  size: number;
  md5: string;
}

interface Entry {
  anchor: JournalAnchor;
  items: { storageId: number; inner: string; backup: string | null }[];
  /** The writer: an entry of a process still running (another instance on this data dir) is not touched. */
  pid: number;
  host: string;
}

/** Entries written before write sets were general (uploads with sidecars only). */
interface LegacyEntry {
  storageId: number;
  main: string;
  size: number;
  md5: string;
  sidecars: Entry['items'];
  pid: number;
  host: string;
}

function fromStored(e: Entry | LegacyEntry): Entry {
  if ('anchor' in e) return e;
  return { anchor: { storageId: e.storageId, inner: e.main, size: e.size, md5: e.md5 }, items: e.sidecars, pid: e.pid, host: e.host };
}

export interface OpenEntry {
  close(): Promise<void>;
}

async function writeSynced(path: string, data: Buffer | string): Promise<void> {
  await writeFile(path, data, { flag: 'wx' });
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Records a set about to commit; `close()` removes the entry (after success or rollback). */
export async function openJournal(dir: string, anchor: JournalAnchor, items: JournalItem[]): Promise<OpenEntry> {
  await mkdir(dir, { recursive: true });
  const id = randomUUID();
  const files: string[] = [];
  const entry: Entry = { anchor, items: [], pid: process.pid, host: hostname() };
  for (const [i, s] of items.entries()) {
    let backup: string | null = null;
    if (s.previous) {
      backup = `${id}.${i}.bak`;
      await writeSynced(join(dir, backup), s.previous);
      files.push(backup);
    }
    entry.items.push({ storageId: s.storageId, inner: s.inner, backup });
  }
  await writeSynced(join(dir, `${id}.tmp`), JSON.stringify(entry));
  await rename(join(dir, `${id}.tmp`), join(dir, `${id}.json`));
  files.push(`${id}.json`);
  return {
    async close() {
      // the .json first: without it the backups are inert
      for (const f of files.reverse()) await rm(join(dir, f), { force: true });
    },
  };
}

async function md5Of(driver: StorageDriver, inner: string): Promise<string> {
  const known = (await driver.hashes(inner)).md5;
  if (known) return known.toLowerCase();
  const h = createHash('md5');
  for await (const c of await driver.read(inner)) h.update(c as Uint8Array);
  return h.digest('hex');
}

/**
 * Settles every entry left by a process that died while committing. `driverFor` returns the mounted driver
 * of a storage id (undefined when it is gone or broken: the entry is kept for the next start).
 */
export async function recoverJournal(dir: string, driverFor: (storageId: number) => StorageDriver | undefined, log: Logger): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let settled = 0;
  const live = new Set<string>();
  for (const name of names.filter((n) => n.endsWith('.json'))) {
    const id = name.slice(0, -'.json'.length);
    let entry: Entry;
    try {
      entry = fromStored(JSON.parse(await readFile(join(dir, name), 'utf8')) as Entry | LegacyEntry);
    } catch {
      await rm(join(dir, name), { force: true });
      continue;
    }
    const driver = driverFor(entry.anchor.storageId);
    const drivers = entry.items.map((s) => driverFor(s.storageId));
    if (!driver || drivers.some((d) => !d) || writerAlive(entry)) {
      live.add(id);
      continue;
    }
    let committed = false;
    try {
      const st = await driver.stat(entry.anchor.inner);
      committed = !st.isDir && st.size === entry.anchor.size && (await md5Of(driver, entry.anchor.inner)) === entry.anchor.md5;
    } catch (e) {
      if (!isDriverError(e, 'not_found')) {
        live.add(id);
        log.warn({ err: e, entry: name }, 'write journal: cannot check the anchor file; kept for the next start');
        continue;
      }
    }
    if (!committed) {
      for (const [i, s] of entry.items.entries()) {
        const d = drivers[i]!;
        if (s.backup) await writeBuffer(d, s.inner, await readFile(join(dir, s.backup)));
        else await d.remove(s.inner).catch((e: unknown) => {
          if (!isDriverError(e, 'not_found')) throw e;
        });
      }
    }
    log.info({ file: entry.anchor.inner, committed }, committed ? 'write journal: the set was committed; it stays' : 'write journal: the set was not committed; its files were rolled back');
    await rm(join(dir, name), { force: true });
    settled++;
  }
  // backups and temp files of entries not kept are leftovers (settled now, or never completed)
  for (const n of names) {
    const id = n.slice(0, n.indexOf('.'));
    if (n.endsWith('.json') || live.has(id) || (names.includes(`${id}.json`) === false && (await young(join(dir, n))))) continue;
    await rm(join(dir, n), { force: true });
  }
  return settled;
}

/** Written in the last 10 minutes: possibly an entry another live process is still creating. */
async function young(path: string): Promise<boolean> {
  const st = await stat(path).catch(() => null);
  return st !== null && Date.now() - st.mtimeMs < 10 * 60_000;
}

function writerAlive(e: Entry): boolean {
  if (e.host !== hostname() || e.pid === process.pid) return false;
  try {
    process.kill(e.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
