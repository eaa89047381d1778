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
