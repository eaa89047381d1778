/**
 * The tasks panel in Chromium against the built server: an asynchronous seed generation
 * (low `seed_async_threshold`) started from the wizard shows up live and reaches done;
 * a long one is canceled, retried and canceled again from the panel; screenshots.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, ftruncateSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { api } from '../support/process.js';
import { assertFits, DESKTOP, login, openApp, PHONE, type App } from './browser.js';
import { apiOk, MiB, putFile, requireSeedEndpoints, setSettings, shot } from './seeds-support.js';

const GiB = 1024 * MiB;

describe('web UI: tasks panel', () => {
  let app: App;
  let token: string;
  const undone = async () => (await api(app.url, 'GET', '/api/task/seed_generate/undone', { token })).body.data as { id: string; state: number }[];

  before(async () => {
    app = await openApp({ env: { FERRY_TASK_POLL_MS: '100' } });
    token = await app.adminToken();
    await requireSeedEndpoints(app, token, ['capabilities', 'generate']);
    await setSettings(app, token, { seed_async_threshold: '1024' });
    await putFile(app, token, '/jobs/small.bin', randomBytes(2 * MiB + 5));
    // A large sparse file the drive knows no hashes for: hashing it takes a while.
    mkdirSync(join(app.dataDir, 'files', 'big'), { recursive: true });
    const fd = openSync(join(app.dataDir, 'files', 'big', 'sparse.bin'), 'w');
    ftruncateSync(fd, 8 * GiB);
    closeSync(fd);
    await login(app.page, 'admin', app.adminPassword);
  });
  after(async () => {
    await app?.close();
  });

  test('an asynchronous generation from the wizard appears live and reaches done in the panel', async () => {
    const page = app.page;
    await page.goto(`/seeds/new?path=${encodeURIComponent('/jobs/small.bin')}`);
    const form = page.getByRole('form', { name: 'Seed wizard' });
    await form.locator('.info-box').getByText(/background/).waitFor();
    await form.getByLabel('sha256 per piece').check();
    await form.getByRole('button', { name: 'Start background task' }).click();
    await page.getByRole('heading', { name: 'Seed queued as a background task' }).waitFor();
    await page.getByRole('list', { name: 'Background task' }).locator('li[data-state="2"]').waitFor({ timeout: 30_000 });
    await shot(page, 'seed-wizard-async-desktop');

    await page.getByRole('link', { name: 'Open tasks' }).click();
    await page.waitForURL((u) => u.pathname === '/tasks' && u.searchParams.get('type') === 'seed_generate');
    const finished = page.getByRole('list', { name: 'Finished tasks' });
    const item = finished.getByRole('listitem', { name: 'generate seed for /jobs/small.bin' });
    await item.waitFor();
    assert.equal((await item.locator('.task-pct').textContent())?.trim(), '100%');
    assert.equal(await item.locator('progress').getAttribute('value'), '100');
    await item.getByText('Done', { exact: true }).waitFor();
    const files = ((await apiOk(app, token, '/api/fs/list', { path: '/jobs' })).content as { name: string }[]).map((o) => o.name).sort();
    assert.deepEqual(files, ['small.bin', 'small.oss']);
  });

  test('a long generation: live progress, cancel, retry, cancel again, remove', async () => {
    const page = app.page;
    const r = await apiOk(app, token, '/api/fs/seed/generate', { paths: ['/big/sparse.bin'], formats: ['oss'], hash_matrix: { md5: { whole: true, pieces: true }, sha1: { whole: true, pieces: true }, sha256: { whole: true, pieces: true } }, output_path: '/big' });
    assert.equal(r.async, true);
    const tid = r.task.id as string;
    await page.goto('/tasks');
    const active = page.getByRole('list', { name: 'Active tasks' });
    const item = active.locator(`li[data-task="${tid}"]`);
    await item.and(page.locator('[data-state="1"]')).waitFor({ timeout: 20_000 });
    // Live: the shown percentage moves without a reload.
    const pct = async () => Number(((await item.locator('.task-pct').textContent()) ?? '0').replace('%', ''));
    const first = await pct();
    for (let i = 0; (await pct()) <= first; i++) {
      assert.ok(i < 120, 'the shown progress did not move');
      await page.waitForTimeout(250);
    }
    await shot(page, 'tasks-running-desktop');

    await item.getByRole('button', { name: 'Cancel' }).click();
    const finished = page.getByRole('list', { name: 'Finished tasks' });
    const canceled = finished.locator(`li[data-task="${tid}"][data-state="4"]`);
    await canceled.waitFor({ timeout: 20_000 });
    await canceled.getByRole('button', { name: 'Retry' }).click();
    await active.locator(`li[data-task="${tid}"]`).waitFor({ timeout: 20_000 });
    assert.ok((await undone()).some((t) => t.id === tid), 'queued again');
    await active.locator(`li[data-task="${tid}"]`).getByRole('button', { name: 'Cancel' }).click();
    await canceled.waitFor({ timeout: 20_000 });
    await canceled.getByRole('button', { name: 'Remove' }).click();
    await finished.locator(`li[data-task="${tid}"]`).waitFor({ state: 'detached' });
    const files = ((await apiOk(app, token, '/api/fs/list', { path: '/big' })).content as { name: string }[]).map((o) => o.name);
    assert.deepEqual(files, ['sparse.bin'], 'a canceled generation writes nothing');
  });

  test('screenshots of the tasks page at both viewports', async () => {
    for (const [name, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      const page = await app.newPage(viewport);
      await login(page, 'admin', app.adminPassword);
      await page.goto('/tasks');
      await page.getByRole('list', { name: 'Finished tasks' }).waitFor();
      await shot(page, `tasks-${name}`);
      await assertFits(page, `tasks (${name})`);
      await page.close();
    }
  });
});
