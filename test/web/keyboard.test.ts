/**
 * Keyboard only (Tab, Shift+Tab, Enter, Space for checkboxes, Escape) in Chromium: the files list
 * (sort, open a folder, select) and the main dialogs — prompt (new folder, rename), confirm
 * (delete), move, share, and an admin's user dialog. Dialogs open with the focus inside, keep it
 * there, close on Escape without doing anything and give the focus back to the button that
 * opened them. Nothing here clicks.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { api } from '../support/process.js';
import { focusedName, isFocused, login, openApp, tabTo, type App } from './browser.js';
import { listNames, putFile } from './seeds-support.js';

/** Tabs `presses` times through an open dialog: the focus never lands on the page behind it. */
async function assertFocusStaysIn(page: Page, dialog: Locator, presses: number): Promise<void> {
  for (let i = 0; i < presses; i++) {
    await page.keyboard.press('Tab');
    // Past the dialog's last control the focus may visit the browser itself (document.body), never the page.
    const where = (await page.evaluate(
      '(() => { const e = document.activeElement; if (!e || e === document.body) return "body"; return e.closest("dialog[open]") ? "dialog" : "page"; })()',
    )) as string;
    assert.notEqual(where, 'page', `Tab ${i + 1} left the dialog for ${await focusedName(page)}`);
  }
  assert.equal(await dialog.isVisible(), true);
}

describe('web UI: keyboard only', () => {
  let app: App;
  let token: string;
  const list = (path: string) => listNames(app, token, path);

  before(async () => {
    app = await openApp();
    token = await app.adminToken();
    await putFile(app, token, '/work/alpha.txt', Buffer.from('alpha, the longest file here\n'));
    await putFile(app, token, '/work/beta.txt', Buffer.from('beta\n'));
    await putFile(app, token, '/work/archive/old.txt', Buffer.from('old\n'));
    await login(app.page, 'admin', app.adminPassword);
  });
  after(async () => {
    await app?.close();
  });

  test('files list: sort with Enter, open a folder with Enter, select with Space', async () => {
    const page = app.page;
    await page.goto('/files/');
    await page.locator('tr[data-name="work"]').waitFor();
    await tabTo(page, page.getByRole('button', { name: 'work', exact: true }));
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.pathname === '/files/work');
    await page.locator('tr[data-name="alpha.txt"]').waitFor();

    const sizeHeader = page.locator('th', { has: page.getByRole('button', { name: /^Size/ }) });
    await tabTo(page, page.getByRole('button', { name: /^Size/ }));
    const order = () => page.locator('tbody tr[data-name]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name')));
    await page.keyboard.press('Enter');
    assert.equal(await sizeHeader.getAttribute('aria-sort'), 'ascending');
    assert.deepEqual(await order(), ['archive', 'beta.txt', 'alpha.txt'], 'folders first, then the smallest file');
    await page.keyboard.press('Enter');
    assert.equal(await sizeHeader.getAttribute('aria-sort'), 'descending');
    assert.deepEqual(await order(), ['archive', 'alpha.txt', 'beta.txt'], 'folders first, then the largest file');

    await tabTo(page, page.getByLabel('Select beta.txt'));
    await page.keyboard.press('Space');
    await page.locator('tr[data-name="beta.txt"][aria-selected=true]').waitFor();
    await page.getByRole('toolbar', { name: 'Selection' }).getByText('1 selected').waitFor();
  });

  test('prompt: rename with Enter; a new folder dismissed with Escape creates nothing and the focus returns', async () => {
    const page = app.page;
    const selection = page.getByRole('toolbar', { name: 'Selection' });
    await tabTo(page, selection.getByRole('button', { name: 'Rename' }), { back: true });
    await page.keyboard.press('Enter');
    const rename = page.getByRole('dialog', { name: 'Rename “beta.txt”' });
    await rename.waitFor();
    assert.equal(await isFocused(rename.getByLabel('New name')), true, 'the dialog opens in its field');
    await page.keyboard.type('gamma'); // the name without its extension is selected: typing replaces it
    await page.keyboard.press('Enter');
    await rename.waitFor({ state: 'detached' });
    await page.locator('tr[data-name="gamma.txt"]').waitFor();
    assert.deepEqual(await list('/work'), ['alpha.txt', 'archive', 'gamma.txt']);

    const newFolder = page.getByRole('button', { name: 'New folder' });
    await tabTo(page, newFolder, { back: true });
    await page.keyboard.press('Enter');
    const prompt = page.getByRole('dialog', { name: 'New folder' });
    assert.equal(await isFocused(prompt.getByLabel('Folder name')), true);
    await page.keyboard.type('never');
    await assertFocusStaysIn(page, prompt, 6);
    await page.keyboard.press('Escape');
    await prompt.waitFor({ state: 'detached' });
    assert.equal(await isFocused(newFolder), true, `the focus is back on “New folder”, not on ${await focusedName(page)}`);
    assert.deepEqual(await list('/work'), ['alpha.txt', 'archive', 'gamma.txt'], 'Escape created nothing');

    await page.keyboard.press('Enter');
    await prompt.getByLabel('Folder name').waitFor();
    await page.keyboard.type('inbox');
    await page.keyboard.press('Enter');
    await page.locator('tr[data-name="inbox"]').waitFor();
    assert.deepEqual(await list('/work'), ['alpha.txt', 'archive', 'gamma.txt', 'inbox']);
  });

  test('move dialog: choose a folder and move with Enter; Escape first changes nothing', async () => {
    const page = app.page;
    const selection = page.getByRole('toolbar', { name: 'Selection' });
    await tabTo(page, page.getByLabel('Select gamma.txt'));
    await page.keyboard.press('Space');
    const move = selection.getByRole('button', { name: 'Move' });
    await tabTo(page, move, { back: true });
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Move “gamma.txt”' });
    await dialog.getByRole('button', { name: /inbox/ }).waitFor();
    await assertFocusStaysIn(page, dialog, 8);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await isFocused(move), true, 'the focus is back on “Move”');

    await page.keyboard.press('Enter');
    await tabTo(page, dialog.getByRole('button', { name: /inbox/ }));
    await page.keyboard.press('Enter');
    await dialog.getByRole('navigation', { name: 'Breadcrumb' }).getByText('inbox').waitFor();
    await tabTo(page, dialog.getByRole('button', { name: 'Move here' }));
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await page.locator('tr[data-name="gamma.txt"]').waitFor({ state: 'detached' });
    assert.deepEqual(await list('/work/inbox'), ['gamma.txt']);
    assert.deepEqual(await list('/work'), ['alpha.txt', 'archive', 'inbox']);
  });

  test('confirm dialog: a delete opens on Cancel, Escape keeps the file, Tab + Enter deletes', async () => {
    const page = app.page;
    const selection = page.getByRole('toolbar', { name: 'Selection' });
    await tabTo(page, page.getByLabel('Select alpha.txt'));
    await page.keyboard.press('Space');
    const del = selection.getByRole('button', { name: 'Delete' });
    await tabTo(page, del, { back: true });
    await page.keyboard.press('Enter');
    const confirm = page.getByRole('dialog', { name: 'Delete “alpha.txt”?' });
    await confirm.waitFor();
    assert.equal(await isFocused(confirm.getByRole('button', { name: 'Cancel' })), true, 'a destructive question opens on Cancel');
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    assert.equal(await isFocused(del), true);
    assert.ok((await list('/work')).includes('alpha.txt'), 'Escape deleted nothing');

    await page.keyboard.press('Enter');
    await tabTo(page, confirm.getByRole('button', { name: 'Delete' }));
    await page.keyboard.press('Enter');
    await page.locator('tr[data-name="alpha.txt"]').waitFor({ state: 'detached' });
    assert.deepEqual(await list('/work'), ['archive', 'inbox']);
  });

  test('share dialog: fill it with Tab and typing, create with Enter, close the result with Escape', async () => {
    const page = app.page;
    await tabTo(page, page.getByLabel('Select archive'));
    await page.keyboard.press('Space');
    const share = page.getByRole('toolbar', { name: 'Selection' }).getByRole('button', { name: 'Share' });
    await tabTo(page, share, { back: true });
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Share “archive”' });
    assert.equal(await isFocused(dialog.getByLabel('Expires')), true, 'the dialog opens in its first field');
    await tabTo(page, dialog.getByLabel('Password'));
    await page.keyboard.type('kb-pass');
    await page.keyboard.press('Enter');
    const created = page.getByRole('dialog', { name: 'Share created' });
    const link = created.getByLabel('Link', { exact: true });
    assert.match(await link.inputValue(), /\/sd\//);
    assert.equal(await isFocused(link), true, 'the result opens on its link, ready to copy');
    await page.keyboard.press('Escape');
    await created.waitFor({ state: 'detached' });
    assert.equal(await isFocused(share), true);
    const shares = (await api(app.url, 'GET', '/api/share/list', { token })).body.data.content as { files: string[]; pwd: string }[];
    assert.deepEqual(
      shares.map((s) => [s.files, s.pwd]),
      [[['/work/archive'], 'kb-pass']],
    );
  });

  test('user dialog (admin): fields by Tab, Enter creates; Escape on an edit saves nothing', async () => {
    const page = app.page;
    await page.goto('/admin/users');
    await page.locator('tr[data-user="admin"]').waitFor();
    await tabTo(page, page.getByRole('button', { name: 'New user' }));
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'New user' });
    assert.equal(await isFocused(dialog.getByLabel('Username')), true);
    await page.keyboard.type('erin');
    await page.keyboard.press('Tab');
    assert.equal(await isFocused(dialog.getByLabel('Password', { exact: true })), true, 'Tab goes on to the password');
    await page.keyboard.type('erin-pw');
    await tabTo(page, dialog.getByLabel('Write (create folders, upload)'));
    await page.keyboard.press('Space');
    await tabTo(page, dialog.getByRole('button', { name: 'Create user' }));
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    await page.locator('tr[data-user="erin"]').waitFor();
    const erin = ((await api(app.url, 'GET', '/api/admin/user/list', { token })).body.data.content as { username: string; permission: number }[]).find((u) => u.username === 'erin');
    assert.equal(erin?.permission, 1 << 3);
    assert.equal((await api(app.url, 'POST', '/api/auth/login', { body: { username: 'erin', password: 'erin-pw' } })).status, 200);

    const edit = page.getByRole('button', { name: 'Edit erin' });
    await tabTo(page, edit);
    await page.keyboard.press('Enter');
    const editDialog = page.getByRole('dialog', { name: 'Edit “erin”' });
    await editDialog.getByLabel('Username').waitFor();
    await page.keyboard.type('-renamed');
    await page.keyboard.press('Escape');
    await editDialog.waitFor({ state: 'detached' });
    assert.equal(await isFocused(edit), true);
    assert.equal(await page.locator('tr[data-user="erin"]').count(), 1, 'Escape saved nothing');
  });
});
