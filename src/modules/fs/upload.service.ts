/**
 * Upload requests (contract §8): headers → an UploadSpec, then the body streamed into a
 * two-phase driver write that becomes visible only at commit. Any failure — client abort,
 * fewer or more bytes than declared, a declared hash that does not match, a driver error —
 * aborts the write: no file is left behind and an overwritten file stays intact.
 */
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { badRequest, forbidden, preconditionFailed } from '../../lib/errors.js';
import { etagOf } from './serve-file.js';
import { assertSafeName } from '../../lib/path-safety.js';
import { byteCounter } from '../../lib/streams.js';
import { isDriverError, pathExists, type HashName, type Hashes } from '../storages/drivers/index.js';
import { taskKind } from '../tasks/task-definition.js';
import type { TaskQueue } from '../tasks/tasks.service.js';
import { Perm, type User } from '../users/user.model.js';
import type { CompanionWriter, UploadCompanions } from './fs.ports.js';
import type { FsService, Located } from './fs.service.js';
import { baseName, parentOf } from '../../lib/paths.js';
import { requirePerm, userPath } from './access.js';

export interface UploadSpec {
  /** Full virtual path of the target file. */
  full: string;
  overwrite: boolean;
  asTask: boolean;
  /** Declared size, when known. */
  size?: number;
  mtime?: Date;
  expectedHashes: Hashes;
  /** Digests to record besides the storage's `hash_on_write` (a WebDAV client's own comparison). */
  alsoHash?: readonly HashName[];
  /** `If-Match`: the ETag (as `/d/` gives it) the file must still have, so an edit never overwrites a newer one. */
  ifMatch?: string;
  /**
   * Companions (seed sidecars) to write with the file: a writer, null for none, or undefined to apply the
   * target storage's policy with no request headers (SFTP, WebDAV, tasks).
   */
  companions?: CompanionWriter | null;
}

/** As-task uploads: the spooled body and the upload it becomes. */
export const UPLOAD_TASK = taskKind(
  'upload',
  Type.Object({
    /** The spool file holding the body. */
    tmp: Type.String(),
    spec: Type.Object({
      full: Type.String(),
      overwrite: Type.Boolean(),
      size: Type.Optional(Type.Integer({ minimum: 0 })),
      /** Unix ms. */
      mtime: Type.Optional(Type.Number()),
      expectedHashes: Type.Object({ md5: Type.Optional(Type.String()), sha1: Type.Optional(Type.String()), sha256: Type.Optional(Type.String()) }),
    }),
  }),
);

const HASH_HEADERS = [
  ['x-file-md5', 'md5', 32],
  ['x-file-sha1', 'sha1', 40],
  ['x-file-sha256', 'sha256', 64],
] as const;

function header(req: FastifyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Reads and validates the upload headers; every problem is a 400 naming the header. The write permission is
 * checked here (bit 3) unless the caller checks it itself for the target folder (`writeChecked`: folder rules
 * may let users without bit 3 write there).
 */
export function parseUploadHeaders(req: FastifyRequest, user: User, opts: { sizeFromContentLength: boolean; writeChecked?: boolean }): UploadSpec {
  if (!opts.writeChecked) requirePerm(user, Perm.WRITE);
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
  const ifMatch = header(req, 'if-match')?.trim() || undefined;
  if (ifMatch && asTask) throw badRequest('If-Match cannot be combined with as_task');
  return { full, overwrite: header(req, 'overwrite') !== 'false', asTask, size, mtime, expectedHashes, ifMatch };
}

export interface UploadDeps {
  fs: Pick<FsService, 'locate' | 'track' | 'notify'>;
  /** The upload hook (seed sidecars). */
  companions: UploadCompanions;
  tasks: TaskQueue;
  /** `<data dir>/tmp`: spool files of as-task uploads. */
  spoolDir: string;
}

/** 412 unless the file exists and its ETag is one of `header`'s (`*`: any existing file). */
async function checkIfMatch(driver: Located['driver'], inner: string, header: string): Promise<void> {
  const cur = await driver.stat(inner).catch((e: unknown) => {
    if (isDriverError(e, 'not_found')) return null;
    throw e;
  });
  const tags = header.split(',').map((t) => t.trim().replace(/^W\//, ''));
  if (!cur || cur.isDir || !(tags.includes('*') || tags.includes(etagOf(cur)))) {
    throw preconditionFailed('the file changed since you opened it (If-Match does not match)');
  }
}

/** Upload requests of every protocol: decide companions, stream into the storage, spool as-task uploads. */
export class UploadService {
  constructor(private readonly deps: UploadDeps) {}

  /**
   * Decides the request's companions (contract §10.4) and fills `spec.companions`; companions with an as-task
   * upload are refused. Runs before any byte of the body is read.
   */
  async planCompanions(headers: FastifyRequest['headers'], spec: UploadSpec): Promise<void> {
    const flat: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) if (v !== undefined) flat[k] = Array.isArray(v) ? v[0]! : v;
    const { storage } = await this.deps.fs.locate(spec.full);
    spec.companions = await this.deps.companions.forUpload(flat, storage.record);
    if (spec.companions && spec.asTask) throw badRequest('seed sidecar generation requires synchronous upload (as_task=true cannot be combined with sidecars)');
  }

  /** Streams `body` into the storage at `spec.full`; visible only when complete and verified. */
  async store(spec: UploadSpec, body: Readable | AsyncIterable<Uint8Array>): Promise<void> {
    const located = await this.deps.fs.locate(spec.full);
    const { driver, inner } = located;
    const companions = spec.companions === undefined ? await this.deps.companions.forUpload({}, located.storage.record) : spec.companions;
    if (!spec.overwrite && (await pathExists(driver, inner))) throw forbidden('file exists');
    if (spec.ifMatch !== undefined) await checkIfMatch(driver, inner, spec.ifMatch);
    const parent = parentOf(inner);
    if (parent !== '/') await driver.mkdir(parent);
    try {
      // tracked: a shutdown waits for this write to commit or clean up before closing the storages
      await this.deps.fs.track(companions ? companions.store({ ...spec, main: located }, body) : this.storePlain(spec, located, body));
      await this.deps.fs.notify({ kind: 'written', full: spec.full });
    } catch (e) {
      // Overwrite: false lost a race at commit: the same answer as the check above (contract §8).
      if (isDriverError(e, 'exists') && !spec.overwrite) throw forbidden('file exists');
      throw e;
    }
  }

  /** The upload without companions: the driver hashes the bytes on their way in. */
  private async storePlain(spec: UploadSpec, { driver, inner }: Located, body: Readable | AsyncIterable<Uint8Array>): Promise<void> {
    const pending = await driver.beginWrite(inner, { size: spec.size, overwrite: spec.overwrite, mtime: spec.mtime, expectedHashes: spec.expectedHashes, alsoHash: spec.alsoHash });
    try {
      await pending.pipeFrom(body);
      await pending.commit();
    } catch (e) {
      await pending.abort(e);
      throw e;
    }
  }

  /**
   * As-task uploads: the body is spooled to `<data dir>/tmp` (the request is bound to its connection), then an
   * `upload` task stores it. Checks that need no bytes run first.
   */
  async spool(user: User, spec: UploadSpec, body: Readable) {
    const { driver, inner } = await this.deps.fs.locate(spec.full);
    if (!spec.overwrite && (await pathExists(driver, inner))) throw forbidden('file exists');
    const tmp = join(this.deps.spoolDir, `upload-${randomUUID()}`);
    let bytes = 0;
    try {
      await pipeline(body, byteCounter((n) => (bytes += n)), createWriteStream(tmp, { flags: 'wx' }));
      if (spec.size !== undefined && bytes !== spec.size) throw badRequest(`upload has ${bytes} bytes, ${spec.size} were declared`);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
    return this.deps.tasks.create(UPLOAD_TASK, {
      name: `upload ${baseName(spec.full)}`,
      creatorId: user.id,
      payload: { tmp, spec: { full: spec.full, overwrite: spec.overwrite, size: bytes, mtime: spec.mtime?.getTime(), expectedHashes: spec.expectedHashes } },
      totalBytes: bytes,
    });
  }
}
