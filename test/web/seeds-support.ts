/**
 * Setup helpers for the browser tests: files over the API (with sidecars), folder listings,
 * settings, coreutils digests, and a check that the seed endpoints the UI calls exist.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { requireCommand, run } from '../support/commands.js';
import { api } from '../support/process.js';
import { screenshot, type App } from './browser.js';

export const MiB = 1024 * 1024;
export const ALL_SIX = { md5: { whole: true, pieces: true }, sha1: { whole: true, pieces: true }, sha256: { whole: true, pieces: true } };

/** Uploads `data` to `path` (`PUT /api/fs/put`); `sidecars` adds the X-Seed-* headers. */
export async function putFile(app: App, token: string, path: string, data: Buffer, sidecars?: { formats: string[]; matrix?: unknown; pieceSize?: number }): Promise<void> {
  const headers: Record<string, string> = { authorization: token, 'file-path': encodeURIComponent(path), 'content-type': 'application/octet-stream' };
  if (sidecars) {
    headers['x-seed-sidecars'] = sidecars.formats.join(',');
    if (sidecars.matrix) headers['x-seed-hash-matrix'] = JSON.stringify(sidecars.matrix);
    if (sidecars.pieceSize) headers['x-seed-piece-size'] = String(sidecars.pieceSize);
  }
  const res = await fetch(app.url + '/api/fs/put', { method: 'PUT', headers, body: data });
  const body = (await res.json()) as { code: number; message: string };
  assert.equal(body.code, 200, `upload ${path}: ${body.message}`);
}

export async function setSettings(app: App, token: string, values: Record<string, string>): Promise<void> {
  const r = await api(app.url, 'POST', '/api/admin/setting/save', { token, body: Object.entries(values).map(([key, value]) => ({ key, value })) });
  assert.equal(r.status, 200, JSON.stringify(r.body));
}

export async function apiOk<T = any>(app: App, token: string, path: string, body: unknown): Promise<T> {
  const r = await api(app.url, 'POST', path, { token, body });
  assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
  return r.body.data as T;
}

/** Downloads `path` through the link Ferry hands out for it (fs/get's signed `raw_url`); asserts 200. */
export async function download(app: App, token: string, path: string): Promise<Buffer> {
  const { raw_url } = await apiOk<{ raw_url: string }>(app, token, '/api/fs/get', { path });
  assert.match(raw_url, /\?sign=/, `${path}: raw_url carries its signature`);
  const r = await fetch(raw_url);
  assert.equal(r.status, 200, `${path}: ${raw_url}`);
  return Buffer.from(await r.arrayBuffer());
}

/** The names in the folder `path`, sorted (`/api/fs/list`). */
export async function listNames(app: App, token: string, path: string): Promise<string[]> {
  const data = await apiOk<{ content: { name: string }[] | null }>(app, token, '/api/fs/list', { path });
  return (data.content ?? []).map((o) => o.name).sort();
}

/** What `md5sum` / `sha1sum` / `sha256sum` print for `data`. */
export function coreutils(data: Buffer): { md5: string; sha1: string; sha256: string } {
  requireCommand('md5sum', 'coreutils');
  const dir = mkdtempSync(join(tmpdir(), 'ferry-web-hash-'));
  try {
    const f = join(dir, 'data');
    writeFileSync(f, data);
    const sum = (cmd: string) => run(cmd, [f]).split(/\s+/)[0]!;
    return { md5: sum('md5sum'), sha1: sum('sha1sum'), sha256: sum('sha256sum') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The seed routes the UI calls answer (a 400 for an empty body), rather than 404: fails naming the missing one. */
export async function requireSeedEndpoints(app: App, token: string, ops: string[]): Promise<void> {
  for (const op of ops) {
    const r = await api(app.url, 'POST', `/api/fs/seed/${op}`, { token, body: {} });
    assert.notEqual(r.status, 404, `the endpoint POST /api/fs/seed/${op} is missing (the UI needs it): ${JSON.stringify(r.body)}`);
  }
}

/** Text of the whole-file hash `algo` shown in the open file details. */
export async function shownHash(page: Page, algo: string): Promise<string> {
  return ((await page.locator(`code.hash[data-hash=${algo}]`).first().textContent()) ?? '').trim();
}

/** `screenshot` from the top of the page (a full-page shot of a scrolled page repeats the sticky top bar mid-page). */
export async function shot(page: Page, name: string): Promise<void> {
  await page.evaluate('window.scrollTo(0, 0)');
  await screenshot(page, name);
}
