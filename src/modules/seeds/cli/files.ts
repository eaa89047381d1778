// Local input for `seed create`: which files a set of PATH arguments means, the paths they get
// inside the seed, and the seed name derived from them.
import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { compareSeedPaths } from '../formats/index.js';
import { deriveSeedName } from '../generation/names.js';

export interface LocalFile {
  /** Absolute path on disk. */
  abs: string;
  /** Path inside the seed (`/`-separated, relative). */
  path: string;
  size: number;
  mtime: Date;
}

/** The fallback seed name (the `seed_fallback_name` setting's default). */
export const FALLBACK_SEED_NAME = 'Service Seed';

/** The deepest directory containing every path (absolute, normalised). */
export function commonParent(paths: readonly string[]): string {
  const split = paths.map((p) => dirname(resolve(p)).split(sep));
  const first = split[0] ?? [];
  let n = first.length;
  for (const s of split) {
    let i = 0;
    while (i < n && i < s.length && s[i] === first[i]) i++;
    n = i;
  }
  return first.slice(0, n).join(sep) || sep;
}

const toSeedPath = (rel: string): string => rel.split(sep).join('/');

async function walk(dir: string, rel: string, out: LocalFile[], seen: Set<string>): Promise<void> {
  const real = await realpath(dir);
  if (seen.has(real)) return; // a symlink loop
  seen.add(real);
  const entries = await readdir(dir);
  for (const name of entries) {
    const abs = join(dir, name);
    const st = await stat(abs); // follows symlinks, like mktorrent
    const childRel = rel === '' ? name : `${rel}/${name}`;
    if (st.isDirectory()) await walk(abs, childRel, out, seen);
    else if (st.isFile()) out.push({ abs, path: childRel, size: st.size, mtime: st.mtime });
  }
  seen.delete(real);
}

export interface CollectedInput {
  files: LocalFile[];
  name: string;
  /** Directory the seed paths are relative to (what `seed verify` takes as DATA_DIR). */
  root: string;
  /** One file was named (not a folder): a single-file torrent. */
  singleFile: boolean;
}

/**
 * Resolves PATH arguments to files. One file → its name; one directory → its files
 * recursively, relative to it (as mktorrent does); several → relative to their common parent.
 * Files are returned in torrent order (by path bytes), the order they are hashed in.
 */
export async function collectInputs(args: readonly string[], name?: string): Promise<CollectedInput> {
  if (args.length === 0) throw new Error('no input paths');
  const inputs = await Promise.all(
    args.map(async (a) => {
      const abs = resolve(a);
      const st = await stat(abs).catch((e: NodeJS.ErrnoException) => {
        throw new Error(`${a}: ${e.code === 'ENOENT' ? 'no such file or directory' : e.message}`);
      });
      if (!st.isFile() && !st.isDirectory()) throw new Error(`${a}: not a regular file or directory`);
      return { abs, isDir: st.isDirectory(), size: st.size, mtime: st.mtime };
    }),
  );
  const files: LocalFile[] = [];
  let root: string;
  if (inputs.length === 1) {
    const only = inputs[0]!;
    root = only.isDir ? only.abs : dirname(only.abs);
    if (only.isDir) await walk(only.abs, '', files, new Set());
    else files.push({ abs: only.abs, path: basename(only.abs), size: only.size, mtime: only.mtime });
  } else {
    root = commonParent(inputs.map((i) => i.abs));
    for (const i of inputs) {
      const rel = toSeedPath(relative(root, i.abs));
      if (i.isDir) await walk(i.abs, rel, files, new Set());
      else files.push({ abs: i.abs, path: rel, size: i.size, mtime: i.mtime });
    }
  }
  if (files.length === 0) throw new Error('the inputs contain no files');
  const paths = new Set<string>();
  for (const f of files) {
    if (paths.has(f.path)) throw new Error(`${f.path}: given more than once`);
    paths.add(f.path);
  }
  files.sort((a, b) => compareSeedPaths(a.path, b.path));
  // the same rule as the server's generation (names.ts): from the files and their root folder
  const derived = deriveSeedName(files.map((f) => f.abs), root === sep ? '/' : root, FALLBACK_SEED_NAME, { folderRequested: inputs.length === 1 && inputs[0]!.isDir }).name;
  return { files, name: name ?? derived, root, singleFile: inputs.length === 1 && !inputs[0]!.isDir };
}
