/** Entries as columns (`EntryColumns`) and back: how a listing goes from a driver to its reply without an object per entry. */
import type { Entry, EntryColumns } from './types.js';

/** The columns of `entries`, in their order. */
export function entryColumns(entries: readonly Entry[]): EntryColumns {
  const n = entries.length;
  const c: EntryColumns = { names: new Array<string>(n), dirs: new Uint8Array(n), sizes: new Float64Array(n), mtimes: new Float64Array(n), births: new Float64Array(n) };
  let hashes: EntryColumns['hashes'];
  for (let i = 0; i < n; i++) {
    const e = entries[i]!;
    c.names[i] = e.name;
    c.dirs[i] = e.isDir ? 1 : 0;
    c.sizes[i] = e.size;
    c.mtimes[i] = e.modified.getTime();
    c.births[i] = e.created ? e.created.getTime() : NaN;
    if (e.hashes) (hashes ??= new Array(n))[i] = e.hashes;
  }
  if (hashes) c.hashes = hashes;
  return c;
}

/** The rows of `a` then those of `b`. */
export function concatColumns(a: EntryColumns, b: EntryColumns): EntryColumns {
  const cat = <T extends Float64Array | Uint8Array>(x: T, y: T, make: new (n: number) => T): T => {
    const out = new make(x.length + y.length);
    out.set(x);
    out.set(y, x.length);
    return out;
  };
  const c: EntryColumns = {
    names: a.names.concat(b.names),
    dirs: cat(a.dirs, b.dirs, Uint8Array),
    sizes: cat(a.sizes, b.sizes, Float64Array),
    mtimes: cat(a.mtimes, b.mtimes, Float64Array),
    births: cat(a.births, b.births, Float64Array),
  };
  if (a.hashes || b.hashes) c.hashes = [...(a.hashes ?? new Array(a.names.length)), ...(b.hashes ?? new Array(b.names.length))];
  return c;
}

/** Row `i` as an `Entry` at `path`. A birth time equal to the modification time says nothing more: left out. */
export function entryAt(c: EntryColumns, i: number, path: string): Entry {
  const mtime = c.mtimes[i]!;
  const born = c.births[i]!;
  const e: Entry = { name: c.names[i]!, path, size: c.sizes[i]!, isDir: c.dirs[i] === 1, modified: new Date(mtime) };
  if (!Number.isNaN(born) && born !== mtime) e.created = new Date(born);
  const h = c.hashes?.[i];
  if (h) e.hashes = h;
  return e;
}
