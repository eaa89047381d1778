/**
 * Ferry's configuration, read once from the environment (contract §1).
 * Boot fails listing every bad value at once.
 */
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
  /** FERRY_TRUST_PROXY: honour X-Forwarded-For for the client address. */
  trustProxy: boolean;
  /** FERRY_LOG_LEVEL: pino level. */
  logLevel: string;
  /** FERRY_JWT_SECRET: overrides the key in `<dataDir>/secret`. */
  jwtSecret: string | null;
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

function parsePort(v: string, name: string, problems: string[]): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 0 || n > 65535) {
    problems.push(`${name} must be a port number 0-65535, got ${JSON.stringify(v)}`);
    return 0;
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
  const trustProxy = parseBool(env.FERRY_TRUST_PROXY, 'FERRY_TRUST_PROXY', problems);
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
  };
}
