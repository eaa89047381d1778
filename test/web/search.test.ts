/**
 * Search in Chromium against the built server (issue #20): the files page's search box (this folder or
 * everywhere), results with their folders, open a folder, download a file, go to a result's folder; the admin
 * settings page shows the index state and builds it; with search_index "none" the box is gone.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { api } from '../support/process.js';
import { login, openApp, screenshot, type App } from './browser.js';
import { apiOk, putFile, setSettings } from './seeds-support.js';

describe('web UI: search', () => {
  let app: App;
  let token: string;

  before(async () => {
    app = await openApp();
    token = await app.adminToken();
    await putFile(app, token, '/docs/alpha-wq1.txt', Buffer.from('alpha contents'));
    await apiOk(app, token, '/api/fs/mkdir', { path: '/docs/sub/folder-wq1' });
    await putFile(app, token, '/other/beta-wq1.bin', Buffer.from('beta'));
    await login(app.page, 'admin', app.adminPassword);
  });
  after(async () => {
    await app?.close();
  });

  test('search this folder or everywhere; results show their folders; open a folder; download a file', async () => {
    const page = app.page;
    await page.goto('/files/docs');
    await page.getByLabel('Search by name').fill('WQ1');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const hits = page.locator('[data-testid=search-hit]');
    await page.getByText('2 matches for “WQ1”').waitFor();
    assert.equal(await hits.count(), 2);
    assert.match((await hits.filter({ hasText: 'alpha-wq1.txt' }).textContent()) ?? '', /in \/docs/);
    assert.match((await hits.filter({ hasText: 'folder-wq1' }).textContent()) ?? '', /in \/docs\/sub/);

    await page.getByLabel('Search where').selectOption('all');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('3 matches for “WQ1”').waitFor();
    assert.match((await hits.filter({ hasText: 'beta-wq1.bin' }).textContent()) ?? '', /in \/other/);
    await screenshot(page, 'search-results-desktop');

    const [dl] = await Promise.all([page.waitForEvent('download'), hits.filter({ hasText: 'alpha-wq1.txt' }).getByRole('button', { name: 'Download' }).click()]);
    const saved = join(app.dataDir, 'dl-alpha');
    await dl.saveAs(saved);
    assert.equal((await readFile(saved)).toString(), 'alpha contents');

    await hits.filter({ hasText: 'folder-wq1' }).getByRole('button', { name: /folder-wq1/ }).click();
    await page.waitForURL(/\/files\/docs\/sub\/folder-wq1$/);
    await page.getByText('This folder is empty').waitFor();

    await page.getByLabel('Search by name').fill('beta');
    await page.getByLabel('Search where').selectOption('all');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('link', { name: '/other' }).click();
    await page.waitForURL(/\/files\/other$/);
    await page.locator('tr[data-name="beta-wq1.bin"]').waitFor();
  });

  test('admin settings: index status, build picks up files added behind Ferry', async () => {
    const page = app.page;
    writeFileSync(join(app.dataDir, 'files', 'docs', 'disk-only-wq2.txt'), 'x');
    await page.goto('/admin/settings');
    const status = page.getByTestId('index-status');
    await status.waitFor();
    assert.match((await status.textContent()) ?? '', /idle/);
    await page.getByRole('button', { name: 'Build index' }).click();
    await page.getByText('Index build started').waitFor();
    await page.getByTestId('index-status').filter({ hasText: /idle.*last run ended/ }).waitFor({ timeout: 30_000 });
    const progress = await api(app.url, 'GET', '/api/admin/index/progress', { token });
    assert.match((await status.textContent()) ?? '', new RegExp(`${progress.body.data.obj_count} objects indexed`));
    const r = await api(app.url, 'POST', '/api/fs/search', { token, body: { parent: '/', keywords: 'wq2', page: 1, per_page: 10 } });
    assert.equal(r.body.data.total, 1);
    await screenshot(page, 'search-admin-index');
  });

  test('search_index "none": no search box', async () => {
    await setSettings(app, token, { search_index: 'none' });
    const page = await app.newPage();
    await login(page, 'admin', app.adminPassword);
    await page.goto('/files/docs');
    await page.locator('tr[data-name="alpha-wq1.txt"]').waitFor();
    assert.equal(await page.getByLabel('Search by name').count(), 0);
    await setSettings(app, token, { search_index: 'database' });
  });
});
