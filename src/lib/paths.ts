/**
 * Path algebra on cleaned absolute paths (`/`, `/a/b.txt`): virtual paths, paths inside a storage and paths
 * inside a seed all use these. Cleaning and refusing unsafe input is lib/path-safety.ts's job; these assume
 * their input is already clean.
 */

/** The folder holding `p` (`/` for `/` and for top-level names). */
export function parentOf(p: string): string {
  const i = p.lastIndexOf('/');
  return i <= 0 ? '/' : p.slice(0, i);
}

/** The last segment of `p` (`''` for `/`). */
export function baseName(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/** `dir` + `/` + `name`, without doubling the slash at the root. */
export function joinPath(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`;
}

/** True when `path` equals `root` or lies below it. */
export function isWithin(root: string, path: string): boolean {
  if (root === '/') return path.startsWith('/');
  return path === root || path.startsWith(root + '/');
}

/** `path` as seen from `root` (which must contain it): `/` for the root itself. */
export function relativeTo(root: string, path: string): string {
  if (root === '/') return path;
  return path.slice(root.length) || '/';
}

/** The inverse of `relativeTo`: a path below `root` given relative to it. */
export function under(root: string, rel: string): string {
  if (root === '/') return rel;
  return rel === '/' ? root : root + rel;
}

/** The deepest folder that is, or contains, every one of `dirs` (cleaned absolute folder paths). */
export function commonAncestor(dirs: readonly string[]): string {
  if (dirs.length === 0) return '/';
  let segs = dirs[0]!.split('/').filter(Boolean);
  for (const d of dirs.slice(1)) {
    const other = d.split('/').filter(Boolean);
    let i = 0;
    while (i < segs.length && i < other.length && segs[i] === other[i]) i++;
    segs = segs.slice(0, i);
  }
  return '/' + segs.join('/');
}

/** The deepest folder containing every path (cleaned absolute paths). */
export function commonDir(paths: readonly string[]): string {
  return commonAncestor(paths.map(parentOf));
}

/** The lower-case extension of a name without its dot (`''` when none; `.gitignore` → `gitignore`). */
export function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
}
