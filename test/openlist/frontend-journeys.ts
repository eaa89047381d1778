/**
 * The official OpenList web frontend against a fresh built Ferry (harness: ./frontend-harness.ts), file-side
 * journeys through the frontend's own widgets (./frontend-ui.ts): login (wrong, then right password; 2FA), listing,
 * folders, every preview it offers for our files (text, markdown, image, video, audio, PDF) and its download
 * button, stream/form/as-task/folder upload, mkdir, rename, copy, move, delete, batch rename (3 modes), recursive move, remove empty
 * folders, offline download with SimpleHttp, every manage page, the index build and scan through the indexes page's
 * buttons, Ctrl+K search. Results are checked on screen and through Ferry's API. Run by
 * test/openlist/official-frontend.test.ts; by hand:
 *
 *   npm run build && node scripts/setup-peers.mjs && npx tsx test/openlist/frontend-journeys.ts
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as OTPAuth from 'otpauth';
import type { Download } from 'playwright-core';
import { api } from '../support/process.js';
import { openFrontend } from './frontend-harness.js';
import { makeMedia } from './frontend-media.js';
import { chooseFolder, contextMenu, dialog, rightTool } from './frontend-ui.js';

const { page, base, ferry, token, dataDir, ADMIN, journey, feCall, settle, expect, finish } = await openFrontend('files');
// generous: CI machines are loaded, and the PDF viewer alone is a large lazy chunk
page.setDefaultTimeout(30_000);
// a journey that fails early leaves its pending waits (responses, popups) to reject later: the failure is already counted
process.on('unhandledRejection', () => undefined);
makeMedia(join(dataDir, 'files/media'));
const DATA_BIN = Buffer.from([0, 1, 2, 3, 250, 251, 252, 253]);
writeFileSync(join(dataDir, 'files/media/data.bin'), DATA_BIN);
/** Fails unless the browser's download holds data.bin's bytes. */
async function holdsDataBin(dl: Promise<Download>): Promise<void> {
  const got = readFileSync((await (await dl).path())!);
  if (!got.equals(DATA_BIN)) throw new Error(`downloaded ${got.toString('hex')}, not data.bin's ${DATA_BIN.toString('hex')}`);
}

/** Ferry's view, through its own API as admin. */
const names = async (dir: string): Promise<string[]> => {
  const r = await api(ferry.url, 'POST', '/api/fs/list', { token, body: { path: dir, refresh: true } });
  if (r.body.code !== 200) throw new Error(`fs/list ${dir}: ${r.body.code} ${r.body.message}`);
  return ((r.body.data.content ?? []) as { name: string }[]).map((e) => e.name).sort();
};
const bytesOf = async (path: string): Promise<string> => {
  const g = await api(ferry.url, 'POST', '/api/fs/get', { token, body: { path } });
  if (g.body.code !== 200) throw new Error(`fs/get ${path}: ${g.body.code} ${g.body.message}`);
  return Buffer.from(await (await fetch(new URL(g.body.data.raw_url, ferry.url))).arrayBuffer()).toString();
};
/** Waits (bounded) until `dir` lists exactly `want` in Ferry (copy/move may run as tasks). */
async function until(dir: string, want: string[]): Promise<void> {
  let got: string[] = [];
  for (let i = 0; i < 40; i++) {
    got = await names(dir);
    if (JSON.stringify(got) === JSON.stringify([...want].sort())) return;
    await page.waitForTimeout(250);
  }
  throw new Error(`${dir} lists [${got.join(', ')}], expected [${[...want].sort().join(', ')}]`);
}
const ok = () => dialog(page).getByRole('button', { name: 'OK' }).click();
/** Waits until the upload dialog lists `n` finished uploads (it keeps the earlier ones). */
const succeeded = (n: number) => dialog(page).getByText(/^success$/i).nth(n - 1).waitFor();
/** Waits until no dialog is open and the listing shows `name`. */
const showsRow = async (name: string) => {
  await dialog(page).waitFor({ state: 'detached' });
  await page.getByText(name, { exact: true }).first().waitFor();
};

/** Batch rename in `mode` over every entry of the folder shown (the dialog selects them all), through its preview. */
async function batchRename(mode: string, first: string, second: string): Promise<void> {
  await rightTool(page, 'Batch Rename');
  await dialog(page).getByText(mode, { exact: true }).click();
  const inputs = dialog(page).locator('input:not([type=radio])');
  await inputs.nth(0).fill(first);
  await inputs.nth(1).fill(second);
  await ok();
  await dialog(page).getByText('New Name').waitFor(); // the preview of old → new names
  const renamed = page.waitForResponse((r) => r.url().includes('/api/fs/batch_rename'));
  await ok();
  await renamed;
}

const upDir = mkdtempSync(join(tmpdir(), 'ferry-olfe-up-'));
writeFileSync(join(upDir, 'stream.txt'), 'streamed bytes\n');
writeFileSync(join(upDir, 'form.txt'), 'form bytes\n');
writeFileSync(join(upDir, 'tasked.txt'), 'uploaded as a task\n');
mkdirSync(join(upDir, 'tree/sub'), { recursive: true });
writeFileSync(join(upDir, 'tree/sub/nested.txt'), 'nested bytes\n');

try {
  await journey('login with a wrong password shows the message', async () => {
    expect(/auth\/login.* (400|401) /);
    await page.goto(`${base}/@login`);
    await page.getByPlaceholder(/username/i).fill('admin');
    await page.getByPlaceholder(/password/i).fill('wrong-password');
    await page.getByRole('button', { name: /login/i }).click();
    await page.getByText(/password/i).nth(1).waitFor({ timeout: 10_000 });
    expect(null);
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
    await page.getByText('docs', { exact: true }).first().click(); // the breadcrumb
    await page.getByText('readme.txt').first().waitFor({ timeout: 10_000 });
  });

  // previews: opened from the listing by a click, as a person does (the click also lets the players start)
  const open = async (name: string) => {
    await page.goto(`${base}/media`);
    await page.getByText(name, { exact: true }).first().click();
    await page.waitForURL((u) => u.pathname === `/media/${name}`);
  };
  await journey('preview: text', async () => {
    await page.goto(`${base}/docs`);
    await page.getByText('readme.txt', { exact: true }).first().click();
    await page.getByText('hello from ferry').first().waitFor();
  });
  await journey('preview: markdown rendered', async () => {
    await open('notes.md');
    await page.getByRole('heading', { name: 'Ferry notes' }).waitFor();
    await page.locator('em', { hasText: 'markdown' }).first().waitFor();
  });
  await journey('preview: image', async () => {
    await open('pic.png');
    const img = page.locator('img[src*="/d/media/pic.png"]').first();
    await img.waitFor();
    await page.waitForFunction(`(() => { const i = document.querySelector('img[src*="/d/media/pic.png"]'); return !!i && i.complete && i.naturalWidth === 32; })()`);
  });
  await journey('preview: video plays', async () => {
    await open('clip.webm');
    await page.waitForFunction(`(() => { const v = document.querySelector('video[src*="/d/media/clip.webm"]'); return !!v && v.readyState >= 1 && v.duration > 0.5; })()`);
  });
  await journey('preview: audio plays', async () => {
    const audio = page.waitForResponse((r) => r.url().includes('/d/media/tone.mp3') && r.status() < 300);
    await open('tone.mp3');
    await audio;
    await page.locator('.aplayer').first().waitFor();
    await page.waitForFunction(`parseFloat(document.querySelector('.aplayer-played')?.style.width ?? '0') > 0`); // it played
  });
  await journey('preview: PDF rendered', async () => {
    const pdf = page.waitForResponse((r) => r.url().includes('/d/media/paper.pdf') && r.status() < 300);
    await open('paper.pdf');
    await pdf;
    await page.getByText('PDF Previewer').first().waitFor();
    await page.getByText(/Error loading document/).waitFor({ state: 'detached', timeout: 3_000 });
    await page.locator('canvas, img[src^="blob:"]').first().waitFor();
  });
  await journey('download button gives the bytes', async () => {
    await open('data.bin');
    const link = page.locator('a', { hasText: /^Download$/ }).first();
    await link.waitFor();
    // the button is a link opening in a new tab; Chromium closes that tab and reports the download on this page
    const dl = page.waitForEvent('download');
    await link.click();
    await holdsDataBin(dl);
  });

  await journey('download from the context menu gives the bytes', async () => {
    await page.goto(`${base}/media`);
    const dl = page.waitForEvent('download');
    await contextMenu(page, 'data.bin', 'Download');
    await holdsDataBin(dl);
  });

  /** In the open upload dialog: picks uploader `mode` (shown as `from`), sends `file`, the `n`th upload of the dialog. */
  async function uploadOne(from: string, mode: string, file: string, n: number, bytes: string): Promise<void> {
    if (from !== mode) {
      await dialog(page).getByText(from, { exact: true }).click();
      await page.getByRole('option', { name: mode }).click();
    }
    await dialog(page).locator('input[type=file]').first().setInputFiles(join(upDir, file));
    await succeeded(n);
    await dialog(page).getByRole('button', { name: /Back to Upload/ }).click();
    for (let i = 0; i < 40 && !(await names('/docs')).includes(file); i++) await page.waitForTimeout(250);
    if ((await bytesOf(`/docs/${file}`)) !== bytes) throw new Error(`${file} has other bytes`);
  }
  await journey('upload: stream mode, a file', async () => {
    await page.goto(`${base}/docs`);
    await settle(page);
    await rightTool(page, 'Upload');
    await uploadOne('Stream', 'Stream', 'stream.txt', 1, 'streamed bytes\n');
  });
  await journey('upload: form mode, a file', async () => {
    await uploadOne('Stream', 'Form', 'form.txt', 2, 'form bytes\n');
  });
  await journey('upload: "Add as task" (stream mode), the bytes land through an upload task', async () => {
    await dialog(page).getByText('Add as task').click();
    await uploadOne('Form', 'Stream', 'tasked.txt', 3, 'uploaded as a task\n');
    await dialog(page).getByText('Add as task').click(); // off again for the folder below
    const tasks = [...((await api(ferry.url, 'GET', '/api/task/upload/done', { token })).body.data ?? []), ...((await api(ferry.url, 'GET', '/api/task/upload/undone', { token })).body.data ?? [])] as { name: string }[];
    if (!tasks.some((t) => t.name.includes('tasked.txt'))) throw new Error(`no upload task for tasked.txt (${tasks.map((t) => t.name).join('; ')})`);
  });
  await journey('upload: a folder (nested path), then the listing shows it', async () => {
    await dialog(page).locator('input[type=file]').nth(1).setInputFiles(join(upDir, 'tree'));
    await succeeded(4);
    if ((await bytesOf('/docs/tree/sub/nested.txt')) !== 'nested bytes\n') throw new Error('tree/sub/nested.txt has other bytes');
    await dialog(page).getByRole('button', { name: /close/i }).click();
    await showsRow('tree');
    await showsRow('stream.txt');
    await showsRow('form.txt');
    // the dialog refreshes the listing once more 5 s after each batch, which drops any selection made meanwhile
    await page.waitForTimeout(5_500);
  });

  await journey('mkdir through the toolbar dialog', async () => {
    await rightTool(page, 'New Folder');
    await dialog(page).locator('input').fill('made');
    await ok();
    await showsRow('made');
    if (!(await names('/docs')).includes('made')) throw new Error('no /docs/made in Ferry');
  });
  await journey('rename through the context menu', async () => {
    await contextMenu(page, 'made', 'Rename');
    await dialog(page).locator('input').first().fill('made2');
    await ok();
    await showsRow('made2');
    await until('/docs/made2', []);
  });
  await journey('copy through the context menu and the folder chooser', async () => {
    await contextMenu(page, 'readme.txt', 'Copy');
    await chooseFolder(page, '/docs/made2');
    await until('/docs/made2', ['readme.txt']);
    if (!(await names('/docs')).includes('readme.txt')) throw new Error('the copy removed its source');
  });
  await journey('move through the context menu and the folder chooser', async () => {
    await contextMenu(page, 'form.txt', 'Move');
    await chooseFolder(page, '/docs/made2');
    await until('/docs/made2', ['form.txt', 'readme.txt']);
    if ((await names('/docs')).includes('form.txt')) throw new Error('form.txt is still in /docs');
    await page.getByText('form.txt', { exact: true }).waitFor({ state: 'detached' });
  });
  await journey('delete through the context menu', async () => {
    await contextMenu(page, 'stream.txt', 'Delete');
    await dialog(page).getByRole('button', { name: /confirm/i }).click();
    await page.getByText('stream.txt', { exact: true }).waitFor({ state: 'detached' });
    if ((await names('/docs')).includes('stream.txt')) throw new Error('stream.txt is still in Ferry');
  });
  await journey('batch rename (regex mode) through the toolbar dialog and its preview', async () => {
    await batchRename('Regex Rename', '^a-1\\.txt$', 'b-1.txt');
    await showsRow('b-1.txt');
    const now = await names('/docs');
    if (!now.includes('b-1.txt') || now.includes('a-1.txt') || !now.includes('a-2.txt')) throw new Error(`/docs: ${now.join(', ')}`);
  });
  await journey('regex rename (fs/regex_rename: this frontend has no widget for it; sent with its token)', async () => {
    const r = await feCall('/api/fs/regex_rename', { src_dir: '/docs', src_name_regex: '^a-(\\d)\\.txt$', new_name_regex: 'c-$1.txt' });
    if (r.code !== 200) throw new Error(`regex_rename: ${r.code} ${r.message}`);
    await page.reload();
    await showsRow('c-2.txt');
  });
  await journey('recursive move through the toolbar (confirm, folder chooser)', async () => {
    await page.goto(`${base}/docs/tree`);
    await showsRow('sub');
    await rightTool(page, 'Recursive Move');
    await dialog(page).getByRole('button', { name: /confirm/i }).click();
    await chooseFolder(page, '/docs/made2');
    await until('/docs/made2', ['form.txt', 'nested.txt', 'readme.txt']);
    await until('/docs/tree/sub', []);
  });
  await journey('remove empty folders through the toolbar', async () => {
    await rightTool(page, 'Remove Empty Folder');
    await dialog(page).getByRole('button', { name: /confirm/i }).click();
    await until('/docs/tree', []);
    await page.getByText('sub', { exact: true }).waitFor({ state: 'detached' });
  });

  await journey('batch rename (find-and-replace mode)', async () => {
    await page.goto(`${base}/docs/made2`);
    await showsRow('nested.txt');
    await batchRename('Find and Replace', 'nested', 'found');
    await until('/docs/made2', ['form.txt', 'found.txt', 'readme.txt']);
    await showsRow('found.txt');
  });
  await journey('batch rename (sequential mode)', async () => {
    await batchRename('Sequential Rename', 'part-', '1');
    await until('/docs/made2', ['part-1.txt', 'part-2.txt', 'part-3.txt']);
    await showsRow('part-3.txt');
  });

  await journey('login with 2FA: the code is asked, a wrong code shows a message, the right one logs in; then admin again', async () => {
    const created = await api(ferry.url, 'POST', '/api/admin/user/create', { token, body: { username: 'otpuser', password: 'otpuser-pass-1', base_path: '/', permission: 0 } });
    if (created.body.code !== 200) throw new Error(`user/create: ${created.body.message}`);
    const utoken = (await api(ferry.url, 'POST', '/api/auth/login', { body: { username: 'otpuser', password: 'otpuser-pass-1' } })).body.data.token as string;
    const secret = (await api(ferry.url, 'POST', '/api/auth/2fa/generate', { token: utoken, body: {} })).body.data.secret as string;
    const totp = new OTPAuth.TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: OTPAuth.Secret.fromBase32(secret) });
    const verified = await api(ferry.url, 'POST', '/api/auth/2fa/verify', { token: utoken, body: { code: totp.generate(), secret } });
    if (verified.body.code !== 200) throw new Error(`2fa/verify: ${verified.body.message}`);
    const valid = new Set([-1, 0, 1].map((d) => totp.generate({ timestamp: Date.now() + d * 30_000 })));
    const wrong = ['111111', '222222', '333333'].find((c) => !valid.has(c))!;

    await page.evaluate(`localStorage.removeItem('token')`);
    expect(/auth\/login.* (400|401|402) /);
    await page.goto(`${base}/@login`);
    await page.getByPlaceholder(/username/i).fill('otpuser');
    await page.getByPlaceholder(/password/i).fill('otpuser-pass-1');
    await page.getByRole('button', { name: /login/i }).click();
    const code = page.locator('#totp');
    await code.waitFor();
    await code.fill(wrong);
    await page.getByRole('button', { name: /login/i }).click();
    await page.getByText('Invalid 2FA code').first().waitFor();
    // the next step's code: the current one was spent enabling 2FA, and Ferry refuses a replayed code
    await code.fill(totp.generate({ timestamp: Date.now() + 30_000 }));
    await page.getByRole('button', { name: /login/i }).click();
    await page.waitForURL((u) => !u.pathname.startsWith('/@login'));
    expect(null);
    const me = (await page.evaluate(`fetch('/api/me', { headers: { authorization: localStorage.getItem('token') ?? '' } }).then((r) => r.json())`)) as { data: { username: string } };
    if (me.data.username !== 'otpuser') throw new Error(`logged in as ${me.data.username}`);

    await page.evaluate(`localStorage.removeItem('token')`);
    await page.goto(`${base}/@login`);
    await page.getByPlaceholder(/username/i).fill('admin');
    await page.getByPlaceholder(/password/i).fill(ADMIN);
    await page.getByRole('button', { name: /login/i }).click();
    await page.waitForURL((u) => !u.pathname.startsWith('/@login'));
  });

  await journey('offline download dialog (SimpleHttp from a loopback server), then the task on the tasks page', async () => {
    const payload = Buffer.from('offline payload bytes\n');
    const src = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': payload.length }).end(payload));
    await new Promise<void>((r) => src.listen(0, '127.0.0.1', r));
    const host = `127.0.0.1:${(src.address() as { port: number }).port}`;
    try {
      // Ferry refuses loopback sources unless their host is trusted (the same switch the offline tests use)
      const saved = await api(ferry.url, 'POST', '/api/admin/setting/save', { token, body: [{ key: 'seed_trusted_source_hosts', value: host }] });
      if (saved.body.code !== 200) throw new Error(`setting/save: ${saved.body.message}`);
      await page.goto(`${base}/docs`);
      await settle(page);
      await rightTool(page, 'Offline download');
      const d = dialog(page);
      await d.locator('textarea').fill(`http://${host}/fetched.bin`);
      await d.getByText('SimpleHttp').first().waitFor();
      await d.getByRole('button', { name: 'Start Download' }).click();
      for (let i = 0; i < 40 && !(await names('/docs')).includes('fetched.bin'); i++) await page.waitForTimeout(250);
      if ((await bytesOf('/docs/fetched.bin')) !== payload.toString()) throw new Error('fetched.bin has other bytes');
      await page.goto(`${base}/@manage/tasks/offline_download`);
      await page.getByText(/fetched\.bin/).first().waitFor();
      await page.getByText(/^succeeded$/i).first().waitFor();
    } finally {
      src.close();
    }
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
  await journey('indexes: build through the page\'s button, then a scan of /docs', async () => {
    await page.goto(`${base}/@manage/indexes`);
    await settle(page);
    const built = page.waitForResponse((r) => r.url().includes('/api/admin/index/build'), { timeout: 10_000 });
    await page.getByRole('button', { name: /^(Build|Rebuild) indexes$/ }).click();
    const answer = (await (await built).json()) as { code: number; message: string };
    if (answer.code !== 200) throw new Error(`index/build: ${answer.code} ${answer.message}`);
    const progress = (p: string) =>
      page.evaluate(async (u) => {
        const r = await fetch(u, { headers: { authorization: (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem('token') ?? '' } });
        return (await r.json()) as { data: { is_done: boolean; obj_count: number } };
      }, p);
    for (let i = 0; i < 40 && !(await progress('/api/admin/index/progress')).data.is_done; i++) await page.waitForTimeout(250);
    const scanned = page.waitForResponse((r) => r.url().includes('/api/admin/scan/start'), { timeout: 10_000 });
    await page.getByRole('textbox').last().fill('/docs');
    await page.getByRole('button', { name: /^Start$/ }).click();
    const scan = (await (await scanned).json()) as { code: number; message: string };
    if (scan.code !== 200) throw new Error(`scan/start: ${scan.code} ${scan.message}`);
    for (let i = 0; i < 40 && !(await progress('/api/admin/scan/progress')).data.is_done; i++) await page.waitForTimeout(250);
    const done = await progress('/api/admin/scan/progress');
    if (!done.data.is_done || done.data.obj_count < 1) throw new Error(`scan/progress: ${JSON.stringify(done.data)}`);
  });
  await journey('search (search_index database): Ctrl+K, a keyword, the hit listed', async () => {
    await page.goto(`${base}/docs`);
    await settle(page);
    await page.keyboard.press('Control+k');
    const box = page.getByRole('dialog').locator('input:not([type=hidden])').last();
    await box.waitFor({ timeout: 10_000 });
    await box.fill('c-2');
    const answer = page.waitForResponse((r) => r.url().includes('/api/fs/search'), { timeout: 10_000 });
    await box.press('Enter');
    const body = (await (await answer).json()) as { code: number; message: string; data?: { total: number } };
    if (body.code !== 200 || !body.data?.total) throw new Error(`fs/search answered ${JSON.stringify(body).slice(0, 300)}`);
    // c-2.txt got its name through Ferry (regex rename above), so the database index knows it
    await page.getByRole('dialog').getByText(/c-2\.txt/).first().waitFor({ timeout: 10_000 });
  });
} finally {
  await finish();
}
