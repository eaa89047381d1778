/**
 * Download-link signatures (OpenList-compatible): `base64url(HMAC-SHA256(key, "<full path>:<expire>")):<expire>`
 * with `=` padding, keyed with the admin API `token` setting; expire 0 = never.
 */
import crypto, { timingSafeEqual } from 'node:crypto';
import { unauthorized } from '../../lib/errors.js';

/** One-shot hashing (Node ≥ 20.12); older 20.x takes createHmac. */
const oneShot = (crypto as { hash?: typeof crypto.hash }).hash;
const BLOCK = 64;

/** The last key's padded blocks: `inner` = key⊕ipad then the message, `outer` = key⊕opad then the inner digest. */
let keyed: { key: string; inner: Buffer; outer: Buffer } | null = null;

function keyState(key: string): { key: string; inner: Buffer; outer: Buffer } {
  if (keyed?.key === key) return keyed;
  let k = Buffer.from(key, 'utf8');
  if (k.length > BLOCK) k = crypto.createHash('sha256').update(k).digest();
  const inner = Buffer.alloc(BLOCK + 1024, 0x36);
  const outer = Buffer.alloc(BLOCK + 32, 0x5c);
  for (let i = 0; i < k.length; i++) {
    inner[i]! ^= k[i]!;
    outer[i]! ^= k[i]!;
  }
  return (keyed = { key, inner, outer });
}

/**
 * HMAC-SHA256 (RFC 2104) of `msg` in base64. Over two one-shot hashes into reused buffers rather than a new Hmac
 * object per call: a listing signs every file in it, and the Hmac objects were most of its cost and garbage.
 */
function hmacBase64(key: string, msg: string): string {
  if (!oneShot) return crypto.createHmac('sha256', key).update(msg).digest('base64');
  const st = keyState(key);
  const need = BLOCK + Buffer.byteLength(msg, 'utf8');
  if (need > st.inner.length) {
    const grown = Buffer.alloc(Math.max(need, st.inner.length * 2));
    st.inner.copy(grown, 0, 0, BLOCK);
    st.inner = grown;
  }
  st.inner.write(msg, BLOCK, 'utf8');
  const innerDigest = oneShot('sha256', st.inner.subarray(0, need), 'buffer');
  innerDigest.copy(st.outer, BLOCK);
  return oneShot('sha256', st.outer, 'base64');
}

function mac(key: string, path: string, expire: number): string {
  const b64 = hmacBase64(key, `${path}:${expire}`);
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
