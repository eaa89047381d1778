/**
 * Helpers for the fs tests: the built server as a process with an admin token, raw HTTP
 * uploads over node:http (so a test decides exactly what goes on the socket and when it
 * closes), curl, and listings of what really is on disk / in the bucket.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListMultipartUploadsCommand, ListObjectsV2Command, GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { CephS3 } from '../support/ceph.js';
import { api, startServer, type ServerProcess } from '../support/process.js';
import type { Harness } from '../support/harness.js';

export const ADMIN_PASSWORD = 'fs-admin-pass-1';
export const MiB = 1024 * 1024;

export const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
export const hashOf = (algo: string, b: Buffer | string) => createHash(algo).update(b).digest('hex');

export interface Ferry {
  url: string;
  dataDir: string;
  /** Host directory of the default local storage mounted at `/`. */
  files: string;
  token: string;
  server: ServerProcess;
  call(method: string, path: string, body?: unknown, token?: string): ReturnType<typeof api>;
  stop(): Promise<void>;
}

/** Starts `node dist/src/app/bin.js serve` on a fresh data dir (SQLite) and logs in as admin. */
export async function startFerry(env: Record<string, string> = {}): Promise<Ferry> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ferry-fs-'));
  const server = await startServer({ FERRY_DATA_DIR: dataDir, FERRY_ADMIN_PASSWORD: ADMIN_PASSWORD, ...env });
  const login = await api(server.url, 'POST', '/api/auth/login', { body: { username: 'admin', password: ADMIN_PASSWORD } });
  assert.equal(login.status, 200, login.body.message);
  const token = login.body.data.token as string;
  return {
    url: server.url,
    dataDir,
    files: join(dataDir, 'files'),
    token,
    server,
    call: (method, path, body, tok) => api(server.url, method, path, { token: tok ?? token, body }),
    async stop() {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The download link Ferry hands out for the virtual `path`: fs/get's `raw_url` (`<origin>/d/<path>?sign=…`,
 * signed since sign_all is on by default); `prefix` `p` gives the same link on the proxy route.
 */
export async function signedUrl(f: Ferry, path: string, prefix: 'd' | 'p' = 'd'): Promise<string> {
  const got = await ok(f.call('POST', '/api/fs/get', { path }));
  const u = new URL(got.raw_url as string);
  assert.match(u.pathname, /^\/d\//);
  if (prefix === 'p') u.pathname = '/p' + u.pathname.slice(2);
  return u.href;
}

/** Asserts a `{code: 200}` reply and returns `data`. */
export async function ok<T = any>(p: Promise<{ status: number; body: { code: number; message: string; data: T } }>): Promise<T> {
  const r = await p;
  assert.equal(r.status, 200, `expected 200, got ${r.status}: ${r.body.message}`);
  assert.equal(r.body.code, 200);
  return r.body.data;
}

// ---------------------------------------------------------------------------------------------
// Raw uploads over node:http

export interface RawUpload {
  method?: string;
  path?: string;
  headers: Record<string, string | number>;
  /** Bytes to send (or a generator of `total` bytes given by size). */
  body: Buffer | { size: number; fill: (offset: number, chunk: Buffer) => void };
  /** Stop after this many body bytes (default: all). */
  sendBytes?: number;
  /** After sending: `finish` ends the request normally; `destroy` resets the socket; `close` half-closes (FIN) then destroys. */
  then?: 'finish' | 'destroy' | 'close';
  chunkSize?: number;
  /** Called before each chunk (lets concurrent uploads interleave). */
  beforeChunk?: (index: number) => Promise<void>;
}

export interface RawResult {
  status: number | null;
  body: string;
  json: { code: number; message: string; data: any } | null;
  /** Socket-level error seen by the client (expected when we abort). */
  error: Error | null;
  sent: number;
}

/** Sends an upload with exactly the headers and bytes given, on its own connection. */
export function rawUpload(base: string, o: RawUpload): Promise<RawResult> {
  const u = new URL(o.path ?? '/api/fs/put', base);
  const total = Buffer.isBuffer(o.body) ? o.body.length : o.body.size;
  const limit = Math.min(total, o.sendBytes ?? total);
  const chunkSize = o.chunkSize ?? MiB;
  const then = o.then ?? 'finish';
  return new Promise<RawResult>((resolve) => {
    let settled = false;
    const res: RawResult = { status: null, body: '', json: null, error: null, sent: 0 };
    const done = () => {
      if (settled) return;
      settled = true;
      try {
        res.json = res.body ? JSON.parse(res.body) : null;
      } catch {
        res.json = null;
      }
      resolve(res);
    };
    const req = http.request({
      host: u.hostname,
      port: u.port,
      path: u.pathname + u.search,
      method: o.method ?? 'PUT',
      headers: o.headers,
      agent: false,
    });
    req.on('response', (r) => {
      res.status = r.statusCode ?? null;
      r.setEncoding('utf8');
      r.on('data', (d: string) => (res.body += d));
      r.on('end', done);
      r.on('error', (e) => {
        res.error ??= e;
        done();
      });
    });
    req.on('error', (e) => {
      res.error ??= e;
      // a response may still be in flight; give it a moment
      setTimeout(done, 200);
    });
    req.on('close', () => setTimeout(done, 200));
    void (async () => {
      let off = 0;
      let i = 0;
      while (off < limit && !req.destroyed) {
        await o.beforeChunk?.(i++);
        const n = Math.min(chunkSize, limit - off);
        let chunk: Buffer;
        if (Buffer.isBuffer(o.body)) chunk = o.body.subarray(off, off + n);
        else {
          chunk = Buffer.allocUnsafe(n); // fresh each time: the socket may still hold the previous one
          o.body.fill(off, chunk);
        }
        off += n;
        res.sent = off;
        if (!req.write(chunk)) await new Promise<void>((r) => {
          const fin = () => {
            req.off('drain', fin);
            req.off('close', fin);
            r();
          };
          req.once('drain', fin);
          req.once('close', fin);
        });
      }
      if (req.destroyed) return;
      if (then === 'finish') req.end();
      else if (then === 'destroy') {
        // let the bytes reach the server before the reset
        await new Promise((r) => setTimeout(r, 100));
        req.destroy();
      } else {
        await new Promise((r) => setTimeout(r, 100));
        req.socket?.end(); // FIN: the server sees EOF before Content-Length bytes
        setTimeout(() => req.destroy(), 1000);
      }
    })().catch((e: unknown) => {
      res.error ??= e as Error;
      req.destroy();
    });
  });
}

/** Headers of a simple authenticated upload. */
export function putHeaders(token: string, filePath: string, extra: Record<string, string | number> = {}): Record<string, string | number> {
  return { Authorization: token, 'File-Path': encodeURIComponent(filePath), ...extra };
}

/**
 * Deterministic content of `size` bytes: a pseudo-random block of a period that is not a
 * power of two, repeated (so every chunk differs from its neighbours and between seeds).
 */
export function patternBody(size: number, seed: number): { size: number; fill: (offset: number, chunk: Buffer) => void } {
  const period = MiB + 7 + seed;
  const base = Buffer.alloc(period);
  let x = (seed * 2654435761) >>> 0 || 1;
  for (let i = 0; i < period; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    base[i] = x & 255;
  }
  return {
    size,
    fill(offset, chunk) {
      let w = 0;
      while (w < chunk.length) {
        const at = (offset + w) % period;
        w += base.copy(chunk, w, at, Math.min(period, at + chunk.length - w));
      }
    },
  };
}

export function materialize(b: { size: number; fill: (offset: number, chunk: Buffer) => void }): Buffer {
  const out = Buffer.alloc(b.size);
  b.fill(0, out);
  return out;
}

// ---------------------------------------------------------------------------------------------
// curl

export interface CurlResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** Runs the real curl binary (stdout as bytes). */
export function curl(args: string[]): Promise<CurlResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('curl', ['--silent', '--show-error', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr: err }));
  });
}

/** curl with `-D <file>`: body bytes, status and headers (of the last response when following). */
export async function curlFull(args: string[]): Promise<{ status: number; headers: Record<string, string>; body: Buffer; all: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-curl-'));
  try {
    const hfile = join(dir, 'h');
    const r = await curl(['-D', hfile, ...args]);
    assert.equal(r.code, 0, `curl ${args.join(' ')} failed: ${r.stderr}`);
    const all = await readFile(hfile, 'utf8');
    const blocks = all.split(/\r?\n\r?\n/).filter((b) => b.trim());
    const last = blocks.at(-1) ?? '';
    const [statusLine, ...lines] = last.split(/\r?\n/);
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(':');
      if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    return { status: Number(/^HTTP\/[\d.]+ (\d+)/.exec(statusLine ?? '')?.[1] ?? 0), headers, body: r.stdout, all };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// What is really stored

/** Every entry below `dir` (relative paths, dirs with a trailing `/`), hidden names included. */
export async function treeOf(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (d: string, rel: string) => {
    for (const e of await readdir(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        out.push(r + '/');
        await walk(join(d, e.name), r);
      } else out.push(r);
    }
  };
  await walk(dir, '');
  return out.sort();
}

/** Every key below `prefix/` (relative), including temp keys and folder markers. */
export async function keysOf(client: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let token: string | undefined;
  do {
    const r = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix + '/', ContinuationToken: token }));
    for (const o of r.Contents ?? []) out.push(o.Key!.slice(prefix.length + 1));
    token = r.IsTruncated ? r.NextContinuationToken : undefined;
  } while (token);
  return out.sort();
}

/** Keys of multipart uploads still in progress below `prefix/`. */
export async function uploadsOf(client: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const r = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: prefix + '/' }));
  return (r.Uploads ?? []).map((u) => u.Key!.slice(prefix.length + 1)).sort();
}

export async function objectBytes(client: S3Client, bucket: string, key: string): Promise<Buffer> {
  const r = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await r.Body!.transformToByteArray());
}

/** Polls `fn` until it stops throwing (≤ `ms`), then rethrows the last failure. */
export async function eventually<T>(fn: () => Promise<T>, ms = 5000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      return await fn();
    } catch (e) {
      if (Date.now() > end) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

export async function fileBytes(p: string): Promise<Buffer | null> {
  return readFile(p).catch(() => null);
}

export async function isFile(p: string): Promise<boolean> {
  return stat(p).then((s) => s.isFile(), () => false);
}

/** Options of an s3 storage on the test Ceph under `prefix`. */
export function s3Addition(ceph: CephS3, prefix: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    bucket: ceph.bucket,
    endpoint: ceph.endpoint,
    region: ceph.region,
    access_key_id: ceph.accessKeyId,
    secret_access_key: ceph.secretAccessKey,
    force_path_style: true,
    root_folder_path: `/${prefix}`,
    upload_part_size: 5,
    ...extra,
  };
}

/** PUT /api/fs/put through the in-process harness (overwriting); fails the test on any error. */
export async function injectPut(h: Harness, token: string, path: string, data: Buffer): Promise<void> {
  const r = await h.app.inject({
    method: 'PUT',
    url: '/api/fs/put',
    headers: { authorization: token, 'file-path': encodeURIComponent(path), 'content-type': 'application/octet-stream', overwrite: 'true' },
    payload: data,
  });
  assert.equal(r.statusCode, 200, r.body);
}
