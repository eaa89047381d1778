/**
 * The `thumbnails` task (POST /api/fs/thumbnails): it makes the missing thumbnails of a folder — of the folders below
 * it with `recursive` — into the cache, skipping files that get none, and reaches done with its counts; a second run
 * finds them cached; cancel stops it between files; bad requests (a file, a missing path, a guest) change nothing.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import sharp from 'sharp';
import { forEachDialect } from '../support/harness.js';
import { eventually } from './helpers.js';

const DONE = [2, 4, 7];

/** Every cached thumbnail (`<data>/thumbs/xx/<key>.webp`). */
function cachedThumbs(dataDir: string): string[] {
  const dir = join(dataDir, 'thumbs');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((d) => readdirSync(join(dir, d)).filter((f) => f.endsWith('.webp')).map((f) => join(dir, d, f)));
}

forEachDialect('thumbnails task', (h) => {
  let admin: string;
  let files: string;

  const start = (body: unknown, token = admin) => h().post('/api/fs/thumbnails', body, { token });
  const info = async (tid: string) => {
    const r = await h().get(`/api/task/thumbnails/info?tid=${tid}`, { token: admin });
    assert.equal(r.status, 200, r.body.message);
    return r.body.data;
  };
  const finished = async (tid: string) => {
    await eventually(async () => assert.ok(DONE.includes((await info(tid)).state), 'task still running'), 60_000);
    return info(tid);
  };

  before(async () => {
    admin = await h().adminToken();
    files = join(h().dataDir, 'files'); // the default local storage at /
    const img = (w: number, hgt: number) => sharp({ create: { width: w, height: hgt, channels: 3, background: '#3a7' } });
    mkdirSync(join(files, 'album/sub/deeper'), { recursive: true });
    writeFileSync(join(files, 'album/a.png'), await img(640, 480).png().toBuffer());
    writeFileSync(join(files, 'album/b.jpg'), await img(300, 600).jpeg().toBuffer());
    writeFileSync(join(files, 'album/notes.txt'), 'not media');
    writeFileSync(join(files, 'album/broken.png'), 'not a png');
    writeFileSync(join(files, 'album/sub/c.webp'), await img(200, 100).webp().toBuffer());
    writeFileSync(join(files, 'album/sub/deeper/d.png'), await img(50, 50).png().toBuffer());
    // many large images: a task over them runs long enough to be canceled midway
    mkdirSync(join(files, 'big'));
    const big = await img(4000, 4000).png({ compressionLevel: 1 }).toBuffer();
    for (let i = 0; i < 120; i++) writeFileSync(join(files, `big/p${String(i).padStart(3, '0')}.png`), big);
  });

  test('one folder: its images get cached thumbnails, subfolders and non-media are skipped, progress reaches done', async () => {
    assert.equal(cachedThumbs(h().dataDir).length, 0);
    const r = await start({ path: '/album' });
    assert.equal(r.status, 200, r.body.message);
    assert.equal(r.body.data.type, 'thumbnails');
    const t = await finished(r.body.data.id);
    assert.equal(t.state, 2, t.error);
    assert.equal(t.progress, 100);
    assert.equal(t.total_bytes, 3, 'three candidates: a.png, b.jpg, broken.png (by name)');
    const made = cachedThumbs(h().dataDir);
    assert.equal(made.length, 2, 'a.png and b.jpg; broken.png has none');
    for (const f of made) assert.equal((await sharp(f).metadata()).format, 'webp');
  });

  test('recursive: every folder below too; thumbnails already cached are not made again', async () => {
    const earlier = cachedThumbs(h().dataDir);
    const r = await start({ path: '/album', recursive: true });
    assert.equal(r.status, 200, r.body.message);
    const t = await finished(r.body.data.id);
    assert.equal(t.state, 2, t.error);
    assert.equal(t.total_bytes, 5);
    const after = cachedThumbs(h().dataDir);
    assert.equal(after.length, 4, 'a, b, sub/c, sub/deeper/d');
    for (const f of earlier) assert.ok(after.includes(f), 'the cached ones are kept');
    // the listing's thumb URLs are served from that cache
    const list = await h().post('/api/fs/list', { path: '/album/sub/deeper' }, { token: admin });
    const thumb = new URL(list.body.data.content.find((o: { name: string }) => o.name === 'd.png').thumb);
    const got = await h().app.inject({ method: 'GET', url: thumb.pathname + thumb.search });
    assert.equal(got.statusCode, 200);
    assert.equal(cachedThumbs(h().dataDir).length, 4);
  });

  test('cancel stops the task between files: it ends canceled and makes no more thumbnails', async () => {
    const r = await start({ path: '/big' });
    assert.equal(r.status, 200, r.body.message);
    const tid = r.body.data.id;
    await eventually(async () => assert.equal((await info(tid)).state, 1, 'not running yet'), 20_000);
    const c = await h().post(`/api/task/thumbnails/cancel?tid=${tid}`, undefined, { token: admin });
    assert.equal(c.status, 200, c.body.message);
    const t = await finished(tid);
    assert.equal(t.state, 4, `canceled, not ${t.state} (${t.error})`);
    const n = cachedThumbs(h().dataDir).length - 4;
    assert.ok(n < 120, `stopped before the end (${n} of 120 made)`);
    await new Promise((res) => setTimeout(res, 1500));
    assert.equal(cachedThumbs(h().dataDir).length - 4, n, 'nothing made after it ended');
  });

  test('bad requests are refused and queue nothing', async () => {
    const undone = async () => ((await h().get('/api/task/thumbnails/undone', { token: admin })).body.data as unknown[]).length;
    const n = await undone();
    const file = await start({ path: '/album/a.png' });
    assert.equal(file.status, 400);
    assert.equal(file.body.message, 'not a folder');
    assert.equal((await start({ path: '/nowhere' })).status, 404);
    assert.equal((await start({ recursive: true })).status, 400, 'path is required');
    assert.equal((await start({ path: '/album', recursive: 'yes' })).status, 400);
    assert.equal((await h().post('/api/fs/thumbnails', { path: '/album' })).status, 401, 'no token');
    assert.equal(await undone(), n);
  });
});
