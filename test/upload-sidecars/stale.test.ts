/**
 * A file replaced by an upload without sidecars keeps its old sidecars; opening one shows that
 * the stored file no longer matches (size, or a hash the storage knows — no read), and a
 * recalculation brings the seed up to date.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Harness } from '../support/harness.js';
import { putOk } from './helpers.js';

describe('upload sidecars: a replaced file and its old sidecar', () => {
  const h = new Harness('sqlite');
  let admin: string;
  before(async () => {
    await h.start();
    admin = await h.adminToken();
  });
  after(() => h.stop());

  const changed = async (path: string) => {
    const r = await h.post('/api/fs/seed/parse', { path }, { token: admin });
    assert.equal(r.status, 200, r.body.message);
    return (r.body.data.diagnostics as { code: string; message: string }[]).filter((d) => d.code === 'stored_file_changed');
  };

  test('fresh sidecars: no warning', async () => {
    await putOk(h, admin, '/s/a.bin', 'first content', { 'x-seed-sidecars': 'oss' });
    assert.deepEqual(await changed('/s/a.bin.oss'), []);
  });

  test('same size, other bytes: the known sha256 differs → warning; recalculate clears it', async () => {
    await putOk(h, admin, '/s/a.bin', 'other content', { 'x-generate-seed': 'off' });
    const w = await changed('/s/a.bin.oss');
    assert.equal(w.length, 1);
    assert.match(w[0]!.message, /the stored file no longer matches this seed \(its \w+ here differs/);
    const r = await h.post('/api/fs/seed/update', { path: '/s/a.bin.oss', recalculate: { path: '/s' }, output_path: '/s/a.bin.oss' }, { token: admin });
    assert.equal(r.status, 200, r.body.message);
    assert.deepEqual(await changed('/s/a.bin.oss'), []);
    const again = await h.post('/api/fs/seed/parse', { path: '/s/a.bin.oss' }, { token: admin });
    assert.equal(again.body.data.files[0].hashes.md5 ?? again.body.data.seed.files[0].hashes.md5, createHash('md5').update('other content').digest('hex'));
  });

  test('another size → warning naming both sizes', async () => {
    await putOk(h, admin, '/s/a.bin', 'much longer content than before', { 'x-generate-seed': 'off' });
    const w = await changed('/s/a.bin.oss');
    assert.equal(w.length, 1);
    assert.match(w[0]!.message, /31 bytes here, 13 in the seed/);
  });
});
