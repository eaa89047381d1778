/**
 * Shares (contract §8, OpenList `/api/share/*` and `/sd/…`).
 *
 * Storage: `files` holds FULL virtual paths (the creator's base path included), as
 * OpenList stores them. Presentation: the API returns each path relative to the
 * *viewing* user's base path, so what a client reads is what it may send back to
 * `update` (requests are resolved inside the sender's base path). For a user whose
 * base path is `/` — the admin by default — these are the full paths, exactly as in
 * OpenList. A path outside the viewer's base path (only an admin with a narrower
 * base path viewing someone else's share can meet one) is returned in full.
 *
 * A share is served only while valid: enabled, at least one file, under its download
 * limit, unexpired, and its creator still exists, is not disabled, holds bit 14 (admins
 * bypass bits), and (non-admins) still has every shared path inside their base path.
 *
 * Other modules use `createShare(...)` / `deleteShare(id)` / `isServableId(id)`
 * (seed generation creates one share per source and rolls them back on failure).
 */
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import type { FsService } from '../fs/fs.service.js';
import type { UsersRepo } from '../users/users.repo.js';
import { AppError, badRequest, conflict, forbidden, isAppError, notFound, tooManyRequests } from '../../lib/errors.js';
import { shareAddressKey, shareKey, type Lockout } from '../auth/lockout.js';
import { cleanPath, stripBasePath, UnsafePathError } from '../../lib/path-safety.js';
import { isoTime } from '../../lib/time.js';
import { isDriverError } from '../storages/drivers/index.js';
import type { Entry } from '../storages/drivers/types.js';
import { can, isAdmin, isGuest, Perm, type User } from '../users/user.model.js';
import { SharesRepo, type SharePatch, type ShareRow } from './shares.repo.js';
import { baseName, isWithin } from '../../lib/paths.js';
import { isUniqueViolation } from '../../db/errors.js';
import { requirePerm, userPath, type FolderAccess } from '../fs/access.js';

export const SHARE_NOT_FOUND = 'sharing not found';
export const SHARE_INVALID = 'the share has expired or is no longer valid';
export const WRONG_SHARE_CODE = 'wrong share code';
export const SHARE_LOCKED = 'too many wrong share codes; try again later';
/** Remark of the shares seed generation creates for its `openlist-share` sources (contract §10.3). */
export const SEED_SHARE_REMARK = 'Transfer seed source';

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ID_LENGTH = 8;
const ID_ATTEMPTS = 8;
const MAX_ID_LENGTH = 64;
const CUSTOM_ID_RE = /^[A-Za-z0-9_\-\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+$/u;

/** The share object of `get`, `create`, `update` and `list` items (fs-api.md §5.1, plus `url`). */
export interface ShareView {
  id: string;
  files: string[];
  expires: string | null;
  pwd: string;
  accessed: number;
  max_accessed: number;
  disabled: boolean;
  remark: string;
  creator: string;
  creator_role: number;
  url: string;
}

/** Fields of `create` / `update` requests (JSON, OpenList names). */
export interface ShareInput {
  files?: string[];
  expires?: string | null;
  pwd?: string;
  max_accessed?: number;
  accessed?: number;
  disabled?: boolean;
  remark?: string;
  /** Admin only: create/update as that user (username). */
  creator?: string;
}

export interface ShareCreateInput extends ShareInput {
  files: string[];
  /** Custom id (bit 15); empty or absent = generated. */
  id?: string;
}

export interface ShareUpdateInput extends ShareInput {
  id: string;
  /** Rename (bit 15). */
  new_id?: string;
}

/** What other modules pass to `createShare`. */
export interface CreateShareOptions {
  creatorId: number;
  /** FULL virtual paths. */
  files: string[];
  remark: string;
  /** Unix ms; null/absent = never. */
  expiresAt?: number | null;
  password?: string;
  maxAccessed?: number;
  /**
   * A fixed id for an idempotent create: when a share with this id already exists for the same
   * creator, files and remark (a retried or taken-over task creating it again), it is reused.
   */
  id?: string;
}

export function generateShareId(length = ID_LENGTH): string {
  let s = '';
  for (let i = 0; i < length; i++) s += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return s;
}

function assertCustomId(id: string, field: string): void {
  if ([...id].length > MAX_ID_LENGTH) throw badRequest(`${field}: share id must be at most ${MAX_ID_LENGTH} characters`);
  if (!CUSTOM_ID_RE.test(id)) throw badRequest(`${field}: share id can only contain letters, numbers, underscores, hyphens, and CJK characters`);
}

/** `expires` of a request: RFC 3339 / ISO 8601 string → Unix ms; null, "" or Go's zero time → never. */
export function parseExpires(v: string | null | undefined): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === null || v.trim() === '' || v.startsWith('0001-01-01')) return null;
  const t = Date.parse(v);
  if (!/^\d{4}-\d\d-\d\d/.test(v.trim()) || !Number.isFinite(t)) throw badRequest('expires: must be an RFC 3339 time (e.g. 2026-11-21T10:04:05.123Z) or null');
  return t;
}

export function parseFiles(row: ShareRow): string[] {
  try {
    const v = JSON.parse(row.files) as unknown;
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

function samePassword(given: string, stored: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(stored).digest();
  return timingSafeEqual(a, b);
}

/** A path as the viewer sees it (relative to their base path when it lies inside). */
function forViewer(viewer: User, full: string): string {
  const base = cleanPath(viewer.basePath);
  return isWithin(base, full) ? stripBasePath(base, full) : full;
}

export class SharesService {
  constructor(
    private readonly deps: {
      users: Pick<UsersRepo, 'byId' | 'byUsername'>;
      fs: Pick<FsService, 'stat' | 'list'>;
      lockout: Pick<Lockout, 'reserve'>;
      /**
       * Folder rules: names hidden by metas are not served from inside a shared folder (visitors see no hidden
       * names), and a name hidden from the sharing user cannot be shared.
       */
      folderAccess?: Pick<FolderAccess, 'isVisible' | 'requireChange' | 'visibleIn'>;
    },
    readonly repo: SharesRepo,
  ) {}

  // ---------------------------------------------------------------- presentation

  async present(rows: ShareRow[], viewer: User, site: string): Promise<ShareView[]> {
    const creators = new Map<number, User | null>();
    for (const r of rows) if (!creators.has(r.creator_id)) creators.set(r.creator_id, await this.deps.users.byId(r.creator_id));
    return rows.map((r) => {
      const c = creators.get(r.creator_id) ?? null;
      return {
        id: r.id,
        files: parseFiles(r).map((f) => forViewer(viewer, f)),
        expires: r.expires_at === null ? null : isoTime(r.expires_at),
        pwd: r.password,
        accessed: r.accessed,
        max_accessed: r.max_accessed,
        disabled: r.disabled === 1,
        remark: r.remark,
        creator: c?.username ?? '',
        creator_role: c?.role ?? 0,
        url: `${site}/sd/${encodeURIComponent(r.id)}`,
      };
    });
  }

  async presentOne(row: ShareRow, viewer: User, site: string): Promise<ShareView> {
    return (await this.present([row], viewer, site))[0]!;
  }

  // ---------------------------------------------------------------- API operations

  /** Own shares; admins see everyone's. Ordered by id. */
  list(viewer: User, offset: number, limit: number | null): Promise<{ rows: ShareRow[]; total: number }> {
    return this.repo.list(isAdmin(viewer) ? null : viewer.id, offset, limit);
  }

  /** A share the viewer may manage; another user's share is as unknown as a missing one. */
  async get(viewer: User, id: string): Promise<ShareRow> {
    const row = await this.repo.byId(id);
    if (!row || (!isAdmin(viewer) && row.creator_id !== viewer.id)) throw notFound(SHARE_NOT_FOUND);
    return row;
  }

  async create(viewer: User, input: ShareCreateInput): Promise<ShareRow> {
    requirePerm(viewer, Perm.SHARE);
    const custom = input.id ?? '';
    if (custom !== '') {
      requirePerm(viewer, Perm.CUSTOM_SHARE_ID);
      assertCustomId(custom, 'id');
    }
    const owner = await this.ownerFor(viewer, input.creator, viewer);
    const files = await this.resolveRequestFiles(viewer, owner, input.files);
    const expires = parseExpires(input.expires);
    const row: ShareRow = {
      id: custom,
      creator_id: owner.id,
      files: JSON.stringify(files),
      password: input.pwd ?? '',
      expires_at: expires ?? null,
      max_accessed: input.max_accessed ?? 0,
      accessed: input.accessed ?? 0,
      disabled: input.disabled ? 1 : 0,
      remark: input.remark ?? '',
      created_at: Date.now(),
    };
    if (custom !== '') {
      try {
        await this.repo.insert(row);
      } catch (e) {
        if (isUniqueViolation(e)) throw conflict('sharing already exist');
        throw e;
      }
      return row;
    }
    return this.insertWithGeneratedId(row);
  }

  /** Updates the given fields (omitted ones keep their value). */
  async update(viewer: User, input: ShareUpdateInput): Promise<ShareRow> {
    requirePerm(viewer, Perm.SHARE);
    const row = await this.get(viewer, input.id);
    const patch: SharePatch = {};
    const newId = input.new_id ?? '';
    if (newId !== '' && newId !== row.id) {
      requirePerm(viewer, Perm.CUSTOM_SHARE_ID);
      assertCustomId(newId, 'new_id');
      patch.id = newId;
    }
    // The creator stays unless an admin names another one; a deleted creator's share
    // (reachable by admins only) keeps its creator id and is checked as the admin's.
    const current = await this.deps.users.byId(row.creator_id);
    let owner = current ?? viewer;
    if (input.creator !== undefined && input.creator !== '') {
      owner = await this.ownerFor(viewer, input.creator, owner);
      if (owner.id !== row.creator_id) patch.creator_id = owner.id;
    }
    if (input.files !== undefined) {
      patch.files = JSON.stringify(await this.resolveRequestFiles(viewer, owner, input.files));
    } else if (patch.creator_id !== undefined) {
      for (const f of parseFiles(row)) this.assertOwnerMayShare(owner, f);
    }
    const expires = parseExpires(input.expires);
    if (expires !== undefined) patch.expires_at = expires;
    if (input.pwd !== undefined) patch.password = input.pwd;
    if (input.max_accessed !== undefined) patch.max_accessed = input.max_accessed;
    if (input.accessed !== undefined) patch.accessed = input.accessed;
    if (input.disabled !== undefined) patch.disabled = input.disabled ? 1 : 0;
    if (input.remark !== undefined) patch.remark = input.remark;
    try {
      if (!(await this.repo.update(row.id, patch))) throw notFound(SHARE_NOT_FOUND);
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict('sharing id already exists');
      throw e;
    }
    const updated = await this.repo.byId(patch.id ?? row.id);
    if (!updated) throw notFound(SHARE_NOT_FOUND);
    return updated;
  }

  async delete(viewer: User, id: string): Promise<void> {
    const row = await this.get(viewer, id);
    if (!(await this.repo.delete(row.id))) throw notFound(SHARE_NOT_FOUND);
  }

  async setDisabled(viewer: User, id: string, disabled: boolean): Promise<void> {
    const row = await this.get(viewer, id);
    if (!(await this.repo.update(row.id, { disabled: disabled ? 1 : 0 }))) throw notFound(SHARE_NOT_FOUND);
  }

  // ---------------------------------------------------------------- for other modules

  /**
   * Creates a share with a generated id for `creatorId` over FULL paths (seed generation's
   * `share_files`). The creator must exist, not be the guest, hold bit 14, and (non-admins)
   * own the paths through their base path; every path must exist. Returns the id and the
   * URL path `/sd/<id>` (prefix it with the site).
   */
  async createShare(o: CreateShareOptions): Promise<{ id: string; path: string }> {
    const creator = await this.deps.users.byId(o.creatorId);
    if (!creator || isGuest(creator)) throw badRequest('creator: no such a user');
    requirePerm(creator, Perm.SHARE);
    if (o.files.length === 0) throw badRequest('files: must add at least 1 object');
    const files = await this.checkFiles(
      creator,
      o.files.map((f) => cleanPath(f)),
      o.files,
    );
    const fresh: ShareRow = {
      id: o.id ?? '',
      creator_id: creator.id,
      files: JSON.stringify(files),
      password: o.password ?? '',
      expires_at: o.expiresAt ?? null,
      max_accessed: o.maxAccessed ?? 0,
      accessed: 0,
      disabled: 0,
      remark: o.remark,
      created_at: Date.now(),
    };
    const row = o.id === undefined ? await this.insertWithGeneratedId(fresh) : await this.insertOrReuse(fresh);
    return { id: row.id, path: `/sd/${encodeURIComponent(row.id)}` };
  }

  /** Inserts a share with a fixed id, or returns the same share created earlier under that id. */
  private async insertOrReuse(row: ShareRow): Promise<ShareRow> {
    try {
      await this.repo.insert(row);
      return row;
    } catch (e) {
      if (!isUniqueViolation(e)) throw e;
      const existing = await this.repo.byId(row.id);
      if (existing && existing.creator_id === row.creator_id && existing.files === row.files && existing.remark === row.remark) return existing;
      throw conflict(`share id ${row.id} is taken`);
    }
  }

  /** Deletes a share by id, whoever owns it (rollback of `createShare`); false when absent. */
  deleteShare(id: string): Promise<boolean> {
    return this.repo.delete(id);
  }

  // ---------------------------------------------------------------- anonymous access (/sd)

  /**
   * The share to serve: 404 when unknown or invalid, 403 on a wrong password, 429 when the share or the
   * client address (`ip`) used up its guesses (5 per 15 minutes each, as logins; see auth/lockout.ts). A
   * request without a password (a browser's first visit) is no guess and does not count.
   */
  async open(id: string, pwd: string | undefined, ip: string): Promise<{ row: ShareRow; files: string[] }> {
    const row = await this.repo.byId(id);
    if (!row) throw notFound(SHARE_NOT_FOUND);
    const files = parseFiles(row);
    if (!(await this.isValid(row, files))) throw notFound(SHARE_INVALID);
    if (row.password === '') return { row, files };
    if (!pwd) throw forbidden(WRONG_SHARE_CODE);
    const attempt = await this.deps.lockout.reserve([shareKey(row.id), shareAddressKey(ip)]);
    if (!attempt) throw tooManyRequests(SHARE_LOCKED);
    const right = samePassword(pwd, row.password);
    await attempt.settle(right ? 'success' : 'failure');
    if (!right) throw forbidden(WRONG_SHARE_CODE);
    return { row, files };
  }

  /** Whether the share with this id exists and would be served now. */
  async isServableId(id: string): Promise<boolean> {
    const row = await this.repo.byId(id);
    return row !== null && (await this.isValid(row));
  }

  async isValid(row: ShareRow, files = parseFiles(row), now = Date.now()): Promise<boolean> {
    if (row.disabled !== 0 || files.length === 0) return false;
    if (row.max_accessed > 0 && row.accessed >= row.max_accessed) return false;
    if (row.expires_at !== null && row.expires_at <= now) return false;
    const creator = await this.deps.users.byId(row.creator_id);
    if (!creator || creator.disabled || isGuest(creator) || !can(creator, Perm.SHARE)) return false;
    if (!isAdmin(creator)) {
      const base = cleanPath(creator.basePath);
      if (!files.every((f) => isWithin(base, f))) return false;
    }
    return true;
  }

  /**
   * The full path of the file `sub` names inside the share (`sub` as it came in the URL
   * after `/sd/<id>`). Single file: `` or its own name. Single folder: a path below it.
   * Several items: `<base name>[/<path below>]`. Directories and anything else → 404;
   * `..` in any form → 403 (never leaves the shared item).
   */
  async target(files: string[], sub: string): Promise<string> {
    const at = await this.locateIn(files, sub);
    if (!at) throw notFound('cannot get sharing root link: this share holds several items');
    if (at.isDir) throw notFound('object not found');
    return at.full;
  }

  /**
   * What a share visitor sees at `sub` (same addressing as `target`): a folder's entries without the names
   * metas hide, the shared items themselves at the top of a share of several, or the one file `sub` names.
   */
  async listing(files: string[], sub: string): Promise<{ isDir: boolean; entries: Entry[] }> {
    const at = await this.locateIn(files, sub);
    if (!at) return { isDir: true, entries: await Promise.all(files.map(async (f) => ({ ...(await this.deps.fs.stat(f)), name: baseName(f) }))) };
    if (!at.isDir) return { isDir: false, entries: [{ ...(await this.deps.fs.stat(at.full)), name: baseName(at.full) }] };
    const entries = await this.deps.fs.list(at.full);
    const visible = this.deps.folderAccess ? await this.deps.folderAccess.visibleIn(null, at.full) : () => true;
    return { isDir: true, entries: entries.filter((e) => visible(e.name)) };
  }

  /** Where `sub` points inside the share, or null for the top of a share of several items (see `target`). */
  private async locateIn(files: string[], sub: string): Promise<{ full: string; isDir: boolean } | null> {
    const rel = cleanPath(sub);
    const segs = rel.split('/').filter(Boolean);
    let root: string;
    let rest: string[];
    if (files.length === 1) {
      root = files[0]!;
      if (!(await this.isDir(root))) {
        if (segs.length === 0 || (segs.length === 1 && segs[0] === baseName(root))) return { full: root, isDir: false };
        throw notFound('object not found');
      }
      rest = segs;
    } else {
      if (segs.length === 0) return null;
      const hit = files.find((f) => baseName(f) === segs[0]);
      if (!hit) throw notFound('object not found');
      root = hit;
      rest = segs.slice(1);
      if (rest.length > 0 && !(await this.isDir(root))) throw notFound('object not found');
    }
    const full = rest.length === 0 ? root : `${root === '/' ? '' : root}/${rest.join('/')}`;
    if (!isWithin(root, full)) throw new UnsafePathError();
    if (this.deps.folderAccess && !(await this.deps.folderAccess.isVisible(null, full, root))) throw notFound('object not found');
    return { full, isDir: await this.isDir(full) };
  }

  claimAccess(id: string): Promise<boolean> {
    return this.repo.claimAccess(id, Date.now());
  }

  refundAccess(id: string): Promise<void> {
    return this.repo.refundAccess(id);
  }

  // ---------------------------------------------------------------- helpers

  /** Whether `full` is a folder; a missing path (or one below a file) is 404. */
  private async isDir(full: string): Promise<boolean> {
    try {
      return (await this.deps.fs.stat(full)).isDir;
    } catch (e) {
      if (isDriverError(e, 'not_found') || isDriverError(e, 'not_a_directory')) throw notFound('object not found');
      throw e;
    }
  }

  private async insertWithGeneratedId(row: ShareRow): Promise<ShareRow> {
    for (let i = 0; i < ID_ATTEMPTS; i++) {
      const candidate = { ...row, id: generateShareId() };
      try {
        await this.repo.insert(candidate);
        return candidate;
      } catch (e) {
        if (!isUniqueViolation(e)) throw e;
      }
    }
    throw new AppError(500, 'failed find valid id');
  }

  /** The user a share is created/updated for: the viewer, or (admins only) the named `creator`. */
  private async ownerFor(viewer: User, creator: string | undefined, fallback: User): Promise<User> {
    if (creator === undefined || creator === '') return fallback;
    if (creator === viewer.username) return viewer;
    if (!isAdmin(viewer)) throw forbidden('permission denied');
    const u = await this.deps.users.byUsername(creator);
    if (!u) throw badRequest('creator: no such a user');
    if (isGuest(u)) throw badRequest('creator: the guest cannot own shares');
    return u;
  }

  private assertOwnerMayShare(owner: User, full: string, shown = full): void {
    if (!isAdmin(owner) && !isWithin(cleanPath(owner.basePath), full)) throw forbidden(`permission denied to share path [${shown}]`);
  }

  /** Request `files` (relative to the viewer's base path) → checked full paths. */
  private async resolveRequestFiles(viewer: User, owner: User, files: string[]): Promise<string[]> {
    if (files.length === 0) throw badRequest('files: must add at least 1 object');
    const full = files.map((f, i) => {
      if (f.trim() === '') throw badRequest(`files[${i}]: must not be empty`);
      return userPath(viewer, f);
    });
    await this.deps.folderAccess?.requireChange(viewer, null, full);
    return this.checkFiles(owner, full, files);
  }

  /** Every path inside the owner's reach and existing; no duplicates; distinct names when several. */
  private async checkFiles(owner: User, full: string[], shown: string[]): Promise<string[]> {
    const out: string[] = [];
    // a name hidden from the owner is never shared (refused before its existence is looked at)
    await this.deps.folderAccess?.requireChange(owner, null, full);
    for (let i = 0; i < full.length; i++) {
      const f = full[i]!;
      this.assertOwnerMayShare(owner, f, shown[i]);
      try {
        await this.isDir(f);
      } catch (e) {
        if (isAppError(e) && e.code === 404) throw notFound(`files[${i}]: ${shown[i]} does not exist`);
        throw e;
      }
      if (!out.includes(f)) out.push(f);
    }
    if (out.length > 1) {
      const names = new Set<string>();
      for (const f of out) {
        const n = baseName(f);
        if (n === '') throw badRequest('files: the root cannot be shared together with other items');
        if (names.has(n)) throw badRequest(`files: two shared items are both named "${n}"`);
        names.add(n);
      }
    }
    return out;
  }
}
