/** Helpers shared by the S3 driver and its pending writes: error mapping and hash metadata. */
import { createHash } from 'node:crypto';
import type { HeadObjectCommandOutput } from '@aws-sdk/client-s3';
import { DriverError, HASH_NAMES, type HashEngine, type Hashes } from './types.js';
import { normalizeHashes } from '../../../lib/hashes.js';

export const MiB = 1024 * 1024;

export const META = { md5: 'ferry-md5', sha1: 'ferry-sha1', sha256: 'ferry-sha256', mtime: 'ferry-mtime' } as const;

export function statusOf(e: unknown): number | undefined {
  return (e as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

export function mapS3Error(e: unknown, path: string): DriverError {
  if (e instanceof DriverError) return e;
  const name = (e as Error)?.name ?? '';
  const status = statusOf(e);
  const msg = (e as Error)?.message ?? String(e);
  if (name === 'NoSuchBucket') return new DriverError('io', `bucket not found (${msg})`, { path, cause: e });
  if (status === 404 || name === 'NoSuchKey' || name === 'NotFound') return new DriverError('not_found', `object not found: ${path}`, { path, cause: e });
  if (status === 412 || name === 'PreconditionFailed') return new DriverError('exists', 'file exists', { path, cause: e });
  if (status === 416 || name === 'InvalidRange') return new DriverError('invalid_range', `range not satisfiable: ${path}`, { path, cause: e });
  if (status === 403 || name === 'AccessDenied') return new DriverError('permission', `access denied: ${path} (${msg})`, { path, cause: e });
  return new DriverError('io', `S3 ${name || 'error'}: ${msg} (${path})`, { path, cause: e });
}

export function b64ToHex(v: string | undefined): string | undefined {
  if (!v || v.includes('-')) return undefined; // composite (per-part) checksums are not file hashes
  return Buffer.from(v, 'base64').toString('hex');
}

/** MD5 from a plain single-part ETag (not multipart `…-N`, not SSE-KMS/SSE-C). */
export function md5FromEtag(etag: string | undefined, encrypted: boolean): string | undefined {
  const t = etag?.replace(/"/g, '');
  return !encrypted && t && /^[0-9a-fA-F]{32}$/.test(t) ? t.toLowerCase() : undefined;
}

export function hashesFromHead(h: HeadObjectCommandOutput): Hashes {
  const meta = h.Metadata ?? {};
  const encrypted = h.ServerSideEncryption === 'aws:kms' || h.ServerSideEncryption === 'aws:kms:dsse' || !!h.SSECustomerAlgorithm;
  return normalizeHashes({
    md5: meta[META.md5] ?? md5FromEtag(h.ETag, encrypted),
    sha1: b64ToHex(h.ChecksumSHA1) ?? meta[META.sha1],
    sha256: b64ToHex(h.ChecksumSHA256) ?? meta[META.sha256],
  });
}

export function hashMetadata(h: Hashes, extra: Record<string, string> = {}): Record<string, string> {
  const m: Record<string, string> = { ...extra };
  for (const n of HASH_NAMES) if (h[n]) m[META[n]] = h[n] as string;
  return m;
}

export const md5b64 = (b: Buffer) => createHash('md5').update(b).digest('base64');

/**
 * Content-MD5 of a part, computed on the driver's hash engine (the worker threads in the server):
 * an 8 MiB part is ~11 ms of MD5, too long to run on the event loop for every part.
 */
export async function md5b64Off(engine: HashEngine, b: Buffer): Promise<string> {
  const job = engine(['md5'], b.length);
  try {
    await job.update(b);
    const { md5 } = await job.digest();
    return Buffer.from(md5!, 'hex').toString('base64');
  } catch (e) {
    job.abort(e);
    throw e;
  }
}

/** The part of an SDK command `unsignedPayload` touches. */
interface WithMiddleware {
  middlewareStack: { add(mw: (next: (args: { request: unknown }) => Promise<unknown>) => (args: { request: unknown }) => Promise<unknown>, opts: { step: 'build'; name: string }): void };
}

/**
 * Signs a command's request without hashing its body (`x-amz-content-sha256: UNSIGNED-PAYLOAD`):
 * otherwise SigV4 computes SHA-256 of every part on the event loop (0.6 CPU-s per GiB). Only for
 * requests that carry Content-MD5: that header is signed and the server checks the body against it.
 */
export function unsignedPayload<C>(cmd: C): C {
  (cmd as unknown as WithMiddleware).middlewareStack.add(
    (next) => (args) => {
      const req = args.request as { headers?: Record<string, string> };
      if (req.headers) req.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
      return next(args);
    },
    { step: 'build', name: 'ferryUnsignedPayload' },
  );
  return cmd;
}

