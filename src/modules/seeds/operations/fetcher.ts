/**
 * The SSRF-safe fetcher for seed sources (contract §10.5). Per hop:
 *  - http(s) only, no credentials, host = the site or a trusted host (source-rules);
 *  - the scheme never changes after the first request (no https → http, no http → https);
 *  - DNS is resolved here; unless the host is exactly a trusted one, every address it resolves
 *    to must be public (no loopback, private, shared, link-local, metadata, unspecified,
 *    multicast or reserved range), and the connection goes to the address that was checked
 *    (no second lookup: no DNS rebinding);
 *  - at most 3 redirects, each re-checked the same way.
 * Requests carry no Authorization, cookies or signatures, and ask for identity encoding. The body
 * is capped at the expected size (the seed's): a longer body is cut off with an error, a shorter
 * one fails at its end. Time limits: connecting and response headers, and idle time between bytes.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { PassThrough, Transform, type Readable } from 'node:stream';
import { checkHost, isTrustedHost, type SourceContext } from './source-rules.js';

export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export interface FetchOptions {
  sctx: SourceContext;
  /** Exact size expected (the seed file's); more bytes abort the transfer. Unset: whatever the server sends. */
  size?: number;
  /**
   * Any host may answer (offline downloads of a user's URL), not only the site and trusted hosts; every other
   * rule (scheme, no credentials, public addresses unless trusted, redirects re-checked) still holds.
   */
  anyHost?: boolean;
  signal?: AbortSignal;
  /** DNS resolution (tests inject one); default: the system resolver, all addresses. */
  resolve?: Resolver;
  maxRedirects?: number;
  /** Connect + response headers. */
  headersTimeoutMs?: number;
  /** Longest pause between two chunks of the body. */
  idleTimeoutMs?: number;
  userAgent?: string;
  /** Extra trusted certificate authorities for https sources (default: Node's bundle). */
  ca?: string | Buffer;
}

export interface Fetched {
  /** The URL that answered (after redirects). */
  url: string;
  body: Readable;
  /** The response headers (Content-Length, Content-Disposition…). */
  headers: IncomingMessage['headers'];
}

/** A source refused by a rule (nothing was sent to it). */
export class SourceRefused extends Error {
  override readonly name = 'SourceRefused';
}

/** A host name the resolver has no address for (not a refusal: nothing is known about where it would lead). */
export class HostUnresolved extends Error {
  override readonly name = 'HostUnresolved';
}

export const MAX_REDIRECTS = 3;
const HEADERS_TIMEOUT_MS = 30_000;
const IDLE_TIMEOUT_MS = 60_000;

// ------------------------------------------------------------------------------- addresses

type Bytes = number[];

function parseV4(ip: string): Bytes | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return null;
  const b = m.slice(1).map(Number);
  return b.every((x) => x <= 255) ? b : null;
}

function parseV6(input: string): Bytes | null {
  let ip = input.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const tail: Bytes = [];
  const v4 = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(ip);
  if (v4) {
    const b = parseV4(v4[1]!);
    if (!b) return null;
    tail.push(...b);
    ip = ip.slice(0, -v4[1]!.length) + '0:0';
  }
  const halves = ip.split('::');
  if (halves.length > 2) return null;
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  const missing = 8 - head.length - rest.length;
  if ((halves.length === 2 && missing < 1) || (halves.length === 1 && missing !== 0)) return null;
  const all = [...head, ...Array<string>(Math.max(0, missing)).fill('0'), ...rest];
  const out: Bytes = [];
  for (const g of all) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
    const n = parseInt(g, 16);
    out.push(n >> 8, n & 255);
  }
  if (tail.length) out.splice(12, 4, ...tail);
  return out;
}

type Range = [string, Bytes, number];

const v4 = (s: string, bits: number, what: string): Range => [what, parseV4(s)!, bits];
const v6 = (s: string, bits: number, what: string): Range => [what, parseV6(s)!, bits];

/** Checked in order: the first match names the range. */
const V4_RANGES: Range[] = [
  v4('0.0.0.0', 8, 'unspecified'),
  v4('127.0.0.0', 8, 'loopback'),
  v4('10.0.0.0', 8, 'private'),
  v4('172.16.0.0', 12, 'private'),
  v4('192.168.0.0', 16, 'private'),
  v4('100.64.0.0', 10, 'shared (carrier-grade NAT)'),
  v4('169.254.169.254', 32, 'cloud metadata'),
  v4('169.254.0.0', 16, 'link-local'),
  v4('192.0.0.0', 24, 'reserved'),
  v4('192.0.2.0', 24, 'reserved'),
  v4('198.18.0.0', 15, 'reserved'),
  v4('198.51.100.0', 24, 'reserved'),
  v4('203.0.113.0', 24, 'reserved'),
  v4('224.0.0.0', 4, 'multicast'),
  v4('240.0.0.0', 4, 'reserved'),
];

const V6_RANGES: Range[] = [
  v6('::', 128, 'unspecified'),
  v6('::1', 128, 'loopback'),
  v6('fd00:ec2::254', 128, 'cloud metadata'),
  v6('fc00::', 7, 'private (unique local)'),
  v6('fe80::', 10, 'link-local'),
  v6('fec0::', 10, 'site-local'),
  v6('ff00::', 8, 'multicast'),
  v6('::', 96, 'reserved (IPv4-compatible)'),
  v6('100::', 64, 'reserved (discard)'),
  v6('2001:db8::', 32, 'reserved'),
];

function inRange(addr: Bytes, [, net, bits]: Range): boolean {
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((addr[i / 8]! & mask) !== (net[i / 8]! & mask)) return false;
  }
  return true;
}

/** IPv4 embedded in IPv6 forms that reach IPv4 hosts: mapped (::ffff:0:0/96), NAT64 (64:ff9b::/96), 6to4 (2002::/16). */
function embeddedV4(b: Bytes): Bytes | null {
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return b.slice(12);
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return b.slice(12);
  if (b[0] === 0x20 && b[1] === 0x02) return b.slice(2, 6);
  return null;
}

/**
 * Why `ip` must not be fetched from (`'loopback'`, `'private'`, `'cloud metadata'`…), or null
 * for a public address. Anything that does not parse as an IP address is refused too.
 */
export function classifyAddress(ip: string): string | null {
  const four = parseV4(ip);
  if (four) return V4_RANGES.find((r) => inRange(four, r))?.[0] ?? null;
  const six = parseV6(ip);
  if (!six) return 'not an IP address';
  const inner = embeddedV4(six);
  if (inner) return V4_RANGES.find((r) => inRange(inner, r))?.[0] ?? null;
  return V6_RANGES.find((r) => inRange(six, r))?.[0] ?? null;
}

const systemResolve: Resolver = async (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** A resolver asking `resolve` once per host name (many URLs of one torrent name the same hosts). */
export function onceResolver(resolve: Resolver = systemResolve): Resolver {
  const seen = new Map<string, ReturnType<Resolver>>();
  return (hostname) => {
    const key = hostname.toLowerCase();
    let got = seen.get(key);
    if (!got) seen.set(key, (got = resolve(hostname)));
    return got;
  };
}

/** The address to connect to: checked, unless the host is exactly a trusted one. */
async function pickAddress(u: URL, opts: FetchOptions): Promise<{ address: string; family: number }> {
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host);
  let addrs: { address: string; family: number }[];
  if (literal) addrs = [{ address: host, family: literal }];
  else {
    try {
      addrs = await (opts.resolve ?? systemResolve)(host);
    } catch (e) {
      throw new HostUnresolved(`cannot resolve ${host}: ${(e as Error).message}`);
    }
    if (addrs.length === 0) throw new HostUnresolved(`cannot resolve ${host}: no addresses`);
  }
  if (!isTrustedHost(u, opts.sctx)) {
    for (const a of addrs) {
      const why = classifyAddress(a.address);
      if (why) throw new SourceRefused(`${u.host} resolves to a ${why} address (${a.address}); only hosts listed in seed_trusted_source_hosts may`);
    }
  }
  return addrs[0]!;
}

// ------------------------------------------------------------------------------- requests

function pinnedLookup(address: string, family: number): LookupFunction {
  return ((_host: string, options: { all?: boolean }, cb: (...a: unknown[]) => void) => {
    if (options?.all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  }) as unknown as LookupFunction;
}

function request(u: URL, to: { address: string; family: number }, opts: FetchOptions): Promise<IncomingMessage> {
  const lib = u.protocol === 'https:' ? https : http;
  const host = u.hostname.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    const req = lib.request({
      protocol: u.protocol,
      hostname: host,
      port: u.port || undefined,
      path: `${u.pathname}${u.search}`,
      method: 'GET',
      agent: false,
      lookup: pinnedLookup(to.address, to.family),
      ...(u.protocol === 'https:' && !isIP(host) ? { servername: host } : {}),
      ...(u.protocol === 'https:' && opts.ca ? { ca: opts.ca } : {}),
      headers: { 'user-agent': opts.userAgent ?? 'Ferry', accept: '*/*', 'accept-encoding': 'identity' },
      signal: opts.signal,
    });
    const timer = setTimeout(() => req.destroy(new Error(`no response within ${(opts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS) / 1000} s`)), opts.headersTimeoutMs ?? HEADERS_TIMEOUT_MS);
    req.once('response', (res) => {
      clearTimeout(timer);
      resolve(res);
    });
    req.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end();
  });
}

/** Caps the body at `size` bytes and fails when it ends short. */
function sizeGuard(size: number, where: string): Transform {
  let n = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      n += chunk.length;
      if (n > size) return cb(new Error(`${where} sent more than the seed's ${size} bytes`));
      cb(null, chunk);
    },
    flush(cb) {
      cb(n === size ? null : new Error(`${where} sent ${n} of the seed's ${size} bytes`));
    },
  });
}

/** The host rule of `anyHost` fetches: http(s) without credentials (the address rule follows in pickAddress). */
function schemeRule(u: URL): { ok: true } | { ok: false; reason: string } {
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { ok: false, reason: `scheme ${u.protocol.replace(/:$/, '')} is not allowed (http or https only)` };
  if (u.username || u.password) return { ok: false, reason: 'the URL carries credentials' };
  return { ok: true };
}

/** The address rule alone, before anything is sent: every address `u`'s host resolves to is public (or the host is trusted). */
export async function checkPublicAddress(u: URL, opts: Pick<FetchOptions, 'sctx' | 'resolve'>): Promise<void> {
  await pickAddress(u, opts as FetchOptions);
}

/**
 * Opens `start` (already accepted by `checkSourceUrl`) and returns its body, following at most
 * `maxRedirects` redirects. Every refusal happens before a connection to that hop is made.
 */
export async function fetchSource(start: URL, opts: FetchOptions): Promise<Fetched> {
  const scheme = start.protocol;
  const max = opts.maxRedirects ?? MAX_REDIRECTS;
  let u = start;
  for (let hop = 0; ; hop++) {
    opts.signal?.throwIfAborted();
    if (u.protocol !== scheme) throw new SourceRefused(`redirect to ${u.protocol}//${u.host} changes the scheme from ${scheme.replace(/:$/, '')}`);
    const host = opts.anyHost ? schemeRule(u) : checkHost(u, opts.sctx);
    if (!host.ok) throw new SourceRefused(hop === 0 ? host.reason : `redirect to ${u.protocol}//${u.host}: ${host.reason}`);
    const to = await pickAddress(u, opts);
    const res = await request(u, to, opts);
    const status = res.statusCode ?? 0;
    if ([301, 302, 303, 307, 308].includes(status)) {
      res.destroy();
      const loc = res.headers.location;
      if (!loc) throw new Error(`${u.host} answered ${status} without a Location`);
      if (hop >= max) throw new SourceRefused(`more than ${max} redirects`);
      try {
        u = new URL(loc, u);
      } catch {
        throw new Error(`${u.host} redirected to an invalid URL`);
      }
      continue;
    }
    if (status < 200 || status > 299) {
      res.destroy();
      throw new Error(`${u.host} answered HTTP ${status}`);
    }
    const enc = res.headers['content-encoding'];
    if (enc && enc !== 'identity') {
      res.destroy();
      throw new Error(`${u.host} sent a ${enc}-encoded body`);
    }
    const cl = res.headers['content-length'];
    if (cl !== undefined && opts.size !== undefined && Number(cl) !== opts.size) {
      res.destroy();
      throw new Error(`${u.host} announced ${cl} bytes, the seed says ${opts.size}`);
    }
    const idle = opts.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
    res.setTimeout(idle, () => res.destroy(new Error(`${u.host} sent nothing for ${idle / 1000} s`)));
    const declared = opts.size ?? (cl !== undefined && /^\d+$/.test(cl) ? Number(cl) : undefined);
    const guard = declared === undefined ? new PassThrough() : sizeGuard(declared, u.host);
    res.on('error', (e) => guard.destroy(e));
    guard.on('close', () => res.destroy());
    // Until the caller pipes it, a failure must not become an uncaught 'error'; pipeline still sees it.
    guard.on('error', () => undefined);
    return { url: u.toString(), body: res.pipe(guard), headers: res.headers };
  }
}
