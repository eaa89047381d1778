/**
 * `/api/fs/{batch_rename,regex_rename,recursive_move,remove_empty_directory,other}` with the bodies the OpenList
 * web UI sends: effects checked on the disk of the `/` storage, permissions as rename/move/remove.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { forEachDialect, type Harness } from '../support/harness.js';

const bits = (...n: number[]) => n.reduce((a, b) => a | (1 << b), 0);

function files(h: Harness, dir: string, names: string[]): void {
  const d = join(h.dataDir, 'files', dir);
  mkdirSync(d, { recursive: true });
  for (const n of names) {
    mkdirSync(join(d, n, '..'), { recursive: true });
    writeFileSync(join(d, n), n);
  }
}
const ls = (h: Harness, dir: string) => readdirSync(join(h.dataDir, 'files', dir)).sort();

forEachDialect('OpenList batch file routes', (h) => {
  test('batch_rename renames each pair in order, skips empty pairs; needs bit 4; unsafe names are 403', async () => {
    const token = await h().adminToken();
    files(h(), 'br', ['a.txt', 'b.txt', 'c.txt']);
    const r = await h().post('/api/fs/batch_rename', { src_dir: '/br', rename_objects: [{ src_name: 'a.txt', new_name: 'a1.txt' }, { src_name: '', new_name: 'x' }, { src_name: 'b.txt', new_name: 'b1.txt' }] }, { token });
    assert.equal(r.status, 200, r.body.message);
    assert.deepEqual(ls(h(), 'br'), ['a1.txt', 'b1.txt', 'c.txt']);
    const bad = await h().post('/api/fs/batch_rename', { src_dir: '/br', rename_objects: [{ src_name: 'c.txt', new_name: '../c.txt' }] }, { token });
    assert.equal(bad.status, 403);
    const clash = await h().post('/api/fs/batch_rename', { src_dir: '/br', rename_objects: [{ src_name: 'c.txt', new_name: 'a1.txt' }] }, { token });
    assert.equal(clash.status, 403);
    assert.deepEqual(ls(h(), 'br'), ['a1.txt', 'b1.txt', 'c.txt']);

    await h().createUser('nobits', 'nobits-pass-1', { permission: bits(3, 5, 7) });
    const u = await h().login('nobits', 'nobits-pass-1');
    assert.equal((await h().post('/api/fs/batch_rename', { src_dir: '/br', rename_objects: [{ src_name: 'c.txt', new_name: 'd.txt' }] }, { token: u })).status, 403);
    assert.equal((await h().post('/api/fs/regex_rename', { src_dir: '/br', src_name_regex: 'c', new_name_regex: 'd' }, { token: u })).status, 403);
    await h().createUser('renamer', 'renamer-pass-1', { permission: bits(4) });
    const rn = await h().login('renamer', 'renamer-pass-1');
    assert.equal((await h().post('/api/fs/recursive_move', { src_dir: '/br', dst_dir: '/', conflict_policy: 'cancel' }, { token: rn })).status, 403);
    assert.deepEqual(ls(h(), 'br'), ['a1.txt', 'b1.txt', 'c.txt']);
  });

  test('regex_rename: RE2 with Go replacement; catastrophic patterns run fast; bad patterns are 400', async () => {
    const token = await h().adminToken();
    files(h(), 'rr', ['IMG_001.jpg', 'IMG_002.jpg', 'notes.txt']);
    const r = await h().post('/api/fs/regex_rename', { src_dir: '/rr', src_name_regex: '^IMG_(?P<n>\\d+)\\.jpg$', new_name_regex: 'photo-${n}.jpg' }, { token });
    assert.equal(r.status, 200, r.body.message);
    assert.deepEqual(ls(h(), 'rr'), ['notes.txt', 'photo-001.jpg', 'photo-002.jpg']);
    assert.equal((await h().post('/api/fs/regex_rename', { src_dir: '/rr', src_name_regex: '(\\w+)\\.txt', new_name_regex: '$1.md' }, { token })).status, 200);
    assert.ok(ls(h(), 'rr').includes('notes.md'));

    files(h(), 'rr', ['a'.repeat(200) + '!']);
    const evil = await h().post('/api/fs/regex_rename', { src_dir: '/rr', src_name_regex: '^(a+)+$', new_name_regex: 'x' }, { token });
    assert.equal(evil.status, 200);
    assert.ok(ls(h(), 'rr').includes('a'.repeat(200) + '!'));
    for (const bad of ['(?=x)', '(a)\\1', '(', 'a'.repeat(2000)]) {
      const b = await h().post('/api/fs/regex_rename', { src_dir: '/rr', src_name_regex: bad, new_name_regex: 'x' }, { token });
      assert.equal(b.status, 400, bad);
      assert.match(b.body.message, /src_name_regex/);
    }
    const escape = await h().post('/api/fs/regex_rename', { src_dir: '/rr', src_name_regex: '^notes\\.md$', new_name_regex: '../up.md' }, { token });
    assert.equal(escape.status, 403);
    assert.ok(ls(h(), 'rr').includes('notes.md'));
  });

  test('recursive_move flattens files into dst_dir; cancel refuses clashes before moving anything; skip and overwrite', async () => {
    const token = await h().adminToken();
    files(h(), 'rm/src', ['one.txt', 'sub/two.txt', 'sub/deep/three.txt', 'other/one.txt']);
    mkdirSync(join(h().dataDir, 'files', 'rm/dst'), { recursive: true });
    const cancel = await h().post('/api/fs/recursive_move', { src_dir: '/rm/src', dst_dir: '/rm/dst', conflict_policy: 'cancel' }, { token });
    assert.equal(cancel.status, 403);
    assert.match(cancel.body.message, /file \[one\.txt\] exists/);
    assert.deepEqual(ls(h(), 'rm/dst'), []);
    const skip = await h().post('/api/fs/recursive_move', { src_dir: '/rm/src', dst_dir: '/rm/dst', conflict_policy: 'skip' }, { token });
    assert.equal(skip.status, 200, skip.body.message);
    assert.equal(skip.body.message, 'Successfully moved 3 files');
    assert.deepEqual(ls(h(), 'rm/dst'), ['one.txt', 'three.txt', 'two.txt']);
    assert.deepEqual(ls(h(), 'rm/src'), ['other', 'sub']);
    assert.ok(existsSync(join(h().dataDir, 'files', 'rm/src/other/one.txt')));
    const over = await h().post('/api/fs/recursive_move', { src_dir: '/rm/src', dst_dir: '/rm/dst', conflict_policy: 'overwrite' }, { token });
    assert.equal(over.body.message, 'Successfully moved 1 file');
    assert.ok(!existsSync(join(h().dataDir, 'files', 'rm/src/other/one.txt')));
    assert.equal((await h().post('/api/fs/recursive_move', { src_dir: '/rm/src', dst_dir: '/rm/dst', conflict_policy: 'maybe' }, { token })).status, 400);
  });

  test('remove_empty_directory removes empty folders below src_dir (nested too), keeps src_dir and anything with files', async () => {
    const token = await h().adminToken();
    files(h(), 'red', ['keep/file.txt']);
    for (const d of ['red/e1', 'red/e2/e3/e4', 'red/keep/empty']) mkdirSync(join(h().dataDir, 'files', d), { recursive: true });
    await h().createUser('noremove', 'noremove-pass-1', { permission: bits(3, 4, 5) });
    assert.equal((await h().post('/api/fs/remove_empty_directory', { src_dir: '/red' }, { token: await h().login('noremove', 'noremove-pass-1') })).status, 403);
    const r = await h().post('/api/fs/remove_empty_directory', { src_dir: '/red' }, { token });
    assert.equal(r.status, 200, r.body.message);
    assert.deepEqual(ls(h(), 'red'), ['keep']);
    assert.deepEqual(ls(h(), 'red/keep'), ['file.txt']);
  });

  test('fs/other answers a clear 400 (no driver methods); a missing path is 404', async () => {
    const token = await h().adminToken();
    files(h(), 'oth', ['v.mp4']);
    const r = await h().post('/api/fs/other', { path: '/oth/v.mp4', method: 'video_preview', data: {} }, { token });
    assert.equal(r.status, 400);
    assert.match(r.body.message, /video_preview.*not supported/);
    assert.equal((await h().post('/api/fs/other', { path: '/oth/none', method: 'x' }, { token })).status, 404);
  });
});
