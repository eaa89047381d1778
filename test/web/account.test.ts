/**
 * Login with 2FA (codes from oathtool), inline login errors, the account page: 2FA setup and
 * disable, SSH keys (ssh-keygen) add and delete, password change → sign in again.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { requireCommand, run } from '../support/commands.js';
import { api } from '../support/process.js';
import { assertFits, DESKTOP, login, openApp, PHONE, screenshot, type App } from './browser.js';

/** The TOTP code of the next 30 s step: still accepted (±1 step) and never the one just used. */
const nextCode = (secret: string) => run('oathtool', ['--totp', '-b', secret, '-N', 'now + 30 seconds']).trim();
const code = (secret: string) => run('oathtool', ['--totp', '-b', secret]).trim();

describe('web UI: login and account', () => {
  let app: App;
  let tmp: string;

  before(async () => {
    requireCommand('oathtool', 'oathtool');
    requireCommand('ssh-keygen', 'openssh-client');
    tmp = mkdtempSync(join(tmpdir(), 'ferry-web-keys-'));
    app = await openApp();
    const token = await app.adminToken();
    const created = await api(app.url, 'POST', '/api/admin/user/create', { token, body: { username: 'alice', password: 'alice-pw-1', base_path: '/', permission: 0xffff } });
    assert.equal(created.status, 200, JSON.stringify(created.body));
  });
  after(async () => {
    rmSync(tmp, { recursive: true, force: true });
    await app?.close();
  });

  test('wrong password is shown inline on the login page', async () => {
    const page = app.page;
    await page.goto('/');
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill('wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Invalid username or password' }).waitFor();
    await screenshot(page, 'login-error-desktop');
  });

  test('login with 2FA: the form asks for the code after the password, then signs in; sign out returns to login', async () => {
    const alice = (await api(app.url, 'POST', '/api/auth/login', { body: { username: 'alice', password: 'alice-pw-1' } })).body.data.token as string;
    const gen = await api(app.url, 'POST', '/api/auth/2fa/generate', { token: alice });
    const secret = gen.body.data.secret as string;
    assert.equal((await api(app.url, 'POST', '/api/auth/2fa/verify', { token: alice, body: { code: code(secret), secret } })).status, 200);

    const page = await app.newPage(PHONE);
    await page.goto('/');
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill('alice-pw-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('One-time code').waitFor();
    await screenshot(page, 'login-2fa-phone');
    await assertFits(page, 'login with 2FA at phone size');
    await page.getByLabel('One-time code').fill('000000');
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'not valid' }).waitFor();
    // The code accepted at verify is refused as a replay: the next step's code is the one to use.
    await page.getByLabel('One-time code').fill(nextCode(secret));
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    await page.locator('main#main').waitFor();
    await page.getByRole('heading', { name: 'Files' }).waitFor();
    assert.equal(await page.evaluate('typeof localStorage.getItem("ferry.token")'), 'string');
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.equal(await page.evaluate('localStorage.getItem("ferry.token")'), null);
    await page.close();
  });

  test('account page: set up 2FA with the QR secret, then turn it off', async () => {
    const page = app.page;
    await login(page, 'admin', app.adminPassword);
    await page.goto('/account');
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    const qr = page.getByRole('img', { name: 'QR code of the two-factor secret' });
    await qr.waitFor();
    assert.match(String(await qr.getAttribute('src')), /^data:image\/png;base64,/);
    const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    await page.getByLabel('Code from the app').fill('12');
    await page.getByRole('button', { name: 'Verify and turn on' }).click();
    await page.getByText('Enter the 6-digit code').waitFor();
    await page.getByLabel('Code from the app').fill(code(secret));
    await page.getByRole('button', { name: 'Verify and turn on' }).click();
    await page.getByRole('button', { name: 'Turn off two-factor authentication' }).waitFor();
    const token = await app.adminToken();
    assert.equal((await api(app.url, 'GET', '/api/me', { token })).body.data.otp, true);
    await screenshot(page, 'account-2fa-on-desktop');
    await page.getByLabel('Current code').fill(nextCode(secret));
    await page.getByRole('button', { name: 'Turn off two-factor authentication' }).click();
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).waitFor();
    assert.equal((await api(app.url, 'GET', '/api/me', { token })).body.data.otp, false);
  });

  test('SSH keys: add shows the ssh-keygen fingerprint; a bad key is refused inline; delete removes it', async () => {
    const page = app.page;
    const keyFile = join(tmp, 'id_ed25519');
    run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'laptop@web-test', '-f', keyFile]);
    const pub = readFileSync(`${keyFile}.pub`, 'utf8').trim();
    const fingerprint = run('ssh-keygen', ['-lf', `${keyFile}.pub`]).split(' ')[1]!;

    await page.getByLabel('Public key').fill('ssh-ed25519 AAAAnotakey');
    await page.getByLabel('Title').fill('broken');
    await page.getByRole('button', { name: 'Add key' }).click();
    await page.getByRole('alert').filter({ hasText: 'provided key invalid' }).waitFor();

    await page.getByLabel('Title').fill('');
    await page.getByLabel('Public key').fill(pub);
    await page.getByRole('button', { name: 'Add key' }).click();
    const row = page.locator('tr[data-key="laptop@web-test"]');
    await row.waitFor();
    assert.equal(await row.locator('td.mono').textContent(), fingerprint);
    await screenshot(page, 'account-desktop');

    await row.getByRole('button', { name: 'Delete key laptop@web-test' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No SSH keys yet').waitFor();
    const list = await api(app.url, 'GET', '/api/me/sshkey/list', { token: await app.adminToken() });
    assert.equal(list.body.data.total, 0);
  });

  test('account page at phone size', async () => {
    const page = await app.newPage(PHONE);
    await login(page, 'admin', app.adminPassword);
    await page.goto('/account');
    await page.getByRole('heading', { name: 'SSH keys' }).waitFor();
    await screenshot(page, 'account-phone');
    await assertFits(page, 'account at phone size');
    await page.close();
  });

  test('password change signs out; the new password works', async () => {
    const token = await app.adminToken();
    assert.equal((await api(app.url, 'POST', '/api/admin/user/create', { token, body: { username: 'bob', password: 'bob-pw-1', permission: 0 } })).status, 200);
    const page = await app.newPage(DESKTOP);
    await login(page, 'bob', 'bob-pw-1');
    await page.goto('/account');
    await page.getByLabel('New password', { exact: true }).fill('bob-pw-2');
    await page.getByLabel('Repeat new password').fill('bob-pw-3');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('The two passwords differ.').waitFor();
    await page.getByLabel('Repeat new password').fill('bob-pw-2');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.equal((await api(app.url, 'POST', '/api/auth/login', { body: { username: 'bob', password: 'bob-pw-1' } })).status, 401);
    await login(page, 'bob', 'bob-pw-2');
    await page.close();
  });
});
