/**
 * Download-link signatures (OpenList-compatible): `base64url(HMAC-SHA256(key, "<full path>:<expire>")):<expire>`
 * with `=` padding, keyed with the admin API `token` setting; expire 0 = never.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { unauthorized } from '../../lib/errors.js';

function mac(key: string, path: string, expire: number): string {
  const b64 = createHmac('sha256', key).update(`${path}:${expire}`).digest('base64');
  return b64.replace(/\+/g, '-').replace(/\//g, '_');
}

export function signPath(key: string, path: string, expire: number): string {
  return `${mac(key, path, expire)}:${expire}`;
}

/** Throws 401 with the reason when `sign` is not a valid signature of `path`. */
export function verifySign(key: string, path: string, sign: string | undefined, now = Date.now()): void {
  const s = (sign ?? '').replace(/\/$/, '');
  const i = s.lastIndexOf(':');
  if (!s || i < 0) throw unauthorized('expire missing');
  const expire = Number(s.slice(i + 1));
  if (!/^\d+$/.test(s.slice(i + 1))) throw unauthorized('expire invalid');
  if (expire !== 0 && expire * 1000 < now) throw unauthorized('sign expired');
  const want = Buffer.from(signPath(key, path, expire));
  const got = Buffer.from(s);
  if (want.length !== got.length || !timingSafeEqual(want, got)) throw unauthorized('sign invalid');
}

/** Expire (Unix seconds) for a new signature: 0 when `link_expiration` hours is 0. */
export function expireFor(linkExpirationHours: number, now = Date.now()): number {
  return linkExpirationHours > 0 ? Math.floor(now / 1000 + linkExpirationHours * 3600) : 0;
}

/**
 * Web-seed roots (BEP 19, multi-file torrents): a never-expiring capability for one folder, carried in
 * the URL path because clients append `<torrent name>/<file path>` to it. Token:
 * `base64url("<root>\0<name>") "." base64url(HMAC-SHA256(key, "webseed\0<root>\0<name>:0"))`.
 * The `webseed` prefix keeps a root token from ever verifying as a `?sign=` of a path, and back.
 */
export function webSeedToken(key: string, root: string, name: string): string {
  const payload = `${root}\0${name}`;
  return `${Buffer.from(payload).toString('base64url')}.${mac(key, `webseed\0${payload}`, 0)}`;
}

/** The `{root, name}` a token grants, or 401 when it is not one this key made. */
export function verifyWebSeedToken(key: string, token: string): { root: string; name: string } {
  const payload = Buffer.from(token.slice(0, Math.max(0, token.indexOf('.'))), 'base64url').toString('utf8');
  const sep = payload.indexOf('\0');
  if (sep <= 0) throw unauthorized('web seed token invalid');
  const grant = { root: payload.slice(0, sep), name: payload.slice(sep + 1) };
  const want = Buffer.from(webSeedToken(key, grant.root, grant.name));
  const got = Buffer.from(token);
  if (want.length !== got.length || !timingSafeEqual(want, got)) throw unauthorized('web seed token invalid');
  return grant;
}
