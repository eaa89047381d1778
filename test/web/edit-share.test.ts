/**
 * The web UI's plumbing (React Router deep links, back/forward, awkward names), editing a text file
 * in the viewer (If-Match round trip, the storage's sidecar policy applied, 412 on a file changed
 * meanwhile) and share visitors' pages (`/s/<id>`: README under a shared folder, the viewer over `/sd/`).
 * In Chromium against the built server (`npm run build` first).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { requireCommand, run } from '../support/commands.js';
import { DESKTOP, login, openApp, PHONE, screenshot, type App } from './browser.js';
import { apiOk, coreutils, download, putFile, setSettings } from './seeds-support.js';

/** A folder and a file whose names need every kind of escaping in a URL. */
const ODD_DIR = 'Fotos #1 ? 100% ü';
const ODD_FILE = 'a b#?&%2F é.txt';

describe('web: routing, editing text, share pages', () => {
  let app: App;
  let token: string;
  let page: Page;
  let tmp: string;

  before(async () => {
    requireCommand('ffmpeg', 'ffmpeg');
    tmp = mkdtempSync(join(tmpdir(), 'ferry-edit-share-'));
    run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'color=c=green:s=40x30', '-frames:v', '1', join(tmp, 'pic.png')]);
    app = await openApp();
    token = await app.adminToken();
    for (const dir of ['/notes', `/${ODD_DIR}`, '/shared', '/shared/sub']) await apiOk(app, token, '/api/fs/mkdir', { path: dir });
    await putFile(app, token, `/${ODD_DIR}/${ODD_FILE}`, Buffer.from('odd but fine\n'));
    await putFile(app, token, '/shared/README.md', Buffer.from('# Welcome to the share\n\nPictures below.\n<script>window.__pwned = 1</script>\n'));
    await putFile(app, token, '/shared/pic.png', readFileSync(join(tmp, 'pic.png')));
    await putFile(app, token, '/shared/sub/deep.txt', Buffer.from('deep inside\n'));
    page = await app.newPage();
    await login(page, 'admin', app.adminPassword);
  });
  after(async () => {
    await app?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  test('deep links, back and forward work for folders and files with spaces, #, ?, % and non-ASCII names', async () => {
    await page.goto('/files/');
    await page.getByRole('button', { name: ODD_DIR, exact: true }).click();
    const dirUrl = `/files/${encodeURIComponent(ODD_DIR)}`;
    await page.waitForURL((u) => u.pathname === dirUrl);
    await page.getByRole('button', { name: ODD_FILE, exact: true }).click();
    const fileUrl = `/view/${encodeURIComponent(ODD_DIR)}/${encodeURIComponent(ODD_FILE)}`;
    await page.waitForURL((u) => u.pathname === fileUrl);
    await page.getByText('odd but fine').waitFor();
    await page.goBack();
    await page.waitForURL((u) => u.pathname === dirUrl);
    await page.getByRole('button', { name: ODD_FILE, exact: true }).waitFor();
    await page.goForward();
    await page.waitForURL((u) => u.pathname === fileUrl);
    await page.getByText('odd but fine').waitFor();
    // a fresh load of the deep link (the server answers with index.html, the router takes over)
    await page.goto(fileUrl);
    await page.getByRole('heading', { name: ODD_FILE }).waitFor();
    await page.getByText('odd but fine').waitFor();
    await page.goto(dirUrl);
    await page.getByRole('button', { name: ODD_FILE, exact: true }).waitFor();
    await page.goto('/no/such/page');
    await page.getByText('Page not found').waitFor();
  });

  test('edit and save: the stored file and its hashes change, and the storage policy rewrites its sidecar', async () => {
    await setSettings(app, token, { seed_auto_generate_policy: 'on', seed_format_policies: JSON.stringify({ oss: 'on', torrent: 'off', cas: 'off' }) });
    const first = Buffer.from('first line\n');
    await putFile(app, token, '/notes/todo.txt', first);
    const sidecarBefore = JSON.parse((await download(app, token, '/notes/todo.txt.oss')).toString('utf8'));
    assert.equal(sidecarBefore.files[0].hashes.sha256, coreutils(first).sha256);

    await page.goto('/view/notes/todo.txt');
    await page.getByText('first line').waitFor();
    await screenshot(page, 'viewer-text-desktop');
    await page.setViewportSize(PHONE);
    await screenshot(page, 'viewer-text-phone');
    await page.setViewportSize(DESKTOP);
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const area = page.getByLabel('Contents of todo.txt');
    await area.waitFor();
    assert.equal(await area.inputValue(), 'first line\n');
    await area.fill('first line\nsecond line, edited in the browser ✓\n');
    await screenshot(page, 'editor-desktop');
    await page.setViewportSize(PHONE);
    await screenshot(page, 'editor-phone');
    await page.setViewportSize(DESKTOP);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await area.waitFor({ state: 'detached' });
    await page.locator('.viewer-text pre').getByText('second line, edited in the browser ✓').waitFor();
    await page.getByText('Saved “todo.txt”').waitFor();

    const stored = await download(app, token, '/notes/todo.txt');
    assert.equal(stored.toString('utf8'), 'first line\nsecond line, edited in the browser ✓\n');
    const got = await apiOk<{ hash_info: { sha256?: string; md5?: string } | null }>(app, token, '/api/fs/get', { path: '/notes/todo.txt' });
    const now = coreutils(stored);
    assert.notEqual(now.sha256, coreutils(first).sha256);
    if (got.hash_info?.sha256) assert.equal(got.hash_info.sha256, now.sha256);
    const sidecarAfter = JSON.parse((await download(app, token, '/notes/todo.txt.oss')).toString('utf8'));
    assert.equal(sidecarAfter.files[0].size, stored.length);
    assert.equal(sidecarAfter.files[0].hashes.sha256, now.sha256, 'the sidecar describes the saved content');
    await setSettings(app, token, { seed_auto_generate_policy: 'off' });
  });

  test('saving over a file changed meanwhile is refused with a clear message, and nothing is overwritten', async () => {
    await putFile(app, token, '/notes/race.txt', Buffer.from('v1\n'));
    await page.goto('/view/notes/race.txt');
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const area = page.getByLabel('Contents of race.txt');
    await area.waitFor();
    await area.fill('mine\n');
    await putFile(app, token, '/notes/race.txt', Buffer.from('theirs\n'));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'was changed by someone else since you opened it' }).waitFor();
    assert.equal((await download(app, token, '/notes/race.txt')).toString('utf8'), 'theirs\n');
    assert.equal(await area.inputValue(), 'mine\n', 'the unsaved text stays in the editor');
    await screenshot(page, 'editor-conflict');
    await page.getByRole('button', { name: 'Reload the current version' }).click();
    await page.waitForFunction(() => (globalThis as any).document.querySelector('textarea')?.value === 'theirs\n');
    await area.fill('theirs\nand mine\n');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await area.waitFor({ state: 'detached' });
    await page.locator('.viewer-text pre').getByText('and mine').waitFor();
    assert.equal((await download(app, token, '/notes/race.txt')).toString('utf8'), 'theirs\nand mine\n');
  });

  test('share visitors see the README of a shared folder, open an image in the viewer and walk into subfolders', async () => {
    const share = await apiOk<{ id: string }>(app, token, '/api/share/create', { files: ['/shared'] });
    const visitor = await app.newPage();
    await visitor.goto(`/s/${share.id}`);
    await visitor.getByRole('heading', { name: 'Welcome to the share' }).waitFor();
    assert.equal(await visitor.evaluate(() => (globalThis as any).__pwned), undefined, 'the README script did not run');
    assert.equal(await visitor.evaluate(() => (globalThis as any).localStorage.getItem('ferry.token')), null, 'no session involved');
    await screenshot(visitor, 'share-folder-desktop');
    await visitor.getByRole('button', { name: 'pic.png', exact: true }).click();
    await visitor.waitForURL((u) => u.pathname === `/s/${share.id}/pic.png` && u.searchParams.get('view') === '1');
    await visitor.waitForFunction(() => (globalThis as any).document.querySelector('.viewer img')?.naturalWidth === 40);
    const src = await visitor.locator('.viewer img').getAttribute('src');
    assert.match(src ?? '', new RegExp(`^/sd/${share.id}/pic\\.png`));
    await screenshot(visitor, 'share-viewer-desktop');
    await visitor.setViewportSize(PHONE);
    await screenshot(visitor, 'share-viewer-phone');
    await visitor.setViewportSize(DESKTOP);
    await visitor.keyboard.press('Escape');
    await visitor.waitForURL((u) => u.pathname === `/s/${share.id}/` || u.pathname === `/s/${share.id}`);
    await visitor.getByRole('button', { name: 'sub', exact: true }).click();
    await visitor.getByRole('button', { name: 'deep.txt', exact: true }).click();
    await visitor.getByText('deep inside').waitFor();
    assert.equal(await visitor.getByRole('button', { name: 'Edit' }).count(), 0, 'visitors cannot edit');
    await visitor.goBack();
    await visitor.getByRole('button', { name: 'deep.txt', exact: true }).waitFor();
  });

  test('a share with a password asks for it; a single-file share opens its file', async () => {
    const locked = await apiOk<{ id: string }>(app, token, '/api/share/create', { files: ['/shared'], pwd: 'harbour' });
    const single = await apiOk<{ id: string }>(app, token, '/api/share/create', { files: ['/shared/pic.png'] });
    const visitor = await app.newPage();
    await visitor.goto(`/s/${locked.id}`);
    await visitor.getByLabel('Password').fill('wrong');
    await visitor.getByRole('button', { name: 'Open' }).click();
    await visitor.getByText('That password is not right').waitFor();
    await visitor.getByLabel('Password').fill('harbour');
    await visitor.getByRole('button', { name: 'Open' }).click();
    await visitor.getByRole('heading', { name: 'Welcome to the share' }).waitFor();
    await visitor.goto(`/s/${single.id}`);
    await visitor.waitForFunction(() => (globalThis as any).document.querySelector('.viewer img')?.naturalWidth === 40);
  });
});
