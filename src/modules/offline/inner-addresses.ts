/**
 * The addresses a BitTorrent tool contacts on its own because a magnet or a `.torrent` names them (issue #22: the
 * SSRF rules hold for every URL Ferry asks anything to fetch):
 * - magnet: `tr`/`tr.N` (trackers), `ws` (web seeds), `xs`, `as`, `mt` (where to get the metainfo: URLs with a
 *   host; `urn:` values name no host), `x.pe` (peers, `host:port`);
 * - torrent: `announce`, `announce-list` (trackers), `url-list` (BEP 19 web seeds), `httpseeds` (BEP 17) and
 *   `nodes` (BEP 5 DHT bootstrap nodes, `[host, port]`).
 * Pure (no I/O): tool-access.ts checks every one with the address rules of http sources before any tool sees it.
 */
import { decodeBencode, isBencodeBytes, isBencodeDict, isBencodeInt, isBencodeList, type BencodeValue } from '../seeds/formats/index.js';
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

/** Every address in a magnet link that already passed `magnetProblem`. */
export function magnetAddresses(link: string): InnerAddress[] {
  const params = magnetParams(link);
  if (typeof params === 'string') return [];
  const out: InnerAddress[] = [];
  for (const [key, value] of params) {
    const k = key.replace(/\.\d+$/, '');
    if (k === 'x.pe') {
      const m = /^(\[[^\]]*\]|[^:]*):(\d*)$/.exec(value.trim());
      out.push(m ? hostPortEntry('peer', m[1]!, m[2]!) : { what: 'peer', shown: value.trim(), url: null, problem: 'is not host:port' });
      continue;
    }
    const what = MAGNET_URLS[k];
    if (!what) continue;
    // a URN (`xs=urn:btpk:…`) or another value without a host is nothing to contact
    if (what === 'metainfo source' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(value.trim())) continue;
    out.push(urlEntry(what, value));
  }
  return out;
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
