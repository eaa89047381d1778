/**
 * Admin pages in Chromium: create/edit/delete a user with named permissions, cancel a user's 2FA,
 * add a local storage from the driver form and edit it, save settings.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { requireCommand, run } from '../support/commands.js';
import { api } from '../support/process.js';
import { assertFits, DESKTOP, login, openApp, PHONE, screenshot, type App } from './browser.js';

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

  test('cancel 2FA of a user: asked first, then the badge goes and the password alone signs in', async () => {
    requireCommand('oathtool', 'oathtool');
    const page = app.page;
    const created = await api(app.url, 'POST', '/api/admin/user/create', { token, body: { username: 'dave', password: 'dave-pw', base_path: '/', permission: 0 } });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const daveLogin = () => api(app.url, 'POST', '/api/auth/login', { body: { username: 'dave', password: 'dave-pw' } });
    const dave = (await daveLogin()).body.data.token as string;
    const secret = (await api(app.url, 'POST', '/api/auth/2fa/generate', { token: dave })).body.data.secret as string;
    const code = run('oathtool', ['--totp', '-b', secret]).trim();
    assert.equal((await api(app.url, 'POST', '/api/auth/2fa/verify', { token: dave, body: { code, secret } })).status, 200);
    assert.equal((await daveLogin()).status, 402, 'with 2FA on, the password alone is not enough');
    const users = (await api(app.url, 'GET', '/api/admin/user/list', { token })).body.data.content as { id: number; username: string }[];
    const id = users.find((u) => u.username === 'dave')!.id;
    const otp = async () => (await api(app.url, 'GET', '/api/admin/user/get?id=' + id, { token })).body.data.otp as boolean;

    await page.goto('/admin/users'); // afresh: dave was made over the API
    const row = page.locator('tr[data-user="dave"]');
    await row.getByText('2FA', { exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Cancel 2FA of admin' }).count(), 0, 'offered only where 2FA is on');

    const confirm = page.getByRole('dialog', { name: 'Turn off 2FA for “dave”?' });
    await row.getByRole('button', { name: 'Cancel 2FA of dave' }).click();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    assert.equal(await otp(), true, 'dismissing the question changes nothing');

    await row.getByRole('button', { name: 'Cancel 2FA of dave' }).click();
    await confirm.getByRole('button', { name: 'Turn off' }).click();
    await row.getByRole('button', { name: 'Cancel 2FA of dave' }).waitFor({ state: 'detached' });
    assert.equal(await row.getByText('2FA', { exact: true }).count(), 0, 'the 2FA badge is gone');
    assert.equal(await otp(), false);
    assert.equal((await daveLogin()).status, 200, 'the password alone signs in again');
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

  test('edit a storage: the form starts from its values, the driver is fixed, a bad value saves nothing, options are kept', async () => {
    const page = app.page;
    type Row = { id: number; mount_path: string; driver: string; order: number; remark: string; seed_policy: string; addition: string };
    const stored = async () => ((await api(app.url, 'GET', '/api/admin/storage/list', { token })).body.data.content as Row[]).find((x) => x.mount_path === '/extra')!;
    const before = await stored();
    const row = page.locator('tr[data-storage="/extra"]');
    await row.getByRole('button', { name: 'Edit /extra' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit storage /extra' });
    assert.equal(await dialog.getByLabel('Mount path').inputValue(), '/extra');
    assert.equal(await dialog.getByLabel('Seed sidecars on upload').inputValue(), 'on');
    assert.equal(await dialog.getByLabel(/^root_folder_path/).inputValue(), extra);
    assert.equal(await dialog.getByLabel('Driver').isDisabled(), true, 'the driver of a storage cannot change');

    await dialog.getByLabel('Remark', { exact: true }).fill('scratch space');
    await dialog.getByLabel('Order', { exact: true }).fill('first');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.getByText('A whole number.').waitFor();
    assert.deepEqual(await stored(), before, 'nothing is saved while a field is wrong');

    await dialog.getByLabel('Order', { exact: true }).fill('5');
    await dialog.getByLabel('Seed sidecars on upload').selectOption('off');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await row.getByText('scratch space').waitFor();
    const after = await stored();
    assert.equal(after.id, before.id, 'the same storage, updated in place');
    assert.equal(after.driver, 'local');
    assert.equal(after.remark, 'scratch space');
    assert.equal(after.order, 5);
    assert.equal(after.seed_policy, 'off');
    assert.equal(JSON.parse(after.addition).root_folder_path, extra, 'the driver options are sent back unchanged');
    await row.getByText('Working').waitFor();
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
        await assertFits(page, `${path} (${name})`);
      }
      await page.close();
    }
  });
});
