/**
 * Which seed sources may be fetched from here (contract §10.5, seed-formats.md §8.7).
 *
 * A source is usable when its URL is http(s), carries no credentials, its host is this site
 * (`seed_site_url`, else FERRY_SITE_URL, else the request's origin) or one of the
 * `seed_trusted_source_hosts` (port-normalised: `https://h` = `https://h:443`), its path starts
 * with `/d/` (`openlist-direct`) or `/sd/` (`openlist-share`) below the host's base path, and it
 * has not expired. A direct link of this site must also pass this site's own check of its
 * `?sign=` (while `sign_all` is on: a valid signature of exactly that path), as `/d/` would.
 * These checks are pure; the fetcher adds the network rules (addresses, every redirect hop) on top.
 *
 * Trusted host entries, one per line (blank lines and `#` comments ignored):
 *   `host`            — that host on the default port of http or https;
 *   `host:port`       — that host and port, either scheme;
 *   `scheme://host[:port][/base]` — that scheme, host and (effective) port, links below `/base`.
 * IPv6 hosts are written in brackets (`[2001:db8::1]:8080`).
 */
import type { FastifyRequest } from 'fastify';
import type { SeedsDeps } from '../seeds.deps.js';
import { requestOrigin } from '../../../http/origin.js';
import { cleanPath } from '../../../lib/path-safety.js';
import type { SeedFile, SeedSource } from '../formats/index.js';

export interface SourceContext {
  /** This site's public base URL (no trailing `/`), when one is known. */
  siteUrl?: string;
  /** Raw entries of `seed_trusted_source_hosts`. */
  trustedHosts: string[];
  now: Date;
  /**
   * This site's check of a download signature for a full path (throws with the reason); unset = not checked.
   * Applied to `openlist-direct` links of this site, so a link `/d/` would refuse is not usable.
   */
  verifySiteDirect?: (full: string, sign: string | undefined) => void;
}

export type SourceCheck = { usable: true; url: URL } | { usable: false; reason: string };

export const SOURCE_PREFIX: Readonly<Record<string, string>> = { 'openlist-direct': '/d/', 'openlist-share': '/sd/' };

const DEFAULT_PORT: Readonly<Record<string, string>> = { 'http:': '80', 'https:': '443' };

/** Lines of the `seed_trusted_source_hosts` setting, trimmed, without blanks and comments. */
export function parseTrustedHosts(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/** The sources context of a request: site from settings/env/origin, trusted hosts, now. */
export function sourceContext(deps: Pick<SeedsDeps, 'links' | 'settings'>, req?: FastifyRequest): Promise<SourceContext> {
  return sourceContextFor(deps, req ? requestOrigin(req) : undefined);
}

/** Like `sourceContext`, for work that outlives its request (a task keeps the request's origin). */
export async function sourceContextFor(deps: Pick<SeedsDeps, 'links' | 'settings'>, origin?: string): Promise<SourceContext> {
  const site = (await deps.links.site(origin ?? '')).trim();
  return {
    siteUrl: site === '' ? undefined : site,
    trustedHosts: parseTrustedHosts(await deps.settings.get('seed_trusted_source_hosts')),
    now: new Date(),
    verifySiteDirect: await deps.links.verifier(),
  };
}

const effectivePort = (u: URL) => u.port || DEFAULT_PORT[u.protocol] || '';
const basePath = (u: URL) => u.pathname.replace(/\/+$/, '');

interface HostRule {
  /** Lower-case `http:`/`https:`, or undefined = either. */
  scheme?: string;
  hostname: string;
  /** Effective port, or undefined = the default port of the URL's scheme. */
  port?: string;
  base: string;
}

function parseRule(entry: string): HostRule | null {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(entry);
  let u: URL;
  try {
    u = new URL(withScheme ? entry : `http://${entry}`);
  } catch {
    return null;
  }
  if (u.username || u.password || u.search || u.hash) return null;
  if (withScheme) {
    if (!(u.protocol in DEFAULT_PORT)) return null;
    return { scheme: u.protocol, hostname: u.hostname.toLowerCase(), port: effectivePort(u), base: basePath(u) };
  }
  if (u.pathname !== '/') return null;
  // `http://h:80` normalises the port away: an entry naming port 80 explicitly still means 80.
  const explicit = /:(\d+)$/.exec(entry)?.[1];
  return { hostname: u.hostname.toLowerCase(), port: explicit ? String(Number(explicit)) : undefined, base: '' };
}

function ruleMatches(rule: HostRule, u: URL): boolean {
  if (rule.scheme && rule.scheme !== u.protocol) return false;
  if (rule.hostname !== u.hostname.toLowerCase()) return false;
  return rule.port === undefined ? u.port === '' : rule.port === effectivePort(u);
}

function siteRule(siteUrl: string | undefined): HostRule | null {
  if (!siteUrl) return null;
  try {
    const u = new URL(siteUrl);
    if (!(u.protocol in DEFAULT_PORT)) return null;
    return { scheme: u.protocol, hostname: u.hostname.toLowerCase(), port: effectivePort(u), base: basePath(u) };
  } catch {
    return null;
  }
}

/** The trusted-hosts entry `u` matches, if any (such hosts may resolve to internal addresses). */
export function trustedEntry(u: URL, sctx: SourceContext): string | undefined {
  return sctx.trustedHosts.find((e) => {
    const r = parseRule(e);
    return r !== null && ruleMatches(r, u);
  });
}

/** True when `u`'s host is exactly one of the trusted source hosts. */
export function isTrustedHost(u: URL, sctx: SourceContext): boolean {
  return trustedEntry(u, sctx) !== undefined;
}

/**
 * The host rule alone (what every redirect hop must pass): http(s), no credentials, host = the
 * site or a trusted host. Returns the base path links must sit below, and whether the host is this site.
 */
export function checkHost(u: URL, sctx: SourceContext): { ok: true; base: string; site: boolean } | { ok: false; reason: string } {
  if (!(u.protocol in DEFAULT_PORT)) return { ok: false, reason: `scheme ${u.protocol.replace(/:$/, '')} is not allowed (http or https only)` };
  if (u.username || u.password) return { ok: false, reason: 'the URL carries credentials' };
  const site = siteRule(sctx.siteUrl);
  if (site && ruleMatches(site, u)) return { ok: true, base: site.base, site: true };
  for (const e of sctx.trustedHosts) {
    const r = parseRule(e);
    if (r && ruleMatches(r, u)) return { ok: true, base: r.base, site: false };
  }
  const where = `${u.protocol}//${u.host}`;
  if (!site && sctx.trustedHosts.length === 0) return { ok: false, reason: `host ${where} is not trusted (no site URL is known and seed_trusted_source_hosts is empty)` };
  return { ok: false, reason: `host ${where} is neither this site${site ? ` (${sctx.siteUrl})` : ''} nor one of seed_trusted_source_hosts` };
}

/** Whether `source` may be fetched from here (pure: no DNS, no I/O). */
export function checkSourceUrl(source: SeedSource, sctx: SourceContext): SourceCheck {
  let u: URL;
  try {
    u = new URL(source.url);
  } catch {
    return { usable: false, reason: 'not an absolute URL' };
  }
  const host = checkHost(u, sctx);
  if (!host.ok) return { usable: false, reason: host.reason };
  const prefix = SOURCE_PREFIX[source.type];
  if (!prefix) return { usable: false, reason: `source type ${JSON.stringify(source.type)} cannot be fetched (openlist-direct or openlist-share only)` };
  if (!u.pathname.startsWith(host.base + prefix)) return { usable: false, reason: `a ${source.type} URL must have a path starting with ${host.base + prefix}` };
  if (source.expires_at !== undefined && source.expires_at !== '') {
    const at = Date.parse(source.expires_at);
    if (!Number.isFinite(at)) return { usable: false, reason: `expires_at ${JSON.stringify(source.expires_at)} is not a valid time` };
    if (at <= sctx.now.getTime()) return { usable: false, reason: `expired at ${source.expires_at}` };
  }
  if (source.type === 'openlist-direct' && host.site && sctx.verifySiteDirect) {
    const refused = siteDirectRefusal(u, host.base, sctx.verifySiteDirect);
    if (refused) return { usable: false, reason: refused };
  }
  return { usable: true, url: u };
}

/** Why this site's `/d/` would refuse the direct link `u` (its path below `base`), or null when it would serve it. */
function siteDirectRefusal(u: URL, base: string, verify: NonNullable<SourceContext['verifySiteDirect']>): string | null {
  let full: string;
  try {
    full = cleanPath(decodeURIComponent(u.pathname.slice(base.length + '/d'.length)));
  } catch {
    return 'the direct link does not name a valid path';
  }
  try {
    verify(full, u.searchParams.get('sign') ?? undefined);
  } catch (e) {
    return `this site refuses the direct link (sign_all is on and its sign is not valid for ${full}: ${e instanceof Error ? e.message : String(e)})`;
  }
  return null;
}

/** The usable sources of a file, in seed order, and why the others are not. */
export function usableSources(file: Pick<SeedFile, 'sources'>, sctx: SourceContext): { usable: URL[]; refused: string[] } {
  const usable: URL[] = [];
  const refused: string[] = [];
  for (const s of file.sources ?? []) {
    const c = checkSourceUrl(s, sctx);
    if (c.usable) usable.push(c.url);
    else refused.push(`${s.url}: ${c.reason}`);
  }
  return { usable, refused };
}
