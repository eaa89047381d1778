/**
 * Seed generation rules 5 and 6: the name derivation branches (a)–(d), the fallback setting,
 * the safety check for given and derived names, and where the sidecars land by default.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { forEachDialect } from '../support/harness.js';
import { bytes, filesDir, generated, putIndexed, putRaw, rejected, setSettings } from './helpers.js';

forEachDialect('seed generation: names', (h) => {
  let token: string;
  before(async () => {
    token = await h().adminToken();
  });

  test('(a) a single file: its name without the last extension; the sidecar lands beside it', async () => {
    await putIndexed(h(), '/na/movie.final.mkv', bytes(1000, 1));
    const d = await generated(h(), token, { paths: ['/na/movie.final.mkv'], formats: ['oss'] });
    assert.equal(d.seed.name, 'movie.final');
    assert.deepEqual(d.paths, ['/na/movie.final.oss']);
    assert.equal(d.seed.files[0].path, 'movie.final.mkv');
    assert.ok(existsSync(join(filesDir(h()), 'na/movie.final.oss')));
  });

  test('(b) several files with the same name once extensions are removed: that name', async () => {
    await putIndexed(h(), '/nb/clip.mkv', bytes(500, 2));
    await putIndexed(h(), '/nb/clip.srt', bytes(50, 3));
    const d = await generated(h(), token, { paths: ['/nb/clip.mkv', '/nb/clip.srt'], formats: ['oss'] });
    assert.equal(d.seed.name, 'clip');
    assert.deepEqual(d.seed.files.map((f: { path: string }) => f.path).sort(), ['clip.mkv', 'clip.srt']);
    assert.deepEqual(d.paths, ['/nb/clip.oss']);
  });

  test('(c) different names: the common parent folder; a requested folder names the seed after itself', async () => {
    await putIndexed(h(), '/nc/album/one.flac', bytes(300, 4));
    await putIndexed(h(), '/nc/album/two.flac', bytes(300, 5));
    await putIndexed(h(), '/nc/album/art/cover.jpg', bytes(30, 6));
    const files = await generated(h(), token, { paths: ['/nc/album/one.flac', '/nc/album/two.flac'], formats: ['oss'], output_path: '/nc-out' });
    assert.equal(files.seed.name, 'album');
    const folder = await generated(h(), token, { paths: ['/nc/album'], formats: ['oss'] });
    assert.equal(folder.seed.name, 'album');
    assert.deepEqual(folder.seed.files.map((f: { path: string }) => f.path).sort(), ['art/cover.jpg', 'one.flac', 'two.flac']);
    assert.deepEqual(folder.paths, ['/nc/album.oss'], 'a folder seed lands beside the folder');
  });

  test('(d) files whose common folder is the root: the fallback "Service Seed"', async () => {
    await putIndexed(h(), '/nd-x.txt', bytes(10, 7));
    await putIndexed(h(), '/nd-y.bin', bytes(10, 8));
    const d = await generated(h(), token, { paths: ['/nd-x.txt', '/nd-y.bin'], formats: ['oss'] });
    assert.equal(d.seed.name, 'Service Seed');
    assert.deepEqual(d.paths, ['/Service Seed.oss']);
  });

  test('(d) the fallback comes from the seed_fallback_name setting', async () => {
    await setSettings(h(), token, { seed_fallback_name: 'Night Batch' });
    try {
      const d = await generated(h(), token, { paths: ['/nd-x.txt', '/nd-y.bin'], formats: ['oss'], output_path: '/nd-out' });
      assert.equal(d.seed.name, 'Night Batch');
      assert.deepEqual(d.paths, ['/nd-out/Night Batch.oss']);
    } finally {
      await setSettings(h(), token, { seed_fallback_name: 'Service Seed' });
    }
  });

  test('a given name wins over derivation (trimmed)', async () => {
    const d = await generated(h(), token, { paths: ['/na/movie.final.mkv'], formats: ['oss'], name: '  Holiday 2026 ', output_path: '/given' });
    assert.equal(d.seed.name, 'Holiday 2026');
    assert.deepEqual(d.paths, ['/given/Holiday 2026.oss']);
  });

  for (const [label, name] of [
    ['an empty (blank) name', '   '],
    ['"."', '.'],
    ['".."', '..'],
    ['a name with "/"', 'a/b'],
    ['a name with "\\"', 'a\\b'],
  ] as const) {
    test(`unsafe given name: ${label} → 400 invalid seed name, nothing written`, async () => {
      const body = await rejected(h(), token, { paths: ['/na/movie.final.mkv'], formats: ['oss'], name, output_path: '/unsafe' }, 400, /^invalid seed name/);
      assert.equal(body.data?.field, 'name');
      assert.equal(existsSync(join(filesDir(h()), 'unsafe')), false);
    });
  }

  test('unsafe derived name: files "x\\y.txt" and "x\\y.bin" derive "x\\y" (rule b) → 400 invalid seed name', async () => {
    putRaw(filesDir(h()), 'nbs/x\\y.txt', bytes(10, 9));
    putRaw(filesDir(h()), 'nbs/x\\y.bin', bytes(10, 7));
    await rejected(h(), token, { paths: ['/nbs'], formats: ['oss'] }, 400, /invalid seed name: name contains a path separator/);
    assert.equal(existsSync(join(filesDir(h()), 'x\\y.oss')), false);
  });

  test('a folder holding a single file is named after the folder (its torrent layout is the folder)', async () => {
    putRaw(filesDir(h()), 'onefolder/only.bin', bytes(10, 8));
    const d = await generated(h(), token, { paths: ['/onefolder'], formats: ['oss'] });
    assert.equal(d.seed.name, 'onefolder');
  });

  test('unsafe derived name: an empty seed_fallback_name → 400 invalid seed name', async () => {
    await setSettings(h(), token, { seed_fallback_name: '' });
    try {
      await rejected(h(), token, { paths: ['/nd-x.txt', '/nd-y.bin'], formats: ['oss'], output_path: '/nd-empty' }, 400, /invalid seed name: name is empty/);
    } finally {
      await setSettings(h(), token, { seed_fallback_name: 'Service Seed' });
    }
  });
});
