/**
 * The file viewers (`/view/<path>`), in Chromium against the built server: images at their natural
 * size with next/previous by keyboard, a video that plays and seeks by range request, audio that
 * plays, highlighted code read in parts, Markdown rendered without its injected script, a PDF in
 * the browser's viewer, details for anything else, and a folder's README under its listing.
 * Media files are made by Debian's ffmpeg in the test.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page, Request } from 'playwright-core';
import { requireCommand, run } from '../support/commands.js';
import { DESKTOP, login, openApp, PHONE, screenshot, type App } from './browser.js';
import { apiOk, putFile } from './seeds-support.js';

const CODE = `// greeting\nexport function greet(name: string): string {\n  return \`hello \${name}\`;\n}\n`;
const MARKDOWN = '# Harbour notes\n\nSome *text* and a [link](https://example.org).\n\n<script>window.__pwned = 1</script>\n<img src="x" onerror="window.__pwned = 2">\n';
const EVIL_HTML = '<!doctype html><html><body><script>window.__pwned = 3</script><p>not a picture</p></body></html>\n';
const PDF = [
  '%PDF-1.4',
  '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
  '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj',
  '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >> endobj',
  'trailer << /Root 1 0 R >>',
  '%%EOF',
].join('\n');

describe('web: file viewers', () => {
  let app: App;
  let token: string;
  let page: Page;
  let tmp: string;
  const requests: Request[] = [];

  const ffmpeg = (...args: string[]) => run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);

  before(async () => {
    requireCommand('ffmpeg', 'ffmpeg');
    tmp = mkdtempSync(join(tmpdir(), 'ferry-viewers-'));
    ffmpeg('-f', 'lavfi', '-i', 'color=c=red:s=64x48', '-frames:v', '1', join(tmp, 'a.png'));
    ffmpeg('-f', 'lavfi', '-i', 'color=c=blue:s=30x20', '-frames:v', '1', join(tmp, 'b.png'));
    // 40 s of noise at a high bitrate: several MiB, so seeking needs a range request
    ffmpeg('-f', 'lavfi', '-i', 'nullsrc=s=320x240:d=40,geq=random(1)*255:128:128', '-c:v', 'libvpx', '-b:v', '2M', '-deadline', 'realtime', '-cpu-used', '8', join(tmp, 'clip.webm'));
    ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=440:duration=5', join(tmp, 'tone.wav'));

    app = await openApp();
    token = await app.adminToken();
    for (const dir of ['/pics', '/media', '/docs']) await apiOk(app, token, '/api/fs/mkdir', { path: dir });
    for (const f of ['a.png', 'b.png']) await putFile(app, token, `/pics/${f}`, readFileSync(join(tmp, f)));
    await putFile(app, token, '/media/clip.webm', readFileSync(join(tmp, 'clip.webm')));
    await putFile(app, token, '/media/clip.vtt', Buffer.from('WEBVTT\n\n00:00.000 --> 00:05.000\nHello harbour\n'));
    await putFile(app, token, '/media/tone.wav', readFileSync(join(tmp, 'tone.wav')));
    await putFile(app, token, '/docs/greet.ts', Buffer.from(CODE));
    await putFile(app, token, '/docs/notes.md', Buffer.from(MARKDOWN));
    await putFile(app, token, '/docs/README.md', Buffer.from('# About these docs\n\nRead me first.\n'));
    await putFile(app, token, '/docs/paper.pdf', Buffer.from(PDF));
    await putFile(app, token, '/docs/data.bin', Buffer.alloc(100, 7));
    // names that lie about the bytes: the viewer goes by what fs/get sniffs
    await apiOk(app, token, '/api/fs/mkdir', { path: '/sniff' });
    await putFile(app, token, '/sniff/holiday.txt', readFileSync(join(tmp, 'a.png')));
    await putFile(app, token, '/sniff/evil.png', Buffer.from(EVIL_HTML));
    await putFile(app, token, '/docs/big.log', Buffer.from('line of the log file\n'.repeat(30_000)));
    page = await app.newPage();
    page.on('request', (r) => requests.push(r));
    await login(page, 'admin', app.adminPassword);
  });
  after(async () => {
    await app?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  const open = async (dir: string, name: string) => {
    await page.goto(`/files${dir}`);
    await page.getByRole('button', { name, exact: true }).click();
    await page.waitForURL(`**/view${dir}/${encodeURIComponent(name)}`);
  };

  test('an image shows at its natural size; → and ← step through the folder; Esc and Back return', async () => {
    await open('/pics', 'a.png');
    const img = page.locator('.viewer img');
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.viewer img')?.complete === true);
    assert.deepEqual(await img.evaluate((i: any) => [i.naturalWidth, i.naturalHeight]), [64, 48]);
    await page.getByRole('button', { name: '100%' }).click();
    assert.equal(Math.round((await img.boundingBox())!.width), 64);
    await page.keyboard.press('+');
    assert.equal(Math.round((await img.boundingBox())!.width), 96);
    await page.keyboard.press('ArrowRight');
    await page.waitForURL('**/view/pics/b.png');
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.viewer img')?.naturalWidth === 30);
    await page.getByText('2 / 2').waitFor();
    await page.keyboard.press('ArrowLeft');
    await page.waitForURL('**/view/pics/a.png');
    await screenshot(page, 'viewer-image-desktop');
    await page.setViewportSize(PHONE);
    await screenshot(page, 'viewer-image-phone');
    await page.setViewportSize(DESKTOP);
    await page.keyboard.press('Escape');
    await page.waitForURL('**/files/pics');
    await page.goBack();
    await page.waitForURL('**/view/pics/a.png');
    await page.locator('.viewer img').waitFor();
  });

  test('a video plays, shows its subtitles and seeks to 90 % with a range request', async () => {
    await open('/media', 'clip.webm');
    const video = page.locator('.viewer video');
    await video.waitFor();
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.viewer video')?.readyState >= 1);
    const duration = (await video.evaluate((v: any) => v.duration)) as number;
    assert.ok(duration > 35 && duration < 45, `duration ${duration}`);
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.viewer video track')?.label === 'clip.vtt');
    await video.evaluate((v: any) => {
      v.muted = true;
      return v.play();
    });
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.viewer video').currentTime > 0.2);
    const before = requests.length;
    await video.evaluate((v: any) => {
      v.currentTime = v.duration * 0.9;
    });
    await page.waitForFunction(() => {
      const v = (globalThis as any).document.querySelector('.viewer video');
      return !v.seeking && v.currentTime >= v.duration * 0.9;
    });
    const ranged = requests.slice(before).filter((r) => r.url().includes('/d/media/clip.webm'));
    const starts = await Promise.all(ranged.map(async (r) => /bytes=(\d+)-/.exec((await r.allHeaders()).range ?? '')?.[1]));
    assert.ok(starts.some((s) => s !== undefined && Number(s) > 0), `a request after the seek starts past byte 0: ${JSON.stringify(starts)}`);
    await screenshot(page, 'viewer-video');
  });

  test('audio plays', async () => {
    await open('/media', 'tone.wav');
    const audio = page.locator('.viewer audio');
    await audio.waitFor();
    await audio.evaluate((a: any) => {
      a.muted = true;
      return a.play();
    });
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.viewer audio').currentTime > 0.2);
  });

  test('code is highlighted; a long text is read in parts with Load more', async () => {
    await open('/docs', 'greet.ts');
    await page.locator('.viewer code.hljs .hljs-keyword', { hasText: 'function' }).first().waitFor();
    assert.equal((await page.locator('.viewer pre').innerText()).trimEnd(), CODE.trimEnd());
    await open('/docs', 'big.log');
    await page.getByText('Showing 256 KiB of 615 KiB.').waitFor();
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.getByText('Showing 512 KiB of 615 KiB.').waitFor();
    await page.getByRole('button', { name: 'Load more' }).click();
    await page.getByRole('button', { name: 'Load more' }).waitFor({ state: 'detached' });
    assert.equal((await page.locator('.viewer pre').innerText()).split('\n').filter(Boolean).length, 30_000);
  });

  test('Markdown renders its heading and loses its injected script and handlers', async () => {
    await open('/docs', 'notes.md');
    await page.locator('.viewer article h1', { hasText: 'Harbour notes' }).waitFor();
    assert.equal(await page.locator('.viewer article script').count(), 0);
    assert.equal(await page.locator('.viewer article [onerror]').count(), 0);
    assert.equal(await page.evaluate('window.__pwned ?? null'), null);
  });

  test('where the name lies, the bytes choose the viewer: a PNG named .txt is an image, HTML named .png is source text', async () => {
    await open('/sniff', 'holiday.txt');
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.viewer img')?.complete === true);
    assert.deepEqual(await page.locator('.viewer img').evaluate((i: any) => [i.naturalWidth, i.naturalHeight]), [64, 48]);
    await open('/sniff', 'evil.png');
    await page.locator('.viewer pre', { hasText: '<script>window.__pwned = 3</script>' }).waitFor();
    assert.equal(await page.locator('.viewer img').count(), 0);
    assert.equal(await page.evaluate('window.__pwned ?? null'), null);
  });

  test('a PDF embeds in the browser viewer; other files offer details and download', async () => {
    const pdfResponse = page.waitForResponse((r) => r.url().includes('/d/docs/paper.pdf') && r.url().includes('inline=1'));
    await open('/docs', 'paper.pdf');
    const r = await pdfResponse;
    assert.equal(r.status(), 200);
    assert.equal(r.headers()['content-type'], 'application/pdf');
    assert.match(r.headers()['content-disposition'] ?? '', /^inline;/);
    await page.locator('.viewer iframe[title="paper.pdf"]').waitFor();
    await open('/docs', 'data.bin');
    await page.getByText('This file cannot be shown here.').waitFor();
    assert.match((await page.getByRole('link', { name: 'Download' }).getAttribute('href')) ?? '', /^\/d\/docs\/data\.bin\?sign=/);
  });

  test('the grid and list views show thumbnails, open files, and keep only the rows in view for 10,000 images', async () => {
    await page.goto('/files/pics');
    await page.getByRole('group', { name: 'View' }).getByRole('button', { name: 'Grid' }).click();
    const cell = page.locator('.file-cell[data-name="a.png"] img');
    await cell.waitFor();
    assert.match((await cell.getAttribute('src')) ?? '', /\/d\/pics\/a\.png\?type=thumb&v=/);
    await page.waitForFunction(() => (globalThis as any).document.querySelector('.file-cell[data-name="a.png"] img')?.naturalWidth === 64);
    await screenshot(page, 'files-grid');
    await page.locator('.file-cell[data-name="b.png"] .file-cell-open').click();
    await page.waitForURL('**/view/pics/b.png');
    // 10,000 images written straight into the storage's folder
    const many = join(app.dataDir, 'files', 'many');
    mkdirSync(many);
    const png = readFileSync(join(tmp, 'b.png'));
    for (let i = 0; i < 10_000; i++) writeFileSync(join(many, `img-${String(i).padStart(5, '0')}.png`), png);
    await page.goto('/files/many');
    await page.locator('.file-cell[data-name="img-00000.png"]').waitFor();
    const inDom = await page.locator('.file-cell').count();
    assert.ok(inDom > 0 && inDom < 300, `only the rows in view are rendered: ${inDom} cells`);
    await page.locator('.file-grid-scroller').evaluate((el: any) => el.scrollTo(0, el.scrollHeight));
    await page.locator('.file-cell[data-name="img-09999.png"]').waitFor();
    assert.ok((await page.locator('.file-cell').count()) < 300);
    await page.getByRole('group', { name: 'View' }).getByRole('button', { name: 'List' }).click();
    // the list view too keeps only the rows in view; the page scrolls through all 10,000
    await page.locator('tr[data-name="img-00000.png"]').waitFor();
    const rows = page.locator('tbody tr[data-name]');
    assert.ok((await rows.count()) > 0 && (await rows.count()) < 300, `only the rows in view are rendered: ${await rows.count()} rows`);
    await page.evaluate('window.scrollTo(0, document.documentElement.scrollHeight)');
    await page.locator('tr[data-name="img-09999.png"]').waitFor();
    assert.ok((await rows.count()) < 300);
    assert.equal(await page.locator('tr[data-name="img-00000.png"]').count(), 0, 'the first row left the DOM');
  });

  test("a folder's README is shown under its listing", async () => {
    await page.goto('/files/docs');
    await page.getByRole('region', { name: 'README' }).getByRole('heading', { name: 'About these docs' }).waitFor();
    await screenshot(page, 'files-readme');
  });
});
