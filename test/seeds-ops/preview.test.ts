/**
 * `POST /api/fs/seed/parse` on sidecars Ferry generated itself (all three formats, single and
 * multi-file): files, whole and per-piece hashes, comments, trackers, info hash, conversions,
 * capabilities, sources and the direct preview; parse by path honours the user's base path.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { forEachDialect } from '../support/harness.js';
import {
  ALL_SIX,
  b64,
  bytes,
  filesDir,
  generateSeeds,
  hex,
  infoHashOf,
  putRaw,
  seedError,
  seedOk,
  setSettings,
  type Artifact,
} from './helpers.js';

const A = bytes(40_000, 1);
const B = bytes(1_200, 2);
const ONE = bytes(70_000, 3);
const PIECE = 16 * 1024;

const pieceHashes = (algo: string, data: Buffer, size: number) => {
  const out: string[] = [];
  for (let off = 0; off < data.length; off += size) out.push(hex(algo, data.subarray(off, off + size)));
  return out;
};

forEachDialect('seed parse of generated sidecars', (h) => {
  let admin: string;
  let multi: Record<string, Artifact>;
  let multiCas: Record<string, Artifact>;
  let single: Record<string, Artifact>;

  before(async () => {
    admin = await h().adminToken();
    const root = filesDir(h());
    putRaw(root, 'A/a.bin', A);
    putRaw(root, 'A/sub/b.txt', B);
    putRaw(root, 'S/one.bin', ONE);
    multi = await generateSeeds(h(), admin, {
      paths: ['/A'],
      formats: ['oss', 'torrent'],
      hash_matrix: ALL_SIX,
      piece_size: PIECE,
      comment: 'line one\nline two',
      trackers: ['https://tracker.example.org/announce'],
      file_comments: { '/A/a.bin': 'the first file' },
    });
    multiCas = await generateSeeds(h(), admin, { paths: ['/A'], formats: ['cas'], output_path: '/casout' });
    single = await generateSeeds(h(), admin, { paths: ['/S/one.bin'], formats: ['oss', 'torrent', 'cas'], hash_matrix: ALL_SIX });
  });

  test('multi-file .oss and .torrent: files, hashes, pieces, comments, trackers, info hash', async () => {
    for (const format of ['oss', 'torrent'] as const) {
      const d = await seedOk(h(), admin, 'parse', { seed_data: multi[format]!.seed_data });
      assert.equal(d.format, format);
      assert.equal(d.name, 'A');
      assert.equal(d.total_size, A.length + B.length);
      assert.equal(d.file_count, 2);
      assert.equal(d.comment, 'line one\nline two');
      assert.deepEqual(d.trackers, ['https://tracker.example.org/announce']);
      assert.deepEqual(d.seed.files.map((f: { path: string }) => f.path).sort(), ['a.bin', 'sub/b.txt']);
      const byPath = new Map(d.files.map((f: any) => [f.path, f]));
      for (const [path, data] of [['a.bin', A], ['sub/b.txt', B]] as const) {
        const f: any = byPath.get(path);
        assert.equal(f.size, data.length);
        assert.equal(f.name, path.split('/').pop());
        assert.match(f.modified, /^\d{4}-\d\d-\d\dT/);
        for (const algo of ['md5', 'sha1', 'sha256']) {
          assert.equal(f.hashes[algo], hex(algo, data), `${format} ${path} ${algo}`);
          assert.deepEqual(f.pieces[algo], pieceHashes(algo, data, PIECE), `${format} ${path} ${algo} pieces`);
        }
        assert.equal(f.pieces.piece_size, PIECE);
        assert.equal(f.pieces.count, Math.ceil(data.length / PIECE));
      }
      assert.equal((byPath.get('a.bin') as any).comment, 'the first file');
      assert.equal((byPath.get('sub/b.txt') as any).comment, '');
      if (format === 'torrent') {
        assert.equal(d.info_hash, infoHashOf(Buffer.from(multi.torrent!.seed_data, 'base64')));
        assert.equal(d.torrent_pieces.piece_size, PIECE);
        assert.equal(d.torrent_pieces.count, Math.ceil((A.length + B.length) / PIECE));
        assert.equal(d.torrent_pieces.sha1[0], hex('sha1', A.subarray(0, PIECE)));
      } else {
        assert.equal(d.info_hash, null);
        assert.equal(d.torrent_pieces, null);
      }
      // 40000 is not a multiple of 16 KiB: without the piece stream the .oss cannot become a torrent.
      assert.equal(d.conversions.torrent.feasible, format === 'torrent');
      if (format === 'oss') {
        assert.ok(d.conversions.torrent.missing.some((m: any) => m.file === 'a.bin' && /piece size/.test(m.reason)), JSON.stringify(d.conversions.torrent));
        assert.ok(d.conversions.torrent.reasons.some((r: string) => r.startsWith('a.bin: ')));
      }
      assert.equal(d.conversions.oss.feasible, true);
      assert.equal(d.conversions.cas.feasible, true);
      assert.ok(Array.isArray(d.diagnostics));
      assert.deepEqual(d.capabilities.rapid_upload, { available: true });
      assert.equal(d.capabilities.offline_download.available, false);
      assert.match(d.capabilities.offline_download.reason, /no share or direct link/);
      assert.equal(d.capabilities.transfer.available, false);
      assert.deepEqual(d.capabilities.convert, { available: true });
      assert.deepEqual(d.capabilities.edit, { available: true });
      assert.equal(d.capabilities.recalculate.available, false);
      assert.equal(d.direct_preview.available, false);
      assert.match(d.direct_preview.reason, /2 files/);
    }
  });

  test('multi-file .cas keeps folders and MD5 data; by path, recalculation finds the files', async () => {
    const d = await seedOk(h(), admin, 'parse', { path: multiCas.cas!.path });
    assert.equal(d.format, 'cas');
    assert.equal(d.path, '/casout/A.cas');
    assert.deepEqual(d.files.map((f: any) => f.path).sort(), ['a.bin', 'sub/b.txt']);
    for (const f of d.files) {
      const data = f.path === 'a.bin' ? A : B;
      assert.equal(f.hashes.md5, hex('md5', data));
      assert.equal(f.hashes.sha1, undefined);
      assert.equal(f.pieces.piece_size, 10 * 1024 * 1024);
      assert.deepEqual(f.pieces.md5, [hex('md5', data)]);
    }
    assert.equal(d.capabilities.recalculate.available, false, 'the .cas is not beside the files');
    const withData = await seedOk(h(), admin, 'parse', { path: multiCas.cas!.path, data_path: '/' });
    assert.deepEqual(withData.capabilities.recalculate, { available: true, path: '/A' });
    const byOss = await seedOk(h(), admin, 'parse', { path: multi.oss!.path });
    assert.equal(byOss.path, '/A.oss');
    assert.deepEqual(byOss.capabilities.recalculate, { available: true, path: '/A' });
  });

  test('single-file seeds in all three formats', async () => {
    for (const format of ['oss', 'torrent', 'cas'] as const) {
      const d = await seedOk(h(), admin, 'parse', { seed_data: single[format]!.seed_data, file_name: `one.${format}` });
      assert.equal(d.format, format);
      assert.equal(d.files.length, 1);
      const f = d.files[0];
      assert.equal(f.path, 'one.bin');
      assert.equal(f.size, ONE.length);
      assert.equal(f.hashes.md5, hex('md5', ONE));
      if (format !== 'cas') assert.equal(f.hashes.sha256, hex('sha256', ONE));
      assert.deepEqual(f.pieces.md5, [hex('md5', ONE)]);
      assert.equal(d.conversions.cas.feasible, true);
      assert.equal(d.conversions.torrent.feasible, format !== 'cas', `${format} → torrent`);
      if (format === 'cas') assert.ok(d.conversions.torrent.missing[0].needs.some((n: any) => n.algorithm === 'sha1'));
      assert.equal(d.info_hash === null, format !== 'torrent');
    }
    const byPath = await seedOk(h(), admin, 'parse', { path: single.torrent!.path });
    assert.deepEqual(byPath.capabilities.recalculate, { available: true, path: '/S' });
  });

  test('direct preview follows seed_single_direct_preview and seed_cas_direct_access', async () => {
    const off = await seedOk(h(), admin, 'parse', { path: single.oss!.path });
    assert.equal(off.direct_preview.available, false);
    assert.match(off.direct_preview.reason, /seed_single_direct_preview is off/);

    await setSettings(h(), admin, { seed_single_direct_preview: 'true' });
    const on = await seedOk(h(), admin, 'parse', { path: single.oss!.path });
    assert.equal(on.direct_preview.available, true);
    assert.equal(on.direct_preview.action, 'preview_file');
    assert.equal(on.direct_preview.stored_path, '/S/one.bin');
    await setSettings(h(), admin, { seed_single_direct_preview: 'false', seed_cas_direct_access: 'true' });

    // A .cas away from its file: the UI should rapid-upload it into the sidecar's folder.
    putRaw(filesDir(h()), 'C/one.cas', Buffer.from(single.cas!.seed_data, 'base64'));
    const cas = await seedOk(h(), admin, 'parse', { path: '/C/one.cas' });
    assert.equal(cas.direct_preview.cas_direct_access, true);
    assert.equal(cas.direct_preview.action, 'rapid_upload');
    assert.equal(cas.direct_preview.rapid_upload_to, '/C');
    assert.equal(cas.direct_preview.target_path, '/C/one.bin');
    // Beside its file: preview it straight away.
    const beside = await seedOk(h(), admin, 'parse', { path: single.cas!.path });
    assert.equal(beside.direct_preview.action, 'preview_file');
    // Not a .cas: the cas setting alone does not open it.
    const oss = await seedOk(h(), admin, 'parse', { path: single.oss!.path });
    assert.equal(oss.direct_preview.available, false);
    await setSettings(h(), admin, { seed_cas_direct_access: 'false' });
  });

  test('sources: usable on the site, refused elsewhere, a deleted share is no longer usable', async () => {
    await setSettings(h(), admin, { seed_site_url: 'https://ferry.example' });
    try {
      const g = await generateSeeds(h(), admin, { paths: ['/S/one.bin'], formats: ['oss'], share_files: ['/S/one.bin'], direct_files: ['/S/one.bin'], output_path: '/src' });
      const d = await seedOk(h(), admin, 'parse', { seed_data: g.oss!.seed_data });
      const sources = d.files[0].sources;
      assert.equal(sources.length, 2);
      assert.ok(sources.every((s: any) => s.usable), JSON.stringify(sources));
      const share = sources.find((s: any) => s.type === 'openlist-share');
      assert.match(share.url, /^https:\/\/ferry\.example\/sd\//);
      assert.ok(share.share_id);
      assert.deepEqual(d.capabilities.offline_download, { available: true });
      assert.deepEqual(d.capabilities.transfer, { available: true });

      const del = await h().post(`/api/share/delete?id=${encodeURIComponent(share.share_id)}`, undefined, { token: admin });
      assert.equal(del.status, 200, del.body.message);
      const after = await seedOk(h(), admin, 'parse', { seed_data: g.oss!.seed_data });
      const gone = after.files[0].sources.find((s: any) => s.type === 'openlist-share');
      assert.equal(gone.usable, false);
      assert.match(gone.reason, /share no longer exists/);
      assert.ok(after.files[0].sources.find((s: any) => s.type === 'openlist-direct').usable);

      const seed = JSON.parse(Buffer.from(g.oss!.seed_data, 'base64').toString());
      seed.files[0].sources = [
        { type: 'openlist-direct', url: 'https://evil.example/d/one.bin' },
        { type: 'openlist-direct', url: 'https://ferry.example/d/one.bin', expires_at: '2000-01-01T00:00:00Z' },
        { type: 'openlist-share', url: 'https://ferry.example/d/one.bin' },
      ];
      const foreign = await seedOk(h(), admin, 'parse', { seed_data: b64(JSON.stringify(seed)) });
      const [evil, expired, prefix] = foreign.files[0].sources;
      assert.equal(evil.usable, false);
      assert.match(evil.reason, /evil\.example/);
      assert.equal(expired.usable, false);
      assert.match(expired.reason, /expired/);
      assert.equal(expired.expires, '2000-01-01T00:00:00.000+00:00');
      assert.equal(prefix.usable, false);
      assert.match(prefix.reason, /\/sd\//);
      assert.equal(foreign.capabilities.offline_download.available, false);
      assert.match(foreign.capabilities.offline_download.reason, /no usable source/);
    } finally {
      await setSettings(h(), admin, { seed_site_url: '' });
    }
  });

  test('parse by path honours the base path and leaks nothing', async () => {
    for (const p of ['/u1', '/secret']) assert.equal((await h().post('/api/fs/mkdir', { path: p }, { token: admin })).status, 200);
    putRaw(filesDir(h()), 'u1/own.oss', Buffer.from(single.oss!.seed_data, 'base64'));
    putRaw(filesDir(h()), 'secret/hidden.oss', Buffer.from(multi.oss!.seed_data, 'base64'));
    await h().createUser('u1', 'u1-password', { base_path: '/u1', permission: 0 });
    const u1 = await h().login('u1', 'u1-password');

    const own = await seedOk(h(), u1, 'parse', { path: '/own.oss' });
    assert.equal(own.path, '/own.oss');
    assert.equal(own.capabilities.rapid_upload.available, false, 'no write permission');
    assert.match(own.capabilities.rapid_upload.reason, /write permission/);

    const up = await seedError(h(), u1, 'parse', { path: '/../secret/hidden.oss' }, 403, /relative path/);
    assert.doesNotMatch(JSON.stringify(up.body), /a\.bin|line one|secret/);
    const inside = await seedError(h(), u1, 'parse', { path: '/secret/hidden.oss' }, 404, /not found/);
    assert.doesNotMatch(JSON.stringify(inside.body), /a\.bin|line one/);
    await seedError(h(), u1, 'parse', { path: '/' }, 400, /folder/);
    // The guest (disabled) cannot parse anything.
    const guest = await h().post('/api/fs/seed/parse', { path: '/own.oss' });
    assert.equal(guest.status, 401);
  });
});
