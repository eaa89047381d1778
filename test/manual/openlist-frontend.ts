/**
 * MANUAL (not in the suite): the official OpenList web frontend, served on one origin with the BUILT Ferry behind
 * it, driven in Debian's Chromium. It needs the frontend's build, which is published on the npm registry as
 * `@openlist-frontend/openlist-frontend` (its `dist/`); the suite never downloads at test time, so fetch it once:
 *
 *   npm run build
 *   (cd /tmp && npm pack @openlist-frontend/openlist-frontend@4.2.6 && tar xzf openlist-frontend-openlist-frontend-4.2.6.tgz)
 *   OPENLIST_FRONTEND_DIST=/tmp/package/dist npx tsx test/manual/openlist-frontend.ts
 *
 * (As a pinned devDependency it could become a suite test: `node_modules/@openlist-frontend/openlist-frontend/dist`
 * is looked up too.) It logs in (wrong, then right password), lists, enters folders, previews a text file, runs
 * file operations through the frontend's own requests, opens every manage page, and fails on any page error or
 * any API answer whose body code is not 200 — except the ones a journey expects. Screenshots: test-results/openlist-fe/.
 */
import { createReadStream, existsSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../web/browser.js';
import { api, ROOT, startServer } from '../support/process.js';

const DIST = process.env.OPENLIST_FRONTEND_DIST ?? join(ROOT, 'node_modules/@openlist-frontend/openlist-frontend/dist');
const SHOTS = join(ROOT, 'test-results/openlist-fe');
const PROXIED = /^\/(api|d|p|sd|dav|ping)(\/|$|\?)/;
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png', '.wasm': 'application/wasm', '.woff2': 'font/woff2' };

if (!existsSync(join(DIST, 'index.html'))) {
  console.error(`no OpenList frontend build at ${DIST}: see the header of this file`);
  process.exit(2);
}
mkdirSync(SHOTS, { recursive: true });

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
    const up = request(target, { method: req.method, headers: { ...req.headers, host: target.host } }, (r) => {
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
  calls.push(line);
  if (!(r.headers()['content-type'] ?? '').includes('json')) return;
  const body = (await r.json().catch(() => null)) as { code?: number; message?: string } | null;
  if (body && body.code !== 200 && !(expected && expected.test(`${line} ${body.code} ${body.message}`))) problems.push(`${line} → ${body.code} ${body.message}`);
});

const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) });
const settle = (p: Page) => p.waitForLoadState('networkidle').catch(() => undefined);
const journeys: string[] = [];
async function journey(name: string, fn: () => Promise<void>): Promise<void> {
  const before = problems.length;
  try {
    await fn();
    await settle(page);
  } catch (e) {
    problems.push(`${name}: ${(e as Error).message.split('\n')[0]}`);
  }
  await shot(name.replace(/\W+/g, '-'));
  journeys.push(`${problems.length === before ? 'ok  ' : 'FAIL'} ${name}`);
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

try {
  await journey('login with a wrong password shows the message', async () => {
    expected = /auth\/login.* (400|401) /;
    await page.goto(`${base}/@login`);
    await page.getByPlaceholder(/username/i).fill('admin');
    await page.getByPlaceholder(/password/i).fill('wrong-password');
    await page.getByRole('button', { name: /login/i }).click();
    await page.getByText(/password/i).nth(1).waitFor({ timeout: 10_000 });
    expected = null;
  });
  await journey('login', async () => {
    await page.getByPlaceholder(/password/i).fill(ADMIN);
    await page.getByRole('button', { name: /login/i }).click();
    await page.waitForURL((u) => !u.pathname.startsWith('/@login'), { timeout: 15_000 });
  });
  await journey('listing and breadcrumbs', async () => {
    await page.goto(`${base}/`);
    await page.getByText('docs', { exact: true }).first().click();
    await page.getByText('readme.txt').first().waitFor({ timeout: 10_000 });
    await page.getByText('inner', { exact: true }).first().click();
    await page.getByText('deep.txt').first().waitFor({ timeout: 10_000 });
  });
  await journey('text preview', async () => {
    await page.goto(`${base}/docs/readme.txt`);
    await page.getByText('hello from ferry').first().waitFor({ timeout: 15_000 });
  });
  await journey('file operations (mkdir, rename, copy, move, batch/regex rename, recursive move, remove empty, delete) with the frontend token', async () => {
    await page.goto(`${base}/docs`);
    await settle(page);
    const steps: [string, unknown][] = [
      ['/api/fs/mkdir', { path: '/docs/made' }],
      ['/api/fs/rename', { path: '/docs/made', name: 'made2' }],
      ['/api/fs/copy', { src_dir: '/docs', dst_dir: '/docs/made2', names: ['readme.txt'] }],
      ['/api/fs/move', { src_dir: '/docs/made2', dst_dir: '/docs/inner', names: ['readme.txt'] }],
      ['/api/fs/batch_rename', { src_dir: '/docs', rename_objects: [{ src_name: 'a-1.txt', new_name: 'b-1.txt' }] }],
      ['/api/fs/regex_rename', { src_dir: '/docs', src_name_regex: '^a-(\\d)\\.txt$', new_name_regex: 'c-$1.txt' }],
      ['/api/fs/recursive_move', { src_dir: '/docs/inner', dst_dir: '/docs/made2', conflict_policy: 'cancel' }],
      ['/api/fs/remove_empty_directory', { src_dir: '/empty-parent' }],
      ['/api/fs/remove', { dir: '/docs', names: ['made2'] }],
    ];
    for (const [p, b] of steps) {
      const r = await feCall(p, b);
      if (r.code !== 200) throw new Error(`${p}: ${r.code} ${r.message}`);
    }
    await page.reload();
    await page.getByText('b-1.txt').first().waitFor({ timeout: 10_000 });
    await page.getByText('c-2.txt').first().waitFor({ timeout: 10_000 });
  });
  for (const p of ['profile', 'settings/site', 'settings/style', 'settings/preview', 'settings/global', 'settings/offline_download', 'settings/index', 'settings/other', 'storages', 'users', 'metas', 'indexes', 'tasks/upload', 'tasks/copy', 'tasks/offline_download', 'tasks/decompress']) {
    await journey(`manage: ${p}`, async () => {
      await page.goto(`${base}/@manage/${p}`);
      await settle(page);
    });
  }
  await journey('storages: reload all', async () => {
    await page.goto(`${base}/@manage/storages`);
    await settle(page);
    const r = await feCall('/api/admin/storage/load_all', {});
    if (r.code !== 200) throw new Error(`load_all: ${r.code} ${r.message}`);
  });
  await journey('search (search_index database): Ctrl+K, a keyword, the hit listed', async () => {
    await page.goto(`${base}/docs`);
    await settle(page);
    await page.keyboard.press('Control+k');
    const box = page.getByRole('dialog').locator('input:not([type=hidden])').last();
    await box.waitFor({ timeout: 10_000 });
    await box.fill('c-2');
    await box.press('Enter');
    // c-2.txt got its name through Ferry (regex rename above), so the database index knows it
    await page.getByRole('dialog').getByText(/c-2\.txt/).first().waitFor({ timeout: 10_000 });
  });
} finally {
  await browser.close();
  front.close();
  await ferry.stop();
}

console.log(journeys.join('\n'));
console.log(`\n${calls.length} API calls; problems: ${problems.length}`);
for (const p of problems) console.log(`  ${p}`);
process.exit(problems.length ? 1 : 0);
