/**
 * Seeds in Chromium against the built server: the unified preview of an upload's three
 * sidecars (hashes as coreutils computes them, per-piece lists, conversion feasibility), the
 * wizard from a multi-selection (known hashes pre-ticked, unsafe names refused before submit,
 * a share link recorded), convert, edit, preview one file, remove one file, rapid upload with
 * per-file results, and .cas direct access. (A storage that cannot stream: seeds-s3.test.ts.)
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../support/eventually.js';
import { api } from '../support/process.js';
import { assertFits, DESKTOP, login, openApp, PHONE, type App } from './browser.js';
import { ALL_SIX, apiOk, coreutils, download, listNames, MiB, putFile, requireSeedEndpoints, setSettings, shot, shownHash } from './seeds-support.js';

const TRACKERS = ['http://tracker.example.org:6969/announce', 'udp://tracker.example.net:1337'];
const previewUrl = (p: string) => `/preview?path=${encodeURIComponent(p)}`;

describe('web UI: seed wizard and unified preview', () => {
  let app: App;
  let token: string;
  const clip = randomBytes(21 * MiB + 17);
  const sums = coreutils(clip);
  const firstPiece = coreutils(clip.subarray(0, 10 * MiB));
  const parse = (path: string) => apiOk(app, token, '/api/fs/seed/parse', { path });
  const list = (path: string) => listNames(app, token, path);

  before(async () => {
    app = await openApp();
    token = await app.adminToken();
    await requireSeedEndpoints(app, token, ['capabilities', 'generate', 'parse', 'convert', 'update', 'rapid_upload', 'offline_download', 'quick_save']);
    await setSettings(app, token, { seed_default_trackers: TRACKERS.join('\n') });
    await putFile(app, token, '/media/clip.bin', clip, { formats: ['oss', 'torrent', 'cas'], matrix: ALL_SIX });
    await putFile(app, token, '/media/notes.txt', Buffer.from('hello notes\nsecond line\n'));
    // a plain upload records SHA-256 alone (the default hash_on_write); a whole read teaches MD5 and SHA-1
    await download(app, token, '/media/notes.txt');
    await eventually(
      () => apiOk<{ hash_info: Record<string, string> | null }>(app, token, '/api/fs/get', { path: '/media/notes.txt' }),
      (g) => Boolean(g.hash_info?.md5 && g.hash_info.sha1),
    );
    await login(app.page, 'admin', app.adminPassword);
  });
  after(async () => {
    await app?.close();
  });

  test('each sidecar of an upload previews the hashes md5sum/sha1sum/sha256sum compute, with per-piece lists', async () => {
    const page = app.page;
    for (const fmt of ['oss', 'torrent', 'cas'] as const) {
      await page.goto(previewUrl(`/media/clip.bin.${fmt}`));
      await page.getByRole('heading', { name: 'Summary' }).waitFor();
      assert.equal(await shownHash(page, 'md5'), sums.md5, `${fmt}: md5`);
      if (fmt === 'cas') {
        assert.equal(await page.locator('code.hash[data-hash=sha1]').count(), 0, '.cas carries no sha1');
      } else {
        assert.equal(await shownHash(page, 'sha1'), sums.sha1, `${fmt}: sha1`);
        assert.equal(await shownHash(page, 'sha256'), sums.sha256, `${fmt}: sha256`);
      }
      await page.getByRole('button', { name: 'md5: 3 pieces' }).click();
      const pieces = page.getByRole('list', { name: 'md5 pieces' }).locator('li');
      assert.equal(await pieces.count(), 3);
      assert.match((await pieces.first().textContent()) ?? '', new RegExp(firstPiece.md5));
      const conv = page.locator('.conversions li[data-format=torrent]');
      if (fmt === 'cas') {
        await conv.getByText('cannot convert').waitFor();
        assert.match((await conv.getByRole('list', { name: 'Missing for .torrent' }).textContent()) ?? '', /clip\.bin: no SHA-1 piece hashes/);
      } else {
        assert.equal(await conv.getByText('cannot convert').count(), 0);
      }
      await shot(page, `seed-preview-${fmt}-desktop`);
    }
  });

  test('the wizard from a multi-selection: known hashes pre-ticked, unsafe names refused, a share link and a signed direct link recorded', async () => {
    const page = app.page;
    await page.goto('/files/media');
    await page.getByLabel('Select clip.bin', { exact: true }).check();
    await page.getByLabel('Select notes.txt', { exact: true }).check();
    await page.getByRole('toolbar', { name: 'Selection' }).getByRole('link', { name: 'Make seed' }).click();
    await page.waitForURL((u) => u.pathname === '/seeds/new');
    const form = page.getByRole('form', { name: 'Seed wizard' });
    await form.waitFor();
    for (const h of ['md5', 'sha1', 'sha256']) assert.equal(await form.getByLabel(`${h} whole file`).isChecked(), true, `${h} is known, so pre-ticked`);
    assert.equal(await form.locator('tr[data-file="/media/clip.bin"]').getByText('no download').count(), 1);
    assert.equal(await form.getByLabel('Seed name').getAttribute('placeholder'), 'media', 'derived from the common folder');

    // Unsafe names are refused in the form; nothing is sent.
    for (const bad of ['a/b', '..', 'c\\d', '   ']) {
      await form.getByLabel('Seed name').fill(bad);
      await form.locator('.field-error').first().waitFor();
      await form.getByRole('button', { name: 'Create seed' }).click();
      await page.getByText('Fix the fields marked above first.').waitFor();
    }
    assert.deepEqual(await list('/media'), ['clip.bin', 'clip.bin.cas', 'clip.bin.oss', 'clip.bin.torrent', 'notes.txt']);

    await form.getByLabel('Seed name').fill('bundle');
    await form.getByLabel('md5 per piece').check();
    assert.equal(await form.locator('tr[data-file="/media/clip.bin"]').getByText('needs download').count(), 1, 'pieces need the bytes');
    await form.getByLabel('Share link for clip.bin').check();
    // sign_all is on by default: a direct link is still offered, recorded with a signature of that one file
    await form.getByLabel('Direct link for notes.txt').check();
    await form.getByLabel('Comment for notes.txt').fill('readme');
    await form.getByLabel('Comment', { exact: true }).fill('line one\nline two');
    await form.getByLabel(TRACKERS[1]!).uncheck();
    await form.getByLabel('Output folder').fill('/media');
    await shot(page, 'seed-wizard-desktop');
    await form.getByRole('button', { name: 'Create seed' }).click();
    await page.getByRole('heading', { name: 'Seed created' }).waitFor({ timeout: 30_000 });
    await page.getByRole('link', { name: '/media/bundle.oss' }).waitFor();
    await shot(page, 'seed-wizard-done-desktop');

    const seed = await parse('/media/bundle.oss');
    assert.equal(seed.comment, 'line one\nline two');
    assert.deepEqual(seed.trackers, [TRACKERS[0]]);
    const byPath = new Map(seed.files.map((f: { path: string }) => [f.path, f]));
    const c = byPath.get('clip.bin') as { sources: { type: string; url: string; usable: boolean }[]; pieces: { md5?: string[] } };
    assert.equal(c.sources.length, 1);
    assert.equal(c.sources[0]!.type, 'openlist-share');
    assert.equal(c.sources[0]!.usable, true);
    assert.equal(c.pieces.md5?.[0], firstPiece.md5);
    const n = byPath.get('notes.txt') as { comment: string; sources: { type: string; url: string; usable: boolean }[] };
    assert.equal(n.comment, 'readme');
    assert.equal(n.sources.length, 1);
    assert.equal(n.sources[0]!.type, 'openlist-direct');
    assert.match(n.sources[0]!.url, /\/d\/media\/notes\.txt\?sign=[^&]+%3A0$/, 'a signature that never expires');
    assert.equal(n.sources[0]!.usable, true);
    assert.equal(await (await fetch(n.sources[0]!.url)).text(), 'hello notes\nsecond line\n');
    assert.equal((await fetch(n.sources[0]!.url.replace('notes.txt', 'clip.bin'))).status, 401, 'the signature opens that file only');
    const shared = await fetch(c.sources[0]!.url);
    assert.equal(shared.status, 200);
    assert.equal(createHash('sha256').update(Buffer.from(await shared.arrayBuffer())).digest('hex'), sums.sha256, 'the share link serves the file');

    await page.getByRole('link', { name: '/media/bundle.oss' }).click();
    await page.waitForURL((u) => u.pathname === '/preview');
    await page.getByRole('button', { name: /clip\.bin/ }).first().click();
    await page.locator('.source-list').getByText('usable', { exact: true }).waitFor();
    assert.equal(await page.locator('.seed-comment').textContent(), 'line one\nline two');
  });

  test('offline download and transfer queue a task per file, reported per file; the files land verified', async () => {
    const page = app.page;
    await setSettings(app, token, { seed_trusted_source_hosts: new URL(app.url).host });
    for (const d of ['/dl', '/dl2', '/relay']) await apiOk(app, token, '/api/fs/mkdir', { path: d });
    await page.goto(previewUrl('/media/bundle.oss'));
    await page.getByLabel('Destination folder').fill('/dl');
    await page.getByLabel('All files').uncheck();
    await page.locator('.file-picks').getByLabel('clip.bin').check();
    await page.getByRole('button', { name: 'Offline download' }).click();
    const off = page.getByRole('region', { name: 'Offline download results' });
    await off.locator('tr[data-result="clip.bin"][data-ok=true]').getByText(/queued as a task → \/dl\/clip\.bin/).waitFor();
    assert.equal(await off.locator('tr').count(), 2, 'one header row and one file row');

    await page.getByLabel('Destination folder').fill('/dl2');
    await page.getByLabel('Relay folder (transfer)').fill('/relay');
    await page.getByRole('button', { name: 'Transfer', exact: true }).click();
    const tr = page.getByRole('region', { name: 'Transfer results' });
    await tr.locator('tr[data-result="clip.bin"][data-ok=true]').getByText('transfer').waitFor();
    await tr.getByRole('link', { name: 'Follow in Tasks' }).click();
    await page.waitForURL((u) => u.pathname === '/tasks');
    const finished = page.getByRole('list', { name: 'Finished tasks' });
    await finished.locator('li[data-state="2"]').nth(1).waitFor({ timeout: 60_000 });
    for (const p of ['/dl/clip.bin', '/dl2/clip.bin']) {
      const got = await api(app.url, 'POST', '/api/fs/get', { token, body: { path: p } });
      assert.equal(got.body.data?.size, clip.length, `${p} landed`);
      assert.equal(createHash('sha256').update(await download(app, token, p)).digest('hex'), sums.sha256, `${p} content`);
    }
    assert.deepEqual(await list('/relay'), [], 'the relay copy is removed');
  });

  test('convert, edit, preview one file, remove one file — each with its per-file result', async () => {
    const page = app.page;
    await page.goto(previewUrl('/media/bundle.oss'));
    await page.getByRole('heading', { name: 'Conversions' }).waitFor();
    const torrent = page.locator('.conversions li[data-format=torrent]');
    assert.match((await torrent.getByRole('list', { name: 'Missing for .torrent' }).textContent()) ?? '', /clip\.bin: .*piece/);

    await page.getByRole('button', { name: 'Convert to .cas' }).click();
    const conv = page.getByRole('region', { name: 'Convert to .cas results' });
    await conv.locator('tr[data-ok=true]').waitFor();
    assert.match((await conv.textContent()) ?? '', /\/media\/bundle\.cas/);
    const cas = await parse('/media/bundle.cas');
    assert.equal(cas.format, 'cas');
    assert.deepEqual(cas.files.map((f: { path: string }) => f.path).sort(), ['clip.bin', 'notes.txt']);
    assert.equal(cas.files.find((f: { path: string }) => f.path === 'clip.bin').hashes.md5, sums.md5);

    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit seed' });
    await dialog.getByLabel('Comment', { exact: true }).fill('edited comment');
    await dialog.getByLabel('Trackers').fill(`${TRACKERS[0]}\nhttps://t.example.com/announce`);
    await dialog.getByLabel('Comment for notes.txt').fill('edited readme');
    await dialog.getByRole('button', { name: 'Save seed' }).click();
    const edit = page.getByRole('region', { name: 'Edit results' });
    await edit.waitFor();
    assert.equal(await edit.locator('tr[data-ok=true]').count(), 2);
    let seed = await parse('/media/bundle.oss');
    assert.equal(seed.comment, 'edited comment');
    assert.deepEqual(seed.trackers, [TRACKERS[0], 'https://t.example.com/announce']);
    assert.equal(seed.files.find((f: { path: string }) => f.path === 'notes.txt').comment, 'edited readme');
    assert.equal(await page.locator('.seed-comment').textContent(), 'edited comment');

    await page.getByRole('button', { name: 'Preview notes.txt' }).click();
    const filePreview = page.getByRole('dialog', { name: 'notes.txt' });
    await filePreview.getByText('hello notes').waitFor();
    await shot(page, 'seed-preview-file-desktop');
    await filePreview.getByRole('button', { name: 'Close' }).last().click();

    await page.getByRole('button', { name: 'Remove notes.txt from the seed' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    const removed = page.getByRole('region', { name: 'Remove file results' });
    await removed.locator('tr[data-result="notes.txt"][data-ok=true]').waitFor();
    assert.match((await removed.textContent()) ?? '', /1 file left/);
    seed = await parse('/media/bundle.oss');
    assert.deepEqual(seed.files.map((f: { path: string }) => f.path), ['clip.bin']);
    assert.equal(await page.getByRole('button', { name: 'Remove clip.bin from the seed' }).isDisabled(), true, 'the last file cannot be removed');
  });

  test('recalculate from the stored files with another hash selection, reported per file', async () => {
    const page = app.page;
    await page.goto(previewUrl('/media/bundle.oss'));
    await page.getByRole('heading', { name: 'Recalculate' }).waitFor();
    assert.equal(await page.getByLabel('Folder holding the files').inputValue(), '/media', 'the sidecar folder holds the files');
    await page.getByLabel('sha1 per piece').check();
    await page.getByRole('button', { name: 'Recalculate', exact: true }).click();
    const res = page.getByRole('region', { name: 'Recalculated from /media results' });
    await res.locator('tr[data-result="clip.bin"][data-ok=true]').waitFor({ timeout: 30_000 });
    const seed = await parse('/media/bundle.oss');
    const f = seed.files[0];
    assert.equal(f.pieces.sha1.length, 3);
    assert.equal(f.pieces.sha1[0], firstPiece.sha1);
    assert.equal(f.hashes.sha256, sums.sha256);
    await page.locator('.conversions li[data-format=torrent]').getByText('can convert').waitFor();
  });

  test('rapid upload from a .cas: the file lands, verified, with its per-file result', async () => {
    const page = app.page;
    await apiOk(app, token, '/api/fs/mkdir', { path: '/copies' });
    await page.goto(previewUrl('/media/clip.bin.cas'));
    await page.getByLabel('Destination folder').fill('/copies');
    await page.getByRole('button', { name: 'Rapid upload' }).click();
    const res = page.getByRole('region', { name: 'Rapid upload results' });
    await res.locator('tr[data-result="clip.bin"][data-ok=true]').waitFor();
    assert.match((await res.textContent()) ?? '', /saved as \/copies\/clip\.bin/);
    assert.equal(createHash('sha256').update(await download(app, token, '/copies/clip.bin')).digest('hex'), sums.sha256);

    // A second time without "replace": the per-file result says why nothing happened.
    await page.getByRole('button', { name: 'Rapid upload' }).click();
    await page.locator('.op-results').first().locator('tr[data-ok=false]').getByText(/file exists/).waitFor();
  });

  test('seed_cas_direct_access: opening a single-file .cas rapid-uploads it into its folder and previews it', async () => {
    const page = app.page;
    await setSettings(app, token, { seed_cas_direct_access: 'true' });
    await apiOk(app, token, '/api/fs/mkdir', { path: '/cas-only' });
    await apiOk(app, token, '/api/fs/copy', { src_dir: '/media', dst_dir: '/cas-only', names: ['clip.bin.cas'] });
    assert.deepEqual(await list('/cas-only'), ['clip.bin.cas']);
    await page.goto(previewUrl('/cas-only/clip.bin.cas'));
    await page.locator('.file-preview[data-path="/cas-only/clip.bin"]').waitFor();
    assert.equal(await page.getByRole('region', { name: 'Rapid upload (.cas direct access) results' }).locator('tr[data-ok=true]').count(), 1);
    const got = await api(app.url, 'POST', '/api/fs/get', { token, body: { path: '/cas-only/clip.bin' } });
    assert.equal(got.body.data.size, clip.length);
    assert.equal(got.body.data.hash_info.md5, sums.md5);
    await page.keyboard.press('Escape');
    await setSettings(app, token, { seed_cas_direct_access: 'false' });
  });

  test('screenshots of the wizard and the preview at both viewports', async () => {
    for (const [name, viewport] of [['desktop', DESKTOP], ['phone', PHONE]] as const) {
      const page = await app.newPage(viewport);
      await login(page, 'admin', app.adminPassword);
      await page.goto(`/seeds/new?path=${encodeURIComponent('/media/clip.bin')}`);
      await page.getByRole('form', { name: 'Seed wizard' }).waitFor();
      await shot(page, `seed-wizard-${name}`);
      await assertFits(page, `the wizard (${name})`);
      await page.goto(previewUrl('/media/bundle.cas'));
      await page.getByRole('heading', { name: 'Conversions' }).waitFor();
      await page.getByRole('button', { name: /clip\.bin/ }).first().click();
      await shot(page, `seed-preview-${name}`);
      await assertFits(page, `the preview (${name})`);
      // Keyboard: the first file row's toggle is reachable and operable without a mouse.
      const toggle = page.getByRole('button', { name: /notes\.txt/ }).first();
      await toggle.focus();
      await page.keyboard.press('Enter');
      assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
      await assertFits(page, `the preview with two files open (${name})`);
      await page.close();
    }
  });
});
