/**
 * The account page's WebDAV section in Chromium against the built server: the URL and rclone command are
 * shown, an app password is created (shown once) and works for WebDAV, its last use shows up, and revoking
 * it ends WebDAV access with it. Needs `npm run build`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { login, openApp, screenshot, type App } from '../web/browser.js';

const propfind = (url: string, auth: string) => fetch(`${url}/dav/`, { method: 'PROPFIND', headers: { authorization: auth, depth: '0' } }).then((r) => r.status);
const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

describe('web UI: WebDAV and app passwords on the account page', () => {
  let app: App;
  before(async () => {
    app = await openApp();
  });
  after(async () => {
    await app?.close();
  });

  test('shows the URL, creates an app password that mounts, shows its use, revokes it', async () => {
    const page = app.page;
    await login(page, 'admin', app.adminPassword);
    await page.goto('/account');
    const url = page.getByTestId('webdav-url');
    await url.waitFor();
    assert.equal((await url.textContent())?.trim(), `${app.url}/dav/`);
    await page.getByText('rclone config create ferry webdav').waitFor();

    await page.getByLabel('App password name').fill('laptop rclone');
    await page.getByRole('button', { name: 'Create app password' }).click();
    const shown = page.getByTestId('new-app-password');
    await shown.waitFor();
    const password = /ferry(-[a-z2-9]{4}){5}/.exec((await shown.textContent()) ?? '')?.[0];
    assert.ok(password, 'the new password is shown');
    await screenshot(page, 'account-webdav-app-password');
    assert.equal(await propfind(app.url, basic('admin', password)), 207);

    await page.reload();
    const row = page.locator('tr[data-app-password="laptop rclone"]');
    await row.waitFor();
    assert.doesNotMatch((await row.textContent()) ?? '', /Never/);
    assert.equal(await page.getByTestId('new-app-password').count(), 0, 'shown only once');

    await row.getByRole('button', { name: 'Revoke app password laptop rclone' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await row.waitFor({ state: 'detached' });
    assert.equal(await propfind(app.url, basic('admin', password)), 401);
  });
});
