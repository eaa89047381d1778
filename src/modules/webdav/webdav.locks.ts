/**
 * WebDAV class 2: LOCK/UNLOCK (exclusive and shared write locks, depth 0 or infinity, timeouts) kept in
 * the database so every instance honours them, and the `If:` header (RFC 4918 §10.4) that writes must
 * carry: a write to a locked resource (or into a locked collection) needs the lock's token, submitted by
 * the lock's owner; an `If:` header that evaluates false answers 412.
 */
import { randomUUID } from 'node:crypto';
import { badRequest, forbidden } from '../../lib/errors.js';
import { isWithin, parentOf } from '../../lib/paths.js';
import { isAdmin } from '../users/user.model.js';
import { davEtag, DavError, davRelPath, type DavContext } from './webdav.context.js';
import type { LockRow } from './webdav.store.js';
import { child, childElements, DAV_NS, errorXml, escapeXml, innerXml, parseXml } from './webdav.xml.js';

export const DEFAULT_TIMEOUT_S = 3600;
export const MAX_TIMEOUT_S = 7 * 24 * 3600;

interface Condition {
  not: boolean;
  token?: string;
  etag?: string;
}
interface IfList {
  /** Full virtual path of the tagged resource; null = the request URL. */
  resource: string | null;
  conds: Condition[];
}

/** Parses an `If:` header; 400 when it is not one. */
export function parseIf(ctx: DavContext, header: string): IfList[] {
  const out: IfList[] = [];
  let i = 0;
  let resource: string | null = null;
  const s = header;
  const skip = () => {
    while (i < s.length && /\s/.test(s[i]!)) i++;
  };
  const until = (close: string): string => {
    const j = s.indexOf(close, i);
    if (j < 0) throw badRequest('If: malformed header');
    const v = s.slice(i, j);
    i = j + 1;
    return v;
  };
  skip();
  while (i < s.length) {
    if (s[i] === '<') {
      i++;
      resource = taggedPath(ctx, until('>'));
    } else if (s[i] === '(') {
      i++;
      const conds: Condition[] = [];
      skip();
      while (i < s.length && s[i] !== ')') {
        let not = false;
        if (/^not\b/i.test(s.slice(i, i + 4))) {
          not = true;
          i += 3;
          skip();
        }
        if (s[i] === '<') {
          i++;
          conds.push({ not, token: until('>') });
        } else if (s[i] === '[') {
          i++;
          conds.push({ not, etag: until(']') });
        } else throw badRequest('If: malformed header');
        skip();
      }
      if (s[i] !== ')' || conds.length === 0) throw badRequest('If: malformed header');
      i++;
      out.push({ resource, conds });
    } else throw badRequest('If: malformed header');
    skip();
  }
  if (out.length === 0) throw badRequest('If: malformed header');
  return out;
}

/** The full path of a tagged resource (absolute URL or absolute path); null for one outside /dav. */
function taggedPath(ctx: DavContext, url: string): string | null {
  try {
    const pathname = /^[a-z][a-z0-9+.-]*:/i.test(url) ? new URL(url).pathname : url.split('?')[0]!;
    return ctx.fullOf(davRelPath(pathname));
  } catch {
    return null;
  }
}

const opaque = (t: string) => t.trim().replace(/^W\//, '');

/** Tokens submitted (not negated) in the request's `If:` header. */
export function submittedTokens(lists: IfList[]): Set<string> {
  const out = new Set<string>();
  for (const l of lists) for (const c of l.conds) if (c.token && !c.not) out.add(c.token);
  return out;
}

async function evaluate(ctx: DavContext, lists: IfList[]): Promise<boolean> {
  for (const l of lists) {
    const path = l.resource === null ? ctx.full : l.resource;
    if (path === null) continue;
    let ok = true;
    for (const c of l.conds) {
      let v: boolean;
      if (c.token !== undefined) {
        const lock = await ctx.deps.store.lockByToken(c.token);
        v = lock !== null && (lock.path === path || (lock.deep && isWithin(lock.path, path)));
      } else {
        const e = await ctx.exists(path);
        v = e !== null && !e.isDir && opaque(davEtag(e)) === opaque(c.etag!);
      }
      if (c.not) v = !v;
      if (!v) {
        ok = false;
        break;
      }
    }
    if (ok) return true;
  }
  return false;
}

/** The parsed `If:` header (evaluated: 412 when false), or an empty list when there is none. */
export async function checkIfHeader(ctx: DavContext): Promise<IfList[]> {
  const h = ctx.header('if');
  if (!h) return [];
  const lists = parseIf(ctx, h);
  if (!(await evaluate(ctx, lists))) throw new DavError(412, 'If: no condition list matches');
  return lists;
}

/**
 * A write to `path` may go ahead: every live lock on it (or on an ancestor, with depth infinity, or on its
 * parent for a member added or removed; or below it when `deep`) has its token in `If:`, sent by its owner.
 */
export async function requireUnlocked(ctx: DavContext, lists: IfList[], path: string, o: { deep?: boolean; membership?: boolean } = {}): Promise<void> {
  const locks = await ctx.deps.store.locksAffecting(path, o.deep ?? false);
  if (o.membership && path !== '/') {
    const parent = parentOf(path);
    for (const l of await ctx.deps.store.locksAffecting(parent, false)) if (l.path === parent && !locks.some((x) => x.token === l.token)) locks.push(l);
  }
  if (locks.length === 0) return;
  const tokens = submittedTokens(lists);
  for (const l of locks) {
    if (tokens.has(l.token) && l.userId === ctx.user.id) continue;
    throw new DavError(423, 'the resource is locked', lockedXml(ctx, l.path));
  }
}

function lockedXml(ctx: DavContext, path: string): string {
  let href = path;
  try {
    href = ctx.href(path, false);
  } catch {
    /* another user's view */
  }
  return `<?xml version="1.0" encoding="utf-8"?>\n<D:error xmlns:D="DAV:"><D:lock-token-submitted><D:href>${escapeXml(href)}</D:href></D:lock-token-submitted></D:error>\n`;
}

export function activeLockXml(ctx: DavContext, l: LockRow, now = Date.now()): string {
  let root = l.path;
  try {
    root = ctx.href(l.path, false);
  } catch {
    /* another user's view */
  }
  const left = Math.max(0, Math.ceil((l.expiresAt - now) / 1000));
  return (
    `<D:activelock><D:locktype><D:write/></D:locktype><D:lockscope>${l.exclusive ? '<D:exclusive/>' : '<D:shared/>'}</D:lockscope>` +
    `<D:depth>${l.deep ? 'infinity' : '0'}</D:depth>${l.owner ? `<D:owner>${l.owner}</D:owner>` : ''}<D:timeout>Second-${left}</D:timeout>` +
    `<D:locktoken><D:href>${escapeXml(l.token)}</D:href></D:locktoken><D:lockroot><D:href>${escapeXml(root)}</D:href></D:lockroot></D:activelock>`
  );
}

function timeoutOf(ctx: DavContext): number {
  const h = ctx.header('timeout');
  if (!h) return DEFAULT_TIMEOUT_S;
  for (const part of h.split(',')) {
    const t = part.trim();
    if (/^infinite$/i.test(t)) return MAX_TIMEOUT_S;
    const m = /^second-(\d+)$/i.exec(t);
    if (m) return Math.max(1, Math.min(MAX_TIMEOUT_S, Number(m[1])));
  }
  return DEFAULT_TIMEOUT_S;
}

function lockReply(ctx: DavContext, status: number, l: LockRow) {
  ctx.reply.header('Lock-Token', `<${l.token}>`);
  return ctx.sendXml(status, `<?xml version="1.0" encoding="utf-8"?>\n<D:prop xmlns:D="DAV:"><D:lockdiscovery>${activeLockXml(ctx, l)}</D:lockdiscovery></D:prop>\n`);
}

/** LOCK: a new lock (creating an empty file at an unmapped URL), or a refresh (no body, token in `If:`). */
export async function lock(ctx: DavContext, createEmpty: (full: string) => Promise<void>) {
  ctx.requireManage();
  const lists = await checkIfHeader(ctx);
  const body = parseXml(await ctx.bodyText());
  const timeoutS = timeoutOf(ctx);
  if (!body) {
    const tokens = submittedTokens(lists);
    const live = (await ctx.deps.store.locksAffecting(ctx.full, false)).filter((l) => tokens.has(l.token));
    const mine = live[0];
    if (!mine) throw new DavError(412, 'LOCK refresh: no lock of this resource is named in If:', errorXml('lock-token-matches-request-uri'));
    if (mine.userId !== ctx.user.id) throw forbidden('the lock belongs to another user');
    await ctx.deps.store.refreshLock(mine.token, timeoutS);
    return lockReply(ctx, 200, { ...mine, timeoutS, expiresAt: Date.now() + timeoutS * 1000 });
  }
  if (body.ns !== DAV_NS || body.name !== 'lockinfo') throw badRequest('LOCK: the body must be a DAV:lockinfo element');
  const scope = child(body, DAV_NS, 'lockscope');
  const exclusive = !!scope && childElements(scope).some((e) => e.ns === DAV_NS && e.name === 'exclusive');
  const shared = !!scope && childElements(scope).some((e) => e.ns === DAV_NS && e.name === 'shared');
  if (exclusive === shared) throw badRequest('LOCK: lockscope must be exclusive or shared');
  const type = child(body, DAV_NS, 'locktype');
  if (!type || !child(type, DAV_NS, 'write')) throw badRequest('LOCK: only write locks exist');
  const owner = child(body, DAV_NS, 'owner');
  const depth = ctx.depth('infinity');
  if (depth === '1') throw badRequest('Depth: a lock has depth 0 or infinity');

  let status = 200;
  const e = await ctx.exists(ctx.full);
  if (!e) {
    await requireUnlocked(ctx, lists, ctx.full, { membership: true });
    const parent = await ctx.exists(parentOf(ctx.full));
    if (!parent?.isDir) throw new DavError(409, 'the parent folder does not exist');
    await createEmpty(ctx.full);
    status = 201;
  }
  const l: LockRow = {
    token: `urn:uuid:${randomUUID()}`,
    path: ctx.full,
    deep: depth === 'infinity' && (e?.isDir ?? false),
    exclusive,
    owner: owner ? innerXml(owner) : '',
    userId: ctx.user.id,
    timeoutS,
    expiresAt: Date.now() + timeoutS * 1000,
  };
  const added = await ctx.deps.store.addLock(l, (existing) => existing.some((x) => x.exclusive || exclusive));
  if (!added) throw new DavError(423, 'the resource is already locked', errorXml('no-conflicting-lock'));
  return lockReply(ctx, status, l);
}

export async function unlock(ctx: DavContext) {
  ctx.requireManage();
  const raw = ctx.header('lock-token')?.trim() ?? '';
  const m = /^<(.+)>$/.exec(raw);
  if (!m) throw badRequest('Lock-Token: header is required (<token>)');
  const l = await ctx.deps.store.lockByToken(m[1]!);
  if (!l || !(l.path === ctx.full || (l.deep && isWithin(l.path, ctx.full)))) {
    throw new DavError(409, 'no such lock on this resource', errorXml('lock-token-matches-request-uri'));
  }
  if (l.userId !== ctx.user.id && !isAdmin(ctx.user)) throw forbidden('the lock belongs to another user');
  await ctx.deps.store.removeLock(l.token);
  return ctx.reply.status(204).send();
}

