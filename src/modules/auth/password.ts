/**
 * Password hashing (contract §3).
 * - The *static hash* is what OpenList clients send to /api/auth/login/hash: lowercase hex
 *   SHA-256 of `<password>-https://github.com/alist-org/alist`. We accept it in either case.
 * - What we store is scrypt(static hash, per-user random salt). Plain passwords never
 *   reach the database or the logs.
 */
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (pw: string, salt: string, len: number, opts: object) => Promise<Buffer>;

export const STATIC_HASH_SUFFIX = '-https://github.com/alist-org/alist';
const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LEN = 32;

export function staticHash(plain: string): string {
  return createHash('sha256').update(plain + STATIC_HASH_SUFFIX, 'utf8').digest('hex');
}

/** Normalises a client-sent static hash; null when it is not 64 hex digits. */
export function normaliseStaticHash(h: string): string | null {
  return /^[0-9a-fA-F]{64}$/.test(h) ? h.toLowerCase() : null;
}

export function newSalt(): string {
  return randomBytes(16).toString('base64url');
}

export async function hashStatic(staticHex: string, salt: string): Promise<string> {
  return (await scryptAsync(staticHex, salt, KEY_LEN, SCRYPT)).toString('hex');
}

export async function verifyStatic(staticHex: string, salt: string, storedHex: string): Promise<boolean> {
  const got = await scryptAsync(staticHex, salt, KEY_LEN, SCRYPT);
  const want = Buffer.from(storedHex, 'hex');
  return want.length === got.length && timingSafeEqual(got, want);
}

/** A fresh salt and stored hash for a plain password. */
export async function passwordFields(plain: string): Promise<{ salt: string; pwdHash: string }> {
  const salt = newSalt();
  return { salt, pwdHash: await hashStatic(staticHash(plain), salt) };
}

/** Random printable password, e.g. for the first admin. */
export function randomPassword(len = 12): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  const bytes = randomBytes(len * 2);
  let out = '';
  for (const b of bytes) {
    if (b >= 256 - (256 % alphabet.length)) continue;
    out += alphabet[b % alphabet.length];
    if (out.length === len) break;
  }
  return out.length === len ? out : randomPassword(len);
}
