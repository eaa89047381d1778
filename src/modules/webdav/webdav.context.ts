/**
 * One WebDAV request: who it is, which full virtual path its URL names (through the one path-safety
 * module, inside the user's base path), hrefs back, permission checks, and small shared helpers.
 */
import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, badRequest, forbidden, tooLarge } from '../../lib/errors.js';
import { cleanPath, joinBasePath, stripBasePath } from '../../lib/path-safety.js';
import { isDriverError, type Entry } from '../storages/drivers/index.js';
import { can, Perm, type User } from '../users/user.model.js';
import type { WebdavDeps } from './webdav.deps.js';

export const DAV_PREFIX = '/dav';
/** XML request bodies (PROPFIND, PROPPATCH, LOCK) are read up to this size. */
export const XML_BODY_LIMIT = 1024 * 1024;

/** A failure answered with a WebDAV status and optional XML body (precondition codes). */
export class DavError extends AppError {
  constructor(
    code: number,
    message: string,
    readonly xml: string | null = null,
  ) {
    super(code, message);
    this.name = 'DavError';
  }
}

/** Decodes a URL path below /dav into the user's view (`/a/b`); 400 on a malformed escape. */
export function davRelPath(pathname: string): string {
  if (pathname !== DAV_PREFIX && !pathname.startsWith(DAV_PREFIX + '/')) throw badRequest('not a WebDAV path');
  const rest = pathname.slice(DAV_PREFIX.length);
  const segs = rest.split('/').filter((s) => s !== '');
  const decoded = segs.map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      throw badRequest('malformed URL encoding in the path');
    }
  });
  for (const s of decoded) if (s.includes('/') || s.includes('\\')) throw forbidden('a path segment may not contain a slash');
  return '/' + decoded.join('/');
}

/** One path segment percent-encoded for an href (lone surrogates, which cannot be encoded, become U+FFFD). */
export function encodeSegment(s: string): string {
  const wellFormed = s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
  return encodeURIComponent(wellFormed).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** `/a b/ü` → `/a%20b/%C3%BC` (each segment encoded, slashes kept). */
export function encodePath(p: string): string {
  return p.split('/').map(encodeSegment).join('/');
}

export function isNotFound(e: unknown): boolean {
  return (e instanceof AppError && e.code === 404) || isDriverError(e, 'not_found');
}

export class DavContext {
  readonly base: string;
  /** The full virtual path the request URL names. */
  readonly full: string;

  constructor(
    readonly deps: WebdavDeps,
    readonly req: FastifyRequest,
    readonly reply: FastifyReply,
    readonly user: User,
  ) {
    this.base = cleanPath(user.basePath);
    this.full = this.fullOf(davRelPath(req.url.split('?')[0]!));
  }

  /** A user-view path → full virtual path (403 for `..`, NUL, …). */
  fullOf(rel: string): string {
    return joinBasePath(this.base, rel);
  }

  /** The href of a full path (collections end in `/`). */
  href(full: string, isDir: boolean): string {
    const rel = stripBasePath(this.base, full);
    if (rel === '/') return DAV_PREFIX + '/';
    return DAV_PREFIX + encodePath(rel) + (isDir ? '/' : '');
  }

  header(name: string): string | undefined {
    const v = this.req.headers[name];
    return Array.isArray(v) ? v[0] : v;
  }

  /** Bit 9 (WebDAV manage) and the matching fs bit; the admin role has every bit. */
  requireManage(fsBit?: number): void {
    if (!can(this.user, Perm.WEBDAV_MANAGE)) throw forbidden('permission denied: this user may not change files over WebDAV');
    if (fsBit !== undefined && !can(this.user, fsBit)) throw forbidden('permission denied');
  }

  /**
   * Metas, as the HTTP API applies them: a path hidden from this user (a `hide` pattern on it or on a folder
   * above it, below the base path) is refused (403), and so is a folder guarded by a folder password (the
   * folder itself, or the folder holding a file) unless the user has bit 1: WebDAV has no place to send a
   * folder password. Unmapped paths (PUT, MKCOL) are checked by name and by their parent folder.
   */
  async requireAccess(full: string): Promise<void> {
    const isDir = full === this.base || ((await this.exists(full))?.isDir ?? false);
    await this.deps.folderAccess.requireAccess(this.user, full, isDir, undefined, this.req.ip, this.base);
  }

  /** The names of folder `dir` this user may see (hide patterns of metas). */
  visibleIn(dir: string): Promise<(name: string) => boolean> {
    return this.deps.folderAccess.visibleIn(this.user, dir);
  }

  /** The user's own root cannot be removed, moved or replaced. */
  notTheRoot(full: string): void {
    if (full === this.base) throw forbidden('the root folder cannot be changed');
  }

  async exists(full: string): Promise<Entry | null> {
    try {
      return await this.deps.fs.stat(full);
    } catch (e) {
      if (isNotFound(e)) return null;
      throw e;
    }
  }

  /** The request body as text, at most XML_BODY_LIMIT bytes (413 beyond). */
  async bodyText(): Promise<string> {
    const raw = this.req.raw;
    const declared = Number(this.header('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > XML_BODY_LIMIT) throw tooLarge('body: request body is too large');
    if (raw.readableEnded) return '';
    const chunks: Buffer[] = [];
    let n = 0;
    for await (const c of raw as AsyncIterable<Buffer>) {
      n += c.length;
      if (n > XML_BODY_LIMIT) throw tooLarge('body: request body is too large');
      chunks.push(c);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  /** True when the request carries a body (declared or chunked). */
  hasBody(): boolean {
    return this.header('transfer-encoding') !== undefined || Number(this.header('content-length') ?? 0) > 0;
  }

  /** Depth header: '0', '1' or 'infinity' (missing → `dflt`); 400 otherwise. */
  depth(dflt: '0' | '1' | 'infinity'): '0' | '1' | 'infinity' {
    const d = this.header('depth')?.trim().toLowerCase();
    if (d === undefined || d === '') return dflt;
    if (d === '0' || d === '1' || d === 'infinity') return d;
    throw badRequest('Depth: must be 0, 1 or infinity');
  }

  sendXml(status: number, xml: string | Readable): FastifyReply {
    return this.reply.status(status).header('Content-Type', 'application/xml; charset=utf-8').send(xml);
  }
}

/** The WebDAV ETag of an entry: modification time (ms) and size, the same in listings and on GET. */
export function davEtag(e: Entry): string {
  return `"${e.modified.getTime().toString(16)}-${e.size.toString(16)}"`;
}
