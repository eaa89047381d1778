/**
 * The addresses a BitTorrent tool contacts on its own because a magnet or a `.torrent` names them (issue #22: the
 * SSRF rules hold for every URL Ferry asks anything to fetch):
 * - magnet: `tr`/`tr.N` (trackers), `ws` (web seeds), `xs`, `as`, `mt` (where to get the metainfo: URLs with a
 *   host; `urn:` values name no host), `x.pe` (peers, `host:port`);
 * - torrent: `announce`, `announce-list` (trackers), `url-list` (BEP 19 web seeds), `httpseeds` (BEP 17) and
 *   `nodes` (BEP 5 DHT bootstrap nodes, `[host, port]`).
 * Pure (no I/O): tool-access.ts checks every one with the address rules of http sources before any tool sees it,
 * and `magnetWithout` / `torrentWithout` drop the ones whose host does not resolve from what the tool gets (a
 * torrent's `info` stays byte for byte: its info hash is unchanged).
 */
import { decodeBencode, encodeBencode, isBencodeBytes, isBencodeDict, isBencodeInt, isBencodeList, type BencodeValue } from '../seeds/formats/index.js';
import { magnetParams } from './inputs.js';

export interface InnerAddress {
  /** What it is, for the message: `tracker`, `web seed`, `metainfo source`, `peer`, `DHT node`. */
  what: string;
  /** As written (trimmed). */
  shown: string;
  /** Parsed; null when it is not a URL (or not `host:port`) with a host, `problem` says why. */
  url: URL | null;
  problem?: string;
}

/** A URL naming a host, or why not (credentials and backslashes are refused: a tool's URL parser may read the host differently). */
function urlEntry(what: string, raw: string): InnerAddress {
  const shown = raw.trim();
  let url: URL;
  try {
    url = new URL(shown);
  } catch {
    return { what, shown, url: null, problem: 'is not a URL' };
  }
  if (url.username || url.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*[@\\]/i.test(shown)) return { what, shown, url: null, problem: 'carries credentials or a backslash in its host part (refused)' };
  if (url.hostname === '') return { what, shown, url: null, problem: 'has no host' };
  return { what, shown, url };
}

/** `host:port` (IPv6 in brackets) as a URL the address rules read (`u.host` is `host:port`), or why not. */
function hostPortEntry(what: string, host: string, port: string): InnerAddress {
  const bare = host.trim().replace(/^\[|\]$/g, '');
  const shown = `${bare.includes(':') ? `[${bare}]` : bare}:${port}`;
  const n = Number(port);
  if (bare === '' || !/^\d{1,5}$/.test(port) || n < 1 || n > 65535 || /[\s/?#@\\[\]]/.test(bare)) return { what, shown, url: null, problem: 'is not host:port' };
  try {
    const url = new URL(`peer://${shown}`);
    if (url.hostname === '' || url.pathname !== '') throw new Error('no host');
    return { what, shown, url };
  } catch {
    return { what, shown, url: null, problem: 'is not host:port' };
  }
}

const MAGNET_URLS: Readonly<Record<string, string>> = { tr: 'tracker', ws: 'web seed', xs: 'metainfo source', as: 'metainfo source', mt: 'metainfo source' };

/** The address one magnet parameter names, or null when it names none. */
function magnetEntry(key: string, value: string): InnerAddress | null {
  const k = key.replace(/\.\d+$/, '');
  if (k === 'x.pe') {
    const m = /^(\[[^\]]*\]|[^:]*):(\d*)$/.exec(value.trim());
    return m ? hostPortEntry('peer', m[1]!, m[2]!) : { what: 'peer', shown: value.trim(), url: null, problem: 'is not host:port' };
  }
  const what = MAGNET_URLS[k];
  if (!what) return null;
  // a URN (`xs=urn:btpk:…`) or another value without a host is nothing to contact
  if (what === 'metainfo source' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(value.trim())) return null;
  return urlEntry(what, value);
}

/** Every address in a magnet link that already passed `magnetProblem`. */
export function magnetAddresses(link: string): InnerAddress[] {
  const params = magnetParams(link);
  if (typeof params === 'string') return [];
  return params.map(([key, value]) => magnetEntry(key, value)).filter((a): a is InnerAddress => a !== null);
}

/** The key `drop` sets hold an address under. */
export const addressKey = (a: Pick<InnerAddress, 'what' | 'shown'>): string => `${a.what} ${a.shown}`;

/** `link` without the parameters naming an address of `drop` (addressKey); every other parameter as written. */
export function magnetWithout(link: string, drop: ReadonlySet<string>): string {
  const params = magnetParams(link);
  if (typeof params === 'string' || drop.size === 0) return link;
  const raw = link.slice('magnet:?'.length).split('&').filter((p) => p !== '');
  // magnetParams answered one entry per non-empty raw part, in order
  const kept = raw.filter((_, i) => {
    const a = magnetEntry(params[i]![0], params[i]![1]);
    return !(a && drop.has(addressKey(a)));
  });
  return `magnet:?${kept.join('&')}`;
}

const text = (v: BencodeValue | undefined): string | null => (isBencodeBytes(v) ? v.toString('utf8') : null);

/** Strings of a value that is a string or a (nested) list of them; anything else is skipped. */
function strings(v: BencodeValue | undefined, depth = 0): string[] {
  const t = text(v);
  if (t !== null) return [t];
  if (isBencodeList(v) && depth < 2) return v.flatMap((x) => strings(x, depth + 1));
  return [];
}

/** Every address in a `.torrent` (bytes that already passed the torrent parser; throws if they are not bencode). */
export function torrentAddresses(bytes: Uint8Array): InnerAddress[] {
  const root = decodeBencode(bytes, { field: 'torrent' }).value;
  if (!isBencodeDict(root)) return [];
  const out: InnerAddress[] = [];
  const urls = (what: string, key: string) => {
    for (const s of strings(root.get(key))) if (s.trim() !== '') out.push(urlEntry(what, s));
  };
  urls('tracker', 'announce');
  urls('tracker', 'announce-list');
  urls('web seed', 'url-list');
  urls('web seed', 'httpseeds');
  const nodes = root.get('nodes');
  for (const n of isBencodeList(nodes) ? nodes : []) {
    const host = isBencodeList(n) ? text(n[0]) : null;
    const port = isBencodeList(n) && isBencodeInt(n[1]) ? String(n[1]) : '';
    out.push(host !== null ? hostPortEntry('DHT node', host, port) : { what: 'DHT node', shown: '?', url: null, problem: 'is not [host, port]' });
  }
  return out;
}

/**
 * The `.torrent` without the trackers, web seeds and DHT nodes of `drop` (addressKey): `announce`, `announce-list`
 * (emptied tiers removed), `url-list`, `httpseeds` and `nodes` are rewritten, a key left with nothing is removed;
 * every other root value (`info` above all) is copied byte for byte, so the info hash is unchanged.
 */
export function torrentWithout(bytes: Uint8Array, drop: ReadonlySet<string>): Buffer {
  const decoded = decodeBencode(bytes, { field: 'torrent' });
  const root = decoded.value;
  if (!isBencodeDict(root) || drop.size === 0) return Buffer.from(bytes);
  const gone = (what: string, v: BencodeValue) => {
    const t = text(v);
    return t !== null && t.trim() !== '' && drop.has(addressKey(urlEntry(what, t)));
  };
  /** A string or a list (of lists) of strings without the dropped ones; undefined when nothing is left. */
  const filtered = (what: string, v: BencodeValue, depth = 0): BencodeValue | undefined => {
    if (text(v) !== null) return gone(what, v) ? undefined : v;
    if (!isBencodeList(v) || depth >= 2) return v;
    const left = v.map((x) => filtered(what, x, depth + 1)).filter((x): x is BencodeValue => x !== undefined);
    return left.length === 0 && v.length > 0 ? undefined : left;
  };
  const changed = new Map<string, BencodeValue | undefined>();
  for (const [key, what] of [['announce', 'tracker'], ['announce-list', 'tracker'], ['url-list', 'web seed'], ['httpseeds', 'web seed']] as const) {
    const v = root.get(key);
    if (v !== undefined) changed.set(key, filtered(what, v));
  }
  const nodes = root.get('nodes');
  if (isBencodeList(nodes)) {
    const left = nodes.filter((n) => {
      const host = isBencodeList(n) ? text(n[0]) : null;
      const port = isBencodeList(n) && isBencodeInt(n[1]) ? String(n[1]) : '';
      return host === null || !drop.has(addressKey(hostPortEntry('DHT node', host, port)));
    });
    changed.set('nodes', left.length === 0 && nodes.length > 0 ? undefined : left);
  }
  // the root dict again: each key as written, the values of the changed keys re-encoded, the others copied
  const src = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ranges = [...decoded.rootRanges.entries()].sort((a, b) => a[1].start - b[1].start);
  const parts: Buffer[] = [Buffer.from('d')];
  let at = 1;
  for (const [key, r] of ranges) {
    const keyBytes = src.subarray(at, r.start);
    at = r.end;
    if (!changed.has(key)) {
      parts.push(keyBytes, src.subarray(r.start, r.end));
      continue;
    }
    const v = changed.get(key);
    if (v !== undefined) parts.push(keyBytes, encodeBencode(v));
  }
  parts.push(Buffer.from('e'));
  return Buffer.concat(parts);
}
