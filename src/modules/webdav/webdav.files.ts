/**
 * WebDAV methods on files and folders: GET/HEAD (ranges, ETag, Last-Modified: fs/serve-file.ts), PUT
 * (streamed into the upload service: Content-Length, chunked, X-Expected-Entity-Length, X-OC-Mtime,
 * OC-Checksum, If-Match/If-None-Match), MKCOL, DELETE, COPY and MOVE (Destination, Overwrite, Depth).
 * Dead properties and locks follow what happens to their resource.
 */
import { Readable } from 'node:stream';
import { badRequest, forbidden } from '../../lib/errors.js';
import { HASH_HEX_LENGTH } from '../../lib/hashes.js';
import { assertSafeName } from '../../lib/path-safety.js';
import { baseName, isWithin, parentOf } from '../../lib/paths.js';
import { serveFile } from '../fs/serve-file.js';
import type { Hashes } from '../storages/drivers/index.js';
import { Perm } from '../users/user.model.js';
import { davEtag, DavError, davRelPath, DAV_PREFIX, encodePath, type DavContext } from './webdav.context.js';
import { checkIfHeader, requireUnlocked } from './webdav.locks.js';
import { escapeXml } from './webdav.xml.js';

const opaque = (t: string) => t.trim().replace(/^W\//, '');
const etagListHits = (header: string, etag: string) => header.split(',').some((t) => t.trim() === '*' || opaque(t) === opaque(etag));

export async function get(ctx: DavContext) {
  const { deps, full, req, reply } = ctx;
  const e = await deps.fs.stat(full);
  if (e.isDir) {
    reply.header('Content-Type', 'text/html; charset=utf-8');
    if (req.method === 'HEAD') return reply.status(200).send();
    const visible = await ctx.visibleIn(full);
    const items = (await deps.fs.list(full)).filter((c) => visible(c.name)).map((c) => {
      const href = ctx.href(full, true) + encodePath(c.name) + (c.isDir ? '/' : '');
      return `<li><a href="${escapeXml(href)}">${escapeXml(c.name)}${c.isDir ? '/' : ''}</a></li>`;
    });
    return reply.status(200).send(`<!doctype html><meta charset="utf-8"><title>${escapeXml(e.name)}</title><ul>${items.join('')}</ul>\n`);
  }
  // the entry just read is the file's (one stat, one hash-index look-up); sent like /d/ (fs/serve-file.ts)
  const { driver, inner } = await deps.fs.locate(full);
  return serveFile(req, reply, driver, inner, e, { etag: davEtag(e), inline: true });
}

/** The digests ownCloud-dialect clients compare after a transfer (rclone: owncloud MD5, nextcloud SHA-1). */
const OC_COMPARED = ['md5', 'sha1'] as const;

/** `OC-Checksum: SHA1:… MD5:…` → declared hashes (checked at commit; a mismatch stores nothing). */
function ocChecksum(h: string | undefined): Hashes {
  const out: Hashes = {};
  if (!h) return out;
  for (const part of h.trim().split(/\s+/)) {
    const m = /^(sha1|md5|sha256|sha-1|sha-256):([0-9a-f]+)$/i.exec(part);
    if (!m) continue;
    const alg = m[1]!.toLowerCase().replace('-', '') as keyof Hashes;
    const width = HASH_HEX_LENGTH[alg];
    if (m[2]!.length !== width) throw badRequest(`OC-Checksum: ${alg} must be ${width} hex digits`);
    out[alg] = m[2]!.toLowerCase();
  }
  return out;
}

export async function put(ctx: DavContext) {
  const { deps, full } = ctx;
  ctx.requireManage(Perm.WRITE);
  ctx.notTheRoot(full);
  if (full === '/') throw new DavError(405, 'cannot PUT to a collection');
  assertSafeName(baseName(full));
  const lists = await checkIfHeader(ctx);
  const cur = await ctx.exists(full);
  if (cur?.isDir) throw new DavError(405, 'cannot PUT to a collection');
  const im = ctx.header('if-match');
  if (im && (!cur || !etagListHits(im, davEtag(cur)))) throw new DavError(412, 'If-Match: the resource does not match');
  const inm = ctx.header('if-none-match');
  if (inm && cur && etagListHits(inm, davEtag(cur))) throw new DavError(412, 'If-None-Match: the resource matches');
  await requireUnlocked(ctx, lists, full, { membership: !cur });
  const parent = await ctx.exists(parentOf(full));
  if (!parent?.isDir) throw new DavError(409, 'the parent folder does not exist');

  let size: number | undefined;
  const cl = ctx.header('content-length');
  if (ctx.header('transfer-encoding') === undefined && cl !== undefined) size = Number(cl);
  const expected = ctx.header('x-expected-entity-length');
  if (size === undefined && expected !== undefined && /^\d+$/.test(expected)) size = Number(expected);
  const ocm = ctx.header('x-oc-mtime');
  let mtime: Date | undefined;
  if (ocm !== undefined) {
    const s = Number(ocm);
    if (!Number.isFinite(s) || s < 0) throw badRequest('X-OC-Mtime: must be Unix seconds');
    mtime = new Date(Math.round(s * 1000));
  }
  // The storage's digests (hash_on_write) plus the one the client declares, checked before the file is visible.
  // A client declaring OC-Checksum speaks the ownCloud dialect and compares a digest of its own afterwards
  // (rclone: nextcloud SHA-1, owncloud MD5): both are recorded, so its check is by hash, not by size.
  const declared = ctx.header('oc-checksum');
  const alsoHash = declared === undefined ? undefined : OC_COMPARED;
  await deps.uploads.store({ full, overwrite: true, asTask: false, size, mtime, expectedHashes: ocChecksum(declared), alsoHash }, ctx.req.raw);
  const now = await ctx.exists(full);
  if (now) ctx.reply.header('ETag', davEtag(now));
  if (mtime) ctx.reply.header('X-OC-MTime', 'accepted');
  return ctx.reply.status(cur ? 204 : 201).send();
}

/** An empty file (LOCK on an unmapped URL). */
export async function createEmpty(ctx: DavContext, full: string): Promise<void> {
  ctx.requireManage(Perm.WRITE);
  assertSafeName(baseName(full));
  await ctx.deps.uploads.store({ full, overwrite: false, asTask: false, size: 0, expectedHashes: {} }, Readable.from([]));
}

export async function mkcol(ctx: DavContext) {
  const { deps, full } = ctx;
  ctx.requireManage(Perm.WRITE);
  if (ctx.hasBody()) throw new DavError(415, 'MKCOL with a body is not supported');
  if (await ctx.exists(full)) throw new DavError(405, 'the resource exists');
  assertSafeName(baseName(full));
  const lists = await checkIfHeader(ctx);
  await requireUnlocked(ctx, lists, full, { membership: true });
  const parent = await ctx.exists(parentOf(full));
  if (!parent?.isDir) throw new DavError(409, 'the parent folder does not exist');
  await deps.fs.mkdir(full);
  return ctx.reply.status(201).send();
}

export async function remove(ctx: DavContext) {
  const { deps, full } = ctx;
  ctx.requireManage(Perm.REMOVE);
  ctx.notTheRoot(full);
  const e = await deps.fs.stat(full);
  if (e.isDir && ctx.depth('infinity') !== 'infinity') throw badRequest('Depth: DELETE of a collection needs Depth: infinity');
  const lists = await checkIfHeader(ctx);
  await requireUnlocked(ctx, lists, full, { deep: e.isDir, membership: true });
  await deps.fs.remove(full);
  await deps.store.deleteProps(full);
  await deps.store.dropLocksUnder(full);
  return ctx.reply.status(204).send();
}

/** The Destination header as a full virtual path: 502 for another host, 403 outside /dav or the base path. */
function destination(ctx: DavContext): string {
  const raw = ctx.header('destination');
  if (!raw) throw badRequest('Destination: header is required');
  let url: URL;
  const host = (ctx.header('host') ?? 'localhost').toLowerCase();
  try {
    url = new URL(raw, `http://${host}`);
  } catch {
    throw badRequest('Destination: not a URL');
  }
  if (!/^https?:$/.test(url.protocol)) throw new DavError(502, 'Destination: another server');
  const mine = new URL(`http://${host}`);
  const port = (u: URL) => u.port || (u.protocol === 'https:' ? '443' : '80');
  const samePort = url.port === mine.port || port(url) === port(mine);
  if (url.hostname.toLowerCase() !== mine.hostname || !samePort) throw new DavError(502, 'Destination: another server');
  if (url.pathname !== DAV_PREFIX && !url.pathname.startsWith(DAV_PREFIX + '/')) throw forbidden('Destination: outside the WebDAV namespace');
  return ctx.fullOf(davRelPath(url.pathname));
}

export async function copyMove(ctx: DavContext, kind: 'copy' | 'move') {
  const { deps, full: src } = ctx;
  const dst = destination(ctx);
  await ctx.requireAccess(dst);
  const ow = (ctx.header('overwrite') ?? 'T').trim().toUpperCase();
  if (ow !== 'T' && ow !== 'F') throw badRequest('Overwrite: must be T or F');
  const overwrite = ow === 'T';
  const depth = ctx.depth('infinity');
  if (depth === '1' || (kind === 'move' && depth !== 'infinity')) throw badRequest(`Depth: ${kind.toUpperCase()} takes ${kind === 'move' ? 'infinity' : '0 or infinity'}`);
  const samePlace = parentOf(src) === parentOf(dst);
  ctx.requireManage(kind === 'copy' ? Perm.COPY : samePlace ? Perm.RENAME : Perm.MOVE);
  if (kind === 'move') ctx.notTheRoot(src);
  ctx.notTheRoot(dst);
  if (dst === '/') throw forbidden('the root folder cannot be replaced');
  assertSafeName(baseName(dst));
  if (src === dst) throw forbidden('source and destination are the same');
  if (isWithin(src, dst)) throw forbidden(`cannot ${kind} a folder into itself`);
  // replacing a folder that holds the source would remove the source first
  if (isWithin(dst, src)) throw forbidden(`cannot ${kind} onto a folder that contains the source`);
  const e = await deps.fs.stat(src);
  const lists = await checkIfHeader(ctx);
  if (kind === 'move') await requireUnlocked(ctx, lists, src, { deep: true, membership: true });
  await requireUnlocked(ctx, lists, dst, { deep: true, membership: true });
  const parent = await ctx.exists(parentOf(dst));
  if (!parent?.isDir) throw new DavError(409, 'the destination folder does not exist');
  // objects the file's following sidecars would replace are checked like the destination itself
  for (const p of await deps.fs.sidecarsReplaced(src, dst)) await ctx.requireAccess(p);
  const existing = await ctx.exists(dst);
  if (existing) {
    if (!overwrite) throw new DavError(412, 'Destination exists and Overwrite is F');
    ctx.requireManage(Perm.REMOVE);
    await deps.fs.remove(dst);
    await deps.store.deleteProps(dst);
    await deps.store.dropLocksUnder(dst);
  }
  if (kind === 'move') {
    if (samePlace) await deps.fs.rename(src, baseName(dst), false);
    else await deps.fs.transfer('move', src, dst, { overwrite: false });
    await deps.store.moveProps(src, dst);
    await deps.store.dropLocksUnder(src);
  } else if (e.isDir && depth === '0') {
    await deps.fs.mkdir(dst);
    await deps.store.copyProps(src, dst, false);
  } else {
    await deps.fs.transfer('copy', src, dst, { overwrite: false });
    await deps.store.copyProps(src, dst, true);
  }
  return ctx.reply.status(existing ? 204 : 201).send();
}
