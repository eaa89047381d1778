/**
 * Shared helpers for the seed operation tests (preview, edit, transfer): calling
 * `/api/fs/seed/<op>`, generating sidecars through the API, multipart bodies, error checks.
 * Re-exports the generation test helpers (content, driver writes, coreutils, settings).
 */
import assert from 'node:assert/strict';
import type { ApiReply, Harness } from '../support/harness.js';
import { generated } from '../seeds-generate/helpers.js';

export * from '../seeds-generate/helpers.js';

export const b64 = (b: Buffer | string) => (typeof b === 'string' ? Buffer.from(b) : b).toString('base64');

/** POST `/api/fs/seed/<op>` (or any absolute URL). */
export function seedOp<T = any>(h: Harness, token: string, op: string, body: unknown): Promise<ApiReply<T>> {
  return h.post<T>(op.startsWith('/') ? op : `/api/fs/seed/${op}`, body, { token });
}

/** POST and assert 200; returns `data`. */
export async function seedOk<T = any>(h: Harness, token: string, op: string, body: unknown): Promise<T> {
  const r = await seedOp<T>(h, token, op, body);
  assert.equal(r.status, 200, `${op}: ${r.status} ${r.body.message} ${JSON.stringify(r.body.data)?.slice(0, 400)}`);
  assert.equal(r.body.code, 200);
  return r.body.data;
}

/** Asserts an error envelope: HTTP status = code = `status`, message matching `re`, and returns it. */
export function assertError(r: ApiReply, status: number, re: RegExp): ApiReply {
  assert.equal(r.status, status, `expected ${status}, got ${r.status}: ${r.body.message}`);
  assert.equal(r.body.code, status);
  assert.match(r.body.message, re);
  return r;
}

export async function seedError(h: Harness, token: string, op: string, body: unknown, status: number, re: RegExp): Promise<ApiReply> {
  return assertError(await seedOp(h, token, op, body), status, re);
}

export interface Artifact {
  format: 'oss' | 'torrent' | 'cas';
  name: string;
  path: string;
  size: number;
  seed_data: string;
}

/** Generates sidecars through the API; returns the artifacts by format. */
export async function generateSeeds(h: Harness, token: string, body: Record<string, unknown>): Promise<Record<string, Artifact>> {
  const data = await generated(h, token, body);
  const out: Record<string, Artifact> = {};
  for (const a of data.artifacts as Artifact[]) out[a.format] = a;
  return out;
}

/** A multipart/form-data body: files as `{field, filename, data}`, fields as strings. */
export function multipartBody(parts: ({ field: string; filename: string; data: Buffer } | { field: string; value: string })[]): { payload: Buffer; headers: Record<string, string> } {
  const boundary = '----ferry-seed-test';
  const chunks: Buffer[] = [];
  for (const p of parts) {
    if ('value' in p) {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.field}"\r\n\r\n${p.value}\r\n`));
    } else {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${p.field}"; filename="${p.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
      chunks.push(p.data, Buffer.from('\r\n'));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** POST a multipart body; returns the reply like `h.post`. */
export async function postMultipart(h: Harness, token: string, url: string, parts: Parameters<typeof multipartBody>[0]): Promise<ApiReply> {
  const { payload, headers } = multipartBody(parts);
  const res = await h.app.inject({ method: 'POST', url, headers: { ...headers, authorization: token }, payload, remoteAddress: '127.0.0.1' });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}
