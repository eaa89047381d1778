/**
 * Sidecars follow their file (`seed_follow`, default on): rename keeps the suffix, move and
 * copy carry them (same storage and across storages), remove takes them along; missing
 * sidecars are ignored, folders are not touched, and with `seed_follow` off nothing follows.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { forEachDialect } from '../support/harness.js';
import { hostPath, putOk, setSettings, sidecarsOn } from './helpers.js';

forEachDialect('upload sidecars: follow', (h) => {
  let admin: string;
  let other: string;
  before(async () => {
    admin = await h().adminToken();
    other = mkdtempSync(join(tmpdir(), 'ferry-follow-'));
    const r = await h().post('/api/admin/storage/create', { mount_path: '/other', driver: 'local', addition: { root_folder_path: other } }, { token: admin });
    assert.equal(r.status, 200, r.body.message);
  });

  const post = async (url: string, body: unknown) => {
    const r = await h().post(url, body, { token: admin });
    assert.equal(r.status, 200, `${url}: ${r.status} ${r.body.message}`);
    return r.body.data;
  };
  const file = (dir: string, name: string, formats = 'oss,torrent,cas') => putOk(h(), admin, `${dir}/${name}`, `content of ${name}`, { 'x-seed-sidecars': formats });

  test('rename carries every sidecar, keeping the suffix', async () => {
    await file('/r', 'a.bin');
    await post('/api/fs/rename', { path: '/r/a.bin', name: 'b.bin' });
    assert.deepEqual(sidecarsOn(h(), '/r/a.bin'), []);
    assert.deepEqual(sidecarsOn(h(), '/r/b.bin'), ['oss', 'torrent', 'cas']);
    assert.equal(readFileSync(hostPath(h(), '/r/b.bin'), 'utf8'), 'content of a.bin');
  });

  test('missing sidecars are ignored (only .torrent exists)', async () => {
    await file('/r', 'one.bin', 'torrent');
    await post('/api/fs/rename', { path: '/r/one.bin', name: 'two.bin' });
    assert.deepEqual(sidecarsOn(h(), '/r/two.bin'), ['torrent']);
    assert.equal(existsSync(hostPath(h(), '/r/one.bin.torrent')), false);
  });

  test('move and copy on the same storage carry the sidecars; naming the sidecars too is fine', async () => {
    await file('/m', 'x.bin');
    await file('/m', 'y.bin');
    await post('/api/fs/mkdir', { path: '/m2' });
    await post('/api/fs/move', { src_dir: '/m', dst_dir: '/m2', names: ['x.bin'] });
    assert.deepEqual(sidecarsOn(h(), '/m2/x.bin'), ['oss', 'torrent', 'cas']);
    assert.deepEqual(sidecarsOn(h(), '/m/x.bin'), []);
    await post('/api/fs/copy', { src_dir: '/m', dst_dir: '/m2', names: ['y.bin', 'y.bin.oss', 'y.bin.cas'] });
    assert.deepEqual(sidecarsOn(h(), '/m2/y.bin'), ['oss', 'torrent', 'cas']);
    assert.deepEqual(sidecarsOn(h(), '/m/y.bin'), ['oss', 'torrent', 'cas'], 'copy keeps the originals');
  });

  test('move across storages carries the sidecars', async () => {
    await file('/x', 'far.bin');
    await post('/api/fs/move', { src_dir: '/x', dst_dir: '/other', names: ['far.bin'] });
    for (const f of ['', '.oss', '.torrent', '.cas']) assert.ok(existsSync(join(other, `far.bin${f}`)), `far.bin${f} moved`);
    assert.deepEqual(sidecarsOn(h(), '/x/far.bin'), []);
  });

  test('remove takes the sidecars along; removing a file and its sidecars together is fine', async () => {
    await file('/d', 'gone.bin');
    await file('/d', 'gone2.bin');
    await post('/api/fs/remove', { dir: '/d', names: ['gone.bin'] });
    assert.deepEqual(sidecarsOn(h(), '/d/gone.bin'), []);
    await post('/api/fs/remove', { dir: '/d', names: ['gone2.bin', 'gone2.bin.oss'] });
    assert.deepEqual(sidecarsOn(h(), '/d/gone2.bin'), []);
    assert.equal(existsSync(hostPath(h(), '/d/gone2.bin')), false);
  });

  test('folders are not followed: a folder named like a file with sidecars keeps them in place', async () => {
    mkdirSync(hostPath(h(), '/f/dir'), { recursive: true });
    writeFileSync(hostPath(h(), '/f/dir.oss'), 'not followed');
    await post('/api/fs/rename', { path: '/f/dir', name: 'dir2' });
    assert.ok(existsSync(hostPath(h(), '/f/dir.oss')));
    assert.equal(existsSync(hostPath(h(), '/f/dir2.oss')), false);
    await post('/api/fs/remove', { dir: '/f', names: ['dir2'] });
    assert.ok(existsSync(hostPath(h(), '/f/dir.oss')));
  });

  test('seed_follow off: nothing follows', async () => {
    await setSettings(h(), admin, { seed_follow: 'false' });
    try {
      await file('/o', 'stay.bin');
      await post('/api/fs/rename', { path: '/o/stay.bin', name: 'moved.bin' });
      assert.deepEqual(sidecarsOn(h(), '/o/stay.bin'), ['oss', 'torrent', 'cas']);
      assert.deepEqual(sidecarsOn(h(), '/o/moved.bin'), []);
      await post('/api/fs/remove', { dir: '/o', names: ['moved.bin'] });
      assert.deepEqual(sidecarsOn(h(), '/o/stay.bin'), ['oss', 'torrent', 'cas']);
    } finally {
      await setSettings(h(), admin, { seed_follow: 'true' });
    }
  });
});
