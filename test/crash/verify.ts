/**
 * After a crash and restart: does what is stored equal what was sent? For one folder of a
 * storage (local directory or S3 prefix): no temp leftovers, every visible file is one that was
 * sent and has exactly its bytes (sha256), every acknowledged upload is there, and every visible
 * sidecar (`<file>.oss|.torrent|.cas`) describes the bytes of its file, which must exist.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { decodeBencode, type BencodeDict } from '../../src/modules/seeds/formats/index.js';
import { keysOf, objectBytes } from '../fs/helpers.js';
import { filesBelow } from './support.js';

export const SIDECAR_FORMATS = ['oss', 'torrent', 'cas'] as const;

export interface StoreView {
  name: string;
  /** Visible files and `.ferry-tmp-*` leftovers, relative to the folder checked. */
  list(): Promise<{ files: string[]; temps: string[] }>;
  read(rel: string): Promise<Buffer>;
}

export function localView(dir: string): StoreView {
  return { name: `local ${dir}`, list: () => filesBelow(dir), read: (rel) => readFile(join(dir, rel)) };
}

/** Objects below `prefix/` (folder markers ignored). */
export function s3View(client: S3Client, bucket: string, prefix: string): StoreView {
  return {
    name: `s3 ${bucket}/${prefix}`,
    async list() {
      const keys = (await keysOf(client, bucket, prefix)).filter((k) => k !== '' && !k.endsWith('/'));
      const temps = keys.filter((k) => k.split('/').some((s) => s.startsWith('.ferry-tmp-')));
      return { files: keys.filter((k) => !temps.includes(k)), temps };
    },
    read: (rel) => objectBytes(client, bucket, `${prefix}/${rel}`),
  };
}

/** What was sent to one path (relative to the folder checked). */
export interface Expectation {
  /** sha256 of every content that may legitimately be there (an older one beside an unacknowledged overwrite). */
  accept: string[];
  /** Some upload to this path was acknowledged: a file must be there (overwrites never remove it). */
  mustExist: boolean;
  /** The latest upload was acknowledged: exactly this content must be there. */
  mustBe: string | null;
  /** Sidecars were requested. */
  sidecars: boolean;
}

/** Records a new upload of content `sha256` to a path (before it is known whether it lands). */
export function expectUpload(map: Map<string, Expectation>, seen: Map<string, string>, rel: string, sha256: string, sidecars: boolean): Expectation {
  const e = map.get(rel) ?? { accept: [], mustExist: false, mustBe: null, sidecars };
  e.accept.push(sha256);
  e.mustBe = null;
  e.sidecars = sidecars;
  map.set(rel, e);
  seen.delete(rel);
  for (const f of SIDECAR_FORMATS) seen.delete(`${rel}.${f}`);
  return e;
}

/** The upload of `sha256` to this path was acknowledged (or its task succeeded). */
export function acknowledge(e: Expectation, sha256: string): void {
  e.mustExist = true;
  e.mustBe = sha256;
  e.accept = [sha256];
}

export interface VerifyResult {
  /** Files and sidecars whose bytes were checked. */
  checked: number;
  problems: string[];
  /** Files visible without the sidecars requested for them (not acknowledged: the crash came in between). */
  incomplete: string[];
}

const sha = (algo: string, b: Buffer) => createHash(algo).update(b).digest('hex');

function checkOss(doc: Buffer, file: Buffer): string | null {
  const j = JSON.parse(doc.toString('utf8')) as { files?: { size: number; hashes?: Record<string, string> }[] };
  const f = j.files?.[0];
  if (!f || j.files!.length !== 1) return 'not a single-file .oss';
  if (f.size !== file.length) return `size ${f.size}, file has ${file.length}`;
  for (const a of ['md5', 'sha1', 'sha256']) {
    const v = f.hashes?.[a];
    if (v && v.toLowerCase() !== sha(a, file)) return `${a} differs`;
  }
  return null;
}

function checkTorrent(doc: Buffer, file: Buffer): string | null {
  const root = decodeBencode(doc).value as BencodeDict;
  const info = root.get('info') as BencodeDict | undefined;
  if (!info) return 'no info dict';
  const length = info.get('length');
  if (typeof length !== 'bigint' || Number(length) !== file.length) return `length ${String(length)}, file has ${file.length}`;
  const pl = Number(info.get('piece length') as bigint);
  const pieces = info.get('pieces') as Buffer;
  const n = Math.ceil(file.length / pl);
  if (pieces.length !== n * 20) return `${pieces.length / 20} pieces, expected ${n}`;
  for (let i = 0; i < n; i++) {
    const h = createHash('sha1').update(file.subarray(i * pl, (i + 1) * pl)).digest();
    if (!h.equals(pieces.subarray(i * 20, i * 20 + 20))) return `piece ${i} differs`;
  }
  return null;
}

function checkCas(doc: Buffer, file: Buffer): string | null {
  const text = doc.toString('utf8').trim();
  const j = JSON.parse(text.startsWith('{') ? text : Buffer.from(text, 'base64').toString('utf8')) as { size: number | string; md5: string };
  if (Number(j.size) !== file.length) return `size ${j.size}, file has ${file.length}`;
  if (String(j.md5).toLowerCase() !== sha('md5', file)) return 'md5 differs';
  return null;
}

const CHECKERS: Record<(typeof SIDECAR_FORMATS)[number], (doc: Buffer, file: Buffer) => string | null> = { oss: checkOss, torrent: checkTorrent, cas: checkCas };

function sidecarOf(rel: string): { base: string; format: (typeof SIDECAR_FORMATS)[number] } | null {
  for (const f of SIDECAR_FORMATS) if (rel.endsWith(`.${f}`)) return { base: rel.slice(0, -f.length - 1), format: f };
  return null;
}

/**
 * Checks one folder against what was sent. `seen` holds the files and sidecars already checked
 * (the caller forgets a path and its sidecars when it sends that path again), so each stored
 * version is read once; `checked` counts those reads. Presence rules are checked every time.
 * `sidecarsSupported`: the server writes sidecars (else requested sidecars are not expected).
 */
export async function verifyStore(view: StoreView, expected: Map<string, Expectation>, opts: { sidecarsSupported: boolean; seen: Map<string, string> }): Promise<VerifyResult> {
  const out: VerifyResult = { checked: 0, problems: [], incomplete: [] };
  const { files, temps } = await view.list();
  for (const t of temps) out.problems.push(`${view.name}: temp leftover ${t}`);
  const present = new Set(files);
  const contents = new Map<string, Buffer>();
  const content = async (rel: string) => {
    let b = contents.get(rel);
    if (!b) contents.set(rel, (b = await view.read(rel)));
    return b;
  };
  for (const rel of files) {
    const exp = expected.get(rel);
    if (exp) {
      if (opts.seen.has(rel)) continue;
      const b = await content(rel);
      out.checked++;
      const h = sha('sha256', b);
      if (!exp.accept.includes(h)) out.problems.push(`${view.name}: ${rel} has bytes that were never sent (${b.length} bytes, sha256 ${h})`);
      else if (exp.mustBe && h !== exp.mustBe) out.problems.push(`${view.name}: ${rel} lost its acknowledged content`);
      opts.seen.set(rel, h);
      continue;
    }
    const sc = sidecarOf(rel);
    const owner = sc ? expected.get(sc.base) : undefined;
    if (!sc || !owner?.sidecars) {
      out.problems.push(`${view.name}: unexpected file ${rel}`);
      continue;
    }
    if (!present.has(sc.base)) {
      out.problems.push(`${view.name}: orphan sidecar ${rel} (its file is not there)`);
      continue;
    }
    if (opts.seen.has(rel)) continue;
    out.checked++;
    try {
      const why = CHECKERS[sc.format](await view.read(rel), await content(sc.base));
      if (why) out.problems.push(`${view.name}: sidecar ${rel} does not match its file: ${why}`);
      else opts.seen.set(rel, 'ok');
    } catch (e) {
      out.problems.push(`${view.name}: sidecar ${rel} is unreadable: ${(e as Error).message}`);
    }
  }
  for (const [rel, exp] of expected) {
    if (exp.mustExist && !present.has(rel)) out.problems.push(`${view.name}: acknowledged upload ${rel} is missing`);
    if (!present.has(rel) || !exp.sidecars || !opts.sidecarsSupported) continue;
    const missing = SIDECAR_FORMATS.filter((f) => !present.has(`${rel}.${f}`));
    if (missing.length === 0) continue;
    if (exp.mustBe) out.problems.push(`${view.name}: acknowledged upload ${rel} lacks sidecars ${missing.join(', ')}`);
    else out.incomplete.push(`${view.name}: ${rel} without ${missing.join(', ')}`);
  }
  return out;
}
