/**
 * Reads a host folder for the local driver's `list`, off the event loop: one readdir and one stat per entry
 * (lstat for a broken symlink), in the order listings use. Synchronous calls on this thread cost less than
 * thousands of promise round trips through libuv's small thread pool, which downloads share.
 */
import { lstatSync, readdirSync, statSync, type Stats } from 'node:fs';
import { serveWorker } from '../../../lib/worker-pool.js';
import { listedOrder } from '../../../lib/name-order.js';
import type { EntryColumns } from './types.js';

export interface ListRequest {
  dir: string;
  showHidden: boolean;
  /** Names starting with this are left out (in-flight writes). */
  tempPrefix: string;
  /** In readdir's order (a walk indexing every entry): no collation sort. */
  unordered?: boolean;
}

/**
 * Columns, one row per entry, folders first then by name. Times are whole milliseconds rounded down, as the hash
 * index keys them (Node's `st.mtime` would round); births NaN where the file system keeps none.
 */
export type ListReply = Omit<EntryColumns, 'hashes'>;

function statOrLink(abs: string): Stats | null {
  try {
    // a name gone meanwhile (or a broken symlink) is no exception to build and throw on this path
    return statSync(abs, { throwIfNoEntry: false }) ?? lstatSync(abs, { throwIfNoEntry: false }) ?? null;
  } catch {
    try {
      return lstatSync(abs);
    } catch {
      return null;
    }
  }
}

export function readFolder({ dir, showHidden, tempPrefix, unordered }: ListRequest): ListReply {
  // numbers are copied out of each Stats at once (nothing holds 100,000 Stats objects), then an index is sorted
  const names: string[] = [];
  const dirs: boolean[] = [];
  const sizes: number[] = [];
  const mtimes: number[] = [];
  const births: number[] = [];
  for (const name of readdirSync(dir)) {
    if (name.startsWith(tempPrefix) || (!showHidden && name.startsWith('.'))) continue;
    const st = statOrLink(`${dir}/${name}`);
    if (!st) continue;
    const isDir = st.isDirectory();
    names.push(name);
    dirs.push(isDir);
    sizes.push(isDir ? 0 : st.size);
    mtimes.push(Math.floor(st.mtimeMs));
    births.push(st.birthtimeMs > 0 ? Math.floor(st.birthtimeMs) : NaN);
  }
  const n = names.length;
  if (unordered) return { names, dirs: Uint8Array.from(dirs, Number), sizes: Float64Array.from(sizes), mtimes: Float64Array.from(mtimes), births: Float64Array.from(births) };
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => listedOrder(dirs[a]!, names[a]!, dirs[b]!, names[b]!));
  const out: ListReply = { names: new Array<string>(n), dirs: new Uint8Array(n), sizes: new Float64Array(n), mtimes: new Float64Array(n), births: new Float64Array(n) };
  order.forEach((j, i) => {
    out.names[i] = names[j]!;
    out.dirs[i] = dirs[j]! ? 1 : 0;
    out.sizes[i] = sizes[j]!;
    out.mtimes[i] = mtimes[j]!;
    out.births[i] = births[j]!;
  });
  return out;
}

serveWorker(readFolder);
