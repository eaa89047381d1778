/**
 * Helpers for the seed generation tests: files on the default local storage (through the
 * driver, so the hash index knows them, or straight onto the disk, so it does not), counting
 * and slowing driver reads, the generate call, and the command-line peers (coreutils,
 * mktorrent, libtorrent).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { run } from '../support/commands.js';
import type { Harness } from '../support/harness.js';
import { writeFile as driverWrite } from '../../src/modules/storages/drivers/contract.js';
import type { StorageDriver } from '../../src/modules/storages/drivers/index.js';
import { decodeBencode } from '../../src/modules/seeds/formats/index.js';

export const KiB = 1024;
export const MiB = 1024 * KiB;
export const LTCHECK = new URL('../support/ltcheck.py', import.meta.url).pathname;

export const hex = (algo: string, b: Buffer | string) => createHash(algo).update(b).digest('hex');

/** Deterministic bytes (xorshift), different per `seed`. */
export function bytes(size: number, seed = 1): Buffer {
  const out = Buffer.alloc(size);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 255;
  }
  return out;
}

/** Host directory of the default local storage at `/`. */
export const filesDir = (h: Harness) => join(h.dataDir, 'files');

/** The driver of the storage mounted at `mount` (default `/`). */
export function driverOf(h: Harness, mount = '/'): StorageDriver {
  const m = h.ctx.storages.list().find((s) => s.record.mountPath === mount);
  assert.ok(m?.driver, `storage ${mount} mounted`);
  return m.driver;
}

/**
 * Writes through the driver recording all three digests whatever the storage's `hash_on_write` (SHA-256 alone
 * by default): the hash index (and an S3 object's metadata) then holds md5, sha1 and sha256.
 */
export async function putIndexed(h: Harness, path: string, data: Buffer, mount = '/'): Promise<void> {
  const d = driverOf(h, mount);
  const parent = path.slice(0, path.lastIndexOf('/')) || '/';
  if (parent !== '/') await d.mkdir(parent);
  await driverWrite(d, path, data, { computeHashes: ['md5', 'sha1', 'sha256'] });
}

/** Writes straight to the disk below the storage root: no hashes known. */
export function putRaw(root: string, path: string, data: Buffer): string {
  const abs = join(root, path);
  mkdirSync(dirname(abs), { recursive: true });
  writeFileSync(abs, data);
  return abs;
}

export interface ReadProbe {
  count: number;
  /** Streams handed out and not yet closed. */
  open: number;
  paths: string[];
  restore(): void;
}

/** Counts (and optionally slows) `read()` calls of a mounted driver. `delayMs` waits before each chunk of `chunk` bytes. */
export function probeReads(h: Harness, mount = '/', slow?: { chunk: number; delayMs: number }): ReadProbe {
  const d = driverOf(h, mount);
  const original = d.read.bind(d);
  const probe: ReadProbe = {
    count: 0,
    open: 0,
    paths: [],
    restore: () => {
      d.read = original;
    },
  };
  d.read = async (path, range) => {
    probe.count++;
    probe.paths.push(path);
    const r = await original(path, range);
    probe.open++;
    if (!slow) {
      r.once('close', () => probe.open--);
      return r;
    }
    const pace = new Transform({
      highWaterMark: slow.chunk,
      transform(c: Buffer, _e, cb) {
        let off = 0;
        const next = () => {
          if (off >= c.length) return cb();
          const part = c.subarray(off, off + slow.chunk);
          off += part.length;
          this.push(part);
          setTimeout(next, slow.delayMs);
        };
        next();
      },
    });
    r.on('error', (e) => pace.destroy(e));
    pace.once('close', () => {
      probe.open--;
      r.destroy();
    });
    return r.pipe(pace) as unknown as Readable;
  };
  return probe;
}

export async function setSettings(h: Harness, token: string, values: Record<string, string>): Promise<void> {
  const r = await h.post('/api/admin/setting/save', Object.entries(values).map(([key, value]) => ({ key, value })), { token });
  assert.equal(r.status, 200, r.body.message);
}

/** POST generate; returns the reply. */
export function generate(h: Harness, token: string, body: Record<string, unknown>, url = '/api/fs/seed/generate', headers: Record<string, string> = {}) {
  return h.post(url, body, { token, headers });
}

/** Asserts 200 and returns data. */
export async function generated(h: Harness, token: string, body: Record<string, unknown>, url?: string) {
  const r = await generate(h, token, body, url);
  assert.equal(r.status, 200, `${r.status} ${r.body.message} ${JSON.stringify(r.body.data)}`);
  return r.body.data;
}

/** Asserts an error reply with `status` whose message matches `re`. */
export async function rejected(h: Harness, token: string, body: Record<string, unknown>, status: number, re: RegExp) {
  const r = await generate(h, token, body);
  assert.equal(r.status, status, `expected ${status}, got ${r.status}: ${r.body.message}`);
  assert.match(r.body.message, re);
  return r.body;
}

export const ALL_SIX = { md5: { whole: true, pieces: true }, sha1: { whole: true, pieces: true }, sha256: { whole: true, pieces: true } };
export const WHOLE_ONLY = { md5: { whole: true, pieces: false }, sha1: { whole: true, pieces: false }, sha256: { whole: true, pieces: false } };

/** `md5sum`/`sha1sum`/`sha256sum` of a host file. */
export function coreutils(algo: 'md5' | 'sha1' | 'sha256', file: string): string {
  return run(`${algo}sum`, ['-b', file]).split(' ')[0]!;
}

/** libtorrent's verdict on a torrent against the data under `parent`: `pieces ok N / M OK|BAD`. */
export function ltcheck(torrentFile: string, parent: string): string {
  return run('/usr/bin/python3', [LTCHECK, torrentFile, parent]).trim();
}

/** Info hash of a torrent: sha1 over the exact bytes of its `info` dict. */
export function infoHashOf(torrent: Buffer): string {
  const r = decodeBencode(torrent).rootRanges.get('info');
  assert.ok(r, 'torrent has an info dict');
  return hex('sha1', torrent.subarray(r.start, r.end));
}

/** mktorrent's info hash for `path` with pieces of 2^log2 bytes (its torrent is written into a fresh folder below `workDir`). */
export function mktorrentInfoHash(path: string, log2: number, workDir: string): string {
  const out = join(mkdtempSync(join(workDir, 'mk-')), 'out.torrent');
  run('mktorrent', ['-l', String(log2), '-o', out, path]);
  return infoHashOf(readFileSync(out));
}

/** transmission-show's `Hash:` line for a torrent file (a third opinion on the info hash). */
export function transmissionHash(file: string): string {
  const m = /Hash(?: v1)?: ([0-9a-f]{40})/.exec(run('transmission-show', [file]));
  assert.ok(m, 'transmission-show prints the hash');
  return m[1]!;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `fn` returns a truthy value (≤ ms). */
export async function until<T>(fn: () => Promise<T | null | undefined | false>, ms = 20_000, what = 'condition'): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}
