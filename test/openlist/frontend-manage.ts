/**
 * The official OpenList web frontend against a fresh built Ferry (harness: ./frontend-harness.ts), manage journeys
 * driven through the frontend's own widgets (buttons, forms, dialogs, switches, checkboxes, selects), each checked
 * on screen and through Ferry's API: storages (a missing folder refused, a local storage added, edited,
 * disabled/enabled, reload all, deleted), users (added and edited with the permission checkboxes, 2FA cancelled,
 * deleted), metas (added, its password prompt, hidden name, header and readme seen by a user in a second browser
 * context, edited, deleted; OpenList 4.2's "Read Users" refused), settings (a value on each group page saved and
 * shown after a reload, "Load default settings", the other page's tool Save and token reset), tasks (each type's
 * page; offline downloads from the file toolbar's dialog, one failing and one running, from a loopback source;
 * Retry, Cancel, Clear Succeeded, Clear; a copy task) and the profile (the admin's password changed, then a login
 * with it). Run by test/openlist/official-frontend.test.ts; by hand:
 *
 *   npm run build && node scripts/setup-peers.mjs && npx tsx test/openlist/frontend-manage.ts
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as OTPAuth from 'otpauth';
import type { Locator } from 'playwright-core';
import { api, ROOT } from '../support/process.js';
import { openFrontend } from './frontend-harness.js';

const { page, base, ferry, token, dataDir, ADMIN, journey, settle, expect, finish } = await openFrontend('manage');
const ferryApi = (method: string, path: string, body?: unknown, as = token) => api(ferry.url, method, path, { token: as, body });
const check = (ok: unknown, what: string) => {
  if (!ok) throw new Error(what);
};
/** Opens a manage page and waits for its requests. */
const open = async (p: string) => {
  await page.goto(`${base}/@manage/${p}`);
  await settle(page);
};
type Body = { code: number; message: string; data: any };
/**
 * Clicks `button` and returns the body of the API answer whose path contains `path` (read as it passes through, so
 * a page that navigates away right after cannot lose it).
 */
async function clickFor(button: Locator, path: string): Promise<Body> {
  let seen!: (b: Body) => void;
  const got = new Promise<Body>((r) => (seen = r));
  const matcher = (u: URL) => u.pathname.includes(path);
  let timer: NodeJS.Timeout | undefined;
  await page.route(matcher, async (route) => {
    const response = await route.fetch();
    const text = await response.text();
    await route.fulfill({ response, body: text });
    seen(JSON.parse(text) as Body);
  });
  try {
    await button.click();
    return await Promise.race([got, new Promise<never>((_, rej) => (timer = setTimeout(() => rej(new Error(`no answer from ${path} in 10 s`)), 10_000)))]);
  } finally {
    clearTimeout(timer);
    await page.unroute(matcher);
  }
}
const button = (name: string | RegExp, scope: Locator = page.locator('body')) => scope.getByRole('button', { name: typeof name === 'string' ? new RegExp(`^${name}$`) : name });
/** The row (table row or grid card) that shows `text`. */
const rowOf = (text: string) => page.locator('tr, .hope-stack').filter({ hasText: text }).filter({ has: page.getByRole('button', { name: /^Delete$/ }) }).last();
/** Confirms a DeletePopover opened from `row`. */
async function confirmDelete(row: Locator, path: string) {
  await button('Delete', row).click();
  const r = await clickFor(page.locator('.hope-popover__content').getByRole('button', { name: /^Confirm$/ }), path);
  check(r.code === 200, `${path}: ${r.code} ${r.message}`);
}

/**
 * Picks `/<name>` in the frontend's folder chooser for the input `input`: opened by clicking the input when it is
 * read-only (users' base path), else by its "Choose" button (metas' path, which can also be typed).
 */
async function chooseFolder(input: string, name: string) {
  const field = page.locator(input);
  if (await field.getAttribute('readonly') !== null) await field.click();
  else await button('Choose', field.locator('xpath=..')).click();
  const dialog = page.getByRole('dialog').last();
  await dialog.waitFor({ timeout: 10_000 });
  // the tree's root: its arrow (an svg before the name) opens it, the name picks it
  await dialog.getByText('root', { exact: true }).locator('xpath=preceding-sibling::*[1]').click();
  await dialog.getByText(name, { exact: true }).first().click();
  await button(/^(Ok|Confirm)$/i, dialog).click();
  for (let i = 0; i < 40 && (await field.inputValue()) !== `/${name}`; i++) await page.waitForTimeout(250);
  check((await field.inputValue()) === `/${name}`, `the folder chooser set ${input} to ${await field.inputValue()}`);
}

page.setDefaultTimeout(20_000);
try {
  await journey('login', async () => {
    await page.goto(`${base}/@login`);
    await page.getByPlaceholder(/username/i).fill('admin');
    await page.getByPlaceholder(/password/i).fill(ADMIN);
    await page.getByRole('button', { name: /login/i }).click();
    await page.waitForURL((u) => !u.pathname.startsWith('/@login'), { timeout: 15_000 });
  });

  const extra = mkdtempSync(join(tmpdir(), 'ferry-olfe-extra-'));
  writeFileSync(join(extra, 'extra.txt'), 'from the extra storage\n');
  await journey('storages: add a local storage through the form (a missing folder refused first), edit it, disable and enable it, reload all, delete it', async () => {
    await open('storages');
    await button('Add').click();
    await page.locator('#driver-trigger').click();
    await page.getByRole('option', { name: /local/i }).first().click();
    await page.locator('#mount_path').fill('/extra');
    await page.locator('#remark').fill('added through the OpenList UI');
    // a folder that does not exist first: refused with its message, nothing stored
    await page.locator('#root_folder_path').fill(join(extra, 'missing'));
    expect(/storage\/create 400 addition\.root_folder_path: /);
    const refused = await clickFor(button('Add'), '/api/admin/storage/create');
    check(refused.code === 400 && refused.message.startsWith('addition.root_folder_path: '), `storage/create with a missing folder: ${refused.code} ${refused.message}`);
    await page.locator('.hope-notification__list').getByText(/root_folder_path/i).first().waitFor();
    expect(null);
    check(!((await ferryApi('GET', '/api/admin/storage/list')).body.data.content as { mount_path: string }[]).some((x) => x.mount_path === '/extra'), 'a refused storage was stored');
    await page.locator('#root_folder_path').fill(extra);
    const created = await clickFor(button('Add'), '/api/admin/storage/create');
    check(created.code === 200, `storage/create: ${created.code} ${created.message}`);
    await page.waitForURL((u) => u.pathname === '/@manage/storages', { timeout: 10_000 });
    await page.getByText('added through the OpenList UI').first().waitFor({ timeout: 10_000 });
    const listed = (await ferryApi('GET', '/api/admin/storage/list')).body.data.content as { id: number; mount_path: string; remark: string; order: number; disabled: boolean; driver: string; addition: string }[];
    const s = listed.find((x) => x.mount_path === '/extra');
    check(s && s.driver === 'local' && JSON.parse(s.addition).root_folder_path === extra, `storage not created as asked: ${JSON.stringify(listed)}`);

    await button('Edit', rowOf('/extra')).click();
    await page.waitForURL((u) => u.pathname.startsWith('/@manage/storages/edit/'), { timeout: 10_000 });
    await settle(page);
    await page.locator('#order').fill('7');
    await page.locator('#remark').fill('edited remark');
    const updated = await clickFor(button('Save'), '/api/admin/storage/update');
    check(updated.code === 200, `storage/update: ${updated.code} ${updated.message}`);
    await page.getByText('edited remark').first().waitFor({ timeout: 10_000 });
    const after = (await ferryApi('GET', `/api/admin/storage/get?id=${s!.id}`)).body.data;
    check(after.order === 7 && after.remark === 'edited remark' && JSON.parse(after.addition).root_folder_path === extra, `storage not updated: ${JSON.stringify(after)}`);

    const off = await clickFor(button('Disable', rowOf('/extra')), '/api/admin/storage/disable');
    check(off.code === 200, `storage/disable: ${off.code} ${off.message}`);
    await button('Enable', rowOf('/extra')).waitFor({ timeout: 10_000 });
    check((await ferryApi('GET', `/api/admin/storage/get?id=${s!.id}`)).body.data.disabled === true, 'storage not disabled');
    const on = await clickFor(button('Enable', rowOf('/extra')), '/api/admin/storage/enable');
    check(on.code === 200, `storage/enable: ${on.code} ${on.message}`);
    await button('Disable', rowOf('/extra')).waitFor({ timeout: 10_000 });
    check((await ferryApi('GET', `/api/admin/storage/get?id=${s!.id}`)).body.data.disabled === false, 'storage not enabled');
    const listing = await ferryApi('POST', '/api/fs/list', { path: '/extra' });
    check(listing.body.data?.content?.some((e: { name: string }) => e.name === 'extra.txt'), `the storage lists no extra.txt: ${JSON.stringify(listing.body)}`);

    const reloaded = await clickFor(button(/^Reload all$/i), '/api/admin/storage/load_all');
    check(reloaded.code === 200, `storage/load_all: ${reloaded.code} ${reloaded.message}`);

    await confirmDelete(rowOf('/extra'), '/api/admin/storage/delete');
    await page.getByText('edited remark').waitFor({ state: 'detached', timeout: 10_000 });
    const gone = (await ferryApi('GET', '/api/admin/storage/list')).body.data.content as { mount_path: string }[];
    check(!gone.some((x) => x.mount_path === '/extra'), 'storage still listed after delete');
    rmSync(extra, { recursive: true, force: true });
  });

  /** The frontend's permission checkbox labelled `label` (one FormControl per bit). */
  const permission = (label: string) => page.locator('label.hope-form-label').getByText(label, { exact: true }).locator('xpath=ancestor-or-self::label[1]/following-sibling::label[1]');
  const userNamed = async (name: string) => ((await ferryApi('GET', '/api/admin/user/list')).body.data.content as { id: number; username: string; base_path: string; permission: number; otp?: boolean }[]).find((u) => u.username === name);
  const USER = 'olfe-user';
  const USER_PASS = 'olfe-user-pass-1';
  await journey('users: add a user through the form (permission checkboxes), edit it, cancel its 2FA, delete it', async () => {
    await open('users');
    await button('Add').click();
    await page.locator('#username').fill(USER);
    await page.locator('#password').fill(USER_PASS);
    await chooseFolder('#base_path', 'docs');
    // bits 3 write, 4 rename, 10 "FTP read" (Ferry: SFTP login + read)
    for (const label of ['Write content (Create / Upload / Modify)', 'Rename', 'FTP read']) await permission(label).click();
    const created = await clickFor(button('Add'), '/api/admin/user/create');
    check(created.code === 200, `user/create: ${created.code} ${created.message}`);
    await rowOf(USER).waitFor({ timeout: 10_000 });
    const made = await userNamed(USER);
    check(made && made.base_path === '/docs' && made.permission === ((1 << 3) | (1 << 4) | (1 << 10)), `user not created as asked: ${JSON.stringify(made)}`);
    const login = await ferryApi('POST', '/api/auth/login', { username: USER, password: USER_PASS }, '');
    check(login.body.code === 200, `the new user cannot log in: ${login.body.message}`);

    await button('Edit', rowOf(USER)).click();
    await page.waitForURL((u) => u.pathname.startsWith('/@manage/users/edit/'), { timeout: 10_000 });
    await settle(page);
    check((await page.locator('#username').inputValue()) === USER, 'the edit form does not show the username');
    for (const label of ['Rename', 'FTP manage']) await permission(label).click();
    const updated = await clickFor(button('Save'), '/api/admin/user/update');
    check(updated.code === 200, `user/update: ${updated.code} ${updated.message}`);
    await rowOf(USER).waitFor({ timeout: 10_000 });
    const edited = await userNamed(USER);
    check(edited && edited.permission === ((1 << 3) | (1 << 10) | (1 << 11)), `user not updated: ${JSON.stringify(edited)}`);

    // 2FA given through Ferry's API, then cancelled with the users page's button
    const userToken = login.body.data.token as string;
    const g = await ferryApi('POST', '/api/auth/2fa/generate', undefined, userToken);
    const secret = g.body.data.secret as string;
    const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) }).generate();
    const v = await ferryApi('POST', '/api/auth/2fa/verify', { code, secret }, userToken);
    check(v.body.code === 200, `2fa/verify: ${v.body.message}`);
    const asked = await ferryApi('POST', '/api/auth/login', { username: USER, password: USER_PASS }, '');
    check(asked.body.code === 402, `2FA not on: login answered ${asked.body.code}`);
    await open('users');
    const cancelled = await clickFor(button(/^Cancel 2FA$/i, rowOf(USER)), '/api/admin/user/cancel_2fa');
    check(cancelled.code === 200, `user/cancel_2fa: ${cancelled.code} ${cancelled.message}`);
    const plain = await ferryApi('POST', '/api/auth/login', { username: USER, password: USER_PASS }, '');
    check(plain.body.code === 200, `2FA still asked after cancel: ${plain.body.code} ${plain.body.message}`);

    await confirmDelete(rowOf(USER), '/api/admin/user/delete');
    await page.getByRole('cell', { name: USER, exact: true }).waitFor({ state: 'detached', timeout: 10_000 });
    check(!(await userNamed(USER)), 'user still listed after delete');
  });

  /** Sets a textarea the way a person does (its value is read on change, i.e. when it loses focus). */
  const typeText = async (sel: string, text: string) => {
    await page.locator(sel).fill(text);
    await page.locator(sel).blur();
  };
  const metaAt = async (path: string) => ((await ferryApi('GET', '/api/admin/meta/list')).body.data.content as { id: number; path: string; password: string; hide: string; readme: string; header: string; p_sub: boolean; h_sub: boolean }[]).find((m) => m.path === path);
  await journey('metas: add a meta (path, password, hide, readme, header) through the form, see its effect as a user, edit it, delete it', async () => {
    await open('metas');
    await button('Add').click();
    await chooseFolder('#path', 'docs');
    await page.locator('#password').fill('folder-pass');
    await typeText('#hide', '^a-1\\.txt$');
    await typeText('#readme', 'Readme of the docs folder');
    await typeText('#header', 'Header of the docs folder');
    const created = await clickFor(button('Add'), '/api/admin/meta/create');
    check(created.code === 200, `meta/create: ${created.code} ${created.message}`);
    await rowOf('/docs').waitFor({ timeout: 10_000 });
    await rowOf('/docs').getByText('folder-pass').waitFor({ timeout: 10_000 });
    const meta = await metaAt('/docs');
    check(meta && meta.password === 'folder-pass' && meta.hide === '^a-1\\.txt$' && meta.readme === 'Readme of the docs folder' && meta.header === 'Header of the docs folder', `meta not created as asked: ${JSON.stringify(meta)}`);

    // its effect, for a user without bits 0 (see hidden) and 1 (no password needed): through the API, then on screen
    const made = await ferryApi('POST', '/api/admin/user/create', { username: 'olfe-reader', password: 'olfe-reader-pass', base_path: '/', permission: 0 });
    check(made.body.code === 200, `user/create: ${made.body.message}`);
    const reader = (await ferryApi('POST', '/api/auth/login', { username: 'olfe-reader', password: 'olfe-reader-pass' }, '')).body.data.token as string;
    const asked = await ferryApi('POST', '/api/fs/list', { path: '/docs' }, reader);
    check(asked.body.code === 403, `no password asked: ${asked.body.code} ${asked.body.message}`);
    const listed = await ferryApi('POST', '/api/fs/list', { path: '/docs', password: 'folder-pass' }, reader);
    const names = (listed.body.data?.content ?? []).map((e: { name: string }) => e.name) as string[];
    check(listed.body.code === 200 && names.includes('a-2.txt') && !names.includes('a-1.txt') && listed.body.data.readme === 'Readme of the docs folder', `listing with the password: ${JSON.stringify(listed.body).slice(0, 400)}`);
    const other = await page.context().browser()!.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const p2 = await other.newPage();
      p2.setDefaultTimeout(20_000);
      await p2.goto(`${base}/@login`);
      await p2.getByPlaceholder(/username/i).fill('olfe-reader');
      await p2.getByPlaceholder(/password/i).fill('olfe-reader-pass');
      await p2.getByRole('button', { name: /login/i }).click();
      await p2.waitForURL((u) => !u.pathname.startsWith('/@login'), { timeout: 15_000 });
      await p2.goto(`${base}/docs`);
      await p2.getByText('Please input password').waitFor();
      await p2.locator('input[type=password]').fill('folder-pass');
      await p2.getByRole('button', { name: /^OK$/ }).click();
      await p2.getByText('a-2.txt').first().waitFor();
      await p2.getByText('Readme of the docs folder').first().waitFor();
      await p2.getByText('Header of the docs folder').first().waitFor();
      check((await p2.getByText('a-1.txt').count()) === 0, 'the hidden a-1.txt is listed for the user');
    } finally {
      for (const p2 of other.pages()) await p2.screenshot({ path: join(ROOT, 'test-results/openlist-fe/manage-metas-as-a-user.png') });
      await other.close();
    }

    await button('Edit', rowOf('/docs')).click();
    await page.waitForURL((u) => u.pathname.startsWith('/@manage/metas/edit/'), { timeout: 10_000 });
    await settle(page);
    check((await page.locator('#password').inputValue()) === 'folder-pass', 'the edit form does not show the password');
    await page.locator('#password').fill('');
    await typeText('#hide', '^a-2\\.txt$');
    const updated = await clickFor(button('Save'), '/api/admin/meta/update');
    check(updated.code === 200, `meta/update: ${updated.code} ${updated.message}`);
    await rowOf('/docs').waitFor({ timeout: 10_000 });
    const edited = await metaAt('/docs');
    check(edited && edited.password === '' && edited.hide === '^a-2\\.txt$', `meta not updated: ${JSON.stringify(edited)}`);
    const open2 = await ferryApi('POST', '/api/fs/list', { path: '/docs' }, reader);
    const names2 = (open2.body.data?.content ?? []).map((e: { name: string }) => e.name) as string[];
    check(open2.body.code === 200 && names2.includes('a-1.txt') && !names2.includes('a-2.txt'), `listing after the edit: ${JSON.stringify(open2.body).slice(0, 400)}`);

    await confirmDelete(rowOf('/docs'), '/api/admin/meta/delete');
    await page.getByRole('cell', { name: '/docs', exact: true }).waitFor({ state: 'detached', timeout: 10_000 });
    check(!(await metaAt('/docs')), 'meta still listed after delete');
    const all = await ferryApi('POST', '/api/fs/list', { path: '/docs' }, reader);
    check((all.body.data?.content ?? []).length === 4, `listing after the delete: ${JSON.stringify(all.body).slice(0, 400)}`);
  });
  await journey('metas: a per-user read list (OpenList 4.2\'s "Read Users", which Ferry does not have) is refused with its message; nothing stored', async () => {
    await open('metas');
    await button('Add').click();
    await chooseFolder('#path', 'docs');
    await page.locator('.hope-form-control').filter({ has: page.locator('label', { hasText: /^Read Users$/ }) }).locator('.hope-select__trigger').click();
    await page.getByRole('option', { name: 'olfe-reader' }).click();
    await page.keyboard.press('Escape');
    expect(/meta\/create 400 read_users: /);
    const refused = await clickFor(button('Add'), '/api/admin/meta/create');
    check(refused.code === 400 && refused.message.startsWith('read_users: '), `meta/create: ${refused.code} ${refused.message}`);
    // the frontend's toast (it capitalises the first letter)
    await page.locator('.hope-notification__list').getByText(/^read_users: Ferry has no per-user folder lists/i).first().waitFor();
    expect(null);
    check(!(await metaAt('/docs')), 'a meta was stored');
    const reader = ((await ferryApi('GET', '/api/admin/user/list')).body.data.content as { id: number; username: string }[]).find((u) => u.username === 'olfe-reader');
    await ferryApi('POST', `/api/admin/user/delete?id=${reader?.id ?? 0}`);
  });

  const settingValue = async (key: string) => (await ferryApi('GET', `/api/admin/setting/get?key=${key}`)).body.data?.value as string;
  /** Clicks the page's Save and checks the answer. */
  const saveSettings = async () => {
    const saved = await clickFor(button('Save'), '/api/admin/setting/save');
    check(saved.code === 200, `setting/save: ${saved.code} ${saved.message}`);
  };
  /** A switch's state (its hidden checkbox input carries the setting's key as id). */
  const switchOn = (key: string) => page.locator(`input#${key}`).isChecked();
  const flip = (key: string) => page.locator(`label:has(> input#${key})`).click();
  await journey('settings: site (a text and a select) saved, shown after a reload', async () => {
    await open('settings/site');
    await page.locator('#site_title').fill('Ferry through OpenList');
    await page.locator('#pagination_type-trigger').click();
    await page.getByRole('option', { name: /^Pagination$/ }).click();
    await saveSettings();
    check((await settingValue('site_title')) === 'Ferry through OpenList' && (await settingValue('pagination_type')) === 'pagination', 'site settings not saved');
    check((await settingValue('api_errors_http_200')) === 'true', 'saving the page changed another setting');
    await page.reload();
    await settle(page);
    check((await page.locator('#site_title').inputValue()) === 'Ferry through OpenList', 'site title not shown after a reload');
    await page.locator('#pagination_type-trigger').getByText('Pagination', { exact: true }).waitFor();
  });
  await journey('settings: style (a text) saved, shown after a reload; "Load default settings" fills the form and saves nothing', async () => {
    await open('settings/style');
    await page.locator('#main_color').fill('#22aa66');
    await saveSettings();
    check((await settingValue('main_color')) === '#22aa66', 'main_color not saved');
    await page.reload();
    await settle(page);
    check((await page.locator('#main_color').inputValue()) === '#22aa66', 'main_color not shown after a reload');
    const defaults = await clickFor(button('Load default settings'), '/api/admin/setting/default');
    check(defaults.code === 200, `setting/default: ${defaults.code} ${defaults.message}`);
    for (let i = 0; i < 20 && (await page.locator('#main_color').inputValue()) !== '#1890ff'; i++) await page.waitForTimeout(250);
    check((await page.locator('#main_color').inputValue()) === '#1890ff', 'the default main color is not in the form');
    check((await settingValue('main_color')) === '#22aa66', 'loading the defaults saved them');
  });
  await journey('settings: preview (a switch) saved, shown after a reload', async () => {
    await open('settings/preview');
    check(await switchOn('video_autoplay'), 'video_autoplay is not on by default');
    await flip('video_autoplay');
    await saveSettings();
    check((await settingValue('video_autoplay')) === 'false', 'video_autoplay not saved');
    await page.reload();
    await settle(page);
    check(!(await switchOn('video_autoplay')), 'video_autoplay shown on after a reload');
  });
  await journey('settings: global (a number and a text area) saved, shown after a reload', async () => {
    await open('settings/global');
    await page.locator('#link_expiration').fill('72');
    await typeText('#hide_files', '/^never-such-a-file$/');
    await saveSettings();
    check((await settingValue('link_expiration')) === '72' && (await settingValue('hide_files')) === '/^never-such-a-file$/', 'global settings not saved');
    await page.reload();
    await settle(page);
    check((await page.locator('#link_expiration').inputValue()) === '72' && (await page.locator('#hide_files').inputValue()) === '/^never-such-a-file$/', 'global settings not shown after a reload');
  });
  await journey('settings: FTP (Ferry\'s SFTP switch) saved, shown after a reload', async () => {
    await open('settings/ftp');
    check(!(await switchOn('sftp_disable_password_login')), 'sftp_disable_password_login on by default');
    await flip('sftp_disable_password_login');
    await saveSettings();
    check((await settingValue('sftp_disable_password_login')) === 'true', 'sftp_disable_password_login not saved');
    await page.reload();
    await settle(page);
    check(await switchOn('sftp_disable_password_login'), 'sftp_disable_password_login shown off after a reload');
  });
  for (const group of ['sso', 'ldap', 'traffic']) {
    await journey(`settings: ${group} (no Ferry settings) renders and saves nothing`, async () => {
      await open(`settings/${group}`);
      await button('Save').waitFor();
      check((await page.locator('input:not([type=hidden]), textarea').count()) === 0, `${group}: inputs shown`);
      await saveSettings();
    });
  }
  await journey('settings: S3 page renders', async () => {
    await open('settings/s3');
  });
  await journey('settings: other (a tool\'s seed time through its own Save; the admin token reset)', async () => {
    await open('settings/other');
    const seedtime = page.locator('#qbittorrent_seedtime');
    await seedtime.fill('30');
    // one Save per tool, in the page's order: aria2, qBittorrent, …
    const set = await clickFor(button('Save').nth(1), '/api/admin/setting/set_qbit');
    check(set.code === 200, `set_qbit: ${set.code} ${set.message}`);
    check((await settingValue('qbittorrent_seedtime')) === '30', 'qbittorrent_seedtime not saved');
    const before = await settingValue('token');
    const reset = await clickFor(button('Reset Token'), '/api/admin/setting/reset_token');
    check(reset.code === 200 && reset.data !== before && (await settingValue('token')) === reset.data, `reset_token: ${reset.code} ${reset.message}`);
    await page.reload();
    await settle(page);
    check((await page.locator('#qbittorrent_seedtime').inputValue()) === '30', 'qbittorrent_seedtime not shown after a reload');
    const shown = await page.locator('input').evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value));
    check(shown.includes(reset.data as string), 'the new token is not shown');
  });

  // a source for offline downloads on loopback (trusted through seed_trusted_source_hosts): /flaky fails once, then
  // serves its bytes; /slow trickles (bounded) so its task stays running until cancelled
  let flakyHits = 0;
  const trickles = new Set<NodeJS.Timeout>();
  const source = createServer((req, res) => {
    if (req.url === '/flaky.txt') {
      if (flakyHits++ === 0) return void res.writeHead(500).end('not yet');
      return void res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '6' }).end('flaky\n');
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(1 << 30) });
    let n = 0;
    const t = setInterval(() => {
      if (++n > 600 || res.destroyed) {
        clearInterval(t);
        trickles.delete(t);
        res.destroy();
        return;
      }
      res.write(Buffer.alloc(1024));
    }, 100);
    trickles.add(t);
    res.on('close', () => {
      clearInterval(t);
      trickles.delete(t);
    });
  });
  await new Promise<void>((r) => source.listen(0, '127.0.0.1', r));
  const sourceUrl = `http://127.0.0.1:${(source.address() as { port: number }).port}`;
  type Task = { id: string; name: string; state: number; error: string };
  const tasksOf = async (done: boolean) => (await ferryApi('GET', `/api/task/offline_download/${done ? 'done' : 'undone'}`)).body.data as Task[];
  const taskNamed = async (url: string) => [...(await tasksOf(false)), ...(await tasksOf(true))].find((t) => t.name.includes(url));
  /** Polls (bounded) until `pred` holds for the offline_download task of `url`. */
  const waitTask = async (url: string, pred: (t: Task) => boolean, what: string) => {
    for (let i = 0; i < 80; i++) {
      const t = await taskNamed(url);
      if (t && pred(t)) return t;
      await page.waitForTimeout(250);
    }
    throw new Error(`${url}: ${what}; last ${JSON.stringify(await taskNamed(url))}`);
  };
  /** The row of the task titled `title` on a tasks page, in the "undone" or "done" section. */
  const taskRow = (title: string) => page.locator('.hope-stack').filter({ has: page.getByText(title, { exact: true }) }).filter({ has: page.getByRole('button') }).last();
  try {
    await journey('tasks: every type\'s page renders', async () => {
      for (const type of ['upload', 'copy', 'move', 'offline_download', 'decompress']) {
        await open(`tasks/${type}`);
        await button('Clear').first().waitFor();
      }
    });
    await journey('tasks: a failed and a running offline download added through the file toolbar\'s dialog; retry, cancel, clear succeeded and clear through the page\'s buttons', async () => {
      const trusted = await ferryApi('POST', '/api/admin/setting/save', [{ key: 'seed_trusted_source_hosts', value: sourceUrl }]);
      check(trusted.body.code === 200, `trusted hosts: ${trusted.body.message}`);
      // through the file toolbar's "Offline download" dialog, with its defaults (SimpleHttp, upload_download_stream)
      await page.goto(`${base}/docs`);
      await settle(page);
      await page.locator('.toolbar-toggle').click();
      const icons = page.locator('svg').filter({ visible: true });
      let opened = false;
      for (let i = 0, n = await icons.count(); i < n && !opened; i++) {
        await icons.nth(i).hover();
        if (await page.getByRole('tooltip').filter({ hasText: /^Offline download$/ }).isVisible()) {
          await icons.nth(i).click();
          opened = true;
        }
      }
      check(opened, 'no Offline download tool in the toolbar');
      const dialog = page.getByRole('dialog');
      await dialog.locator('textarea').fill(`${sourceUrl}/flaky.txt\n${sourceUrl}/slow.bin`);
      check((await dialog.locator('#offline-download-path').inputValue()) === '/docs', 'the dialog does not save to the current folder');
      await dialog.getByText('SimpleHttp', { exact: true }).waitFor();
      const added = await clickFor(button('Start Download', dialog), '/api/fs/add_offline_download');
      check(added.code === 200 && added.data.tasks.length === 2, `add_offline_download: ${added.code} ${added.message}`);
      await waitTask('/flaky.txt', (t) => t.state === 7, 'never failed');
      await waitTask('/slow.bin', (t) => t.state === 1, 'never running');
      await open('tasks/offline_download');
      const flaky = taskRow(`${sourceUrl}/flaky.txt`);
      const slow = taskRow(`${sourceUrl}/slow.bin`);
      await flaky.getByText(/^failed$/i).waitFor();
      await slow.getByText(/^running$/i).waitFor();
      // the failure's message, behind the row's Expand
      await button('Expand', flaky).click();
      await page.getByText(/500/).first().waitFor();

      const retried = await clickFor(button('Retry', flaky), '/api/task/offline_download/retry');
      check(retried.code === 200, `retry: ${retried.code} ${retried.message}`);
      await waitTask('/flaky.txt', (t) => t.state === 2, 'not succeeded after the retry');
      check(existsSync(join(dataDir, 'files/docs/flaky.txt')), 'the retried download left no file');
      await button('Refresh').first().click();
      await flaky.getByText(/^succeeded$/i).waitFor();

      const cancelled = await clickFor(button('Cancel', slow), '/api/task/offline_download/cancel');
      check(cancelled.code === 200, `cancel: ${cancelled.code} ${cancelled.message}`);
      await waitTask('/slow.bin', (t) => t.state === 4, 'not canceled');
      await button('Refresh').first().click();
      await slow.getByText(/^canceled$/i).waitFor();

      const clearedOk = await clickFor(button('Clear Succeeded').first(), '/api/task/offline_download/clear_succeeded');
      check(clearedOk.code === 200, `clear_succeeded: ${clearedOk.code} ${clearedOk.message}`);
      await page.getByText(`${sourceUrl}/flaky.txt`, { exact: true }).first().waitFor({ state: 'detached' });
      const left = await tasksOf(true);
      check(left.length === 1 && left[0]!.name.includes('/slow.bin'), `after clear succeeded: ${JSON.stringify(left)}`);
      const cleared = await clickFor(button('Clear').first(), '/api/task/offline_download/clear_done');
      check(cleared.code === 200, `clear_done: ${cleared.code} ${cleared.message}`);
      await page.getByText(`${sourceUrl}/slow.bin`, { exact: true }).first().waitFor({ state: 'detached' });
      check((await tasksOf(true)).length === 0 && (await tasksOf(false)).length === 0, 'tasks left after clear');
    });
    await journey('tasks: a copy across storages listed on the copy page as succeeded, then cleared with Clear Succeeded', async () => {
      const other = mkdtempSync(join(tmpdir(), 'ferry-olfe-copy-'));
      const mounted = await ferryApi('POST', '/api/admin/storage/create', { mount_path: '/other', driver: 'local', addition: JSON.stringify({ root_folder_path: other }) });
      check(mounted.body.code === 200, `storage/create: ${mounted.body.message}`);
      writeFileSync(join(dataDir, 'files/docs/big.bin'), Buffer.alloc(20 << 20, 7)); // above the 16 MiB that makes a copy a task
      const copy = await ferryApi('POST', '/api/fs/copy', { src_dir: '/docs', dst_dir: '/other', names: ['big.bin'] });
      check(copy.body.code === 200 && copy.body.data?.tasks?.length === 1, `fs/copy: ${JSON.stringify(copy.body).slice(0, 300)}`);
      const tid = copy.body.data.tasks[0].id as string;
      for (let i = 0; i < 80 && (await ferryApi('GET', `/api/task/copy/info?tid=${tid}`)).body.data?.state !== 2; i++) await page.waitForTimeout(250);
      check(existsSync(join(other, 'big.bin')), 'the copy task left no file');
      await open('tasks/copy');
      const row = page.locator('.hope-stack').filter({ has: page.getByText(/big\.bin/) }).filter({ has: page.getByRole('button') }).last();
      await row.getByText(/^succeeded$/i).waitFor();
      const cleared = await clickFor(button('Clear Succeeded'), '/api/task/copy/clear_succeeded');
      check(cleared.code === 200, `clear_succeeded: ${cleared.code} ${cleared.message}`);
      await page.getByText(/big\.bin/).first().waitFor({ state: 'detached' });
      check(((await ferryApi('GET', '/api/task/copy/done')).body.data as unknown[]).length === 0, 'copy tasks left after Clear Succeeded');
      await ferryApi('POST', `/api/admin/storage/delete?id=${mounted.body.data.id}`);
      rmSync(other, { recursive: true, force: true });
      rmSync(join(dataDir, 'files/docs/big.bin'), { force: true });
    });
  } finally {
    for (const t of trickles) clearInterval(t);
    source.closeAllConnections();
    source.close();
  }

  // last: the admin's password changes (the API token above may end with it)
  await journey('profile: the admin\'s password changed through the profile page, then a login with the new one', async () => {
    const NEW = 'olfe-admin-pass-2';
    await open('');
    check((await page.locator('#username').inputValue()) === 'admin', 'the profile does not show the username');
    await page.locator('#password').fill(NEW);
    await page.locator('#confirm-password').fill(NEW);
    const saved = await clickFor(button('Save'), '/api/me/update');
    check(saved.code === 200, `me/update: ${saved.code} ${saved.message}`);
    await page.waitForURL((u) => u.pathname.startsWith('/@login'));
    const old = await ferryApi('POST', '/api/auth/login', { username: 'admin', password: ADMIN }, '');
    check(old.body.code !== 200, 'the old password still logs in');
    await page.getByPlaceholder(/username/i).fill('admin');
    await page.getByPlaceholder(/password/i).fill(NEW);
    await page.getByRole('button', { name: /login/i }).click();
    await page.waitForURL((u) => !u.pathname.startsWith('/@login'), { timeout: 15_000 });
    await page.locator('#username').waitFor();
    check((await page.locator('#username').inputValue()) === 'admin', 'not back on the profile as admin');
  });
} finally {
  await finish();
}
