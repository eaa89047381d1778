/**
 * What `add_offline_download` accepts in `urls`: http(s) URLs, `magnet:` links, paths of stored `.torrent`
 * files, and uploaded `.torrent` files as `data:application/x-bittorrent;base64,…` URLs (RFC 2397; what a
 * browser's FileReader.readAsDataURL gives). Pure checks (no I/O) that refuse malformed input with a 400 naming
 * the entry; a torrent's contents are checked by the route (tool-access.ts).
 */
import { Type, type Static } from 'typebox';
import { badRequest } from '../../lib/errors.js';
import { userPath } from '../fs/access.js';
import type { User } from '../users/user.model.js';

export const SourceSchema = Type.Object({
  kind: Type.Union([Type.Literal('url'), Type.Literal('magnet'), Type.Literal('torrent')]),
  /** http(s) URL or magnet link (`url`, `magnet`). */
  url: Type.Optional(Type.String()),
  /** Full virtual path of a stored `.torrent` (`torrent`). */
  path: Type.Optional(Type.String()),
  /** The `.torrent` itself, base64 (`torrent` uploaded as a data: URL, or handed over by a seed operation). */
  data: Type.Optional(Type.String()),
  /** Hex v1 info hash of `data`. */
  info_hash: Type.Optional(Type.String()),
});
export type OfflineSource = Static<typeof SourceSchema>;

const MAX_MAGNET = 64 * 1024;
/** An uploaded `.torrent`: `data:` + one of the media types browsers give it + `;base64,` + the bytes. */
const TORRENT_DATA_URL = /^data:(application\/x-bittorrent|application\/octet-stream|)(;[^,;]*)*;base64,/i;
const TRACKER_SCHEMES = new Set(['http:', 'https:', 'udp:', 'ws:', 'wss:']);

/** A magnet link's parameters in order (names lower-cased, values decoded), or why it cannot be read. */
export function magnetParams(link: string): [string, string][] | string {
  if (link.length > MAX_MAGNET) return `longer than ${MAX_MAGNET} characters`;
  if (!/^magnet:\?/i.test(link)) return 'must start with magnet:?';
  if (/[\s\u0000-\u001f\u007f]/.test(link)) return 'contains spaces or control characters';
  const params: [string, string][] = [];
  for (const part of link.slice('magnet:?'.length).split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) return `parameter ${JSON.stringify(part.slice(0, 40))} has no value`;
    try {
      params.push([part.slice(0, eq).toLowerCase(), decodeURIComponent(part.slice(eq + 1).replace(/\+/g, ' '))]);
    } catch {
      return `parameter ${part.slice(0, eq)} is not valid percent-encoding`;
    }
  }
  return params;
}

/** Why `link` is not a usable magnet link, or null. Needs one BitTorrent info hash (`xt=urn:btih:` v1, or `urn:btmh:` v2). */
export function magnetProblem(link: string): string | null {
  const params = magnetParams(link);
  if (typeof params === 'string') return params;
  const topics = params.filter(([k]) => k === 'xt' || /^xt\.\d+$/.test(k)).map(([, v]) => v);
  const bt = topics.filter((t) => /^urn:bt(ih|mh):/i.test(t));
  if (bt.length === 0) return 'has no BitTorrent info hash (xt=urn:btih:…)';
  for (const t of bt) {
    const hash = t.slice(9);
    const v1 = /^urn:btih:/i.test(t);
    if (v1 && !/^[0-9a-f]{40}$/i.test(hash) && !/^[a-z2-7]{32}$/i.test(hash)) return `info hash ${JSON.stringify(hash.slice(0, 80))} is neither 40 hex digits nor 32 base32 characters`;
    if (!v1 && !/^1220[0-9a-f]{64}$/i.test(hash)) return `v2 info hash ${JSON.stringify(hash.slice(0, 80))} is not a SHA-256 multihash`;
  }
  for (const [k, v] of params) {
    if (k !== 'tr' && !/^tr\.\d+$/.test(k) && k !== 'ws') continue;
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      return `${k} ${JSON.stringify(v.slice(0, 80))} is not a URL`;
    }
    if (!TRACKER_SCHEMES.has(u.protocol)) return `${k} uses scheme ${u.protocol.replace(/:$/, '')} (http, https, udp, ws or wss only)`;
  }
  return null;
}

/** One `urls` entry → what to download (blank entries are skipped by the caller). */
export function parseSource(user: User, raw: string, field: string): OfflineSource {
  const s = raw.trim();
  if (/^magnet:/i.test(s)) {
    const problem = magnetProblem(s);
    if (problem) throw badRequest(`${field}: malformed magnet link: ${problem}`, { field });
    return { kind: 'magnet', url: s };
  }
  if (/^data:/i.test(s)) {
    const head = TORRENT_DATA_URL.exec(s);
    if (!head) throw badRequest(`${field}: a data: URL must be data:application/x-bittorrent;base64,… (an uploaded .torrent)`, { field });
    const data = s.slice(head[0].length);
    if (data === '' || !/^[A-Za-z0-9+/]*={0,2}$/.test(data) || data.length % 4 === 1) throw badRequest(`${field}: the uploaded .torrent is not valid base64`, { field });
    return { kind: 'torrent', data };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) {
    let u: URL;
    try {
      u = new URL(s);
    } catch {
      throw badRequest(`${field}: ${JSON.stringify(s.slice(0, 200))} is not a valid URL`, { field });
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw badRequest(`${field}: scheme ${u.protocol.replace(/:$/, '')} is not supported (http, https, magnet, or a stored .torrent)`, { field });
    if (u.username || u.password) throw badRequest(`${field}: URLs with credentials are refused`, { field });
    return { kind: 'url', url: u.toString() };
  }
  if (/\.torrent$/i.test(s)) {
    let full: string;
    try {
      full = userPath(user, s);
    } catch (e) {
      throw badRequest(`${field}: ${(e as Error).message}`, { field });
    }
    return { kind: 'torrent', path: full };
  }
  throw badRequest(`${field}: ${JSON.stringify(s.slice(0, 200))} is neither an http(s) URL, a magnet link, the path of a stored .torrent nor an uploaded one (a data: URL)`, { field });
}
