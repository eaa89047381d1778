/** Formatting helpers: sizes, speeds, dates, and virtual paths. */

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '—';
  let i = 0;
  let v = n;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} B` : `${v < 10 ? v.toFixed(1) : Math.round(v)} ${UNITS[i]}`;
}

export function formatSpeed(bytesPerSecond: number): string {
  return `${formatBytes(Math.max(0, Math.round(bytesPerSecond)))}/s`;
}

const dateFmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime()) || d.getTime() <= 0) return '—';
  return dateFmt.format(d);
}

/** Joins virtual path segments: `joinPath('/a', 'b')` → `/a/b`. */
export function joinPath(...parts: string[]): string {
  const segs = parts.flatMap((p) => p.split('/')).filter((s) => s !== '');
  return '/' + segs.join('/');
}

export function parentPath(p: string): string {
  const segs = p.split('/').filter(Boolean);
  segs.pop();
  return '/' + segs.join('/');
}

export function baseName(p: string): string {
  const segs = p.split('/').filter(Boolean);
  return segs[segs.length - 1] ?? '';
}

/** Percent-encodes each segment of a path, keeping the slashes. */
export function encodePath(p: string): string {
  return p.split('/').map(encodeURIComponent).join('/');
}

/** The `/d/` link of a listed file: its full virtual path (under the user's base path) and its `sign`, if any. */
export function downloadHref(basePath: string, dir: string, obj: { name: string; sign?: string }): string {
  return `/d${encodePath(joinPath(basePath, dir, obj.name))}${obj.sign ? `?sign=${encodeURIComponent(obj.sign)}` : ''}`;
}

export function extension(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot <= 0 ? '' : name.slice(dot + 1).toLowerCase();
}

export const SEED_EXTENSIONS = ['oss', 'torrent', 'cas'] as const;

export function isSeedFile(name: string): boolean {
  return (SEED_EXTENSIONS as readonly string[]).includes(extension(name));
}

/** A name the server would accept for a file or folder (no slashes, not `.`/`..`, no NUL). */
export function nameProblem(name: string): string | null {
  if (name.trim() === '') return 'Enter a name.';
  if (name.includes('/') || name.includes('\\')) return 'A name cannot contain / or \\.';
  if (name === '.' || name === '..') return 'This name is reserved.';
  if (name.includes('\0')) return 'A name cannot contain a NUL character.';
  return null;
}
