/**
 * Parsing of one OpenSSH public key line (`type base64 [comment]`, contract §6).
 * The wire blob is walked field by field: the type word must match the blob, every
 * field must be present and nothing may trail. RSA keys need ≥ 2048 bits. Key
 * material of the classic types is additionally loaded by ssh2's parser.
 */
import { createHash, createPublicKey } from 'node:crypto';
import { createRequire } from 'node:module';

/** ssh2 is loaded on first use (~15 MB): most processes never parse a key. */
let sshUtils: typeof import('ssh2').utils | null = null;
function ssh2Utils(): typeof import('ssh2').utils {
  sshUtils ??= (createRequire(import.meta.url)('ssh2') as typeof import('ssh2')).utils;
  return sshUtils;
}

export const ACCEPTED_KEY_TYPES = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'ssh-rsa',
  'sk-ssh-ed25519@openssh.com',
  'sk-ecdsa-sha2-nistp256@openssh.com',
] as const;

export const MIN_RSA_BITS = 2048;

export interface ParsedPublicKey {
  type: string;
  /** The key's wire-format blob (base64-decoded second field). */
  blob: Buffer;
  comment: string;
  /** `SHA256:` + unpadded base64 of SHA-256 of the blob, as `ssh-keygen -lf` prints. */
  fingerprint: string;
  /** `type base64`, without the comment: what we store and compare. */
  canonical: string;
  bits: number;
}

export class InvalidKeyError extends Error {}

class Reader {
  private off = 0;
  constructor(private readonly buf: Buffer) {}
  bytes(): Buffer {
    if (this.off + 4 > this.buf.length) throw new InvalidKeyError('truncated key blob');
    const len = this.buf.readUInt32BE(this.off);
    this.off += 4;
    if (len > this.buf.length - this.off) throw new InvalidKeyError('truncated key blob');
    const out = this.buf.subarray(this.off, this.off + len);
    this.off += len;
    return out;
  }
  string(): string {
    return this.bytes().toString('latin1');
  }
  end(): void {
    if (this.off !== this.buf.length) throw new InvalidKeyError('trailing bytes in key blob');
  }
}

const CURVES: Record<string, { name: string; pointLen: number; bits: number; jwk: string }> = {
  'ecdsa-sha2-nistp256': { name: 'nistp256', pointLen: 65, bits: 256, jwk: 'P-256' },
  'ecdsa-sha2-nistp384': { name: 'nistp384', pointLen: 97, bits: 384, jwk: 'P-384' },
  'ecdsa-sha2-nistp521': { name: 'nistp521', pointLen: 133, bits: 521, jwk: 'P-521' },
  'sk-ecdsa-sha2-nistp256@openssh.com': { name: 'nistp256', pointLen: 65, bits: 256, jwk: 'P-256' },
};

/** Throws unless the uncompressed point `q` (0x04 ‖ x ‖ y) lies on the curve (as ssh-keygen checks). */
function checkPointOnCurve(q: Buffer, crv: string): void {
  const half = (q.length - 1) / 2;
  const x = q.subarray(1, 1 + half).toString('base64url');
  const y = q.subarray(1 + half).toString('base64url');
  try {
    createPublicKey({ key: { kty: 'EC', crv, x, y }, format: 'jwk' });
  } catch {
    throw new InvalidKeyError('ECDSA point is not on the curve');
  }
}

function mpintBits(m: Buffer): number {
  let i = 0;
  while (i < m.length && m[i] === 0) i++;
  if (i === m.length) return 0;
  return (m.length - i - 1) * 8 + (32 - Math.clz32(m[i]!));
}

/** Walks the blob for `type`; returns the key size in bits. */
function checkBlob(type: string, blob: Buffer): number {
  const r = new Reader(blob);
  if (r.string() !== type) throw new InvalidKeyError('key type does not match the key data');
  let bits: number;
  if (type === 'ssh-ed25519' || type === 'sk-ssh-ed25519@openssh.com') {
    if (r.bytes().length !== 32) throw new InvalidKeyError('bad ed25519 key length');
    bits = 256;
  } else if (type === 'ssh-rsa') {
    const e = r.bytes();
    const n = r.bytes();
    if (mpintBits(e) === 0 || mpintBits(e) > 64) throw new InvalidKeyError('bad RSA exponent');
    bits = mpintBits(n);
    if (bits < MIN_RSA_BITS) throw new InvalidKeyError(`RSA keys must have at least ${MIN_RSA_BITS} bits`);
  } else {
    const curve = CURVES[type]!;
    if (r.string() !== curve.name) throw new InvalidKeyError('curve does not match the key type');
    const q = r.bytes();
    if (q.length !== curve.pointLen || q[0] !== 4) throw new InvalidKeyError('bad ECDSA point');
    checkPointOnCurve(q, curve.jwk);
    bits = curve.bits;
  }
  if (type.startsWith('sk-')) r.string(); // application, e.g. "ssh:"
  r.end();
  return bits;
}

export function fingerprintOf(blob: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');
}

export function parsePublicKey(text: string): ParsedPublicKey {
  const line = text.trim();
  if (line === '' || /[\r\n]/.test(line)) throw new InvalidKeyError('expected exactly one key line');
  const [type, b64, ...rest] = line.split(/[ \t]+/);
  if (!type || !b64) throw new InvalidKeyError('expected "type base64 [comment]"');
  if (!(ACCEPTED_KEY_TYPES as readonly string[]).includes(type)) throw new InvalidKeyError(`key type ${type} is not accepted`);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 !== 0) throw new InvalidKeyError('key data is not base64');
  const blob = Buffer.from(b64, 'base64');
  if (blob.toString('base64') !== b64) throw new InvalidKeyError('key data is not canonical base64');
  const bits = checkBlob(type, blob);
  if (!type.startsWith('sk-')) {
    const parsed = ssh2Utils().parseKey(`${type} ${b64}`);
    if (parsed instanceof Error || Array.isArray(parsed)) throw new InvalidKeyError('key material is invalid');
  }
  return { type, blob, comment: rest.join(' '), fingerprint: fingerprintOf(blob), canonical: `${type} ${b64}`, bits };
}
