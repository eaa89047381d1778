/**
 * The common seed input of the preview operations (contract §10.5, seed-formats.md §8.2):
 * `seed_data` (standard base64, ≤ 14 MiB of characters) with an optional `format` and
 * `file_name`, or the `path` of a stored sidecar the user can read (inside their base path, not
 * hidden from them nor in a folder a password guards, on a storage the server may stream).
 * Decoding uses the format decoders and their limits; every failure is a 400 naming the field.
 */
import { Type } from 'typebox';
import type { SeedsDeps } from '../seeds.deps.js';
import { AppError, badRequest, isAppError } from '../../../lib/errors.js';
import { stripBasePath } from '../../../lib/path-safety.js';
import type { User } from '../../users/user.model.js';
import { MAX_SEED_DOC_BYTES, parseSeedFormat, type DecodedSeed, type SeedDiagnostic, type SeedFormat } from '../formats/index.js';
import { baseName, parentOf } from '../../../lib/paths.js';
import { userPath } from '../../fs/access.js';
import { seedStep, seedStepAsync, withField } from '../common/fields.js';
import { analyzeSeed, type Conversions } from '../common/seed-analysis.js';
import { readableEntry } from '../common/access.js';

/** Longest `seed_data` accepted, in base64 characters (OpenList's limit). */
export const MAX_SEED_DATA_CHARS = 14 * 1024 * 1024;

const PathStr = Type.String({ maxLength: 4096 });

/** Body fields every operation that takes a seed accepts. */
export const SeedInputFields = {
  seed_data: Type.Optional(Type.String({ description: 'the seed file, standard base64 (≤ 14 MiB of characters)' })),
  format: Type.Optional(Type.String({ maxLength: 32, description: 'oss, torrent or cas; detected from file_name and content when absent' })),
  file_name: Type.Optional(Type.String({ maxLength: 4096, description: 'name of the seed file (its extension decides the format)' })),
  path: Type.Optional(Type.String({ maxLength: 4096, description: 'a stored sidecar to read instead of seed_data' })),
};

export interface SeedInputBody {
  seed_data?: string;
  format?: string;
  file_name?: string;
  path?: string;
}

export interface SeedInput {
  decoded: DecodedSeed;
  /** What each container lacks, and the diagnostics (computed with the decoding, off the event loop for big seeds). */
  conversions: Conversions;
  diagnostics: SeedDiagnostic[];
  /** The seed file's bytes. */
  bytes: Buffer;
  /** Name of the seed file, when known (`file_name`, or the sidecar's name). */
  fileName?: string;
  /** Read from a stored sidecar: its full path (`shown` = as the user sees it) and folder. */
  stored?: { full: string; shown: string; dir: string };
}

export interface ReadInputOptions {
  /** `format` is the input's format (default); false: it means something else (convert/update: the target), detect instead. */
  formatIsSource?: boolean;
  /** Read `path` only when no `seed_data` is given (convert: `path` is then the output). Default true. */
  allowPath?: boolean;
  now?: Date;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decodes standard base64 strictly (whitespace ignored); anything else is a 400. */
export function decodeSeedData(raw: string, field = 'seed_data'): Buffer {
  if (raw.length > MAX_SEED_DATA_CHARS) throw badRequest(`${field}: seed data is too large (over ${MAX_SEED_DATA_CHARS} base64 characters)`, { field });
  const text = raw.replace(/[\s]+/g, '');
  if (text === '') throw badRequest(`${field}: seed_data is required`, { field });
  if (!BASE64.test(text) || text.length % 4 === 1) throw badRequest(`${field}: not valid base64 (standard alphabet A–Z, a–z, 0–9, +, /)`, { field });
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length === 0) throw badRequest(`${field}: decodes to no bytes`, { field });
  return bytes;
}

/** `format` of the request, or undefined to detect it. */
function sourceFormat(body: SeedInputBody, opts: ReadInputOptions): SeedFormat | undefined {
  if (opts.formatIsSource === false) return undefined;
  const f = body.format?.trim();
  return f ? seedStep('format', () => parseSeedFormat(f)) : undefined;
}

/** Reads a stored sidecar (≤ 10 MiB) as `user`; errors name `field`. */
export async function readStoredSeed(deps: Pick<SeedsDeps, 'fs' | 'folderAccess'>, user: User, p: string, field = 'path'): Promise<{ bytes: Buffer; full: string; shown: string }> {
  const full = withField(field, () => userPath(user, p));
  const shown = stripBasePath(user.basePath, full);
  try {
    // hidden from the user or in a folder a password guards: 403 (common/access.ts)
    const e = await readableEntry(deps, user, full);
    if (e.isDir) throw badRequest(`${field}: ${shown} is a folder, not a seed file`, { field });
    if (e.size > MAX_SEED_DOC_BYTES) throw badRequest(`${field}: ${shown} is ${e.size} bytes, over the seed limit of ${MAX_SEED_DOC_BYTES}`, { field });
    const { storage, driver, inner } = await deps.fs.locate(full);
    if (!storage.record.proxy || !driver.capabilities.streamable) {
      throw badRequest(`${field}: the storage ${storage.record.mountPath} does not allow the server to read ${shown} (proxy is off)`, {
        field,
        hint: `Turn on proxy for the storage ${storage.record.mountPath}, or download the seed and send it as seed_data.`,
      });
    }
    const chunks: Buffer[] = [];
    let n = 0;
    for await (const c of await driver.read(inner)) {
      const b = Buffer.isBuffer(c) ? c : Buffer.from(c as Uint8Array);
      n += b.length;
      if (n > MAX_SEED_DOC_BYTES) throw badRequest(`${field}: ${shown} is over the seed limit of ${MAX_SEED_DOC_BYTES} bytes`, { field });
      chunks.push(b);
    }
    return { bytes: Buffer.concat(chunks), full, shown };
  } catch (e) {
    if (isAppError(e) && e.data?.field === field) throw e;
    if (isAppError(e)) throw new AppError(e.code, `${field}: ${shown}: ${e.message}`, { ...(e.data ?? {}), field });
    throw e;
  }
}

/**
 * The seed of a request: `seed_data`, else `path` (when allowed). Decoding errors are 400s
 * naming `seed_data` (or `path`), with the decoder's reason.
 */
export async function readSeedInput(deps: Pick<SeedsDeps, 'fs' | 'settings' | 'folderAccess'>, user: User, body: SeedInputBody, opts: ReadInputOptions = {}): Promise<SeedInput> {
  const maxFiles = await deps.settings.getNumber('seed_max_files');
  const format = sourceFormat(body, opts);
  const hasData = body.seed_data !== undefined && body.seed_data.trim() !== '';
  const allowPath = opts.allowPath ?? true;
  if (!hasData && !(allowPath && body.path?.trim())) {
    throw badRequest(allowPath ? 'seed_data: seed_data or path is required' : 'seed_data: seed_data is required', { field: 'seed_data' });
  }
  if (hasData) {
    const bytes = decodeSeedData(body.seed_data!);
    const fileName = body.file_name?.trim() || undefined;
    const a = await seedStepAsync('seed_data', () => analyzeSeed(bytes, { filename: fileName, format, now: opts.now, maxFiles }));
    return { ...a, bytes, fileName };
  }
  const stored = await readStoredSeed(deps, user, body.path!.trim());
  const fileName = baseName(stored.full);
  const a = await seedStepAsync('path', () => analyzeSeed(stored.bytes, { filename: fileName, format, now: opts.now, maxFiles }));
  return { ...a, bytes: stored.bytes, fileName, stored: { full: stored.full, shown: stored.shown, dir: parentOf(stored.full) } };
}
