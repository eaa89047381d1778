/** Helpers shared by the drivers: path checks, hashing, option validation, small async tools. */
import { createHash, type Hash } from 'node:crypto';
import { isWithin } from '../../../lib/paths.js';
import { DriverError, HASH_NAMES, type HashEngine, type HashName, type Hashes, type OptionDescriptor } from './types.js';

/** Names starting with this are in-flight writes: hidden from listings, refused as paths. */
export const TEMP_PREFIX = '.ferry-tmp-';

export function isTempName(name: string): boolean {
  return name.startsWith(TEMP_PREFIX);
}

/**
 * Validates an in-storage path: absolute, no empty/`.`/`..` segments, no NUL, no temp names.
 * Returns its segments (`[]` for the root).
 */
export function checkPath(path: string): string[] {
  if (typeof path !== 'string' || !path.startsWith('/') || path.includes('\0')) {
    throw new DriverError('invalid_path', `invalid path: ${JSON.stringify(path)}`, { path });
  }
  if (path === '/') return [];
  const segs = path.slice(1).split('/');
  for (const s of segs) {
    if (s === '' || s === '.' || s === '..') throw new DriverError('invalid_path', `invalid path: ${JSON.stringify(path)}`, { path });
    if (isTempName(s)) throw new DriverError('invalid_path', `reserved name in path: ${JSON.stringify(path)}`, { path });
  }
  return segs;
}

/** A single new name (rename): non-empty, no `/`, not `.`/`..`, no NUL, not reserved. */
export function checkName(name: string): string {
  if (typeof name !== 'string' || name === '' || name === '.' || name === '..' || /[/\0]/.test(name) || isTempName(name)) {
    throw new DriverError('invalid_name', `invalid file name [${name}]`);
  }
  return name;
}

/** Checks common to move/copy: valid paths, not the root, destination not inside the source. */
export function checkTransfer(src: string, dst: string, verb: string): void {
  checkPath(src);
  checkPath(dst);
  if (src === '/' || dst === '/') throw new DriverError('invalid_operation', `cannot ${verb} the root`, { path: src });
  if (dst !== src && isWithin(src, dst)) {
    throw new DriverError('invalid_operation', 'the destination folder is a subfolder of the source folder', { path: dst });
  }
}

/** Validates a range against a size; returns the inclusive end. */
export function checkRange(path: string, size: number, range: { start: number; end?: number }): number {
  const { start } = range;
  const end = range.end ?? size - 1;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start || end >= size) {
    throw new DriverError('invalid_range', `range ${start}-${range.end ?? ''} not satisfiable for size ${size}`, { path });
  }
  return end;
}

// ---------------------------------------------------------------------------------------------
// Hashing

const NODE_ALGO: Record<HashName, string> = { md5: 'md5', sha1: 'sha1', sha256: 'sha256' };

/** Incremental md5/sha1/sha256 over one pass of the bytes. */
export class MultiHasher {
  private readonly hs: [HashName, Hash][];
  constructor(names: readonly HashName[] = HASH_NAMES) {
    this.hs = [...new Set(names)].map((n) => [n, createHash(NODE_ALGO[n])]);
  }
  update(chunk: Uint8Array): void {
    for (const [, h] of this.hs) h.update(chunk);
  }
  digest(): Hashes {
    const out: Hashes = {};
    for (const [n, h] of this.hs) out[n] = h.digest('hex');
    return out;
  }
}

/**
 * The engine drivers use when none is injected (tests, tools): the digests on the calling thread.
 * The server injects the worker-thread engine (src/app/services.ts).
 */
export const inlineHashEngine: HashEngine = (names) => {
  const h = new MultiHasher(names);
  return {
    update: (chunk) => {
      h.update(chunk);
      return Promise.resolve();
    },
    digest: () => Promise.resolve(h.digest()),
    abort: () => undefined,
  };
};

/** What a storage records on write unless its `hash_on_write` says otherwise. */
export const DEFAULT_HASH_ON_WRITE = 'sha256';

/** Every storage's `hash_on_write` option: which digests its writes record in the hash index. */
export const HASH_ON_WRITE_OPTION: OptionDescriptor = {
  name: 'hash_on_write',
  type: 'string',
  // SHA-256 alone: measured in the README ("Why SHA-256 alone by default"); MD5 costs the most
  default: DEFAULT_HASH_ON_WRITE,
  required: false,
  help:
    'Digests computed while a file is written and kept in the hash index (comma-separated: md5, sha1, sha256; empty or "none" = none; default sha256). ' +
    'They are computed on worker threads as the bytes arrive; each costs CPU (MD5 the most, about twice SHA-256). A digest not recorded ' +
    'is learnt when the file is read whole (a download, a seed generation); until then rapid upload cannot find the file by it ' +
    '(e.g. MD5-only .cas seeds) and seed generation asking for it reads the file.',
};

/**
 * Parses `hash_on_write` (validated as a string): the digests, in canonical order, and the
 * normalised option value (`"md5,sha256"`, `""` for none). Unknown names are `invalid_option`.
 */
export function parseHashOnWrite(value: unknown): { names: HashName[]; normalized: string } {
  const raw = String(value ?? '').trim().toLowerCase();
  const words = raw === '' || raw === 'none' ? [] : raw.split(/[\s,;]+/).filter(Boolean);
  for (const w of words) {
    if (!(HASH_NAMES as readonly string[]).includes(w)) {
      throw new DriverError('invalid_option', `option hash_on_write: unknown hash ${JSON.stringify(w)} (use md5, sha1, sha256, or empty for none)`, {
        option: 'hash_on_write',
      });
    }
  }
  const names = HASH_NAMES.filter((n) => words.includes(n));
  return { names, normalized: names.join(',') };
}

/** Throws `hash_mismatch` when two hash sets disagree on a kind both have. */
export function assertHashesAgree(path: string, a: Hashes, b: Hashes, what: string): void {
  for (const n of HASH_NAMES) {
    const x = a[n];
    const y = b[n];
    if (x && y && x.toLowerCase() !== y.toLowerCase()) {
      throw new DriverError('hash_mismatch', `${n} mismatch (${what}): expected ${x}, got ${y}`, { path });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Options

/**
 * Checks `addition` against descriptors: types (numbers/bools given as strings are accepted
 * and converted, as the web UI sends typed JSON but CLI users may not), required values,
 * select membership. Missing values get the default; unknown keys are dropped.
 */
export function validateOptions(descs: readonly OptionDescriptor[], addition: unknown): Record<string, unknown> {
  if (addition !== undefined && addition !== null && (typeof addition !== 'object' || Array.isArray(addition))) {
    throw new DriverError('invalid_option', 'addition must be a JSON object');
  }
  const src = (addition ?? {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const d of descs) {
    let v = src[d.name];
    const bad = (why: string) => new DriverError('invalid_option', `option ${d.name}: ${why}`, { option: d.name });
    if (v === undefined || v === null) v = d.default;
    switch (d.type) {
      case 'string':
        if (typeof v === 'number' || typeof v === 'boolean') v = String(v);
        if (typeof v !== 'string') throw bad('must be a string');
        if (d.required && v.trim() === '') throw bad('is required');
        break;
      case 'select':
        if (typeof v !== 'string') throw bad('must be a string');
        if (v === '' && !d.required) v = d.default;
        if (!d.options?.includes(v as string)) throw bad(`must be one of ${d.options?.join(', ')}`);
        break;
      case 'number':
        if (typeof v === 'string' && v.trim() !== '') v = Number(v);
        else if (v === '') v = d.default;
        if (typeof v !== 'number' || !Number.isFinite(v)) throw bad('must be a number');
        break;
      case 'bool':
        if (v === 'true' || v === 1) v = true;
        else if (v === 'false' || v === 0 || v === '') v = false;
        if (typeof v !== 'boolean') throw bad('must be true or false');
        break;
    }
    out[d.name] = v;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Async helpers

/** Serialises async sections per key (e.g. commits to the same path within this process). */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = prev.then(() => mine);
    this.tails.set(key, tail);
    await prev;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

/** Runs `fn` over items with at most `limit` in flight; rejects on the first failure. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i] as T, i);
      } catch (e) {
        failed = true;
        throw e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

export function toError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}
