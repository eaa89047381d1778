/** Admin pages in Chromium: create/edit/delete a user with named permissions, add a local storage from the driver form, save settings. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { api } from '../support/process.js';
import { DESKTOP, login, openApp, PHONE, screenshot, type App } from './browser.js';

describe('web UI: admin', () => {
  let app: App;
  let token: string;
  let extra: string;

  before(async () => {
    extra = mkdtempSync(join(tmpdir(), 'ferry-web-storage-'));
    app = await openApp();
    token = await app.adminToken();
    await login(app.page, 'admin', app.adminPassword);
  });
  after(async () => {
    await app?.close();
    rmSync(extra, { recursive: true, force: true });
  });

  test('create a user with permission checkboxes, edit it, delete it', async () => {
    const page = app.page;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Users' }).click();
    await page.getByRole('button', { name: 'New user' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Username').fill('carol');
    await dialog.getByRole('button', { name: 'Create user' }).click();
    await dialog.getByText('Set a password for the new user.').waitFor();
    await dialog.getByLabel('Password', { exact: true }).fill('carol-pw');
    await dialog.getByLabel('Home folder').fill('/carol');
    await dialog.getByLabel('Write (create folders, upload)').check();
    await dialog.getByLabel('Share', { exact: true }).check();
    await dialog.getByLabel('SFTP login and read').check();
    await screenshot(page, 'admin-user-dialog-desktop');
    await dialog.getByRole('button', { name: 'Create user' }).click();
    await page.locator('tr[data-user="carol"]').waitFor();

    const users = (await api(app.url, 'GET', '/api/admin/user/list', { token })).body.data.content as { id: number; username: string; permission: number; base_path: string; disabled: boolean }[];
    const carol = users.find((u) => u.username === 'carol')!;
    assert.equal(carol.permission, (1 << 3) | (1 << 14) | (1 << 10));
    assert.equal(carol.base_path, '/carol');
    const login = await api(app.url, 'POST', '/api/auth/login', { body: { username: 'carol', password: 'carol-pw' } });
    assert.equal(login.status, 200);

    await page.getByRole('button', { name: 'Edit carol' }).click();
    await dialog.getByLabel('Share', { exact: true }).uncheck();
    await dialog.getByLabel('Disabled (cannot sign in)').check();
    await dialog.getByRole('button', { name: 'Save' }).click();
    await page.locator('tr[data-user="carol"]').getByText('Disabled').waitFor();
    const after1 = (await api(app.url, 'GET', '/api/admin/user/get?id=' + carol.id, { token })).body.data;
    assert.equal(after1.permission, (1 << 3) | (1 << 10));
    assert.equal(after1.disabled, true);

    await page.getByRole('button', { name: 'Delete carol' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.locator('tr[data-user="carol"]').waitFor({ state: 'detached' });
    assert.equal((await api(app.url, 'GET', '/api/admin/user/get?id=' + carol.id, { token })).status, 404);
    assert.equal(await page.getByRole('button', { name: 'Delete admin' }).count(), 0, 'admin cannot be deleted');
  });

  test('add a local storage from the driver option form; disable and enable it', async () => {
    const page = app.page;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Storages' }).click();
    await page.getByRole('button', { name: 'Add storage' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Mount path').fill('/extra');
    await dialog.getByRole('button', { name: 'Add storage' }).click();
    await dialog.getByText('Required.').waitFor(); // root_folder_path is required by the local driver
    await dialog.getByLabel(/^root_folder_path/).fill(extra);
    await dialog.getByLabel('Seed sidecars on upload').selectOption('on');
    await dialog.getByRole('button', { name: 'Add storage' }).click();
    const row = page.locator('tr[data-storage="/extra"]');
    await row.getByText('Working').waitFor();
    const s = ((await api(app.url, 'GET', '/api/admin/storage/list', { token })).body.data.content as { mount_path: string; seed_policy: string; driver: string; addition: string }[]).find((x) => x.mount_path === '/extra')!;
    assert.equal(s.driver, 'local');
    assert.equal(s.seed_policy, 'on');
    assert.equal(JSON.parse(s.addition).root_folder_path, extra);

    await row.getByRole('button', { name: 'Disable /extra' }).click();
    await row.getByText('Disabled').waitFor();
    await row.getByRole('button', { name: 'Enable /extra' }).click();
    await row.getByText('Working').waitFor();
    await screenshot(page, 'admin-storages-desktop');
  });

  test('settings are grouped with help text; a bad JSON value is refused; a saved title shows in the top bar', async () => {
    const page = app.page;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    const seeds = page.getByRole('region', { name: 'Transfer seeds' });
    await seeds.getByText('Hash matrix used when a request selects none.').waitFor();
    for (const key of ['seed_default_matrix', 'seed_format_policies', 'seed_default_trackers', 'seed_async_threshold', 'seed_follow', 'seed_trusted_source_hosts']) {
      assert.equal(await seeds.getByText(key, { exact: true }).count(), 1, key);
    }
    await seeds.getByLabel('seed_default_matrix').fill('{not json');
    await page.getByRole('button', { name: 'Save 1 change' }).click();
    await page.getByText('Not valid JSON.').waitFor();
    await seeds.getByLabel('seed_default_matrix').fill('{"md5":{"whole":true,"pieces":true},"sha1":{"whole":false,"pieces":false},"sha256":{"whole":true,"pieces":false}}');
    await page.getByRole('region', { name: 'Site' }).getByLabel('site_title').fill('Harbour');
    await page.getByRole('button', { name: 'Save 2 changes' }).click();
    await page.getByRole('link', { name: 'Harbour' }).waitFor();
    const pub = (await api(app.url, 'GET', '/api/public/settings')).body.data;
    assert.equal(pub.site_title, 'Harbour');
    assert.equal(JSON.parse(pub.seed_default_matrix).md5.pieces, true);
  });

  test('screenshots of the admin pages at both viewports', async () => {
    for (const [name, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      const page = await app.newPage(viewport);
      await login(page, 'admin', app.adminPassword);
      for (const [path, ready] of [['/admin/users', 'tr[data-user="admin"]'], ['/admin/storages', 'tr[data-storage="/extra"]'], ['/admin/settings', '#group-seed']] as const) {
        await page.goto(path);
        await page.locator(ready).waitFor();
        await screenshot(page, `${path.slice(1).replace('/', '-')}-${name}`);
      }
      await page.close();
    }
  });
});
