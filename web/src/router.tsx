/**
 * Routing helpers over React Router 7 (library mode, a data router made in routes.tsx).
 * Pages import from here, not from `react-router`, so the URL conventions live in one place:
 * `href(path, query)` builds `/path?k=v`; `useSplatPath()` turns the `*` of `/files/*`, `/view/*`
 * or `/s/:id/*` into a virtual path (`/a/b c`), each segment percent-decoded once.
 */
import { useLocation } from 'react-router';

export { Link, Navigate, useLocation, useNavigate, useParams, useSearchParams } from 'react-router';

/** Builds `/path?k=v` from a path and query values (undefined values are left out). */
export function href(path: string, query: Record<string, string | undefined> = {}): string {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) qs.set(k, v);
  const s = qs.toString();
  return s ? `${path}?${s}` : path;
}

/** `/` + the segments of a path, each percent-encoded (for links whose tail is a virtual path). */
export function pathHref(prefix: string, path: string): string {
  return prefix + '/' + path.split('/').filter(Boolean).map(encodeURIComponent).join('/');
}

/**
 * The virtual path after the first `skip` segments of the URL (1 for `/files/*`, 2 for `/s/:id/*`).
 * Read from the raw pathname and decoded here, segment by segment: React Router's own `*` param
 * turns a literal `%2F` inside a name into `/`, and names may hold anything but `/`.
 */
export function useSplatPath(skip: number): string {
  const segs = useLocation().pathname.split('/').filter(Boolean).slice(skip);
  try {
    return '/' + segs.map(decodeURIComponent).join('/');
  } catch {
    return '/';
  }
}
