/**
 * Helpers for the upload-sidecar tests: an upload through the in-process server, the sidecars
 * a folder holds, and decoding them back into the seed model.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness } from '../support/harness.js';
import { decodeAny, type Seed } from '../../src/modules/seeds/formats/index.js';
import { filesDir } from '../seeds-generate/helpers.js';

export { ALL_SIX, bytes, coreutils, filesDir, hex, KiB, ltcheck, MiB, setSettings, WHOLE_ONLY } from '../seeds-generate/helpers.js';

export const FORMATS = ['oss', 'torrent', 'cas'] as const;

/** PUT /api/fs/put with `headers` (File-Path URL-encoded for you). */
export function put(h: Harness, token: string, path: string, data: Buffer | string, headers: Record<string, string> = {}) {
  return h.call('PUT', '/api/fs/put', { token, body: data, headers: { 'file-path': encodeURIComponent(path), 'content-type': 'application/octet-stream', ...headers } });
}

/** Asserts a 200 upload. */
export async function putOk(h: Harness, token: string, path: string, data: Buffer | string, headers: Record<string, string> = {}): Promise<void> {
  const r = await put(h, token, path, data, headers);
  assert.equal(r.status, 200, `upload ${path}: ${r.status} ${r.body.message}`);
}

/** Host path of a virtual path on the default local storage. */
export const hostPath = (h: Harness, path: string) => join(filesDir(h), path);

/** Which of `<path>.oss|.torrent|.cas` exist on disk. */
export function sidecarsOn(h: Harness, path: string): string[] {
  return FORMATS.filter((f) => existsSync(hostPath(h, `${path}.${f}`)));
}

/** Decodes the sidecar `<path>.<format>` from disk. */
export function readSidecar(h: Harness, path: string, format: (typeof FORMATS)[number]): { seed: Seed; raw: Buffer } {
  const raw = readFileSync(hostPath(h, `${path}.${format}`));
  const decoded = decodeAny(raw, { format });
  return { seed: decoded.seed, raw };
}
