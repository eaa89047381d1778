/**
 * Thumbnails (`/d/<path>?type=thumb`, the `thumb` URLs of `fs/list`): PNG, JPEG and WebP images and an
 * MP4 made by Debian's ffmpeg in the test come back as WebP no larger than 256 px with their aspect kept;
 * a second request is served from the cache (the source is replaced behind Ferry's back with the same size
 * and time, and the thumbnail does not change); a changed file gets a new URL and a new thumbnail; files
 * without one, broken images and pixel bombs are a 404 in the envelope; signatures are checked; without
 * ffmpeg, videos simply have no thumbnail.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import pino from 'pino';
import sharp from 'sharp';
import { Thumbnails } from '../../src/modules/thumbs/thumbs.service.js';
import { requireCommand, run } from '../support/commands.js';
import { forEachDialect, type Harness } from '../support/harness.js';
import { injectPut } from './helpers.js';

let media: string;
const ffmpeg = (...args: string[]) => run('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);

before(() => {
  requireCommand('ffmpeg', 'ffmpeg');
  media = mkdtempSync(join(tmpdir(), 'ferry-thumbs-'));
  ffmpeg('-f', 'lavfi', '-i', 'testsrc=s=640x480', '-frames:v', '1', join(media, 'wide.png'));
  ffmpeg('-f', 'lavfi', '-i', 'testsrc=s=300x600', '-frames:v', '1', join(media, 'tall.jpg'));
  ffmpeg('-f', 'lavfi', '-i', 'testsrc=s=100x80', '-frames:v', '1', '-c:v', 'libwebp', join(media, 'small.webp'));
  ffmpeg('-f', 'lavfi', '-i', 'testsrc=s=320x180:d=3', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', join(media, 'clip.mp4'));
});
after(() => rmSync(media, { recursive: true, force: true }));

forEachDialect('thumbnails', (h) => {
  let admin: string;
  let root: string;

  const put = (path: string, data: Buffer) => injectPut(h(), admin, path, data);
  const listing = async (path: string) => {
    const r = await h().post('/api/fs/list', { path }, { token: admin });
    assert.equal(r.status, 200, r.body.message);
    return new Map((r.body.data.content as { name: string; thumb: string }[]).map((o) => [o.name, o.thumb]));
  };
  const fetchThumb = async (url: string) => {
    const u = new URL(url);
    const r = await h().app.inject({ method: 'GET', url: u.pathname + u.search });
    return r;
  };

  before(async () => {
    admin = await h().adminToken();
    root = join(h().dataDir, 'files'); // the default local storage at /
    await h().post('/api/fs/mkdir', { path: '/pics' }, { token: admin });
    for (const f of ['wide.png', 'tall.jpg', 'small.webp', 'clip.mp4']) await put(`/pics/${f}`, readFileSync(join(media, f)));
    await put('/pics/notes.txt', Buffer.from('text'));
    await put('/pics/broken.png', Buffer.from('this is not a png at all'));
  });

  test('fs/list gives images and videos a signed, versioned thumb URL, other files none', async () => {
    const thumbs = await listing('/pics');
    for (const name of ['wide.png', 'tall.jpg', 'small.webp', 'clip.mp4']) {
      assert.match(thumbs.get(name)!, new RegExp(`/d/pics/${name.replace('.', '\\.')}\\?type=thumb&v=[0-9a-z]+-[0-9a-z]+&sign=`), name);
    }
    assert.equal(thumbs.get('notes.txt'), '');
  });

  test('thumbnails are WebP, at most 256 px, aspect kept; small images are not enlarged', async () => {
    const thumbs = await listing('/pics');
    const expect: Record<string, [number, number]> = { 'wide.png': [256, 192], 'tall.jpg': [128, 256], 'small.webp': [100, 80], 'clip.mp4': [256, 144] };
    for (const [name, [w, hgt]] of Object.entries(expect)) {
      const r = await fetchThumb(thumbs.get(name)!);
      assert.equal(r.statusCode, 200, `${name}: ${r.body}`);
      assert.equal(r.headers['content-type'], 'image/webp');
      assert.match(String(r.headers['cache-control']), /max-age=31536000, immutable/);
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
      const meta = await sharp(r.rawPayload).metadata();
      assert.equal(meta.format, 'webp', name);
      assert.deepEqual([meta.width, meta.height], [w, hgt], name);
    }
  });

  test('a second request comes from the cache: the source replaced behind our back (same size and time) changes nothing', async () => {
    const url = (await listing('/pics')).get('wide.png')!;
    const first = await fetchThumb(url);
    assert.equal(first.statusCode, 200);
    const host = join(root, 'pics', 'wide.png');
    const st = statSync(host);
    writeFileSync(host, Buffer.alloc(st.size, 0));
    // the exact time back (st.mtime is rounded to a millisecond; mtimeMs keeps the sub-millisecond part)
    utimesSync(host, st.atimeMs / 1000, st.mtimeMs / 1000);
    const second = await fetchThumb(url);
    assert.equal(second.statusCode, 200);
    assert.ok(second.rawPayload.equals(first.rawPayload), 'the cached thumbnail, not a new decode of the zeroed file');
    await put('/pics/wide.png', readFileSync(join(media, 'wide.png')));
  });

  test('a changed file gets a new URL and a new thumbnail', async () => {
    const before = (await listing('/pics')).get('small.webp')!;
    await put('/pics/small.webp', readFileSync(join(media, 'tall.jpg')));
    const after = (await listing('/pics')).get('small.webp')!;
    assert.notEqual(after, before);
    const meta = await sharp((await fetchThumb(after)).rawPayload).metadata();
    assert.deepEqual([meta.width, meta.height], [128, 256]);
  });

  test('no thumbnail: text files, broken images and pixel bombs are a 404; a bad signature is refused', async () => {
    const thumbs = await listing('/pics');
    const base = new URL(thumbs.get('wide.png')!);
    const sibling = async (name: string) => {
      const r = await h().post('/api/fs/get', { path: `/pics/${name}` }, { token: admin });
      return `/d/pics/${name}?type=thumb&sign=${encodeURIComponent(r.body.data.sign)}`;
    };
    for (const name of ['notes.txt', 'broken.png']) {
      const r = await h().app.inject({ method: 'GET', url: await sibling(name) });
      assert.equal(r.statusCode, 404, name);
      assert.equal(r.json().message, 'this file has no thumbnail');
    }
    // a PNG header claiming 30000 × 30000 pixels (900 megapixels): refused before decoding
    const bomb = Buffer.from(await sharp({ create: { width: 1, height: 1, channels: 3, background: '#000' } }).png().toBuffer());
    bomb.writeUInt32BE(30000, 16);
    bomb.writeUInt32BE(30000, 20);
    await put('/pics/bomb.png', bomb);
    const r = await h().app.inject({ method: 'GET', url: await sibling('bomb.png') });
    assert.equal(r.statusCode, 404);
    const forged = await h().app.inject({ method: 'GET', url: `${base.pathname}?type=thumb&sign=AAAA:0` });
    assert.equal(forged.statusCode, 401);
    assert.equal((await h().get('/api/me', { token: admin })).status, 200, 'the server still answers');
  });
});

test('without ffmpeg, videos have no thumbnail and a log line says so', () => {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => lines.push(s) });
  const dir = mkdtempSync(join(tmpdir(), 'ferry-thumbs-off-'));
  try {
    const t = new Thumbnails({ cacheDir: dir, logger, ffmpeg: null });
    assert.equal(t.has('clip.mp4'), false);
    assert.equal(t.has('photo.jpg'), true);
    assert.match(lines.join(''), /ffmpeg not found: video thumbnails are off/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
