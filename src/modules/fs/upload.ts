/**
 * Upload requests (contract §8): headers → an UploadSpec, then the body streamed into a
 * two-phase driver write that becomes visible only at commit. Any failure — client abort,
 * fewer or more bytes than declared, a declared hash that does not match, a driver error —
 * aborts the write: no file is left behind and an overwritten file stays intact.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { badRequest, forbidden } from '../../lib/errors.js';
import { assertSafeName } from '../../lib/path-safety.js';
import { byteCounter } from '../../lib/streams.js';
import { isDriverError, pathExists, type Hashes, type StorageDriver } from '../storages/drivers/index.js';
import { resolveSidecarPlan, storeWithSidecars, type SidecarHeaders, type SidecarPlan } from '../seeds/sidecars/index.js';
import { Perm, type User } from '../users/user.model.js';
import { requirePerm, userPath } from './fs.context.js';
import { baseName, parentOf } from './fs.service.js';

export interface UploadSpec {
  /** Full virtual path of the target file. */
  full: string;
  overwrite: boolean;
  asTask: boolean;
  /** Declared size, when known. */
  size?: number;
  mtime?: Date;
  expectedHashes: Hashes;
  /**
   * Sidecars to write with the file: a plan, null for none, or undefined to apply the target
   * storage's policy with no request headers (SFTP).
   */
  sidecars?: SidecarPlan | null;
}

const HASH_HEADERS = [
  ['x-file-md5', 'md5', 32],
  ['x-file-sha1', 'sha1', 40],
  ['x-file-sha256', 'sha256', 64],
] as const;

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Reads and validates the upload headers; every problem is a 400 naming the header. */
export function parseUploadHeaders(req: FastifyRequest, user: User, opts: { sizeFromContentLength: boolean }): UploadSpec {
  requirePerm(user, Perm.WRITE);
  const raw = header(req, 'file-path');
  if (!raw) throw badRequest('File-Path: header is required');
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw badRequest('File-Path: malformed URL encoding');
  }
  const full = userPath(user, decoded);
  if (full === '/') throw badRequest('File-Path: must name a file');
  assertSafeName(baseName(full));

  let size: number | undefined;
  const cl = header(req, 'content-length');
  const xs = header(req, 'x-file-size');
  if (xs !== undefined && xs !== '') {
    if (!/^\d+$/.test(xs)) throw badRequest('X-File-Size: must be a whole number of bytes');
    size = Number(xs);
  }
  if (opts.sizeFromContentLength && cl !== undefined && header(req, 'transfer-encoding') === undefined) {
    const n = Number(cl);
    if (size !== undefined && size !== n) throw badRequest(`X-File-Size (${size}) differs from Content-Length (${n})`);
    size = n;
  }

  let mtime: Date | undefined;
  const lm = header(req, 'last-modified');
  if (lm && /^\d+$/.test(lm)) mtime = new Date(Number(lm));

  const expectedHashes: Hashes = {};
  for (const [h, name, width] of HASH_HEADERS) {
    const v = header(req, h)?.trim();
    if (!v) continue;
    if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(v)) throw badRequest(`${h.replace(/(^|-)x|(^|-)(\w)/g, (m) => m.toUpperCase())}: must be ${width} hex digits`);
    expectedHashes[name] = v.toLowerCase();
  }

  const q = req.query as Record<string, unknown> | undefined;
  const asTask = header(req, 'as-task') === 'true' || q?.as_task === 'true' || q?.as_task === true;
  return { full, overwrite: header(req, 'overwrite') !== 'false', asTask, size, mtime, expectedHashes };
}

const SIDECAR_HEADERS = ['x-seed-sidecars', 'x-generate-seed', 'x-seed-format', 'x-seed-piece-size', 'x-seed-hash-matrix'] as const;

/**
 * Decides the request's sidecars (contract §10.4) and fills `spec.sidecars`; sidecars with an
 * as-task upload are refused. Runs before any byte of the body is read.
 */
export async function planUploadSidecars(ctx: AppContext, req: FastifyRequest, spec: UploadSpec): Promise<void> {
  const headers: SidecarHeaders = {};
  for (const h of SIDECAR_HEADERS) {
    const v = header(req, h);
    if (v !== undefined) headers[h] = v;
  }
  const { storage } = await ctx.fs.locate(spec.full);
  spec.sidecars = await resolveSidecarPlan(ctx, headers, storage.record);
  if (spec.sidecars && spec.asTask) throw badRequest('seed sidecar generation requires synchronous upload (as_task=true cannot be combined with sidecars)');
}

/** Streams `body` into the storage at `spec.full`; visible only when complete and verified. */
export async function storeUpload(ctx: AppContext, spec: UploadSpec, body: Readable | AsyncIterable<Uint8Array>): Promise<void> {
  const located = await ctx.fs.locate(spec.full);
  const { driver, inner } = located;
  const sidecars = spec.sidecars === undefined ? await resolveSidecarPlan(ctx, {}, located.storage.record) : spec.sidecars;
  if (!spec.overwrite && (await pathExists(driver, inner))) throw forbidden('file exists');
  const parent = parentOf(inner);
  if (parent !== '/') await driver.mkdir(parent);
  try {
    if (sidecars) await storeWithSidecars(ctx, spec, sidecars, located, body);
    else await storePlain(ctx, spec, driver, inner, body);
  } catch (e) {
    // Overwrite: false lost a race at commit: the same answer as the check above (contract §8).
    if (isDriverError(e, 'exists') && !spec.overwrite) throw forbidden('file exists');
    throw e;
  }
}

/** The upload without sidecars: the driver hashes the bytes on their way in. */
async function storePlain(ctx: AppContext, spec: UploadSpec, driver: StorageDriver, inner: string, body: Readable | AsyncIterable<Uint8Array>): Promise<void> {
  const pending = await driver.beginWrite(inner, {
    size: spec.size,
    overwrite: spec.overwrite,
    mtime: spec.mtime,
    expectedHashes: spec.expectedHashes,
  });
  // tracked: a shutdown waits for this write to commit or clean up before closing the storages
  await ctx.storages.track(
    (async () => {
      try {
        await pending.pipeFrom(body);
        await pending.commit();
      } catch (e) {
        await pending.abort(e);
        throw e;
      }
    })(),
  );
}

/**
 * As-task uploads: the body is spooled to `<data dir>/tmp` (the request is bound to its
 * connection), then an `upload` task stores it. Checks that need no bytes run first.
 */
export async function spoolUploadTask(ctx: AppContext, user: User, spec: UploadSpec, body: Readable) {
  const { driver, inner } = await ctx.fs.locate(spec.full);
  if (!spec.overwrite && (await pathExists(driver, inner))) throw forbidden('file exists');
  const tmp = join(ctx.config.dataDir, 'tmp', `upload-${randomUUID()}`);
  let bytes = 0;
  try {
    await pipeline(body, byteCounter((n) => (bytes += n)), createWriteStream(tmp, { flags: 'wx' }));
    if (spec.size !== undefined && bytes !== spec.size) throw badRequest(`upload has ${bytes} bytes, ${spec.size} were declared`);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  return ctx.tasks.create('upload', `upload ${baseName(spec.full)}`, user.id, { tmp, spec: { ...spec, sidecars: null, size: bytes, mtime: spec.mtime?.getTime() } }, bytes);
}

export function registerUploadTask(ctx: AppContext): void {
  ctx.tasks.register('upload', async (payload, run) => {
    const tmp = String(payload.tmp);
    const s = payload.spec as UploadSpec & { mtime?: number };
    const spec: UploadSpec = { ...s, sidecars: null, mtime: s.mtime ? new Date(s.mtime) : undefined };
    try {
      let done = 0;
      const src = createReadStream(tmp);
      const counted = src.pipe(byteCounter((n) => run.progress((done += n), spec.size)));
      src.on('error', (e) => counted.destroy(e));
      run.signal.addEventListener('abort', () => counted.destroy(new Error('canceled')), { once: true });
      await storeUpload(ctx, spec, counted);
    } finally {
      // The spool file is the task's only copy of the bytes: keep it when the task will resume.
      if (!run.willResume()) await rm(tmp, { force: true });
    }
  });
}
