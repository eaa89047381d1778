/**
 * The one path-safety module (contract §5). Every path a user sends — over the
 * HTTP API, download links, share links and SFTP — goes through here before it
 * reaches a storage.
 *
 * Rules:
 *  - `\` becomes `/`, duplicate slashes and `.` segments are dropped, a leading `/` is ensured.
 *  - Any NUL byte is refused.
 *  - Any `..` segment is refused, in whatever form it arrives: plain, percent-encoded
 *    (`%2e%2e`), double-encoded (`%252e%252e`), with encoded separators (`%2f`, `%5c`).
 *    We refuse rather than resolve: a `..` that stays inside the base is never needed
 *    by a client and is the shape of every traversal attack.
 *  - Names that merely contain dots (`a..b`, `...`) are ordinary names.
 * The result of `joinBasePath` always starts with the cleaned base path.
 */
import { AppError } from './errors.js';
import { isWithin, relativeTo, under } from './paths.js';

export const RELATIVE_PATH_MESSAGE = 'using relative path is not allowed';

export class UnsafePathError extends AppError {
  constructor() {
    super(403, RELATIVE_PATH_MESSAGE);
    this.name = 'UnsafePathError';
  }
}

const MAX_DECODE_ROUNDS = 4;

/** Decodes percent-escapes repeatedly (bounded) so double-encoded dots are seen. */
function fullyDecoded(p: string): string {
  let cur = p;
  for (let i = 0; i < MAX_DECODE_ROUNDS && /%[0-9a-fA-F]{2}/.test(cur); i++) {
    try {
      cur = decodeURIComponent(cur);
    } catch {
      // A stray `%` that is not an escape: decode what can be decoded piecewise.
      cur = cur.replace(/%[0-9a-fA-F]{2}/g, (m) => {
        try {
          return decodeURIComponent(m);
        } catch {
          return m;
        }
      });
    }
  }
  return cur;
}

function hasDotDotSegment(p: string): boolean {
  return p.split(/[/\\]/).some((s) => s === '..');
}

/**
 * Cleans a virtual path: `\` → `/`, collapses slashes, removes `.`, ensures a leading `/`.
 * Throws UnsafePathError on NUL or any `..` segment (also when percent-encoded).
 */
export function cleanPath(input: string): string {
  if (input.includes('\0') || hasDotDotSegment(input)) throw new UnsafePathError();
  const decoded = fullyDecoded(input);
  if (decoded.includes('\0') || hasDotDotSegment(decoded)) throw new UnsafePathError();
  const parts = input.replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.');
  return '/' + parts.join('/');
}

/** Resolves a user-supplied path inside the user's base path. */
export function joinBasePath(basePath: string, userPath: string): string {
  const base = cleanPath(basePath);
  return under(base, cleanPath(userPath));
}

/** Returns `path` relative to the user's base path (for presenting paths back to the user). */
export function stripBasePath(basePath: string, fullPath: string): string {
  const base = cleanPath(basePath);
  if (base === '/') return fullPath;
  if (!isWithin(base, fullPath)) throw new UnsafePathError();
  return relativeTo(base, fullPath);
}

/** A single path segment (a file name in rename/mkdir/upload): non-empty, no separators, not `.`/`..`, no NUL. */
export function assertSafeName(name: string): string {
  if (name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name)) throw new UnsafePathError();
  const decoded = fullyDecoded(name);
  // Same test as cleanPath: a name that decodes to `../x` or `x/..` would be refused
  // later in every path containing it, so it is refused here too.
  if (hasDotDotSegment(decoded) || decoded.includes('\0')) throw new UnsafePathError();
  return name;
}
