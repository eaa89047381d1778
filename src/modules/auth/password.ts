/**
 * Password hashing (contract §3).
 * - The *static hash* is what OpenList clients send to /api/auth/login/hash: lowercase hex
 *   SHA-256 of `<password>-https://github.com/alist-org/alist`. We accept it in either case.
 * - What we store is scrypt(static hash, per-user random salt). Plain passwords never
 *   reach the database or the logs.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { WorkerPool } from '../../lib/worker-pool.js';
import type { ScryptRequest } from './password.worker.js';

/**
 * Password hashing runs on one dedicated worker thread with a bounded queue. On libuv's thread pool a burst of
 * logins (16 MiB and ~60 ms of CPU each) queued ahead of every file read and write: everyone's downloads stalled
 * for seconds. The lockout bounds attempts per user and address; this bounds the total.
 */
const hashing = new WorkerPool<ScryptRequest, Uint8Array>({
  module: new URL(import.meta.url.endsWith('.ts') ? './password.worker.ts' : './password.worker.js', import.meta.url),
  name: 'ferry-password',
  size: 1,
  maxQueue: 256,
});

async function scryptHash(password: string, salt: string): Promise<Buffer> {
  const out = await hashing.run({ password, salt, keyLength: KEY_LEN, options: SCRYPT });
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

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
  return (await scryptHash(staticHex, salt)).toString('hex');
}

export async function verifyStatic(staticHex: string, salt: string, storedHex: string): Promise<boolean> {
  const got = await scryptHash(staticHex, salt);
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
