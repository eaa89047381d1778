/**
 * Reads a host folder for the local driver's `list`, off the event loop: one readdir and one stat per entry
 * (lstat for a broken symlink), in the order listings use. Synchronous calls on this thread cost less than
 * thousands of promise round trips through libuv's small thread pool, which downloads share.
 */
import { lstatSync, readdirSync, statSync, type Stats } from 'node:fs';
import { serveWorker } from '../../../lib/worker-pool.js';
import { compareListed } from '../../../lib/name-order.js';

export interface ListRequest {
  dir: string;
  showHidden: boolean;
  /** Names starting with this are left out (in-flight writes). */
  tempPrefix: string;
}

/** Columns, one row per entry, folders first then by name. */
export interface ListReply {
  names: string[];
  /** 1 folder, 0 anything else. */
  dirs: Uint8Array;
  sizes: Float64Array;
  mtimes: Float64Array;
  /** Birth time in ms, 0 when the file system does not keep it. */
  births: Float64Array;
}

function statOrLink(abs: string): Stats | null {
  try {
    return statSync(abs);
  } catch {
    try {
      return lstatSync(abs);
    } catch {
      return null; // gone meanwhile
    }
  }
}

export function readFolder({ dir, showHidden, tempPrefix }: ListRequest): ListReply {
  const rows: { name: string; isDir: boolean; st: Stats }[] = [];
  for (const name of readdirSync(dir)) {
    if (name.startsWith(tempPrefix) || (!showHidden && name.startsWith('.'))) continue;
    const st = statOrLink(`${dir}/${name}`);
    if (st) rows.push({ name, isDir: st.isDirectory(), st });
  }
  rows.sort(compareListed);
  const n = rows.length;
  const out: ListReply = { names: new Array<string>(n), dirs: new Uint8Array(n), sizes: new Float64Array(n), mtimes: new Float64Array(n), births: new Float64Array(n) };
  rows.forEach((r, i) => {
    out.names[i] = r.name;
    out.dirs[i] = r.isDir ? 1 : 0;
    out.sizes[i] = r.isDir ? 0 : r.st.size;
    out.mtimes[i] = r.st.mtimeMs;
    out.births[i] = r.st.birthtimeMs > 0 ? r.st.birthtimeMs : 0;
  });
  return out;
}

serveWorker(readFolder);
