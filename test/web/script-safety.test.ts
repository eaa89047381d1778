/**
 * Users' files never run script at the web UI's origin (README "Security model"). An uploader puts
 * `<script>`-bearing HTML, SVG, XHTML and JavaScript (and HTML disguised as `.png` / `.txt`) in the
 * tree; a logged-in admin then opens each one every way the links allow — navigation, `inline=1`,
 * an iframe in the UI page, `<img>` for SVG, through `/d/`, `/p/` and a share's `/sd/`. Each payload
 * would use the admin's token (read from localStorage) to create a folder `/pwned-<tag>`; the test
 * proves the detector works (the same payload run in the UI page does create one), then that no
 * opening created any and no payload logged.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { api } from '../support/process.js';
import { login, openApp, type App } from './browser.js';
import { apiOk, putFile } from './seeds-support.js';

const payload = (tag: string) =>
  `console.log('PWNED ${tag}');fetch('/api/fs/mkdir',{method:'POST',headers:{'content-type':'application/json',authorization:localStorage.getItem('ferry.token')},body:JSON.stringify({path:'/pwned-${tag}'})});`;

const FILES: Record<string, string> = {
  'evil.html': `<!doctype html><title>x</title><script>${payload('html')}</script><img src=x onerror="${payload('html-onerror')}">`,
  'evil.svg': `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>${payload('svg')}</script><rect width="10" height="10"/></svg>`,
  'evil.xml': `<html xmlns="http://www.w3.org/1999/xhtml"><body><script>${payload('xhtml')}</script></body></html>`,
  'evil.js': payload('js'),
  'html-as.png': `<!doctype html><script>${payload('png')}</script>`,
  'html-as.txt': `<!doctype html><script>${payload('txt')}</script>`,
};

describe('web: uploaded files never run script at the UI origin', () => {
  let app: App;
  let token: string;
  let page: Page;
  const logged: string[] = [];
  const links: string[] = [];

  before(async () => {
    app = await openApp();
    token = await app.adminToken();
    await apiOk(app, token, '/api/fs/mkdir', { path: '/up' });
    for (const [name, body] of Object.entries(FILES)) await putFile(app, token, `/up/${name}`, Buffer.from(body));
    const share = await apiOk<{ id: string }>(app, token, '/api/share/create', { files: ['/up'] });
    for (const name of Object.keys(FILES)) {
      const { raw_url } = await apiOk<{ raw_url: string }>(app, token, '/api/fs/get', { path: `/up/${name}` });
      const sign = new URL(raw_url).searchParams.get('sign');
      assert.ok(sign, raw_url);
      for (const suffix of ['', '&inline=1']) {
        links.push(`/d/up/${encodeURIComponent(name)}?sign=${encodeURIComponent(sign)}${suffix}`);
        links.push(`/p/up/${encodeURIComponent(name)}?sign=${encodeURIComponent(sign)}${suffix}`);
        links.push(`/sd/${share.id}/${encodeURIComponent(name)}?x=1${suffix}`);
      }
    }
    page = await app.newPage();
    page.on('console', (m) => logged.push(m.text()));
    await login(page, 'admin', app.adminPassword);
  });
  after(async () => {
    // The sandbox reports the scripts it blocked as console errors: expected here, and only here.
    app.errors.splice(0, app.errors.length, ...app.errors.filter((e) => !/sandboxed|Content Security Policy|Failed to load resource/.test(e)));
    await app.close();
  });

  const pwned = async () => {
    const r = await api(app.url, 'POST', '/api/fs/list', { token, body: { path: '/' } });
    assert.equal(r.status, 200);
    return (r.body.data.content as { name: string }[]).map((e) => e.name).filter((n) => n.startsWith('pwned-'));
  };

  test('every file link carries nosniff and a sandboxing policy; active types are attachments even with inline=1', async () => {
    for (const link of links) {
      const r = await fetch(app.url + link);
      assert.equal(r.status, 200, link);
      await r.arrayBuffer();
      assert.equal(r.headers.get('x-content-type-options'), 'nosniff', link);
      assert.match(r.headers.get('content-security-policy') ?? '', /^sandbox; default-src 'none'/, link);
      // every file here holds markup or script, whatever its name: an attachment even when a passive name
      // (.png, .txt) asks for inline=1 — the first bytes decide (src/modules/fs/sniff.ts)
      assert.match(r.headers.get('content-disposition') ?? '', /^attachment;/, link);
    }
    const ui = await fetch(app.url + '/', { headers: { accept: 'text/html' } });
    assert.match(ui.headers.get('content-security-policy') ?? '', /script-src 'self';.*frame-ancestors 'none'/);
  });

  test('the detector works: the payload run in the UI page itself uses the token', async () => {
    await page.evaluate(payload('control'));
    await page.waitForLoadState('networkidle');
    await waitFor(async () => (await pwned()).includes('pwned-control'));
    await apiOk(app, token, '/api/fs/remove', { dir: '/', names: ['pwned-control'] });
    assert.deepEqual(await pwned(), []);
    logged.length = 0;
  });

  test('opening each file every way runs no script', async () => {
    for (const link of links) {
      // 1. navigation of the logged-in tab (an attachment turns into a download)
      await page.goto(link).catch((e: Error) => assert.match(e.message, /Download is starting|net::ERR_ABORTED/, link));
      await page.goto('/');
      await page.locator('main#main').waitFor();
      // 2. an iframe in the UI page, 3. an <img> (SVG as an image)
      await page.evaluate(`(() => {
        const f = document.createElement('iframe'); f.src = ${JSON.stringify(link)}; document.body.append(f);
        const i = document.createElement('img'); i.src = ${JSON.stringify(link)}; document.body.append(i);
      })()`);
      await page.waitForLoadState('networkidle');
    }
    // every payload that ran would have created its folder with the admin's token
    assert.deepEqual(await pwned(), []);
    assert.deepEqual(logged.filter((m) => m.includes('PWNED')), []);
  });
});

async function waitFor(cond: () => Promise<boolean>, tries = 50): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met');
}
