/**
 * Helpers for the seed transfer tests (rapid upload, offline download, SSRF): hand-built seeds,
 * a loopback HTTP listener that serves chosen answers and records every hit, task polling,
 * and reading what landed on the default local storage.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Harness } from '../support/harness.js';
import { createSeed, encodeSeed, type SeedFile, type SeedFormat } from '../../src/modules/seeds/formats/index.js';
import { b64, filesDir, hex, sleep } from './helpers.js';

/** A seed file record with the whole hashes asked for (default all three). */
export function seedFileOf(path: string, data: Buffer, o: { algs?: ('md5' | 'sha1' | 'sha256')[]; sources?: SeedFile['sources']; pieces?: { size: number; algs: ('md5' | 'sha1' | 'sha256')[] } } = {}): SeedFile {
  const hashes: SeedFile['hashes'] = {};
  for (const a of o.algs ?? ['md5', 'sha1', 'sha256']) hashes[a] = hex(a, data);
  if (o.pieces) {
    hashes.pieces = {};
    for (const a of o.pieces.algs) {
      const list: string[] = [];
      for (let off = 0; off < data.length; off += o.pieces.size) list.push(hex(a, data.subarray(off, off + o.pieces.size)));
      hashes.pieces[a] = list;
    }
  }
  return { path, size: data.length, hashes, sources: o.sources };
}

/** base64 of a seed built from `files`, encoded as `format` (default oss). */
export function seedData(name: string, files: SeedFile[], format: SeedFormat = 'oss', pieceSize = 16 * 1024): string {
  const seed = createSeed({ name, files, createdBy: 'test', pieceSize });
  return b64(encodeSeed(seed, format));
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Send only this many bytes of the body, then keep the connection open (a stalled source). */
  stallAfter?: number;
}

export interface Listener {
  /** `http://127.0.0.1:<port>` (or `http://[::1]:<port>`). */
  url: string;
  host: string;
  hits: { path: string; headers: http.IncomingHttpHeaders }[];
  /** What to answer for a path (exact match); unknown paths get 404. */
  routes: Map<string, Answer | ((path: string) => Answer)>;
  close(): Promise<void>;
}

/** A loopback HTTP server that records every request it receives. */
export async function listen(address = '127.0.0.1'): Promise<Listener> {
  const hits: Listener['hits'] = [];
  const routes: Listener['routes'] = new Map();
  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    hits.push({ path, headers: req.headers });
    const r = routes.get(path.split('?')[0]!);
    const a = typeof r === 'function' ? r(path) : r;
    if (!a) {
      res.writeHead(404).end('not here');
      return;
    }
    res.writeHead(a.status ?? 200, a.headers ?? {});
    if (a.stallAfter !== undefined) res.write(Buffer.from(a.body ?? '').subarray(0, a.stallAfter));
    else res.end(a.body ?? '');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, address, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const host = address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
  return {
    url: `http://${host}`,
    host,
    hits,
    routes,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** Polls `/api/task/<type>/info` until the task is done (succeeded 2, canceled 4, failed 7). */
export async function settledTask(h: Harness, token: string, tid: string, type = 'offline_download', ms = 60_000): Promise<any> {
  const end = Date.now() + ms;
  for (;;) {
    const r = await h.get(`/api/task/${type}/info?tid=${encodeURIComponent(tid)}`, { token });
    assert.equal(r.status, 200, r.body.message);
    if ([2, 4, 7].includes(r.body.data.state)) return r.body.data;
    if (Date.now() > end) throw new Error(`task ${tid} still in state ${r.body.data.state} (${r.body.data.status})`);
    await sleep(50);
  }
}

/** Bytes of a file on the default local storage (`/`), or null when it is not there. */
export function landed(h: Harness, path: string): Buffer | null {
  const abs = join(filesDir(h), path);
  return existsSync(abs) ? readFileSync(abs) : null;
}
