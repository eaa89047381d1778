/**
 * Per-request checks shared by every protocol: permission bits, user paths inside the base path, and folder
 * rules (metas). `FolderAccess` is the ONE place metas are enforced: HTTP (`/api/fs/*`, `/d/`, `/p/`), shares
 * (`/sd/`), SFTP, and — through the same calls — search and WebDAV.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { forbidden, tooManyRequests } from '../../lib/errors.js';
import { cleanPath, joinBasePath } from '../../lib/path-safety.js';
import { baseName, isWithin, parentOf } from '../../lib/paths.js';
import { can, Perm, type User } from '../users/user.model.js';
import { NO_FOLDER_RULES, type FolderMeta, type FolderRules, type GuessLimiter } from './fs.ports.js';

export function requirePerm(user: User, bit: number): void {
  if (!can(user, bit)) throw forbidden('permission denied');
}

/** A user-supplied path resolved inside the user's base path (the one path-safety module). */
export function userPath(user: User, p: string): string {
  return joinBasePath(user.basePath, p);
}

/**
 * A stored full path (a queued task's) is still inside the user's base path: the base path may have changed
 * since the path was resolved.
 */
export function requireWithinBase(user: User, fullPath: string): void {
  if (!isWithin(cleanPath(user.basePath), fullPath)) throw forbidden("permission denied (the path is outside the user's base path)");
}

/** Who looks: a user, or nobody (an anonymous share visitor: no permission bits). */
export type Viewer = User | null;

export const WRONG_FOLDER_PASSWORD = 'password is incorrect or you have no permission';
/** The refusal of a change to a name hidden from the user (it does not say whether the object exists). */
export const HIDDEN_DENIED = 'permission denied';
export const FOLDER_PASSWORD_LOCKED = 'too many wrong folder passwords, try again later';

/** Whether a rule set on `meta.path` applies to folder `dir` (the folder itself, or below it with `sub`). */
function applies(meta: FolderMeta, dir: string, sub: boolean): boolean {
  return meta.path === dir || (sub && isWithin(meta.path, dir));
}

function samePassword(given: string, stored: string): boolean {
  return timingSafeEqual(createHash('sha256').update(given).digest(), createHash('sha256').update(stored).digest());
}

/** Lockout keys of folder password guesses: per protected folder, and per client address. */
export const folderPasswordKeys = (metaPath: string, ip: string) => [`folder-pw:${metaPath}`, `folder-pw-addr:${ip}`];

export class FolderAccess {
  constructor(
    private readonly rules: FolderRules = NO_FOLDER_RULES,
    private readonly guesses: GuessLimiter | null = null,
  ) {}

  /**
   * The hide rule: which names listed in folder `dir` the viewer may see. Users with bit 0 (see hidden) and
   * admins see everything; others lose the names matched by the `hide` patterns of the folder's meta (or an
   * ancestor's with `h_sub`). Search and WebDAV filter their results with this (or `isVisible`).
   */
  async visibleIn(viewer: Viewer, dir: string): Promise<(name: string) => boolean> {
    if (viewer && can(viewer, Perm.SEE_HIDDEN)) return () => true;
    const meta = await this.rules.nearest(dir);
    if (!meta || meta.hide.length === 0 || !applies(meta, dir, meta.hSub)) return () => true;
    return (name) => !meta.hide.some((re) => re.test(name));
  }

  /**
   * Whether the object at full path `full` and every folder above it, up to `from` (excluded: a user's base
   * path, a share's root), are visible to the viewer.
   */
  async isVisible(viewer: Viewer, full: string, from = '/'): Promise<boolean> {
    if (viewer && can(viewer, Perm.SEE_HIDDEN)) return true;
    const top = cleanPath(from);
    for (let p = full; p !== '/' && p !== top && isWithin(top, p); p = parentOf(p)) {
      if (!(await this.visibleIn(viewer, parentOf(p)))(baseName(p))) return false;
    }
    return true;
  }

  /**
   * For search, which must filter before paging: `guarded`, folders whose password guards them for this viewer
   * (everything below them is left out, whatever nearer metas say); `hiding`, folders whose `hide` patterns may
   * hide something below them from this viewer (each object found there is checked with `isVisible`).
   */
  async searchRules(viewer: Viewer): Promise<{ guarded: string[]; hiding: string[] }> {
    const all = await this.rules.all();
    const seeHidden = viewer !== null && can(viewer, Perm.SEE_HIDDEN);
    const noPassword = viewer !== null && can(viewer, Perm.ACCESS_WITHOUT_PASSWORD);
    return {
      guarded: noPassword ? [] : all.filter((m) => m.password !== '').map((m) => m.path),
      hiding: seeHidden ? [] : all.filter((m) => m.hide.length > 0).map((m) => m.path),
    };
  }

  /** The meta whose password guards folder `dir` for this viewer, or null (none, or bit 1 / admin). */
  async passwordGuard(viewer: Viewer, dir: string): Promise<FolderMeta | null> {
    if (viewer && can(viewer, Perm.ACCESS_WITHOUT_PASSWORD)) return null;
    const meta = await this.rules.nearest(dir);
    return meta && meta.password !== '' && applies(meta, dir, meta.pSub) ? meta : null;
  }

  /**
   * Opening folder `dir` (list) or a file in it (get, download links): 403 when the folder's password guards it
   * and `password` is wrong or missing. Wrong guesses count toward the lockout (per folder and per address, as
   * logins: 429 when used up); a request without a password is no guess.
   */
  async requirePassword(viewer: Viewer, dir: string, password: string | undefined, ip: string): Promise<void> {
    const meta = await this.passwordGuard(viewer, dir);
    if (!meta) return;
    if (!password) throw forbidden(WRONG_FOLDER_PASSWORD);
    const attempt = this.guesses ? await this.guesses.reserve(folderPasswordKeys(meta.path, ip)) : null;
    if (this.guesses && !attempt) throw tooManyRequests(FOLDER_PASSWORD_LOCKED);
    const right = samePassword(password, meta.password);
    await attempt?.settle(right ? 'success' : 'failure');
    if (!right) throw forbidden(WRONG_FOLDER_PASSWORD);
  }

  /**
   * Opening `full` (a folder, or a file in its folder): hidden (for this viewer) → 403, then the folder password.
   * `dir` is the folder whose password applies: `full` for a folder, its parent for a file.
   */
  async requireAccess(viewer: Viewer, full: string, isDir: boolean, password: string | undefined, ip: string, from = '/'): Promise<void> {
    if (!(await this.isVisible(viewer, full, from))) throw forbidden(WRONG_FOLDER_PASSWORD);
    await this.requirePassword(viewer, isDir ? full : parentOf(full), password, ip);
  }

  /** Whether a download of the file at `full` must carry a valid sign whatever `sign_all` says (its folder has a password). */
  async needsSign(full: string): Promise<boolean> {
    return this.dirNeedsSign(parentOf(full));
  }

  /** Whether downloads of the files in folder `dir` need a sign whatever `sign_all` says. */
  async dirNeedsSign(dir: string): Promise<boolean> {
    return (await this.passwordGuard(null, dir)) !== null;
  }

  /** Whether a meta lets users without the write bit create content (mkdir, upload) in folder `dir`. */
  async metaGrantsWrite(dir: string): Promise<boolean> {
    const meta = await this.rules.nearest(dir);
    return meta !== null && meta.write && applies(meta, dir, meta.wSub);
  }

  /** Whether the user may create content (mkdir, upload) in folder `dir`: bit 3, or a meta write bypass. */
  async canWriteIn(user: User, dir: string): Promise<boolean> {
    return can(user, Perm.WRITE) || this.metaGrantsWrite(dir);
  }

  async requireWriteIn(user: User, dir: string): Promise<void> {
    if (!(await this.canWriteIn(user, dir))) throw forbidden('permission denied');
  }

  /**
   * The one check before any change, by every protocol and task: the permission `bit` (null: checked elsewhere,
   * e.g. by `requireWriteIn` or SFTP's bit 11), then every path in `paths` — a source, a target, an object
   * removed, replaced or created — must be visible to the user: neither it nor a folder above it (below the
   * user's base path) hidden by a meta. 403 otherwise, whether or not the object exists, so a hidden name is
   * neither changed nor revealed. Users with bit 0 and admins pass.
   */
  async requireChange(user: User, bit: number | null, paths: readonly string[]): Promise<void> {
    if (bit !== null) requirePerm(user, bit);
    if (can(user, Perm.SEE_HIDDEN)) return;
    for (const p of paths) if (!(await this.isVisible(user, p, user.basePath))) throw forbidden(HIDDEN_DENIED);
  }

  /** Markdown shown above (`header`) and below (`readme`) the listing of folder `dir`. */
  async folderTexts(dir: string): Promise<{ readme: string; header: string }> {
    const meta = await this.rules.nearest(dir);
    if (!meta) return { readme: '', header: '' };
    return { readme: applies(meta, dir, meta.rSub) ? meta.readme : '', header: applies(meta, dir, meta.headerSub) ? meta.header : '' };
  }
}
