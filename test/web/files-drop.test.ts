/**
 * Drag and drop onto the files page: loose files, and a dropped folder walked recursively
 * (its entries come through `webkitGetAsEntry`). Chromium cannot be handed a real folder by a
 * test, so the drop event carries a DataTransfer-shaped object whose entries behave like the
 * browser's FileSystemEntry objects and hold real File objects; the page's own code walks
 * them and uploads every file with its relative path.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { login, openApp, type App } from './browser.js';
import { download, listNames } from './seeds-support.js';

describe('web UI: drag and drop', () => {
  let app: App;
  let token: string;
  before(async () => {
    app = await openApp();
    token = await app.adminToken();
    await login(app.page, 'admin', app.adminPassword);
  });
  after(async () => {
    await app?.close();
  });

  /** Dispatches dragenter/dragover/drop on the drop zone with a fake folder tree (name → content or subtree). */
  async function drop(tree: Record<string, unknown>, loose: Record<string, string> = {}): Promise<void> {
    // A script as text: functions written here would be rewritten by tsx (its `__name` helper does not exist in the page).
    await app.page.evaluate(`(() => {
      const tree = ${JSON.stringify(tree)};
      const loose = ${JSON.stringify(loose)};
      const zone = document.querySelector('.dropzone');
      const fileEntry = (name, content) => ({
        name, isFile: true, isDirectory: false,
        file: (ok) => ok(new File([content], name, { type: 'application/octet-stream' })),
      });
      const dirEntry = (name, children) => ({
        name, isFile: false, isDirectory: true,
        createReader: () => {
          let done = false;
          // one batch, then the empty batch that ends the listing (as the browser does)
          return { readEntries: (ok) => { const batch = done ? [] : Object.entries(children).map(([n, v]) => typeof v === 'string' ? fileEntry(n, v) : dirEntry(n, v)); done = true; setTimeout(() => ok(batch), 0); } };
        },
      });
      const items = [
        ...Object.entries(tree).map(([n, v]) => ({ kind: 'file', webkitGetAsEntry: () => typeof v === 'string' ? fileEntry(n, v) : dirEntry(n, v), getAsFile: () => null })),
        ...Object.entries(loose).map(([n, v]) => ({ kind: 'file', webkitGetAsEntry: () => null, getAsFile: () => new File([v], n) })),
      ];
      const dataTransfer = { items, files: [], types: ['Files'], dropEffect: 'copy' };
      for (const type of ['dragenter', 'dragover', 'drop']) {
        const ev = new Event(type, { bubbles: true, cancelable: true });
        Object.defineProperty(ev, 'dataTransfer', { value: dataTransfer });
        zone.dispatchEvent(ev);
      }
    })()`);
  }

  test('a dropped folder is uploaded with its sub-folders; loose files beside it', async () => {
    await drop({ album: { 'a.txt': 'alpha', deep: { 'b.txt': 'bravo', 'c.txt': 'charlie' } } }, { 'loose.txt': 'loose file' });
    for (const name of ['album/a.txt', 'album/deep/b.txt', 'album/deep/c.txt', 'loose.txt']) {
      await app.page.locator(`[data-upload="${name}"][data-status=done]`).waitFor({ timeout: 30_000 });
    }
    assert.deepEqual(await listNames(app, token, '/album'), ['a.txt', 'deep']);
    assert.deepEqual(await listNames(app, token, '/album/deep'), ['b.txt', 'c.txt']);
    assert.ok((await listNames(app, token, '/')).includes('loose.txt'));
    assert.equal((await download(app, token, '/album/deep/c.txt')).toString(), 'charlie');
    assert.equal((await download(app, token, '/loose.txt')).toString(), 'loose file');
  });
});
