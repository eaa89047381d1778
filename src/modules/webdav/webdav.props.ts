/**
 * PROPFIND (Depth 0 and 1; infinity refused with 403 `propfind-finite-depth`, RFC 4918 §9.1) and PROPPATCH
 * (dead properties in the database; `getlastmodified` and `Win32LastModifiedTime` set the file's mtime).
 */
import { Readable } from 'node:stream';
import { badRequest } from '../../lib/errors.js';
import { joinPath } from '../../lib/paths.js';
import { contentType } from '../fs/serve-file.js';
import type { Listing } from '../fs/fs.service.js';
import { entryAt } from '../storages/drivers/columns.js';
import type { Entry, Hashes } from '../storages/drivers/index.js';
import { davEtag, DavError, encodeSegment, type DavContext } from './webdav.context.js';
import { activeLockXml, checkIfHeader, requireUnlocked } from './webdav.locks.js';
import type { DeadProp, LockRow } from './webdav.store.js';
import {
  child,
  childElements,
  DAV_NS,
  errorXml,
  escapeXml,
  innerXml,
  MULTISTATUS_CLOSE,
  MULTISTATUS_OPEN,
  OC_NS,
  parseXml,
  propXml,
  responseXml,
  textOf,
  type XmlElement,
} from './webdav.xml.js';

export const MS_NS = 'urn:schemas-microsoft-com:';
/** Folders with more children than this are streamed. */
const STREAM_BATCH = 256;
/**
 * Responses per chunk of a streamed multistatus (~700 bytes each): a chunk stays well under V8's large-object
 * size (~128 KB), so it is young garbage freed by the next scavenge. Chunks of 256 (~190 KB strings) went to the
 * large-object space, which only a full collection frees: 20 concurrent listings of 10,000 entries then grew the
 * heap by ~200 MB before one ran.
 */
const CHUNK = 32;

/** Live properties shown by `allprop` and `propname` (RFC 4918 §15). */
const LIVE = ['resourcetype', 'displayname', 'getlastmodified', 'creationdate', 'getcontentlength', 'getcontenttype', 'getetag', 'supportedlock', 'lockdiscovery'];
/** Live properties a client may not set. */
const PROTECTED = new Set(['resourcetype', 'getetag', 'getcontentlength', 'getcontenttype', 'supportedlock', 'lockdiscovery', 'creationdate']);

const SUPPORTED_LOCK =
  '<D:lockentry><D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>' +
  '<D:lockentry><D:lockscope><D:shared/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>';

type Want = { kind: 'allprop'; include: XmlElement[] } | { kind: 'propname' } | { kind: 'prop'; props: XmlElement[] };

function parsePropfind(body: XmlElement | null): Want {
  if (!body) return { kind: 'allprop', include: [] };
  if (body.ns !== DAV_NS || body.name !== 'propfind') throw badRequest('PROPFIND: the body must be a DAV:propfind element');
  const kids = childElements(body);
  const prop = kids.find((k) => k.ns === DAV_NS && k.name === 'prop');
  if (prop) return { kind: 'prop', props: childElements(prop) };
  if (kids.some((k) => k.ns === DAV_NS && k.name === 'propname')) return { kind: 'propname' };
  if (kids.some((k) => k.ns === DAV_NS && k.name === 'allprop')) {
    const inc = kids.find((k) => k.ns === DAV_NS && k.name === 'include');
    return { kind: 'allprop', include: inc ? childElements(inc) : [] };
  }
  throw badRequest('PROPFIND: expected prop, propname or allprop');
}

/** Everything known about one resource for the reply. */
interface Item {
  full: string;
  entry: Entry;
  dead: DeadProp[];
  locks: LockRow[];
  hashes?: Hashes;
}

function checksums(h: Hashes | undefined): string | null {
  if (!h) return null;
  const parts: string[] = [];
  if (h.sha1) parts.push(`SHA1:${h.sha1}`);
  if (h.md5) parts.push(`MD5:${h.md5}`);
  if (h.sha256) parts.push(`SHA256:${h.sha256}`);
  return parts.length ? `<oc:checksum>${parts.join(' ')}</oc:checksum>` : null;
}

/** A live property's value XML, or undefined when the resource has no such property. */
function liveValue(ctx: DavContext, it: Item, name: string): string | undefined {
  const e = it.entry;
  switch (name) {
    case 'resourcetype':
      return e.isDir ? '<D:collection/>' : '';
    case 'displayname':
      return escapeXml(e.name === 'root' && it.full === ctx.base ? '' : e.name);
    case 'getlastmodified':
      return e.modified.toUTCString();
    case 'creationdate':
      return (e.created ?? e.modified).toISOString();
    case 'getcontentlength':
      return e.isDir ? undefined : String(e.size);
    case 'getcontenttype':
      return e.isDir ? undefined : escapeXml(contentType(e.name));
    case 'getetag':
      return e.isDir ? undefined : escapeXml(davEtag(e));
    case 'supportedlock':
      return SUPPORTED_LOCK;
    case 'lockdiscovery':
      return it.locks.map((l) => activeLockXml(ctx, l)).join('');
    default:
      return undefined;
  }
}

function propsOf(ctx: DavContext, it: Item, want: Want): Array<readonly [number, string[]]> {
  const ok: string[] = [];
  const missing: string[] = [];
  if (want.kind === 'propname') {
    for (const n of LIVE) if (liveValue(ctx, it, n) !== undefined) ok.push(propXml(DAV_NS, n, null));
    for (const d of it.dead) ok.push(propXml(d.ns, d.name, null));
    return [[200, ok]];
  }
  if (want.kind === 'allprop') {
    for (const n of LIVE) {
      const v = liveValue(ctx, it, n);
      if (v !== undefined) ok.push(propXml(DAV_NS, n, v));
    }
    for (const d of it.dead) ok.push(propXml(d.ns, d.name, d.value));
    for (const p of want.include) if (p.ns === OC_NS && p.name === 'checksums') ok.push(propXml(OC_NS, 'checksums', checksums(it.hashes)));
    return [[200, ok]];
  }
  for (const p of want.props) {
    if (p.ns === DAV_NS) {
      const v = liveValue(ctx, it, p.name);
      if (v !== undefined) {
        ok.push(propXml(DAV_NS, p.name, v));
        continue;
      }
    }
    if (p.ns === OC_NS && p.name === 'checksums' && !it.entry.isDir) {
      ok.push(propXml(OC_NS, 'checksums', checksums(it.hashes)));
      continue;
    }
    const d = it.dead.find((x) => x.ns === p.ns && x.name === p.name);
    if (d) ok.push(propXml(d.ns, d.name, d.value));
    else missing.push(propXml(p.ns, p.name, null));
  }
  return [
    [200, ok],
    [404, missing],
  ];
}

function wantsChecksums(want: Want): boolean {
  const list = want.kind === 'prop' ? want.props : want.kind === 'allprop' ? want.include : [];
  return list.some((p) => p.ns === OC_NS && p.name === 'checksums');
}

function wantsDead(want: Want): boolean {
  return want.kind !== 'prop' || want.props.some((p) => p.ns !== DAV_NS && p.ns !== OC_NS);
}

function wantsLocks(want: Want): boolean {
  return want.kind === 'allprop' || (want.kind === 'prop' && want.props.some((p) => p.ns === DAV_NS && p.name === 'lockdiscovery'));
}

const NONE: never[] = [];

export async function propfind(ctx: DavContext) {
  const depth = ctx.depth('infinity');
  if (depth === 'infinity') throw new DavError(403, 'PROPFIND with Depth: infinity is not supported (use Depth 0 or 1)', errorXml('propfind-finite-depth'));
  const want = parsePropfind(parseXml(await ctx.bodyText()));
  const { deps, full } = ctx;
  const self = await deps.fs.stat(full);
  const selfItem: Item = { full, entry: self, dead: NONE, locks: NONE, hashes: self.hashes };
  // the children stay columns (no Entry per child until its batch is written): 20 concurrent PROPFINDs of a
  // 10,000-entry folder held 200,000 entries, paths and dates at once
  const listing = depth === '1' && self.isDir ? await deps.fs.listed(full, await ctx.visibleIn(full)) : null;
  const rows = listing?.rows ?? [];
  const cols = listing?.cols;
  const withDead = wantsDead(want);
  // only the folder's own and its direct children's dead properties (not everything below it)
  const dead = withDead ? (rows.length === 0 ? new Map([[full, await deps.store.props(full)]]) : await deps.store.propsOfChildren(full)) : new Map<string, DeadProp[]>();
  selfItem.dead = dead.get(full) ?? NONE;
  const locks = wantsLocks(want) ? await deps.store.locksAffecting(full, rows.length > 0) : NONE;
  const locksOf = (p: string) => (locks.length === 0 ? NONE : locks.filter((l) => l.path === p || (l.deep && (l.path === '/' || p.startsWith(l.path + '/')))));
  selfItem.locks = locksOf(full);
  // checksums of the children: one batch per listing (the hash index, S3 metadata only for what it lacks)
  const sums = wantsChecksums(want) && listing && rows.length > 0 ? await childSums(ctx, full, listing) : null;
  const dirHref = rows.length > 0 ? ctx.href(full, true) : '';
  /** One batch of children as XML, each child's Entry made for its response and dropped. */
  const batch = async (from: number, to: number): Promise<string> => {
    let s = '';
    for (let j = from; j < to; j++) {
      const i = rows[j]!;
      const name = cols!.names[i]!;
      const p = joinPath(full, name);
      const e = entryAt(cols!, i, p);
      const it: Item = { full: p, entry: e, dead: dead.get(p) ?? NONE, locks: locksOf(p) };
      if (sums && !e.isDir) it.hashes = sums.get(name) ?? {};
      s += responseXml(dirHref + encodeSegment(name) + (e.isDir ? '/' : ''), propsOf(ctx, it, want));
    }
    return s;
  };
  const head = MULTISTATUS_OPEN + responseXml(ctx.href(full, self.isDir), propsOf(ctx, selfItem, want));
  if (rows.length <= STREAM_BATCH) return ctx.sendXml(207, head + (await batch(0, rows.length)) + MULTISTATUS_CLOSE);
  // A large folder is answered in batches as the client reads: the whole reply (~700 bytes per entry) never
  // sits in memory at once.
  const n = rows.length;
  async function* batches(): AsyncGenerator<string> {
    yield head;
    for (let i = 0; i < n; i += CHUNK) yield await batch(i, Math.min(n, i + CHUNK));
    yield MULTISTATUS_CLOSE;
  }
  return ctx.sendXml(207, Readable.from(batches(), { objectMode: false, highWaterMark: 32 * 1024 }));
}

/** The digests known for a folder's listed files, by name. */
async function childSums(ctx: DavContext, full: string, { cols, rows }: Listing): Promise<Map<string, Hashes>> {
  const loc = await ctx.deps.fs.locate(full).catch(() => null);
  if (!loc) return new Map<string, Hashes>();
  // mount points listed in a folder belong to other storages: they are folders, never files with checksums
  const files: Entry[] = [];
  for (const i of rows) if (cols.dirs[i] !== 1) files.push(entryAt(cols, i, joinPath(loc.inner, cols.names[i]!)));
  const byPath = await loc.driver.hashesOfListed(files).catch(() => new Map<string, Hashes>());
  const byName = new Map<string, Hashes>();
  for (const f of files) {
    const h = byPath.get(f.path);
    if (h) byName.set(f.name, h);
  }
  return byName;
}

/** A modification time sent as `getlastmodified` (HTTP date) or `Win32LastModifiedTime` (HTTP date too). */
function parseTime(s: string): Date | null {
  const t = Date.parse(s.trim());
  return Number.isNaN(t) ? null : new Date(t);
}

export async function proppatch(ctx: DavContext, touch: (full: string, mtime: Date) => Promise<void>) {
  ctx.requireManage();
  const body = parseXml(await ctx.bodyText());
  if (!body || body.ns !== DAV_NS || body.name !== 'propertyupdate') throw badRequest('PROPPATCH: the body must be a DAV:propertyupdate element');
  const entry = await ctx.deps.fs.stat(ctx.full);
  await requireUnlocked(ctx, await checkIfHeader(ctx), ctx.full);
  const ops: Array<{ op: 'set'; prop: DeadProp } | { op: 'remove'; ns: string; name: string }> = [];
  const results: Array<{ ns: string; name: string; code: number }> = [];
  let mtime: Date | null = null;
  for (const action of childElements(body)) {
    if (action.ns !== DAV_NS || (action.name !== 'set' && action.name !== 'remove')) continue;
    const prop = child(action, DAV_NS, 'prop');
    if (!prop) throw badRequest(`PROPPATCH: ${action.name} without a prop`);
    for (const p of childElements(prop)) {
      if (p.ns === DAV_NS && PROTECTED.has(p.name)) {
        results.push({ ns: p.ns, name: p.name, code: 403 });
        continue;
      }
      const isTime = (p.ns === DAV_NS && p.name === 'getlastmodified') || (p.ns === MS_NS && p.name === 'Win32LastModifiedTime');
      if (isTime && action.name === 'set') {
        const t = parseTime(textOf(p));
        if (!t) {
          results.push({ ns: p.ns, name: p.name, code: 409 });
          continue;
        }
        mtime = t;
        if (p.ns === DAV_NS) {
          results.push({ ns: p.ns, name: p.name, code: 200 });
          continue;
        }
      }
      if (p.ns === DAV_NS && p.name === 'getlastmodified') {
        results.push({ ns: p.ns, name: p.name, code: 403 });
        continue;
      }
      ops.push(action.name === 'set' ? { op: 'set', prop: { ns: p.ns, name: p.name, value: innerXml(p) } } : { op: 'remove', ns: p.ns, name: p.name });
      results.push({ ns: p.ns, name: p.name, code: 200 });
    }
  }
  const failed = results.some((r) => r.code !== 200);
  if (!failed) {
    await ctx.deps.store.patch(ctx.full, ops);
    if (mtime && !entry.isDir) await touch(ctx.full, mtime);
  }
  const byCode = new Map<number, string[]>();
  for (const r of results) {
    const code = failed && r.code === 200 ? 424 : r.code;
    let l = byCode.get(code);
    if (!l) byCode.set(code, (l = []));
    l.push(propXml(r.ns, r.name, null));
  }
  return ctx.sendXml(207, MULTISTATUS_OPEN + responseXml(ctx.href(ctx.full, entry.isDir), [...byCode.entries()]) + MULTISTATUS_CLOSE);
}
