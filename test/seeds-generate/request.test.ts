/**
 * The generate request: every field's checks (400/403/404 naming the field), the four URLs,
 * and the synchronous result shape (contract §10.3).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { forEachDialect } from '../support/harness.js';
import { ALL_SIX, bytes, filesDir, generate, generated, putIndexed, rejected } from './helpers.js';

const ALL_BUT_WRITE = 0xffff & ~(1 << 3);
const ALL_BUT_SHARE = 0xffff & ~(1 << 14);

forEachDialect('seed generation: request', (h) => {
  let token: string;
  before(async () => {
    token = await h().adminToken();
    await putIndexed(h(), '/rq/a.bin', bytes(3000, 11));
    await putIndexed(h(), '/rq/b.bin', bytes(2000, 12));
    await putIndexed(h(), '/home/bob/mine.txt', bytes(100, 13));
    await putIndexed(h(), '/home/alice/secret.txt', bytes(100, 14));
    await h().createUser('bob', 'bob-pass-1', { base_path: '/home/bob' });
    await h().createUser('carol', 'carol-pass-1', { base_path: '/home/bob', permission: ALL_BUT_WRITE });
    await h().createUser('dave', 'dave-pass-1', { base_path: '/home/bob', permission: ALL_BUT_SHARE });
  });

  test('empty or missing paths → 400 naming paths', async () => {
    await rejected(h(), token, { paths: [], formats: ['oss'] }, 400, /^paths: /);
    await rejected(h(), token, { formats: ['oss'] }, 400, /^paths: /);
  });

  test('an unknown format → 400 naming formats[i]', async () => {
    await rejected(h(), token, { paths: ['/rq/a.bin'], formats: ['oss', 'zip'] }, 400, /^formats\[1\]: unknown seed format "zip"/);
  });

  test('a missing path → 404 naming paths[i]', async () => {
    const b = await rejected(h(), token, { paths: ['/rq/a.bin', '/rq/nope.bin'], formats: ['oss'] }, 404, /^paths\[1\] \(\/rq\/nope\.bin\): object not found/);
    assert.equal(b.data?.field, 'paths[1]');
  });

  test('a path the user cannot read (outside their base path) → 403 naming paths[i]', async () => {
    const bob = await h().login('bob', 'bob-pass-1');
    await rejected(h(), bob, { paths: ['/../alice/secret.txt'], formats: ['oss'] }, 403, /^paths\[0\]: using relative path is not allowed/);
    await rejected(h(), bob, { paths: ['/mine.txt', '%2e%2e/alice/secret.txt'], formats: ['oss'] }, 403, /^paths\[1\]/);
    // What bob can address is inside /home/bob: the same name there does not exist.
    await rejected(h(), bob, { paths: ['/alice/secret.txt'], formats: ['oss'] }, 404, /^paths\[0\]/);
  });

  test('piece_size out of 16 KiB–64 MiB → 400 naming piece_size (cas forces 10 MiB)', async () => {
    await rejected(h(), token, { paths: ['/rq/a.bin'], formats: ['oss'], piece_size: 1000 }, 400, /^piece_size: must be an integer between 16384/);
    await rejected(h(), token, { paths: ['/rq/a.bin'], formats: ['torrent'], piece_size: 128 * 1024 * 1024 }, 400, /^piece_size: /);
    await rejected(h(), token, { paths: ['/rq/a.bin'], formats: ['oss'], piece_size: 1.5 }, 400, /piece_size/);
    const d = await generated(h(), token, { paths: ['/rq/a.bin'], formats: ['cas'], piece_size: 1000, output_path: '/rq-cas' });
    assert.equal(d.seed.piece_size, 10 * 1024 * 1024);
  });

  test('a malformed hash_matrix → 400 naming the key', async () => {
    await rejected(h(), token, { paths: ['/rq/a.bin'], formats: ['oss'], hash_matrix: { md6: { whole: true } } }, 400, /hash_matrix\.md6/);
    await rejected(h(), token, { paths: ['/rq/a.bin'], formats: ['oss'], hash_matrix: { md5: { whole: 'yes' } } }, 400, /hash_matrix\.md5\.whole/);
  });

  test('trackers: each must be an http(s) or udp announce URL → else 400 naming trackers[i]', async () => {
    for (const bad of ['ftp://t.example/announce', 'not a url', 'udp://t.example/announce', 'http://user:pw@t.example/announce']) {
      await rejected(h(), token, { paths: ['/rq/a.bin'], formats: ['torrent'], trackers: ['http://ok.example/announce', bad] }, 400, /^trackers\[1\]: /);
    }
    const good = ['http://a.example/announce', 'https://b.example:8443/announce', 'udp://c.example:6969/announce'];
    const d = await generated(h(), token, { paths: ['/rq/a.bin'], formats: ['oss'], trackers: good, output_path: '/rq-trk' });
    assert.deepEqual(d.seed.trackers, good);
  });

  test('writing the sidecars needs the write permission → 403 naming output_path', async () => {
    const carol = await h().login('carol', 'carol-pass-1');
    await rejected(h(), carol, { paths: ['/mine.txt'], formats: ['oss'] }, 403, /^output_path: permission denied/);
  });

  test('share_files without the share permission → 403 naming share_files', async () => {
    const dave = await h().login('dave', 'dave-pass-1');
    await rejected(h(), dave, { paths: ['/mine.txt'], formats: ['oss'], share_files: ['/mine.txt'] }, 403, /^share_files: /);
  });

  test('share_files / direct_files / file_comments naming no file of the seed → 400 naming the field', async () => {
    await rejected(h(), token, { paths: ['/rq/a.bin'], formats: ['oss'], direct_files: ['/rq/b.bin'] }, 400, /^direct_files\[0\]: /);
    await rejected(h(), token, { paths: ['/rq/a.bin'], formats: ['oss'], share_files: ['/elsewhere'] }, 400, /^share_files\[0\]: /);
    await rejected(h(), token, { paths: ['/rq/a.bin'], formats: ['oss'], file_comments: { '/rq/zz.bin': 'x' } }, 400, /^file_comments\["\/rq\/zz\.bin"\]/);
  });

  test('sync result: data = {paths, artifacts, seed}; seed_data is exactly the bytes written', async () => {
    const d = await generated(h(), token, { paths: ['/rq/a.bin', '/rq/b.bin'], formats: ['oss', 'torrent', 'cas'], hash_matrix: ALL_SIX, output_path: '/rq-out' });
    assert.deepEqual(d.paths, ['/rq-out/rq.oss', '/rq-out/rq.torrent', '/rq-out/rq.cas']);
    assert.equal(d.seed.name, 'rq');
    assert.equal(d.artifacts.length, 3);
    for (const [i, a] of d.artifacts.entries()) {
      assert.equal(a.path, d.paths[i]);
      assert.equal(a.name, `rq.${a.format}`);
      const disk = readFileSync(join(filesDir(h()), a.path));
      assert.equal(a.size, disk.length);
      assert.ok(Buffer.from(a.seed_data, 'base64').equals(disk), `${a.format} seed_data`);
    }
  });

  test('the four URLs take the same body and behave the same', async () => {
    const seeds = [];
    for (const url of ['/api/fs/seed/generate', '/fs/seed/generate', '/api/fs/torrent/generate', '/fs/torrent/generate']) {
      const r = await generate(h(), token, { paths: ['/rq/a.bin'], formats: ['torrent'], output_path: `/rq-url${url.replace(/\//g, '-')}` }, url);
      assert.equal(r.status, 200, `${url}: ${r.body.message}`);
      assert.equal(r.body.data.artifacts[0].format, 'torrent');
      seeds.push({ ...r.body.data.seed, created_at: '' });
    }
    for (const s of seeds.slice(1)) assert.deepEqual(s, seeds[0]);
    await rejected(h(), token, { paths: [], formats: ['oss'] }, 400, /^paths/);
  });
});
