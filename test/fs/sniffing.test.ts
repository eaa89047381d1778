/**
 * Content sniffing (fs/get `type` and `content_type`, and `/d/…?inline=1`): the first bytes decide, not the
 * extension. A PNG named `.txt` is reported as an image and may be shown inline as `image/png`; HTML or SVG named
 * `.png` is reported as markup and served as a sandboxed `application/octet-stream` attachment, never inline; plain
 * text stays text; a real PNG stays an inline image.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { sniffBytes } from '../../src/modules/fs/sniff.js';
import { forEachDialect } from '../support/harness.js';
import { injectPut } from './helpers.js';

const HTML = Buffer.from('<!DOCTYPE html><html><body><script>fetch("/api/me",{headers:{authorization:localStorage.token}})</script></body></html>');
const SVG = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

test('sniffBytes: binary formats by signature, markup by its leading tag, plain text as nothing', async () => {
  const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#000' } }).png().toBuffer();
  assert.deepEqual(await sniffBytes(png), { mime: 'image/png', markup: false });
  assert.deepEqual(await sniffBytes(HTML), { mime: 'text/html', markup: true });
  assert.deepEqual(await sniffBytes(Buffer.from('\ufeff  <script>alert(1)</script>')), { mime: 'text/html', markup: true });
  assert.deepEqual(await sniffBytes(SVG), { mime: 'image/svg+xml', markup: true });
  assert.deepEqual(await sniffBytes(Buffer.from('<svg onload="alert(1)"/>')), { mime: 'image/svg+xml', markup: true });
  assert.deepEqual(await sniffBytes(Buffer.from('<?xml version="1.0"?><note/>')), { mime: 'application/xml', markup: true });
  assert.deepEqual(await sniffBytes(Buffer.from('just some notes\n< not a tag')), { mime: null, markup: false });
});

forEachDialect('content sniffing', (h) => {
  let admin: string;
  let png: Buffer;

  const put = (path: string, data: Buffer) => injectPut(h(), admin, path, data);
  const get = async (path: string) => {
    const r = await h().post('/api/fs/get', { path }, { token: admin });
    assert.equal(r.status, 200, r.body.message);
    return r.body.data;
  };
  const download = async (path: string, query = '') => {
    const d = await get(path);
    const u = new URL(d.raw_url);
    return h().app.inject({ method: 'GET', url: `${u.pathname}${u.search}${query}` });
  };

  test('setup', async () => {
    admin = await h().adminToken();
    png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#36c' } }).png().toBuffer();
    await h().post('/api/fs/mkdir', { path: '/sniff' }, { token: admin });
    await put('/sniff/picture.txt', png);
    await put('/sniff/evil.png', HTML);
    await put('/sniff/evil2.jpg', SVG);
    await put('/sniff/real.png', png);
    await put('/sniff/notes.txt', Buffer.from('plain notes'));
    await put('/sniff/logo.svg', SVG);
    await put('/sniff/empty.png', Buffer.alloc(0));
  });

  test('fs/get reports the type the bytes show: a PNG named .txt is an image, HTML named .png is text/html', async () => {
    const cases: Record<string, [number, string]> = {
      'picture.txt': [5, 'image/png'],
      'real.png': [5, 'image/png'],
      'evil.png': [4, 'text/html'],
      'evil2.jpg': [4, 'image/svg+xml'],
      'logo.svg': [5, 'image/svg+xml'],
      'notes.txt': [4, 'text/plain; charset=utf-8'],
      'empty.png': [0, 'application/octet-stream'],
    };
    for (const [name, [type, mime]] of Object.entries(cases)) {
      const d = await get(`/sniff/${name}`);
      assert.deepEqual([d.type, d.content_type], [type, mime], name);
    }
    assert.equal((await get('/sniff')).content_type, '', 'a folder');
    // listings stay cheap: by name only
    const list = await h().post('/api/fs/list', { path: '/sniff' }, { token: admin });
    assert.equal(list.body.data.content.find((o: { name: string }) => o.name === 'evil.png').type, 5);
  });

  test('HTML or SVG named as an image is never served inline nor as an active type, even with inline=1', async () => {
    for (const name of ['evil.png', 'evil2.jpg']) {
      for (const query of ['', '&inline=1']) {
        const r = await download(`/sniff/${name}`, query);
        assert.equal(r.statusCode, 200, name);
        assert.match(String(r.headers['content-disposition']), /^attachment;/, `${name}${query}`);
        assert.doesNotMatch(String(r.headers['content-type']), /html|svg|xml/, `${name}${query}`);
        assert.equal(r.headers['x-content-type-options'], 'nosniff');
        assert.match(String(r.headers['content-security-policy']), /^sandbox;/);
        assert.ok(r.rawPayload.equals(name === 'evil.png' ? HTML : SVG), 'the bytes are served unchanged');
      }
      assert.equal((await download(`/sniff/${name}`, '&inline=1')).headers['content-type'], 'application/octet-stream');
    }
  });

  test('inline=1 shows passive bytes as what they are: a PNG named .txt as image/png, text as text, a PNG as a PNG', async () => {
    const pic = await download('/sniff/picture.txt', '&inline=1');
    assert.equal(pic.headers['content-type'], 'image/png');
    assert.match(String(pic.headers['content-disposition']), /^inline;/);
    const notes = await download('/sniff/notes.txt', '&inline=1');
    assert.equal(notes.headers['content-type'], 'text/plain; charset=utf-8');
    assert.match(String(notes.headers['content-disposition']), /^inline;/);
    const real = await download('/sniff/real.png', '&inline=1');
    assert.equal(real.headers['content-type'], 'image/png');
    assert.match(String(real.headers['content-disposition']), /^inline;/);
    // a range request of an inline file: the sniff does not disturb the range
    const raw = new URL((await get('/sniff/real.png')).raw_url);
    const part = await h().app.inject({ method: 'GET', url: `${raw.pathname}${raw.search}&inline=1`, headers: { range: 'bytes=1-3' } });
    assert.equal(part.statusCode, 206);
    assert.equal(part.body, 'PNG');
    // without inline=1 every file is an attachment by its name's type, as before
    assert.match(String((await download('/sniff/picture.txt')).headers['content-disposition']), /^attachment;/);
  });
});
