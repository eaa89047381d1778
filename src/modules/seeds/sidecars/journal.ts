/**
 * The commit journal of uploads with sidecars. Committing a file and its sidecars is several
 * driver commits; a process killed between them would leave new sidecars beside an old (or
 * no) file. So before the first commit, a journal entry records the file, the digest it will
 * have, and a copy of every sidecar about to be replaced; it is removed once everything is
 * committed or rolled back. At start-up, an entry still present means the process died in
 * between: if the file now has the new content the sidecars are right and the entry is
 * dropped, otherwise the old sidecars are put back (or the new ones removed).
 *
 * Layout: `<data dir>/journal/<id>.json` plus `<id>.<n>.bak` backups, written before the
 * `.json` is renamed into place (an entry without its `.json` is ignored and swept).
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { isDriverError, writeBuffer, type StorageDriver } from '../../storages/drivers/index.js';

export interface JournalSidecar {
  storageId: number;
  inner: string;
  /** The content it replaces, or null when there was none. */
  previous: Buffer | null;
}

interface Entry {
  storageId: number;
  main: string;
  size: number;
  md5: string;
  sidecars: { storageId: number; inner: string; backup: string | null }[];
  /** The writer: an entry of a process still running (another instance on this data dir) is not touched. */
  pid: number;
  host: string;
}

export interface OpenEntry {
  close(): Promise<void>;
}

const dirOf = (dataDir: string) => join(dataDir, 'journal');

async function writeSynced(path: string, data: Buffer | string): Promise<void> {
  await writeFile(path, data, { flag: 'wx' });
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Records an upload about to commit; `close()` removes the entry (after success or rollback). */
export async function openJournal(
  dataDir: string,
  e: { storageId: number; main: string; size: number; md5: string; sidecars: JournalSidecar[] },
): Promise<OpenEntry> {
  const dir = dirOf(dataDir);
  await mkdir(dir, { recursive: true });
  const id = randomUUID();
  const files: string[] = [];
  const entry: Entry = { storageId: e.storageId, main: e.main, size: e.size, md5: e.md5, sidecars: [], pid: process.pid, host: hostname() };
  for (const [i, s] of e.sidecars.entries()) {
    let backup: string | null = null;
    if (s.previous) {
      backup = `${id}.${i}.bak`;
      await writeSynced(join(dir, backup), s.previous);
      files.push(backup);
    }
    entry.sidecars.push({ storageId: s.storageId, inner: s.inner, backup });
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
 * Settles every entry left by a process that died while committing. `driverFor` returns the
 * mounted driver of a storage id (undefined when it is gone or broken: the entry is kept for
 * the next start).
 */
export async function recoverJournal(dataDir: string, driverFor: (storageId: number) => StorageDriver | undefined, log: Logger): Promise<number> {
  const dir = dirOf(dataDir);
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
      entry = JSON.parse(await readFile(join(dir, name), 'utf8')) as Entry;
    } catch {
      await rm(join(dir, name), { force: true });
      continue;
    }
    const driver = driverFor(entry.storageId);
    const drivers = entry.sidecars.map((s) => driverFor(s.storageId));
    if (!driver || drivers.some((d) => !d) || writerAlive(entry)) {
      live.add(id);
      continue;
    }
    let committed = false;
    try {
      const st = await driver.stat(entry.main);
      committed = !st.isDir && st.size === entry.size && (await md5Of(driver, entry.main)) === entry.md5;
    } catch (e) {
      if (!isDriverError(e, 'not_found')) {
        live.add(id);
        log.warn({ err: e, entry: name }, 'upload journal: cannot check the file; kept for the next start');
        continue;
      }
    }
    if (!committed) {
      for (const [i, s] of entry.sidecars.entries()) {
        const d = drivers[i]!;
        if (s.backup) await writeBuffer(d, s.inner, await readFile(join(dir, s.backup)));
        else await d.remove(s.inner).catch((e: unknown) => {
          if (!isDriverError(e, 'not_found')) throw e;
        });
      }
    }
    log.info({ file: entry.main, committed }, committed ? 'upload journal: the file was committed; its sidecars stay' : 'upload journal: the file was not committed; its sidecars were rolled back');
    await rm(join(dir, name), { force: true });
    settled++;
  }
  // backups and temp files of entries not kept are leftovers (settled now, or never completed)
  for (const n of names) {
    const id = n.slice(0, n.indexOf('.'));
    if (n.endsWith('.json') || live.has(id) || names.includes(`${id}.json`) === false && (await young(join(dir, n)))) continue;
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
