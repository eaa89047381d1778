/**
 * Offline downloads in Chromium against the built server and a real local swarm (opentracker + aria2c seeders,
 * test/offline/swarm.ts) with the `aria2c --enable-rpc` Ferry drives: the admin settings' aria2 form shows the
 * error for a wrong port and the version for the right one (then aria2 is offered); the files page's "Offline
 * download" dialog queues a magnet, the tasks panel shows the download and its transfer reach done, and the
 * album lands with the seeder's bytes. Screenshots at desktop and phone sizes.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { api } from '../support/process.js';
import { bytes } from '../seeds-generate/helpers.js';
import { seedOk } from '../seeds-peers/peers.js';
import { freePort, startAria2, startSwarm, type Proc, type Swarm } from '../offline/swarm.js';
import { assertFits, login, openApp, PHONE, RESULTS_DIR, type App } from './browser.js';
import { shot } from './seeds-support.js';

const SECRET = 'web-swarm-secret';

describe('web UI: offline downloads through aria2', () => {
  let app: App;
  let swarm: Swarm;
  let aria2: Proc;
  let rpcUri: string;

  before(async () => {
    swarm = await startSwarm(bytes, seedOk);
    ({ proc: aria2, uri: rpcUri } = await startAria2(swarm, SECRET));
    app = await openApp({ env: { FERRY_TASK_POLL_MS: '100' } });
    await login(app.page, 'admin', app.adminPassword);
    const trust = await api(app.url, 'POST', '/api/admin/setting/save', { token: await app.adminToken(), body: [{ key: 'seed_trusted_source_hosts', value: swarm.trustedHosts }] });
    assert.equal(trust.status, 200, trust.body.message);
  });
  after(async () => {
    await app?.close();
    await aria2?.stop();
    await swarm?.stop();
  });

  test('settings: "Test connection" shows the error for a wrong port (nothing saved), the version for the right one', async () => {
    const page = app.page;
    await page.goto('/admin/settings');
    const form = page.getByRole('form', { name: /^aria2/ });
    await form.waitFor();
    await form.getByLabel('aria2 URI').fill(`http://127.0.0.1:${await freePort()}/jsonrpc`);
    await form.getByLabel('aria2 secret').fill(SECRET);
    await form.getByRole('button', { name: 'Test connection and save' }).click();
    const outcome = form.getByTestId('tool-outcome-aria2');
    await outcome.and(page.getByRole('alert')).waitFor();
    assert.match((await outcome.textContent()) ?? '', /failed to connect to aria2: .*cannot be reached/);
    assert.deepEqual((await api(app.url, 'GET', '/api/public/offline_download_tools')).body.data, ['SimpleHttp'], 'nothing saved');

    await form.getByLabel('aria2 URI').fill(rpcUri);
    await form.getByRole('button', { name: 'Test connection and save' }).click();
    await outcome.and(page.getByRole('status')).waitFor();
    assert.match((await outcome.textContent()) ?? '', /^Connected: aria2 \d+\.\d+\.\d+\. Saved\.$/);
    await form.getByText('configured').waitFor();
    assert.deepEqual((await api(app.url, 'GET', '/api/public/offline_download_tools')).body.data, ['SimpleHttp', 'aria2']);
    await form.scrollIntoViewIfNeeded();
    await shot(page, 'offline-settings-desktop');
  });

  test('files page: a magnet through the dialog lands the album; the download and its transfer reach done in the tasks panel', async () => {
    const page = app.page;
    const token = await app.adminToken();
    assert.equal((await api(app.url, 'POST', '/api/fs/mkdir', { token, body: { path: '/incoming' } })).status, 200);
    await page.goto('/files/incoming');
    await page.getByRole('button', { name: 'Offline download' }).click();
    const dialog = page.getByRole('dialog', { name: 'Offline download' });
    await dialog.getByLabel('Tool').and(page.locator('select')).waitFor();
    assert.equal(await dialog.getByLabel('Tool').inputValue(), 'aria2');
    await dialog.getByLabel('URLs, magnet links or .torrent paths').fill(swarm.magnet(swarm.album.hash, 'album'));
    await dialog.getByLabel('After the transfer').selectOption('delete_on_upload_succeed');
    await shot(page, 'offline-dialog-desktop');
    await dialog.getByRole('button', { name: 'Download' }).click();
    const queued = page.getByRole('dialog', { name: 'Offline download queued' });
    await queued.getByRole('list', { name: 'Queued downloads' }).getByRole('listitem').waitFor();
    await queued.getByRole('link', { name: 'Open tasks' }).click();
    await page.waitForURL((u) => u.pathname === '/tasks' && u.searchParams.get('type') === 'offline_download');
    const name = `download ${swarm.magnet(swarm.album.hash, 'album')} to (/incoming)`;
    const done = page.getByRole('list', { name: 'Finished tasks' }).getByRole('listitem', { name });
    await done.and(page.locator('[data-state="2"]')).waitFor({ timeout: 90_000 });
    await page.getByRole('navigation', { name: 'Task type' }).getByRole('link', { name: 'Download transfers' }).click();
    const transfer = page.getByRole('list', { name: 'Finished tasks' }).getByRole('listitem', { name: 'transfer [](album) to [](/incoming)' });
    await transfer.and(page.locator('[data-state="2"]')).waitFor({ timeout: 60_000 });
    assert.equal((await transfer.locator('.task-pct').textContent())?.trim(), '100%');
    await shot(page, 'offline-tasks-desktop');

    await page.goto('/files/incoming/album');
    for (const n of ['a.bin', 'sub', 'z.txt']) await page.locator(`tr[data-name="${n}"]`).waitFor();
    for (const [p, data] of Object.entries(swarm.album.files)) assert.ok(readFileSync(join(app.dataDir, 'files', 'incoming', 'album', p)).equals(data), `${p} has the seeder's bytes`);
    await shot(page, 'offline-landed-desktop');
  });

  test('files page: a .torrent file from this computer, added in the dialog, lands the album', async () => {
    const page = app.page;
    const token = await app.adminToken();
    assert.equal((await api(app.url, 'POST', '/api/fs/mkdir', { token, body: { path: '/picked' } })).status, 200);
    await page.goto('/files/picked');
    await page.getByRole('button', { name: 'Offline download' }).click();
    const dialog = page.getByRole('dialog', { name: 'Offline download' });
    await dialog.getByLabel('Tool').and(page.locator('select')).waitFor();
    const download = dialog.getByRole('button', { name: 'Download' });
    assert.equal(await download.isDisabled(), true, 'nothing to download yet');
    await dialog.locator('input[type=file]').setInputFiles({ name: 'album.torrent', mimeType: 'application/x-bittorrent', buffer: swarm.album.torrent });
    await dialog.getByRole('list', { name: 'Torrent files' }).getByText('album.torrent').waitFor();
    await download.click();
    const queued = page.getByRole('dialog', { name: 'Offline download queued' });
    await queued.getByRole('list', { name: 'Queued downloads' }).getByText(`download an uploaded .torrent (${swarm.album.hash}) to (/picked)`).waitFor();
    await queued.getByText('Close', { exact: true }).click();
    const files = Object.entries(swarm.album.files);
    const landed = () => files.every(([p]) => existsSync(join(app.dataDir, 'files', 'picked', 'album', p)));
    for (let i = 0; i < 400 && !landed(); i++) await new Promise((r) => setTimeout(r, 250));
    for (const [p, data] of files) assert.ok(readFileSync(join(app.dataDir, 'files', 'picked', 'album', p)).equals(data), `${p} has the seeder's bytes`);
  });

  test('phone: the dialog and the settings forms fit', async () => {
    const page = await app.newPage(PHONE);
    await login(page, 'admin', app.adminPassword);
    await page.goto('/files/incoming');
    await page.getByRole('button', { name: 'Offline download' }).click();
    const dialog = page.getByRole('dialog', { name: 'Offline download' });
    await dialog.getByLabel('Tool').and(page.locator('select')).waitFor();
    await shot(page, 'offline-dialog-phone');
    await assertFits(page, 'offline dialog (phone)');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.goto('/admin/settings');
    const form = page.getByRole('form', { name: /^aria2/ });
    await form.waitFor();
    await form.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(RESULTS_DIR, 'offline-settings-phone.png') });
    await assertFits(page, 'settings (phone)');
    await page.close();
  });
});
