/**
 * Ferry's Admin → Metas page in Chromium: add folder rules (password, hidden names, readme), see their effect
 * through the API, edit them, remove them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { api } from '../support/process.js';
import { assertFits, login, openApp, screenshot, type App } from './browser.js';

describe('web UI: metas', () => {
  let app: App;
  let token: string;

  before(async () => {
    app = await openApp();
    token = await app.adminToken();
    await login(app.page, 'admin', app.adminPassword);
    for (const p of ['/vault', '/vault/.secret']) assert.equal((await api(app.url, 'POST', '/api/fs/mkdir', { token, body: { path: p } })).status, 200);
  });
  after(async () => {
    await app?.close();
  });

  test('add, edit and remove the rules of a folder', async () => {
    const page = app.page;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Metas' }).click();
    await page.getByText('No folder rules').waitFor();
    await page.getByRole('button', { name: 'Add rules' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Folder', { exact: true }).fill('/vault');
    await dialog.getByLabel('Password', { exact: true }).fill('vault-pw');
    await dialog.getByLabel('Hidden names').fill('^\\.');
    await dialog.getByLabel('Readme (Markdown)').fill('# The vault');
    await screenshot(page, 'admin-meta-dialog-desktop');
    await dialog.getByRole('button', { name: 'Add' }).click();
    const row = page.locator('tr[data-meta="/vault"]');
    await row.getByText('Password').waitFor();
    await row.getByText('Hides names').waitFor();
    await assertFits(page, 'metas page');

    const metas = (await api(app.url, 'GET', '/api/admin/meta/list', { token })).body.data;
    assert.equal(metas.total, 1);
    assert.equal(metas.content[0].password, 'vault-pw');
    assert.equal(metas.content[0].hide, '^\\.');
    // the rules hold: a user without bits needs the password and does not see the dotted folder
    assert.equal((await api(app.url, 'POST', '/api/admin/user/create', { token, body: { username: 'viewer', password: 'viewer-pw-1', permission: 0 } })).status, 200);
    const viewer = (await api(app.url, 'POST', '/api/auth/login', { body: { username: 'viewer', password: 'viewer-pw-1' } })).body.data.token as string;
    assert.equal((await api(app.url, 'POST', '/api/fs/list', { token: viewer, body: { path: '/vault' } })).status, 403);
    const listed = await api(app.url, 'POST', '/api/fs/list', { token: viewer, body: { path: '/vault', password: 'vault-pw' } });
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.data.content, []);
    assert.equal(listed.body.data.readme, '# The vault');

    await page.getByRole('button', { name: 'Edit /vault' }).click();
    await dialog.getByLabel('Password', { exact: true }).fill('');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await row.getByText('Readme').waitFor();
    assert.equal((await api(app.url, 'POST', '/api/fs/list', { token: viewer, body: { path: '/vault' } })).status, 200);

    await page.getByRole('button', { name: 'Remove /vault' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await page.getByText('No folder rules').waitFor();
    assert.equal((await api(app.url, 'GET', '/api/admin/meta/list', { token })).body.data.total, 0);
  });
});
