/**
 * Rules 3, 4 and 7: direct mode (the drive provides every selected whole hash, no pieces → no
 * byte read, counted at the driver), download mode (one streamed read per file, whatever the
 * number of formats), and the wizard's defaults from `capabilities`. (The hint for a storage
 * the server may not stream, proxy off, needs an S3 storage: s3.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachDialect } from '../support/harness.js';
import { ALL_SIX, WHOLE_ONLY, bytes, filesDir, generated, hex, probeReads, putIndexed, putRaw, setSettings, type ReadProbe } from './helpers.js';

forEachDialect('seed generation: direct and download modes', (h) => {
  let token: string;
  let probe: ReadProbe | null = null;

  before(async () => {
    token = await h().adminToken();
    await putIndexed(h(), '/md/indexed-1.bin', bytes(400_000, 31));
    await putIndexed(h(), '/md/indexed-2.bin', bytes(123_457, 32));
    // Each test that needs an unknown file has its own: a whole read teaches the index.
    putRaw(filesDir(h()), 'md-raw/unknown.bin', bytes(77_777, 33));
    putRaw(filesDir(h()), 'md-mixed/unknown.bin', bytes(5_555, 36));
    putRaw(filesDir(h()), 'md-cap/unknown.bin', bytes(77_777, 37));
  });
  after(() => probe?.restore());
  const count = (mount = '/') => {
    probe?.restore();
    probe = probeReads(h(), mount);
    return probe;
  };

  test('direct: whole hashes the local hash index provides → zero content reads, hashes correct', async () => {
    const p = count();
    const d = await generated(h(), token, { paths: ['/md'], formats: ['oss'], hash_matrix: WHOLE_ONLY, output_path: '/md-out1' });
    assert.equal(p.count, 0, `reads: ${p.paths.join(', ')}`);
    assert.deepEqual(d.files.map((f: { mode: string }) => f.mode), ['direct', 'direct']);
    const f = d.seed.files.find((x: { path: string }) => x.path === 'indexed-1.bin');
    assert.equal(f.hashes.sha256, hex('sha256', bytes(400_000, 31)));
    assert.equal(f.hashes.md5, hex('md5', bytes(400_000, 31)));
  });

  test('download: a file the index does not know is read exactly once for three formats', async () => {
    const p = count();
    const d = await generated(h(), token, { paths: ['/md-raw/unknown.bin'], formats: ['oss', 'torrent', 'cas'], hash_matrix: ALL_SIX, output_path: '/md-out2' });
    assert.equal(p.count, 1);
    assert.equal(d.files[0].mode, 'download');
    assert.equal(d.seed.files[0].hashes.sha1, hex('sha1', bytes(77_777, 33)));
    // That read taught the hash index: whole hashes of the same file are now direct.
    const again = await generated(h(), token, { paths: ['/md-raw/unknown.bin'], formats: ['oss'], hash_matrix: WHOLE_ONLY, output_path: '/md-out2b' });
    assert.equal(p.count, 1);
    assert.equal(again.files[0].mode, 'direct');
  });

  test('download: any piece selection forces one read even when the index has the whole hashes', async () => {
    const p = count();
    const d = await generated(h(), token, { paths: ['/md/indexed-1.bin'], formats: ['oss'], hash_matrix: { md5: { whole: true, pieces: true } }, output_path: '/md-out3' });
    assert.equal(p.count, 1);
    assert.equal(d.files[0].mode, 'download');
    assert.equal(d.seed.files[0].hashes.pieces.md5.length, 1);
  });

  test('mixed: known files direct, the unknown one downloaded — one read in all', async () => {
    const p = count();
    const d = await generated(h(), token, { paths: ['/md', '/md-mixed'], formats: ['oss'], hash_matrix: WHOLE_ONLY, output_path: '/md-out4' });
    assert.equal(p.count, 1);
    assert.deepEqual(p.paths, ['/md-mixed/unknown.bin']);
    assert.deepEqual(Object.fromEntries(d.files.map((f: { path: string; mode: string }) => [f.path, f.mode])), {
      '/md/indexed-1.bin': 'direct',
      '/md/indexed-2.bin': 'direct',
      '/md-mixed/unknown.bin': 'download',
    });
  });

  test('capabilities: per-file provided hashes, download needs, streamability; default matrix = what the drive provides', async () => {
    const r = await h().post('/api/fs/seed/capabilities', { paths: ['/md'] }, { token });
    assert.equal(r.status, 200, r.body.message);
    const c = r.body.data;
    assert.deepEqual(c.default_matrix, WHOLE_ONLY);
    assert.deepEqual(c.common_hashes, ['md5', 'sha1', 'sha256']);
    assert.equal(c.files.length, 2);
    for (const f of c.files) {
      assert.deepEqual(f.available_hashes, ['md5', 'sha1', 'sha256']);
      assert.equal(f.requires_download, false);
    }
    assert.equal(c.files.find((f: { path: string }) => f.path === '/md/indexed-1.bin').streamable, true);
    assert.equal(c.estimated_traffic, 0);
  });

  test('capabilities: a file without known hashes → requires_download, default falls back to seed_default_matrix; trackers offered', async () => {
    await setSettings(h(), token, { seed_default_trackers: 'http://t1.example/announce\n\nudp://t2.example:6969/announce\n' });
    const r = await h().post('/api/fs/seed/capabilities', { paths: ['/md-cap/unknown.bin'] }, { token });
    assert.equal(r.status, 200, r.body.message);
    const c = r.body.data;
    assert.deepEqual(c.files[0].available_hashes, []);
    assert.equal(c.files[0].requires_download, true);
    assert.equal(c.estimated_traffic, 77_777);
    assert.deepEqual(c.default_matrix, WHOLE_ONLY);
    assert.deepEqual(c.trackers, ['http://t1.example/announce', 'udp://t2.example:6969/announce']);
    assert.equal(c.suggested_name, 'unknown');
    const missing = await h().post('/api/fs/seed/capabilities', { paths: ['/md/none'] }, { token });
    assert.equal(missing.status, 404);
  });

  test('the wizard default (capabilities.default_matrix) generates without reading a byte', async () => {
    const c = (await h().post('/api/fs/seed/capabilities', { paths: ['/md'] }, { token })).body.data;
    const p = count();
    await generated(h(), token, { paths: ['/md'], formats: ['oss'], hash_matrix: c.default_matrix, output_path: '/md-out6' });
    assert.equal(p.count, 0);
  });
});
