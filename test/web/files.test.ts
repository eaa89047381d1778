/**
 * The files page in Chromium against the built server: upload with progress to 100% and all
 * three sidecars, mkdir / rename / copy / move / delete, share links, download links, seed preview route.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { api } from '../support/process.js';
import { assertFits, DESKTOP, login, openApp, PHONE, screenshot, type App } from './browser.js';
import { download, listNames } from './seeds-support.js';

describe('web UI: files', () => {
  let app: App;
  let token: string;
  const list = (path: string) => listNames(app, token, path);

  before(async () => {
    app = await openApp();
    token = await app.adminToken();
    await login(app.page, 'admin', app.adminPassword);
  });
  after(async () => {
    await app?.close();
  });

  test('upload a file with .oss/.torrent/.cas sidecars: progress reaches 100% and everything is listed', async () => {
    const page = app.page;
    const data = randomBytes(3 * 1024 * 1024 + 17);
    await page.getByRole('button', { name: /Upload options/ }).click();
    await page.getByLabel('Create seed sidecars').check();
    for (const f of ['.oss', '.torrent', '.cas']) await page.getByLabel(new RegExp(`^\\${f}`)).check();
    await page.locator('input[data-testid=upload-input]').setInputFiles([{ name: 'big.bin', mimeType: 'application/octet-stream', buffer: data }]);
    const row = page.locator('[data-upload="big.bin"]');
    await row.and(page.locator('[data-status=done]')).waitFor({ timeout: 30_000 });
    assert.equal(await row.locator('.upload-pct').textContent(), '100%');
    assert.equal(await row.locator('progress').getAttribute('value'), '100');
    await page.locator('tr[data-name="big.bin.torrent"]').waitFor();
    for (const n of ['big.bin', 'big.bin.oss', 'big.bin.torrent', 'big.bin.cas']) await page.locator(`tr[data-name="${n}"]`).waitFor();
    assert.deepEqual(await list('/'), ['big.bin', 'big.bin.cas', 'big.bin.oss', 'big.bin.torrent']);

    // The bytes arrived intact and the .oss sidecar records the hashes coreutils would compute.
    assert.equal(createHash('sha256').update(await download(app, token, '/big.bin')).digest('hex'), createHash('sha256').update(data).digest('hex'));
    const oss = JSON.parse((await download(app, token, '/big.bin.oss')).toString());
    assert.equal(oss.files[0].hashes.md5, createHash('md5').update(data).digest('hex'));
    assert.equal(oss.files[0].hashes.sha1, createHash('sha1').update(data).digest('hex'));

    await screenshot(page, 'files-after-upload-desktop');
  });

  test('a second upload of the same name with "replace" off fails inline and keeps the file', async () => {
    const page = app.page;
    await page.getByLabel('Create seed sidecars').uncheck();
    await page.locator('input[data-testid=upload-input]').setInputFiles([{ name: 'big.bin', mimeType: 'application/octet-stream', buffer: Buffer.from('other') }]);
    const failed = page.locator('[data-upload="big.bin"][data-status=failed]');
    await failed.waitFor();
    assert.match((await failed.locator('.upload-error').textContent()) ?? '', /exist/i);
    const r = await api(app.url, 'POST', '/api/fs/get', { token, body: { path: '/big.bin' } });
    assert.equal(r.body.data.size, 3 * 1024 * 1024 + 17);
    await page.getByRole('button', { name: 'Clear finished' }).click();
  });

  test('mkdir, rename, copy into a folder, delete with confirmation', async () => {
    const page = app.page;
    await page.getByRole('button', { name: 'New folder' }).click();
    await page.getByLabel('Folder name').fill('a/b');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByText('A name cannot contain / or \\.').waitFor();
    await page.getByLabel('Folder name').fill('reports');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.locator('tr[data-name="reports"]').waitFor();

    // rename big.bin.cas → renamed.cas
    await page.getByLabel('Select big.bin.cas').check();
    await page.getByRole('toolbar', { name: 'Selection' }).getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('New name').fill('renamed.cas');
    await page.getByRole('button', { name: 'Rename', exact: true }).last().click();
    await page.locator('tr[data-name="renamed.cas"]').waitFor();
    assert.ok((await list('/')).includes('renamed.cas'));

    // copy renamed.cas into reports through the folder picker
    await page.getByLabel('Select renamed.cas').check();
    await page.getByRole('toolbar', { name: 'Selection' }).getByRole('button', { name: 'Copy' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: /reports/ }).click();
    await dialog.getByRole('button', { name: 'Copy here' }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.deepEqual(await list('/reports'), ['renamed.cas']);

    // shift-click selects a range; delete asks first, cancel keeps everything
    await page.getByLabel('Select reports').check();
    await page.getByLabel('Select big.bin.torrent').click({ modifiers: ['Shift'] });
    assert.equal(await page.locator('tr[aria-selected=true]').count(), 4); // reports, big.bin, big.bin.oss, big.bin.torrent
    await page.getByLabel('Select big.bin', { exact: true }).uncheck();
    await page.getByLabel('Select big.bin.oss').uncheck();
    await page.getByRole('toolbar', { name: 'Selection' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    assert.ok((await list('/')).includes('reports'));
    await page.getByRole('toolbar', { name: 'Selection' }).getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.locator('tr[data-name="reports"]').waitFor({ state: 'detached' });
    assert.deepEqual(await list('/'), ['big.bin', 'big.bin.oss', 'renamed.cas']);
  });

  test('folders navigate by breadcrumb; download links and share links serve the file', async () => {
    const page = app.page;
    await page.getByRole('button', { name: 'New folder' }).click();
    await page.getByLabel('Folder name').fill('docs');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('button', { name: 'docs' }).click();
    await page.waitForURL('**/files/docs');
    await page.getByText('This folder is empty').waitFor();
    await page.locator('input[data-testid=upload-input]').setInputFiles([{ name: 'note é.txt', mimeType: 'text/plain', buffer: Buffer.from('hello from the web UI\n') }]);
    await page.locator('tr[data-name="note é.txt"]').waitFor();
    const href = await page.locator('tr[data-name="note é.txt"]').getByRole('link', { name: 'Download note é.txt' }).getAttribute('href');
    // the link carries the listing's signature (sign_all is on by default): it downloads; the bare path does not
    assert.match(href ?? '', /^\/d\/docs\/note%20%C3%A9\.txt\?sign=[^&]+$/);
    assert.equal(await (await fetch(app.url + href)).text(), 'hello from the web UI\n');
    assert.equal((await fetch(app.url + '/d/docs/note%20%C3%A9.txt')).status, 401);

    await page.getByLabel('Select note é.txt').check();
    await page.getByRole('toolbar', { name: 'Selection' }).getByRole('button', { name: 'Share' }).click();
    await page.getByLabel('Password').fill('pw1');
    await page.getByRole('button', { name: 'Create link' }).click();
    const url = await page.getByLabel('Link', { exact: true }).inputValue();
    assert.match(url, /\/sd\//);
    assert.equal((await fetch(url)).status, 403, 'a password-protected share refuses without the password');
    const withPwd = await page.getByLabel('Link with password').inputValue();
    assert.equal(await (await fetch(withPwd)).text(), 'hello from the web UI\n');
    await screenshot(page, 'files-share-dialog');
    await page.getByRole('button', { name: 'Done' }).click();

    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Home' }).click();
    await page.waitForURL((u) => u.pathname === '/files/');
    await page.getByRole('button', { name: 'big.bin.oss' }).click();
    await page.waitForURL((u) => u.pathname === '/preview' && u.searchParams.get('path') === '/big.bin.oss');
  });

  test('move into a folder through the picker: the entry leaves this folder and lands there', async () => {
    const page = app.page;
    const selection = page.getByRole('toolbar', { name: 'Selection' });
    await page.goto('/files/');
    await page.locator('tr[data-name="renamed.cas"]').waitFor();

    // A folder cannot be moved into itself: the picker offers it disabled.
    await page.getByLabel('Select docs').check();
    await selection.getByRole('button', { name: 'Move' }).click();
    let dialog = page.getByRole('dialog', { name: 'Move “docs”' });
    assert.equal(await dialog.getByRole('button', { name: /docs/ }).isDisabled(), true);
    assert.equal(await dialog.getByRole('button', { name: 'Move here' }).isDisabled(), true, 'its own folder is no destination');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByLabel('Select docs').uncheck();

    await page.getByLabel('Select renamed.cas').check();
    await selection.getByRole('button', { name: 'Move' }).click();
    dialog = page.getByRole('dialog', { name: 'Move “renamed.cas”' });
    await dialog.getByRole('button', { name: /docs/ }).click();
    await dialog.getByRole('navigation', { name: 'Breadcrumb' }).getByText('docs').waitFor();
    await dialog.getByRole('button', { name: 'Move here' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('tr[data-name="renamed.cas"]').waitFor({ state: 'detached' });
    assert.deepEqual(await list('/'), ['big.bin', 'big.bin.oss', 'docs'], 'gone from here');
    assert.deepEqual(await list('/docs'), ['note é.txt', 'renamed.cas'], 'and there, once');
    await download(app, token, '/docs/renamed.cas');
  });

  test('screenshots of the files page at both viewports', async () => {
    for (const [name, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      const page = await app.newPage(viewport);
      await login(page, 'admin', app.adminPassword);
      await page.locator('tr[data-name="big.bin"]').waitFor();
      await screenshot(page, `files-${name}`);
      await assertFits(page, `files (${name})`);
      await page.close();
    }
  });
});
