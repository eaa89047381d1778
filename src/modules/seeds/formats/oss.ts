// `.oss`: the seed as UTF-8 JSON (seed-formats.md §2). Also home of the JSON-shape
// reader shared with the torrent `x-openlist` extension.
import { Buffer } from 'node:buffer';
import { MAX_SEED_DOC_BYTES, MAX_SEED_FILES, SeedFormatError, canonicalizeSeed, validateSeed } from './model.js';
import type { Seed, SeedChannel, SeedFile, SeedHashes, SeedPieces, SeedSource } from './model.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

class Reader {
  constructor(readonly prefix: string) {}

  err(field: string, reason: string, file?: string): never {
    throw new SeedFormatError(this.prefix + field, reason, file);
  }

  obj(o: Obj, key: string, at: string, file?: string): Obj | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (!isObj(v)) this.err(at, 'must be an object', file);
    return v;
  }

  str(o: Obj, key: string, at: string, file?: string): string | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') this.err(at, 'must be a string', file);
    return v;
  }

  reqStr(o: Obj, key: string, at: string, file?: string): string {
    const v = this.str(o, key, at, file);
    if (v === undefined) this.err(at, 'is required', file);
    return v;
  }

  int(o: Obj, key: string, at: string, file?: string): number {
    const v = o[key];
    if (v === undefined || v === null) this.err(at, 'is required', file);
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) this.err(at, 'must be an integer', file);
    return v;
  }

  list(o: Obj, key: string, at: string, file?: string): unknown[] | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) this.err(at, 'must be a list', file);
    return v;
  }

  strList(o: Obj, key: string, at: string, file?: string): string[] | undefined {
    const v = this.list(o, key, at, file);
    return v?.map((s, i) => {
      if (typeof s !== 'string') this.err(`${at}[${i}]`, 'must be a string', file);
      return s;
    });
  }
}

function readHashes(r: Reader, o: Obj | undefined, at: string, file: string): SeedHashes {
  if (!o) return {};
  const hashes: SeedHashes = {
    md5: r.str(o, 'md5', `${at}.md5`, file),
    sha1: r.str(o, 'sha1', `${at}.sha1`, file),
    sha256: r.str(o, 'sha256', `${at}.sha256`, file),
    gcid: r.str(o, 'gcid', `${at}.gcid`, file),
  };
  const p = r.obj(o, 'pieces', `${at}.pieces`, file);
  if (p) {
    const pieces: SeedPieces = {
      md5: r.strList(p, 'md5', `${at}.pieces.md5`, file),
      sha1: r.strList(p, 'sha1', `${at}.pieces.sha1`, file),
      sha256: r.strList(p, 'sha256', `${at}.pieces.sha256`, file),
    };
    hashes.pieces = pieces;
  }
  return hashes;
}

function readFile(r: Reader, v: unknown, i: number): SeedFile {
  const at = `files[${i}]`;
  if (!isObj(v)) r.err(at, 'must be an object');
  const path = r.reqStr(v, 'path', `${at}.path`);
  const sources = r.list(v, 'sources', `${at}.sources`, path)?.map((s, j): SeedSource => {
    const sat = `${at}.sources[${j}]`;
    if (!isObj(s)) r.err(sat, 'must be an object', path);
    return {
      type: r.reqStr(s, 'type', `${sat}.type`, path),
      url: r.reqStr(s, 'url', `${sat}.url`, path),
      expires_at: r.str(s, 'expires_at', `${sat}.expires_at`, path),
      share_id: r.str(s, 'share_id', `${sat}.share_id`, path),
    };
  });
  return {
    path,
    size: r.int(v, 'size', `${at}.size`, path),
    modified: r.str(v, 'modified', `${at}.modified`, path),
    comment: r.str(v, 'comment', `${at}.comment`, path),
    hashes: readHashes(r, r.obj(v, 'hashes', `${at}.hashes`, path), `${at}.hashes`, path),
    sources,
    cas_slice_md5: r.str(v, 'cas_slice_md5', `${at}.cas_slice_md5`, path),
    cas_create_time: r.str(v, 'cas_create_time', `${at}.cas_create_time`, path),
    cas_cloud: r.str(v, 'cas_cloud', `${at}.cas_cloud`, path),
    missing_channels: r.strList(v, 'missing_channels', `${at}.missing_channels`, path),
  };
}

/**
 * Reads a seed from a JSON-shaped value (parsed `.oss`, or the `x-openlist` dict converted to JSON
 * shapes). Unknown keys are ignored; types are checked; the result is canonical (lowercase hashes)
 * and validated. `fieldPrefix` is put before every error field (e.g. `x-openlist.`).
 */
export function seedFromJson(value: unknown, fieldPrefix = ''): Seed {
  const r: Reader = new Reader(fieldPrefix);
  if (!isObj(value)) r.err('document', 'a seed must be a JSON object');
  const format = r.reqStr(value, 'format', 'format');
  const version = r.int(value, 'version', 'version');
  const files = r.list(value, 'files', 'files');
  if (!files) r.err('files', 'is required');
  if (files.length > MAX_SEED_FILES) r.err('files', `too many files: ${files.length} (limit ${MAX_SEED_FILES})`);
  const channels = r.list(value, 'channels', 'channels')?.map((c, i): SeedChannel => {
    if (!isObj(c)) r.err(`channels[${i}]`, 'must be an object');
    return { driver: r.reqStr(c, 'driver', `channels[${i}].driver`), mount_path: r.str(c, 'mount_path', `channels[${i}].mount_path`) };
  });
  const raw = {
    format,
    version,
    name: r.reqStr(value, 'name', 'name'),
    comment: r.str(value, 'comment', 'comment'),
    created_at: r.reqStr(value, 'created_at', 'created_at'),
    created_by: r.reqStr(value, 'created_by', 'created_by'),
    piece_size: r.int(value, 'piece_size', 'piece_size'),
    trackers: r.strList(value, 'trackers', 'trackers')?.filter((t) => t !== ''),
    channels,
    files: files.map((f, i) => readFile(r, f, i)),
  } as Seed;
  const seed = canonicalizeSeed(raw);
  try {
    validateSeed(seed);
  } catch (e) {
    if (e instanceof SeedFormatError && fieldPrefix) throw new SeedFormatError(fieldPrefix + e.field, e.reason, e.file);
    throw e;
  }
  return seed;
}

export interface EncodeOptions {
  /** Replaces `created_by` in the output, e.g. `Ferry 0.1.0`. */
  createdBy?: string;
}

/** The canonical seed object in .oss key order (what `.oss` and JSON APIs show). */
export function seedToJson(seed: Seed, opts: EncodeOptions = {}): Seed {
  const out = canonicalizeSeed(opts.createdBy ? { ...seed, created_by: opts.createdBy } : seed);
  validateSeed(out);
  return out;
}

/** Encodes `.oss`: validated, lowercase hashes, 2-space indented JSON, empty optionals omitted. */
export function encodeOss(seed: Seed, opts: EncodeOptions = {}): Buffer {
  const bytes = Buffer.from(JSON.stringify(seedToJson(seed, opts), null, 2), 'utf8');
  if (bytes.length > MAX_SEED_DOC_BYTES) {
    throw new SeedFormatError('document', `the .oss document would be ${bytes.length} bytes, over the limit of ${MAX_SEED_DOC_BYTES}`);
  }
  return bytes;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes text from bytes: size limit, one leading BOM stripped, strict UTF-8. */
export function decodeSeedText(input: Uint8Array, field = 'document'): string {
  if (input.length > MAX_SEED_DOC_BYTES) {
    throw new SeedFormatError(field, `document of ${input.length} bytes exceeds the limit of ${MAX_SEED_DOC_BYTES}`);
  }
  const body = input[0] === 0xef && input[1] === 0xbb && input[2] === 0xbf ? input.subarray(3) : input;
  try {
    return utf8.decode(body);
  } catch {
    throw new SeedFormatError(field, 'is not valid UTF-8');
  }
}

/** Parses exactly one JSON value; anything but whitespace after it is refused. */
export function parseSeedJson(text: string, field = 'document'): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const reason = /non-whitespace character after JSON/.test(msg) ? `trailing data after the JSON value (${msg})` : `not valid JSON (${msg})`;
    throw new SeedFormatError(field, reason);
  }
}

/** Decodes `.oss` bytes (or already-decoded text) into a canonical, validated seed. */
export function decodeOss(input: Uint8Array | string): Seed {
  const text = typeof input === 'string' ? decodeSeedText(Buffer.from(input.replace(/^\uFEFF/, ''), 'utf8')) : decodeSeedText(input);
  return seedFromJson(parseSeedJson(text));
}
