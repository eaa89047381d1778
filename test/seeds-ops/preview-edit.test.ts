/**
 * `convert` (every feasible pair, saved through the storage), `update` (each field, remove_files,
 * recalculate against coreutils and mktorrent), `update_channels`, and the seed mode of
 * `capabilities`; refusals change nothing.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { run } from '../support/commands.js';
import { signPath } from '../../src/modules/fs/sign.js';
import { forEachDialect, requireCommand } from '../support/harness.js';
import {
  ALL_SIX,
  b64,
  bytes,
  coreutils,
  filesDir,
  generateSeeds,
  hex,
  infoHashOf,
  mktorrentInfoHash,
  putIndexed,
  putRaw,
  seedError,
  seedOk,
  seedOp,
  setSettings,
  type Artifact,
} from './helpers.js';

const FORMATS = ['oss', 'torrent', 'cas'] as const;
const ONE = bytes(70_000, 11);
const X = bytes(50_000, 12);
const Y = bytes(3_000, 13);

/** coreutils' digest of each `size`-byte piece of a host file (`split` + `md5sum`/`sha256sum`). */
function coreutilsPieces(algo: 'md5' | 'sha1' | 'sha256', file: string, size: number, work: string): string[] {
  const dir = mkdtempSync(join(work, 'split-'));
  run('split', ['-b', String(size), '-d', '-a', '4', file, join(dir, 'p')]);
  return readdirSync(dir).sort().map((p) => coreutils(algo, join(dir, p)));
}

forEachDialect('seed convert, update, update_channels', (h) => {
  let admin: string;
  let single: Record<string, Artifact>;
  let multi: Record<string, Artifact>;
  let work: string;
  const disk = (p: string) => join(filesDir(h()), p);

  before(async () => {
    admin = await h().adminToken();
    work = mkdtempSync(join(tmpdir(), 'ferry-seededit-'));
    putRaw(filesDir(h()), 'S/one.bin', ONE);
    putRaw(filesDir(h()), 'R/x.bin', X);
    putRaw(filesDir(h()), 'R/sub/y.bin', Y);
    single = await generateSeeds(h(), admin, { paths: ['/S/one.bin'], formats: [...FORMATS], hash_matrix: ALL_SIX, comment: 'c1' });
    multi = await generateSeeds(h(), admin, { paths: ['/R'], formats: ['oss', 'torrent'], piece_size: 16384, hash_matrix: ALL_SIX });
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  test('convert: every feasible pair, saved atomically at path; infeasible pairs name what is missing', async () => {
    for (const from of FORMATS) {
      for (const to of FORMATS) {
        const target = `/conv/${from}-to.${to}`;
        const r = await seedOp(h(), admin, 'convert', { seed_data: single[from]!.seed_data, file_name: `one.${from}`, target_format: to, path: target });
        if (from === 'cas' && to === 'torrent') {
          assert.equal(r.status, 400, r.body.message);
          assert.match(r.body.message, /one\.bin: /);
          assert.ok(r.body.data.missing[0].needs.some((n: any) => n.algorithm === 'sha1'));
          assert.equal(existsSync(disk(target.slice(1))), false, 'nothing written');
          continue;
        }
        assert.equal(r.status, 200, `${from}→${to}: ${r.body.message}`);
        assert.equal(r.body.data.format, to);
        assert.match(r.body.data.file_name, new RegExp(`^one(\\.bin)?\\.${to}$`));
        assert.equal(r.body.data.path, target);
        assert.equal(readFileSync(disk(target.slice(1))).toString('base64'), r.body.data.seed_data);
        const back = await seedOk(h(), admin, 'parse', { path: target });
        assert.equal(back.format, to);
        assert.equal(back.files[0].hashes.md5, hex('md5', ONE));
        if (to === 'torrent') assert.equal(back.info_hash, infoHashOf(Buffer.from(single.torrent!.seed_data, 'base64')), `${from}→torrent keeps the info hash`);
      }
    }
    // Multi-file torrent → torrent keeps the info hash (the piece stream is reused); → oss cannot go back.
    const tt = await seedOk(h(), admin, 'convert', { seed_data: multi.torrent!.seed_data, target_format: 'torrent' });
    assert.equal(infoHashOf(Buffer.from(tt.seed_data, 'base64')), infoHashOf(Buffer.from(multi.torrent!.seed_data, 'base64')));
    await seedError(h(), admin, 'convert', { seed_data: multi.oss!.seed_data, target_format: 'torrent' }, 400, /piece size/);
    // From a stored sidecar, into a folder.
    const byPath = await seedOk(h(), admin, 'convert', { path: single.oss!.path, format: 'cas', output_path: '/conv' });
    assert.equal(byPath.path, '/conv/one.cas');
    await seedError(h(), admin, 'convert', { seed_data: single.oss!.seed_data }, 400, /target format is required/);
  });

  test('convert: overwrite false and missing write permission change nothing', async () => {
    const before = readFileSync(disk('conv/oss-to.cas'));
    await seedError(h(), admin, 'convert', { seed_data: single.torrent!.seed_data, target_format: 'cas', path: '/conv/oss-to.cas', overwrite: false }, 403, /file exists/);
    assert.deepEqual(readFileSync(disk('conv/oss-to.cas')), before);
    await h().createUser('reader', 'reader-password', { base_path: '/', permission: 0 });
    const reader = await h().login('reader', 'reader-password');
    await seedError(h(), reader, 'convert', { seed_data: single.oss!.seed_data, target_format: 'oss', path: '/conv/reader.oss' }, 403, /write permission/);
    await seedError(h(), reader, 'update', { seed_data: single.oss!.seed_data, comment: 'x', output_path: '/conv/reader.oss' }, 403, /write permission/);
    assert.equal(existsSync(disk('conv/reader.oss')), false);
    const noSave = await seedOk(h(), reader, 'convert', { seed_data: single.oss!.seed_data, target_format: 'torrent' });
    assert.equal(noSave.path, undefined);
  });

  test('update: comment, trackers, channels, per-file comments and sources; saved with output_path', async () => {
    await setSettings(h(), admin, { seed_site_url: 'https://ferry.example' });
    try {
      // a direct link of this site must carry a valid signature of its path while sign_all is on (the default)
      const unsigned = { type: 'openlist-direct', url: 'https://ferry.example/d/R/x.bin' };
      await seedError(h(), admin, 'update', { seed_data: multi.oss!.seed_data, files: [{ path: 'x.bin', sources: [unsigned] }] }, 400, /^files\[0\]\.sources\[0\]: .*sign_all/);
      const signed = `https://ferry.example/d/R/x.bin?sign=${encodeURIComponent(signPath(await h().ctx.settings.get('token'), '/R/x.bin', 0))}`;
      const d = await seedOk(h(), admin, 'update', {
        seed_data: multi.oss!.seed_data,
        comment: '  first line\nsecond line  ',
        trackers: ['https://t1.example/announce', 'udp://t2.example:6969'],
        channels: [{ driver: 'local', mount_path: '/' }],
        files: [{ path: 'x.bin', comment: 'about x', sources: [{ type: 'openlist-direct', url: signed }] }],
        file_comments: { 'sub/y.bin': 'about y' },
        output_path: '/edited',
      });
      assert.equal(d.format, 'oss');
      assert.equal(d.comment, 'first line\nsecond line');
      assert.deepEqual(d.trackers, ['https://t1.example/announce', 'udp://t2.example:6969']);
      assert.deepEqual(d.channels, [{ driver: 'local', mount_path: '/' }]);
      const x = d.files.find((f: any) => f.path === 'x.bin');
      assert.equal(x.comment, 'about x');
      assert.equal(x.sources[0].usable, true);
      assert.equal(d.files.find((f: any) => f.path === 'sub/y.bin').comment, 'about y');
      assert.equal(d.path, '/edited/R.oss');
      assert.equal(d.saved, true);
      const saved = JSON.parse(readFileSync(disk('edited/R.oss'), 'utf8'));
      assert.equal(saved.comment, 'first line\nsecond line');
      assert.equal(Buffer.from(d.seed_data, 'base64').toString(), readFileSync(disk('edited/R.oss'), 'utf8'));

      // The same edits on the torrent keep its info hash (only metadata outside info changed).
      const t = await seedOk(h(), admin, 'update', { seed_data: multi.torrent!.seed_data, comment: 'new', trackers: [] });
      assert.equal(t.info_hash, infoHashOf(Buffer.from(multi.torrent!.seed_data, 'base64')));
      assert.deepEqual(t.trackers, []);
      // Writing a .cas drops what it cannot carry, and says so.
      const c = await seedOk(h(), admin, 'update', { seed_data: single.oss!.seed_data, comment: 'kept?', format: 'cas' });
      assert.equal(c.format, 'cas');
      assert.ok(c.dropped.some((m: string) => /comments/.test(m)), JSON.stringify(c.dropped));

      const bad: [unknown, RegExp][] = [
        [{ trackers: ['ftp://x.example/'] }, /^trackers\[0\]: .*scheme ftp/],
        [{ files: [{ path: 'nope.bin', comment: 'x' }] }, /^files\[0\]\.path: "nope\.bin" is not a file/],
        [{ files: [{ path: 'x.bin', sources: [{ type: 'openlist-direct', url: 'https://evil.example/d/x' }] }] }, /^files\[0\]\.sources\[0\]: host/],
        [{ files: [{ path: 'x.bin', sources: [{ type: 'ftp', url: 'https://ferry.example/d/x' }] }] }, /openlist-direct or openlist-share/],
        [{ files: [{ path: 'x.bin', sources: [{ type: 'openlist-share', url: 'https://ferry.example/d/x' }] }] }, /\/sd\//],
        [{ channels: [{ driver: '  ' }] }, /channels\[0\]\.driver/],
        [{ comment: 5 }, /comment/],
      ];
      for (const [edit, re] of bad) await seedError(h(), admin, 'update', { seed_data: multi.oss!.seed_data, output_path: '/edited/bad', ...(edit as object) }, 400, re);
      assert.equal(existsSync(disk('edited/bad')), false, 'a refused edit writes nothing');
    } finally {
      await setSettings(h(), admin, { seed_site_url: '' });
    }
  });

  test('update: remove_files, never all of them', async () => {
    const d = await seedOk(h(), admin, 'update', { seed_data: multi.oss!.seed_data, remove_files: ['sub/y.bin'] });
    assert.deepEqual(d.files.map((f: any) => f.path), ['x.bin']);
    assert.deepEqual(d.removed, ['sub/y.bin']);
    assert.equal(d.total_size, X.length);
    await seedError(h(), admin, 'update', { seed_data: multi.oss!.seed_data, remove_files: ['x.bin', 'sub/y.bin'] }, 400, /cannot remove all files from a seed/);
    await seedError(h(), admin, 'update', { seed_data: multi.oss!.seed_data, remove_files: ['', ' '] }, 400, /at least one non-empty path/);
    await seedError(h(), admin, 'update', { seed_data: multi.oss!.seed_data, remove_files: ['zzz'] }, 400, /"zzz" is not a file of this seed/);
    await seedError(h(), admin, 'update', { seed_data: single.cas!.seed_data, remove_files: ['one.bin'] }, 400, /cannot remove all/);
    // A plain torrent's files are not piece-aligned: without one of them its piece stream no longer applies.
    const demo = b64(readFileSync(new URL('../fixtures/seeds/demo.mktorrent.torrent', import.meta.url)));
    await seedError(h(), admin, 'update', { seed_data: demo, remove_files: ['sub/b.txt'] }, 400, /cannot write this seed as \.torrent/);
    // Ferry's torrent carries per-file SHA-1 pieces: any file left alone is still a torrent.
    const t = await seedOk(h(), admin, 'update', { seed_data: multi.torrent!.seed_data, remove_files: ['x.bin'] });
    assert.deepEqual(t.files.map((f: any) => f.path), ['sub/y.bin']);
    const o = await seedOk(h(), admin, 'update', { seed_data: demo, remove_files: ['sub/b.txt'], format: 'oss' });
    assert.equal(o.format, 'oss');
  });

  test('update: recalculate with a new matrix and piece size equals coreutils (and mktorrent)', async () => {
    requireCommand('mktorrent', 'mktorrent');
    // The content changed since the seed was made.
    const x2 = bytes(60_001, 21);
    writeFileSync(disk('R/x.bin'), x2);
    const matrix = { md5: { whole: true, pieces: true }, sha256: { whole: true, pieces: true } };
    const d = await seedOk(h(), admin, 'update', { path: multi.oss!.path, recalculate: { path: '/R', hash_matrix: matrix, piece_size: 32768 } });
    assert.deepEqual(d.recalculated, { path: '/R', bytes_read: x2.length + Y.length });
    assert.equal(d.piece_size, 32768);
    for (const f of d.files) {
      const host = disk(`R/${f.path}`);
      assert.equal(f.size, readFileSync(host).length);
      assert.equal(f.hashes.md5, coreutils('md5', host));
      assert.equal(f.hashes.sha256, coreutils('sha256', host));
      assert.equal(f.hashes.sha1, undefined, 'sha1 was not selected');
      assert.deepEqual(f.pieces.md5, coreutilsPieces('md5', host, 32768, work));
      assert.deepEqual(f.pieces.sha256, coreutilsPieces('sha256', host, 32768, work));
    }
    // Recalculated into a torrent at 32 KiB: the info hash is mktorrent's for the same folder.
    const t = await seedOk(h(), admin, 'update', { seed_data: multi.torrent!.seed_data, recalculate: { path: '/', piece_size: 32768 }, output_path: '/recalc' });
    assert.equal(t.info_hash, mktorrentInfoHash(disk('R'), 15, work));
    assert.equal(t.path, '/recalc/R.torrent');
    const x = t.files.find((f: any) => f.path === 'x.bin');
    assert.equal(x.hashes.sha1, coreutils('sha1', disk('R/x.bin')));
    // A .cas forces 10 MiB slices.
    const c = await seedOk(h(), admin, 'update', { seed_data: single.cas!.seed_data, recalculate: { path: '/S/one.bin', piece_size: 16384 } });
    assert.equal(c.piece_size, 10 * 1024 * 1024);
    assert.equal(c.files[0].hashes.md5, coreutils('md5', disk('S/one.bin')));

    await seedError(h(), admin, 'update', { seed_data: multi.oss!.seed_data, recalculate: { path: '/nowhere' } }, 400, /^recalculate\.path: \/nowhere does not exist/);
    await seedError(h(), admin, 'update', { seed_data: multi.oss!.seed_data, recalculate: { path: '/S/one.bin' } }, 400, /is a file, but the seed has 2 files/);
    await seedError(h(), admin, 'update', { seed_data: multi.oss!.seed_data, recalculate: { path: '/R', piece_size: 1000 } }, 400, /piece_size/);
    await seedError(h(), admin, 'update', { seed_data: multi.oss!.seed_data, recalculate: { path: '/R', hash_matrix: { crc: {} } } }, 400, /hash_matrix\.crc/);
    rmSync(disk('R/sub/y.bin'));
    try {
      await seedError(h(), admin, 'update', { seed_data: multi.oss!.seed_data, recalculate: { path: '/R' } }, 400, /sub\/y\.bin is not readable/);
    } finally {
      writeFileSync(disk('R/sub/y.bin'), Y);
    }
  });

  test('update_channels: channels and missing channels, re-encoded in the seed’s format', async () => {
    const d = await seedOk(h(), admin, 'update_channels', {
      seed_data: multi.torrent!.seed_data,
      channels: [{ driver: 'local', mount_path: '/' }, { driver: 's3', mount_path: '/s3' }],
      missing_channels: { 'x.bin': ['s3'] },
    });
    assert.equal(d.format, 'torrent');
    assert.equal(d.info_hash, infoHashOf(Buffer.from(multi.torrent!.seed_data, 'base64')));
    assert.deepEqual(d.channels, [{ driver: 'local', mount_path: '/' }, { driver: 's3', mount_path: '/s3' }]);
    assert.deepEqual(d.missing_channels, ['s3']);
    assert.deepEqual(d.files.find((f: any) => f.path === 'x.bin').missing_channels, ['s3']);
    const all = await seedOk(h(), admin, 'update_channels', { seed_data: d.seed_data, missing_channels: ['ftpd'] });
    assert.ok(all.files.every((f: any) => f.missing_channels.join() === 'ftpd'));
    assert.deepEqual(all.channels, d.channels, 'channels untouched when absent');
    await seedError(h(), admin, 'update_channels', { seed_data: d.seed_data, missing_channels: ['a/b'] }, 400, /missing_channels/);
    await seedError(h(), admin, 'update_channels', { seed_data: d.seed_data, missing_channels: { 'nope': ['x'] } }, 400, /not a file of this seed/);
    await seedError(h(), admin, 'update_channels', { seed_data: d.seed_data, channels: [{ driver: 'x', mount_path: '/a?b' }] }, 400, /mount_path/);
  });

  test('capabilities with seed_data plans a destination; with paths it stays the wizard preflight', async () => {
    assert.equal((await h().post('/api/fs/mkdir', { path: '/dest' }, { token: admin })).status, 200);
    await putIndexed(h(), '/P/copy.bin', ONE);
    const plan = await seedOk(h(), admin, 'capabilities', { seed_data: single.oss!.seed_data, path: '/dest' });
    assert.equal(plan.path, '/dest');
    assert.equal(plan.driver, 'local');
    assert.equal(plan.resolved_policy, 'off');
    assert.equal(plan.files.length, 1);
    assert.equal(plan.files[0].method, 'rapid_upload');
    assert.equal(plan.files[0].target, '/dest/one.bin');
    assert.ok(['/P/copy.bin', '/S/one.bin'].includes(plan.files[0].found_at), plan.files[0].found_at);
    const nowhere = JSON.parse(Buffer.from(single.oss!.seed_data, 'base64').toString());
    nowhere.files[0].hashes = { md5: 'ab'.repeat(16) };
    const none = await seedOk(h(), admin, 'capabilities', { seed_data: b64(JSON.stringify(nowhere)), path: '/dest', policy: 'on' });
    assert.equal(none.resolved_policy, 'on');
    assert.equal(none.files[0].method, 'unavailable');
    assert.match(none.files[0].reason, /no stored file you can read has this content, and no usable source/);
    const torrentOnly = readFileSync(new URL('../fixtures/seeds/demo.mktorrent.torrent', import.meta.url));
    const plain = await seedOk(h(), admin, 'capabilities', { seed_data: b64(torrentOnly), path: '/dest' });
    assert.ok(plain.files.every((f: any) => f.method === 'unavailable' && /no whole-file hash/.test(f.reason)), JSON.stringify(plain.files));
    await seedError(h(), admin, 'capabilities', { seed_data: multi.oss!.seed_data, path: '/dest', policy: 'bogus' }, 400, /policy must be off, on, or inherit/);
    await seedError(h(), admin, 'capabilities', { seed_data: multi.oss!.seed_data, path: '/S/one.bin' }, 400, /not a folder/);
    await seedError(h(), admin, 'capabilities', { seed_data: '***', path: '/dest' }, 400, /base64/);
    const pre = await seedOk(h(), admin, 'capabilities', { paths: ['/S/one.bin'] });
    assert.equal(pre.files[0].path, '/S/one.bin');
    await seedError(h(), admin, 'capabilities', { paths: [] }, 400, /paths: at least one path/);
  });
});
