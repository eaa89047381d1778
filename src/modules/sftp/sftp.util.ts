/**
 * Small pieces of the SFTP server: status codes, the user-relative path view, `ls -l`
 * long names, attributes, and the mapping of Ferry's errors to SFTP statuses.
 */
import { isAppError } from '../../lib/errors.js';
import { cleanPath, joinBasePath } from '../../lib/path-safety.js';
import { isDriverError } from '../storages/drivers/index.js';

/** SFTP v3 status codes (draft-ietf-secsh-filexfer-02 §7). */
export const Status = {
  OK: 0,
  EOF: 1,
  NO_SUCH_FILE: 2,
  PERMISSION_DENIED: 3,
  FAILURE: 4,
  BAD_MESSAGE: 5,
  OP_UNSUPPORTED: 8,
} as const;
export type StatusCode = (typeof Status)[keyof typeof Status];

/** SSH_FXF_* open flags. */
export const OpenFlag = { READ: 0x01, WRITE: 0x02, APPEND: 0x04, CREAT: 0x08, TRUNC: 0x10, EXCL: 0x20 } as const;

const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;

/** A failure with an explicit SFTP status. */
export class SftpError extends Error {
  constructor(
    readonly status: StatusCode,
    message: string,
  ) {
    super(message);
    this.name = 'SftpError';
  }
}

export const denied = (message = 'permission denied') => new SftpError(Status.PERMISSION_DENIED, message);
export const noSuchFile = (message = 'no such file or directory') => new SftpError(Status.NO_SUCH_FILE, message);
export const failure = (message: string) => new SftpError(Status.FAILURE, message);

/**
 * REALPATH: resolves `.` and `..` lexically in the user's view, never above `/` (the
 * user's base path), then checks the result with the one path-safety module. Other
 * requests do not resolve `..`: they go to `joinBasePath`, which refuses it.
 */
export function realUserPath(basePath: string, p: string): string {
  const parts: string[] = [];
  for (const seg of p.replace(/\\/g, '/').split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  const rel = '/' + parts.join('/');
  joinBasePath(basePath, rel); // NUL, percent-encoded `..`: refused like everywhere else
  return cleanPath(rel);
}

export interface EntryLike {
  isDir: boolean;
  size: number;
  modified: Date;
}

export function attrsOf(e: EntryLike, writable: boolean) {
  const perm = e.isDir ? (writable ? 0o755 : 0o555) : writable ? 0o644 : 0o444;
  const t = Math.max(0, Math.floor(e.modified.getTime() / 1000));
  return { mode: (e.isDir ? S_IFDIR : S_IFREG) | perm, uid: 0, gid: 0, size: e.isDir ? 0 : e.size, atime: t, mtime: t };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const SIX_MONTHS_MS = 182 * 24 * 3600 * 1000;

function modeString(mode: number): string {
  const type = (mode & 0o170000) === S_IFDIR ? 'd' : '-';
  let s = type;
  for (const shift of [6, 3, 0]) {
    const bits = (mode >> shift) & 7;
    s += (bits & 4 ? 'r' : '-') + (bits & 2 ? 'w' : '-') + (bits & 1 ? 'x' : '-');
  }
  return s;
}

/** `ls -l` style line, formatted like OpenSSH's sftp-server (`ls_file`), times in UTC. */
export function longName(name: string, e: EntryLike, owner: string, writable: boolean, now = Date.now()): string {
  const a = attrsOf(e, writable);
  const d = e.modified;
  const day = String(d.getUTCDate()).padStart(2, ' ');
  const recent = Math.abs(now - d.getTime()) < SIX_MONTHS_MS;
  const when = recent
    ? `${MONTHS[d.getUTCMonth()]} ${day} ${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`
    : `${MONTHS[d.getUTCMonth()]} ${day}  ${d.getUTCFullYear()}`;
  const nlink = e.isDir ? 2 : 1;
  return `${modeString(a.mode)} ${String(nlink).padStart(3)} ${owner.padEnd(8)} ${owner.padEnd(8)} ${String(a.size).padStart(8)} ${when} ${name}`;
}

/** Replaces paths the user must not see (full or storage-inner paths) with the user's own view. */
export type PathViews = ReadonlyArray<readonly [hidden: string, shown: string]>;

function scrub(message: string, views: PathViews): string {
  let m = message;
  // Longest first, so a path is not half-replaced by one of its prefixes.
  for (const [hidden, shown] of [...views].sort((a, b) => b[0].length - a[0].length)) {
    if (hidden && hidden !== shown && hidden !== '/') m = m.split(hidden).join(shown);
  }
  return m;
}

/** Ferry's errors → SFTP status: not found → NO_SUCH_FILE, 403/permission → PERMISSION_DENIED, others FAILURE. */
export function statusOf(e: unknown, views: PathViews = []): { code: StatusCode; message: string } {
  if (e instanceof SftpError) return { code: e.status, message: scrub(e.message, views) };
  if (isAppError(e)) {
    if (e.code === 404) return { code: Status.NO_SUCH_FILE, message: scrub(e.message, views) };
    if (e.code === 403 || e.code === 401) return { code: Status.PERMISSION_DENIED, message: scrub(e.message, views) };
    return { code: Status.FAILURE, message: scrub(e.message, views) };
  }
  if (isDriverError(e)) {
    switch (e.kind) {
      case 'not_found':
        return { code: Status.NO_SUCH_FILE, message: scrub(e.message, views) };
      case 'permission':
      case 'invalid_path':
        return { code: Status.PERMISSION_DENIED, message: scrub(e.message, views) };
      default:
        return { code: Status.FAILURE, message: scrub(e.message, views) };
    }
  }
  const msg = e instanceof Error ? e.message : String(e);
  return { code: Status.FAILURE, message: scrub(msg || 'failure', views) };
}

export function isNotFound(e: unknown): boolean {
  return (isAppError(e) && e.code === 404) || isDriverError(e, 'not_found') || (e instanceof SftpError && e.status === Status.NO_SUCH_FILE);
}

