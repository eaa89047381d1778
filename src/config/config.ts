/**
 * Ferry's configuration, read once from the environment (contract §1).
 * Boot fails listing every bad value at once.
 */
import { isIP } from 'node:net';
import { resolve } from 'node:path';

export interface Config {
  /** FERRY_DATA_DIR: everything Ferry keeps (db, secret, files/, ssh/, tmp/). */
  dataDir: string;
  /** FERRY_PORT */
  port: number;
  /** FERRY_HOST */
  host: string;
  /** FERRY_DATABASE_URL: unset = SQLite file `<dataDir>/ferry.db`; `postgres://…` = PostgreSQL. */
  databaseUrl: string | null;
  /** FERRY_ADMIN_PASSWORD: initial admin password on first start (else random, printed once). */
  adminPassword: string | null;
  /** FERRY_SFTP_LISTEN: `host:port`, unset = SFTP off. */
  sftpListen: { host: string; port: number } | null;
  /** FERRY_SITE_URL: public base URL for share/direct links. */
  siteUrl: string | null;
  /**
   * FERRY_TRUST_PROXY: whom to believe about the client address (Fastify's `trustProxy`). `false`: nobody (the
   * socket's address); a hop count N: the N proxies nearest Ferry (`true` = 1); a list of proxy addresses/CIDRs
   * (or `loopback`, `linklocal`, `uniquelocal`): X-Forwarded-For entries added by those. Never the client's own
   * left-most entry.
   */
  trustProxy: false | number | string[];
  /** FERRY_LOG_LEVEL: pino level. */
  logLevel: string;
  /** FERRY_JWT_SECRET: overrides the key in `<dataDir>/secret`. */
  jwtSecret: string | null;
  /** FERRY_HEADERS_TIMEOUT_MS: a request's headers must be complete within this time (else 408 and close). */
  headersTimeoutMs: number;
  /** FERRY_BODY_IDLE_TIMEOUT_MS: a request body that sends nothing for this long is cut off (0 = never). Not a total limit. */
  bodyIdleTimeoutMs: number;
  /** FERRY_EVENT_LOOP_STATS: log event-loop delay percentiles when the server closes. */
  eventLoopStats: boolean;
  /** FERRY_STALE_TEMP_MS: start-up cleanup removes temp/spool files not written for this long. */
  staleTempMs: number;
  /** FERRY_STALE_MULTIPART_MS: start-up cleanup aborts S3 multipart uploads without a new part for this long. */
  staleMultipartMs: number;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

function parseBool(v: string | undefined, name: string, problems: string[]): boolean {
  if (v === undefined || v === '') return false;
  if (/^(1|true|yes|on)$/i.test(v)) return true;
  if (/^(0|false|no|off)$/i.test(v)) return false;
  problems.push(`${name} must be true or false, got ${JSON.stringify(v)}`);
  return false;
}

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function isProxyAddress(a: string): boolean {
  if (PROXY_NAMES.includes(a)) return true;
  const [ip, bits, extra] = a.split('/');
  const v = isIP(ip ?? '');
  if (v === 0 || extra !== undefined) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (v === 4 ? 32 : 128));
}

function parseTrustProxy(v: string | undefined, problems: string[]): false | number | string[] {
  const t = (v ?? '').trim();
  if (t === '' || /^(0|false|no|off)$/i.test(t)) return false;
  // the README's earlier advice: one proxy in front (its own X-Forwarded-For entry is the client)
  if (/^(true|yes|on)$/i.test(t)) return 1;
  if (/^\d+$/.test(t)) {
    const n = Number(t);
    if (n <= 32) return n;
  }
  const list = t.split(',').map((x) => x.trim()).filter(Boolean);
  const bad = list.filter((a) => !isProxyAddress(a));
  if (list.length > 0 && bad.length === 0 && !/^\d+$/.test(t)) return list;
  problems.push(
    `FERRY_TRUST_PROXY must be false, a hop count 1-32, or a comma-separated list of proxy addresses/CIDRs (or loopback, linklocal, uniquelocal), got ${JSON.stringify(v)}`,
  );
  return false;
}

function parsePort(v: string, name: string, problems: string[]): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 0 || n > 65535) {
    problems.push(`${name} must be a port number 0-65535, got ${JSON.stringify(v)}`);
    return 0;
  }
  return n;
}

function parseMs(v: string | undefined, name: string, fallback: number, min: number, problems: string[]): number {
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < min || !Number.isSafeInteger(n)) {
    problems.push(`${name} must be a whole number of milliseconds (at least ${min}), got ${JSON.stringify(v)}`);
    return fallback;
  }
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const port = parsePort(env.FERRY_PORT ?? '5244', 'FERRY_PORT', problems);
  let sftpListen: Config['sftpListen'] = null;
  if (env.FERRY_SFTP_LISTEN) {
    const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(env.FERRY_SFTP_LISTEN);
    if (!m) problems.push(`FERRY_SFTP_LISTEN must be host:port, got ${JSON.stringify(env.FERRY_SFTP_LISTEN)}`);
    else sftpListen = { host: m[1] ?? (m[2] || '0.0.0.0'), port: parsePort(m[3]!, 'FERRY_SFTP_LISTEN', problems) };
  }
  const databaseUrl = env.FERRY_DATABASE_URL || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push(`FERRY_DATABASE_URL must be a postgres:// URL (unset for SQLite), got ${JSON.stringify(databaseUrl)}`);
  }
  let siteUrl = env.FERRY_SITE_URL || null;
  if (siteUrl) {
    try {
      const u = new URL(siteUrl);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
      siteUrl = siteUrl.replace(/\/+$/, '');
    } catch {
      problems.push(`FERRY_SITE_URL must be an http(s) URL, got ${JSON.stringify(siteUrl)}`);
    }
  }
  const logLevel = env.FERRY_LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`FERRY_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const trustProxy = parseTrustProxy(env.FERRY_TRUST_PROXY, problems);
  const headersTimeoutMs = parseMs(env.FERRY_HEADERS_TIMEOUT_MS, 'FERRY_HEADERS_TIMEOUT_MS', 60_000, 100, problems);
  const bodyIdleTimeoutMs = parseMs(env.FERRY_BODY_IDLE_TIMEOUT_MS, 'FERRY_BODY_IDLE_TIMEOUT_MS', 60_000, 0, problems);
  const eventLoopStats = parseBool(env.FERRY_EVENT_LOOP_STATS, 'FERRY_EVENT_LOOP_STATS', problems);
  const staleTempMs = parseMs(env.FERRY_STALE_TEMP_MS, 'FERRY_STALE_TEMP_MS', 10 * 60_000, 0, problems);
  const staleMultipartMs = parseMs(env.FERRY_STALE_MULTIPART_MS, 'FERRY_STALE_MULTIPART_MS', 60 * 60_000, 0, problems);
  if (problems.length) throw new ConfigError(problems);
  return {
    dataDir: resolve(env.FERRY_DATA_DIR || './data'),
    port,
    host: env.FERRY_HOST || '0.0.0.0',
    databaseUrl,
    adminPassword: env.FERRY_ADMIN_PASSWORD || null,
    sftpListen,
    siteUrl,
    trustProxy,
    logLevel,
    jwtSecret: env.FERRY_JWT_SECRET || null,
    headersTimeoutMs,
    bodyIdleTimeoutMs,
    eventLoopStats,
    staleTempMs,
    staleMultipartMs,
  };
}
