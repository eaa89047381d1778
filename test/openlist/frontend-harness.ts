/**
 * The harness of the official OpenList web frontend journeys (test/openlist/frontend-*.ts): the frontend's `dist/`
 * (the npm package `@openlist-frontend/openlist-frontend`, pinned in scripts/setup-peers.mjs, unpacked into
 * `.peers/`; OPENLIST_FRONTEND_DIST points it at another build) served on one origin with the BUILT Ferry behind
 * it, a fresh data dir with a few files, and Debian's Chromium. Any page error, or any API answer whose body code
 * is not 200 (except what a journey `expect`s), is a problem; `finish()` prints each journey, the problems, and
 * exits 1 when there are any. Screenshots: test-results/openlist-fe/.
 */
import { createReadStream, existsSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../web/browser.js';
import { api, ROOT, startServer } from '../support/process.js';

export const FRONTEND_VERSION = '4.2.6'; // as pinned in scripts/setup-peers.mjs
const DIST = process.env.OPENLIST_FRONTEND_DIST ?? join(ROOT, `.peers/openlist-frontend-${FRONTEND_VERSION}/dist`);
const SHOTS = join(ROOT, 'test-results/openlist-fe');
const PROXIED = /^\/(api|d|p|sd|dav|ping)(\/|$|\?)/;
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png', '.wasm': 'application/wasm', '.woff2': 'font/woff2' };

if (!existsSync(join(DIST, 'index.html'))) {
  console.error(`no OpenList frontend build at ${DIST}: see the header of this file`);
  process.exit(2);
}
mkdirSync(SHOTS, { recursive: true });

export async function openFrontend(name: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'ferry-olfe-'));
  mkdirSync(join(dataDir, 'files/docs/inner'), { recursive: true });
  writeFileSync(join(dataDir, 'files/docs/readme.txt'), 'hello from ferry\n');
  writeFileSync(join(dataDir, 'files/docs/a-1.txt'), 'a1');
  writeFileSync(join(dataDir, 'files/docs/a-2.txt'), 'a2');
  writeFileSync(join(dataDir, 'files/docs/inner/deep.txt'), 'deep');
  mkdirSync(join(dataDir, 'files/empty-parent/empty-child'), { recursive: true });
  const ADMIN = 'olfe-admin-pass-1';
  const ferry = await startServer({ FERRY_DATA_DIR: dataDir, FERRY_ADMIN_PASSWORD: ADMIN, FERRY_TASK_POLL_MS: '100' });
  const token = (await api(ferry.url, 'POST', '/api/auth/login', { body: { username: 'admin', password: ADMIN } })).body.data.token as string;
  const saved = await api(ferry.url, 'POST', '/api/admin/setting/save', { token, body: [{ key: 'api_errors_http_200', value: 'true' }, { key: 'logo', value: '' }, { key: 'favicon', value: '' }] });
  if (saved.status !== 200) throw new Error(`setting/save: ${saved.body.message}`);

  // one origin: the frontend's files, and Ferry behind /api /d /p /sd /dav /ping
  const front = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    if (PROXIED.test(url)) {
      const target = new URL(url, ferry.url);
      // the Host header passes through (as a reverse proxy keeping `Host` does), so the links Ferry builds are on this origin
      const up = request(target, { method: req.method, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.writeHead(502).end());
      req.pipe(up);
      return;
    }
    const path = normalize(decodeURIComponent(url.split('?')[0]!)).replace(/^(\.\.[/\\])+/, '');
    let file = join(DIST, path);
    if (!file.startsWith(DIST) || !existsSync(file) || statSync(file).isDirectory()) file = join(DIST, 'index.html');
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(front.address() as { port: number }).port}`;

  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const problems: string[] = [];
  const calls: string[] = [];
  let expected: RegExp | null = null;
  await page.route('**/*', (route) => (new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort()));
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('response', async (r) => {
    const u = new URL(r.url());
    if (!u.pathname.startsWith('/api/')) return;
    const line = `${r.request().method()} ${u.pathname}${u.search}`;
    const allowed = expected; // as it stands when the answer arrives, not after its body is read
    calls.push(line);
    if (!(r.headers()['content-type'] ?? '').includes('json')) return;
    const body = (await r.json().catch(() => null)) as { code?: number; message?: string } | null;
    if (body && body.code !== 200 && !(allowed && allowed.test(`${line} ${body.code} ${body.message}`))) problems.push(`${line} → ${body.code} ${body.message}`);
  });

  const shot = (n: string) => page.screenshot({ path: join(SHOTS, `${name}-${n}.png`) });
  const settle = (p: Page) => p.waitForLoadState('networkidle').catch(() => undefined);
  const journeys: string[] = [];
  async function journey(title: string, fn: () => Promise<void>): Promise<void> {
    const before = problems.length;
    try {
      await fn();
      await settle(page);
    } catch (e) {
      problems.push(`${title}: ${(e as Error).message.split('\n')[0]}`);
    }
    await shot(title.replace(/\W+/g, '-'));
    journeys.push(`${problems.length === before ? 'ok  ' : 'FAIL'} ${title}`);
  }
  /** Runs `body` in the page with the frontend's token, as its own axios calls do (for actions whose widgets vary by version). */
  const feCall = (path: string, body: unknown) =>
    page.evaluate(
      async ([p, b]) => {
        const r = await fetch(p as string, { method: 'POST', headers: { authorization: (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem('token') ?? '', 'content-type': 'application/json' }, body: JSON.stringify(b) });
        return (await r.json()) as { code: number; message: string };
      },
      [path, body] as const,
    );
  /** Only API answers matching `re` (`METHOD /path?query code message`) are not problems, until `expect(null)`. */
  const expect = (re: RegExp | null) => {
    expected = re;
  };
  /** Closes everything, prints the journeys and problems, and exits (1 when there were problems). */
  async function finish(): Promise<never> {
    await browser.close();
    front.close();
    await ferry.stop();
    console.log(journeys.join('\n'));
    console.log(`\n${calls.length} API calls; problems: ${problems.length}`);
    for (const p of problems) console.log(`  ${p}`);
    process.exit(problems.length ? 1 : 0);
  }
  return { page, base, ferry, token, dataDir, ADMIN, journey, feCall, settle, expect, finish };
}
