/**
 * Parse of seeds Ferry did not make — a live `mktorrent` torrent, the fixture torrents, the
 * reference vectors (seed-formats.md §2.1, §4.1, Appendix A) — the multipart and legacy
 * routes, `diagnose`, and hostile inputs (every one a clean 400, never a 500).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { encodeBencode } from '../../src/modules/seeds/formats/index.js';
import { fixture, helloSeed } from '../fixtures/seeds/helpers.js';
import { run } from '../support/commands.js';
import { Harness, requireCommand } from '../support/harness.js';
import { b64, bytes, hex, infoHashOf, postMultipart, seedError, seedOk, seedOp, transmissionHash } from './helpers.js';

const MiB = 1024 * 1024;
const CAS_FULL =
  'eyJuYW1lIjoiaGVsbG8udHh0Iiwic2l6ZSI6MywibWQ1IjoiOTAwMTUwOTgzQ0QyNEZCMEQ2OTYzRjdEMjhFMTdGNzIiLCJzbGljZU1kNSI6IjkwMDE1MDk4M0NEMjRGQjBENjk2M0Y3RDI4RTE3RjcyIiwiY3JlYXRlX3RpbWUiOiIxNzY3MjI1NjAwIiwic2xpY2VfbWQ1cyI6WyI5MDAxNTA5ODNDRDI0RkIwRDY5NjNGN0QyOEUxN0Y3MiJdLCJzbGljZV9zaXplIjoxMDQ4NTc2MH0=';
const CAS_LEGACY =
  'eyJuYW1lIjoiaGVsbG8udHh0Iiwic2l6ZSI6MywibWQ1IjoiOTAwMTUwOTgzQ0QyNEZCMEQ2OTYzRjdEMjhFMTdGNzIiLCJzbGljZU1kNSI6IjkwMDE1MDk4M0NEMjRGQjBENjk2M0Y3RDI4RTE3RjcyIiwiY3JlYXRlX3RpbWUiOiIxNzY3MjI1NjAwIn0=';
const ABC_MD5 = '900150983cd24fb0d6963f7d28e17f72';

const h = new Harness('sqlite');
let admin: string;
let work: string;

before(async () => {
  await h.start();
  admin = await h.adminToken();
  work = mkdtempSync(join(tmpdir(), 'ferry-seedops-'));
});
after(async () => {
  await h.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('seeds from other tools and the reference', () => {
  test('a plain mktorrent torrent (multi-file, unaligned)', async () => {
    requireCommand('mktorrent', 'mktorrent');
    requireCommand('transmission-show', 'transmission-cli');
    const dir = join(work, 'pack');
    mkdirSync(join(dir, 'sub'), { recursive: true });
    const a = bytes(40_000, 7);
    const b = bytes(5_000, 8);
    writeFileSync(join(dir, 'a.bin'), a);
    writeFileSync(join(dir, 'sub', 'b.bin'), b);
    const out = join(work, 'pack.torrent');
    run('mktorrent', ['-l', '15', '-a', 'https://tracker.example.org/announce', '-c', 'made by mktorrent', '-o', out, dir]);
    const torrent = readFileSync(out);

    const d = await seedOk(h, admin, 'parse', { seed_data: b64(torrent) });
    assert.equal(d.format, 'torrent');
    assert.equal(d.info_hash, transmissionHash(out));
    assert.equal(d.info_hash, infoHashOf(torrent));
    assert.equal(d.name, 'pack');
    assert.equal(d.comment, 'made by mktorrent');
    assert.deepEqual(d.trackers, ['https://tracker.example.org/announce']);
    assert.deepEqual(d.files.map((f: any) => [f.path, f.size]), [['a.bin', a.length], ['sub/b.bin', b.length]]);
    assert.equal(d.torrent_pieces.piece_size, 32 * 1024);
    assert.deepEqual(d.torrent_pieces.sha1, [hex('sha1', a.subarray(0, 32768)), hex('sha1', Buffer.concat([a.subarray(32768), b]))]);
    assert.equal(d.conversions.torrent.feasible, true);
    assert.equal(d.conversions.oss.feasible, true);
    assert.equal(d.conversions.cas.feasible, false);
    assert.deepEqual(d.conversions.cas.missing.map((m: any) => m.file).sort(), ['a.bin', 'sub/b.bin']);
    assert.equal(d.capabilities.rapid_upload.available, false);
    assert.match(d.capabilities.rapid_upload.reason, /no whole-file hash/);
    assert.match(d.capabilities.convert.reason ?? '', /^$/);
    assert.ok(d.diagnostics.some((x: any) => x.code === 'cas.missing_hashes'));

    const diag = await seedOk(h, admin, 'diagnose', { seed_data: b64(torrent) });
    assert.equal(diag.format, 'torrent');
    assert.deepEqual(diag.oss, []);
    assert.equal(diag.cas.length, 2);
    assert.ok(diag.cas.every((s: string) => /needs the whole-file MD5/.test(s)), JSON.stringify(diag.cas));
  });

  test('the fixture torrents keep their info hashes', async () => {
    const expected: Record<string, string> = {
      'hello.mktorrent.torrent': '6ab7ab26bf8f9e737aa70f35605582cbbf47037e',
      'demo.mktorrent.torrent': '4c363041c22d272363f57a5d5d1e1d5e6a0e188b',
      'aligned.mktorrent.torrent': 'a5d18910f3c6f366ad875098ec661459645abcd9',
      'order.mktorrent.torrent': '1ff11cfcdeef9bdd8df5118a2987b41c01d5ba2f',
      'hello.transmission.torrent': '96e00a861fc6c54f8c0b023f99abe6eb612eca75',
    };
    for (const [name, hash] of Object.entries(expected)) {
      const d = await seedOk(h, admin, 'parse', { seed_data: b64(fixture(name)), file_name: name });
      assert.equal(d.info_hash, hash, name);
    }
    const order = await seedOk(h, admin, 'parse', { seed_data: b64(fixture('order.mktorrent.torrent')) });
    assert.deepEqual(order.files.map((f: any) => f.path), ['B/x', 'Z', 'a-c', 'a/b', 'empty', 'é']);
    const aligned = await seedOk(h, admin, 'parse', { seed_data: b64(fixture('aligned.mktorrent.torrent')) });
    const one = readFileSync(new URL('../fixtures/seeds/content/aligned/1.bin', import.meta.url));
    assert.deepEqual(aligned.files[0].pieces.sha1, [hex('sha1', one)], 'aligned files get per-file SHA-1 pieces');
  });

  test('reference vectors: §2.1 .oss, §4.1 .cas (full, legacy, raw JSON), Appendix A torrent info hash', async () => {
    const oss = await seedOk(h, admin, 'parse', { seed_data: b64(JSON.stringify(helloSeed())) });
    assert.equal(oss.format, 'oss');
    assert.equal(oss.files[0].hashes.md5, ABC_MD5);
    assert.deepEqual(oss.channels, [{ driver: 'Local', mount_path: '/local' }]);
    assert.equal(oss.files[0].sources[0].usable, false);
    assert.match(oss.files[0].sources[0].reason, /pan\.example\.com/);
    for (const cas of [CAS_FULL, CAS_LEGACY, Buffer.from(CAS_LEGACY, 'base64').toString()]) {
      const d = await seedOk(h, admin, 'parse', { seed_data: b64(cas) });
      assert.equal(d.format, 'cas');
      assert.equal(d.files[0].path, 'hello.txt');
      assert.equal(d.files[0].size, 3);
      assert.equal(d.files[0].hashes.md5, ABC_MD5);
      assert.equal(d.files[0].cas.create_time, '1767225600');
      assert.deepEqual(d.capabilities.rapid_upload, { available: true }, 'MD5-only seeds can rapid-upload');
    }
    const info = { length: 3, md5sum: ABC_MD5, name: 'hello.txt', 'piece length': 10 * MiB, pieces: createHash('sha1').update('abc').digest() };
    const t = await seedOk(h, admin, 'parse', { seed_data: b64(encodeBencode({ info })) });
    assert.equal(t.info_hash, '23be515fe97cab7538ced296590fc1fe985bd13a');
    assert.equal(t.files[0].size, 3);
  });
});

describe('multipart and legacy routes', () => {
  const torrent = () => fixture('hello.mktorrent.torrent');

  test('upload_parse (field seed) at /api and at the root, with detection by content', async () => {
    for (const url of ['/api/fs/seed/upload_parse', '/fs/seed/upload_parse']) {
      const r = await postMultipart(h, admin, url, [{ field: 'seed', filename: 'blob', data: torrent() }]);
      assert.equal(r.status, 200, r.body.message);
      assert.equal(r.body.data.format, 'torrent');
      assert.equal(r.body.data.info_hash, '6ab7ab26bf8f9e737aa70f35605582cbbf47037e');
      assert.equal(r.body.data.seed_data, b64(torrent()));
      assert.equal(r.body.data.file_name, 'blob');
    }
    const cas = await postMultipart(h, admin, '/api/fs/seed/upload_parse', [{ field: 'format', value: 'cas' }, { field: 'seed', filename: 'x', data: Buffer.from(CAS_FULL) }]);
    assert.equal(cas.status, 200, cas.body.message);
    assert.equal(cas.body.data.format, 'cas');
  });

  test('upload_parse refusals: missing field, not multipart, empty, over 10 MiB, garbage', async () => {
    const noField = await postMultipart(h, admin, '/api/fs/seed/upload_parse', [{ field: 'other', filename: 'x.torrent', data: torrent() }]);
    assert.equal(noField.status, 400);
    assert.match(noField.body.message, /"seed"/);
    const json = await seedOp(h, admin, 'upload_parse', { seed_data: b64(torrent()) });
    assert.equal(json.status, 400);
    assert.match(json.body.message, /multipart/);
    const empty = await postMultipart(h, admin, '/api/fs/seed/upload_parse', [{ field: 'seed', filename: 'x.oss', data: Buffer.alloc(0) }]);
    assert.equal(empty.status, 400);
    const big = await postMultipart(h, admin, '/api/fs/seed/upload_parse', [{ field: 'seed', filename: 'x.oss', data: Buffer.alloc(10 * MiB + 1, 0x20) }]);
    assert.equal(big.status, 400);
    assert.match(big.body.message, /larger than/);
    const junk = await postMultipart(h, admin, '/api/fs/seed/upload_parse', [{ field: 'seed', filename: 'x.torrent', data: Buffer.from('d4:infoi1e') }]);
    assert.equal(junk.status, 400);
    assert.match(junk.body.message, /^seed: /);
  });

  test('legacy /api/fs/torrent/parse and /upload_parse', async () => {
    const d = await seedOk(h, admin, '/api/fs/torrent/parse', { torrent_data: b64(torrent()) });
    assert.equal(d.info_hash, '6ab7ab26bf8f9e737aa70f35605582cbbf47037e');
    assert.equal(d.piece_length, 32768);
    assert.equal(d.piece_count, 1);
    assert.equal(d.has_cas, false);
    assert.deepEqual(d.files.map((f: any) => [f.path, f.size]), [['hello.txt', 3]]);

    const withCas = await seedOk(h, admin, '/fs/torrent/parse', { seed_data: b64(JSON.stringify(helloSeed())) });
    assert.equal(withCas.has_cas, true);
    assert.deepEqual(withCas.cas, { file_md5: ABC_MD5.toUpperCase(), slice_md5: ABC_MD5.toUpperCase(), slice_size: 10 * MiB, cloud: '189' });

    const r = await postMultipart(h, admin, '/api/fs/torrent/upload_parse', [{ field: 'torrent', filename: 'hello.torrent', data: torrent() }]);
    assert.equal(r.status, 200, r.body.message);
    assert.equal(r.body.data.info.info_hash, '6ab7ab26bf8f9e737aa70f35605582cbbf47037e');
    assert.equal(r.body.data.torrent_data, b64(torrent()));
  });
});

describe('hostile inputs are clean 400s', () => {
  const manyFiles = (n: number) =>
    JSON.stringify({ ...helloSeed(), files: Array.from({ length: n }, (_, i) => ({ path: `f${i}`, size: 0, hashes: {} })) });
  const cases: [string, unknown, RegExp][] = [
    ['no input', {}, /seed_data or path is required/],
    ['empty seed_data', { seed_data: '   ' }, /seed_data or path is required/],
    ['not base64', { seed_data: 'not base64!!' }, /^seed_data: not valid base64/],
    ['one stray character', { seed_data: 'QUJDR' }, /^seed_data: not valid base64/],
    ['garbage bytes', { seed_data: b64(bytes(4096, 9)) }, /^seed_data: /],
    ['truncated bencode', { seed_data: b64(fixture('demo.mktorrent.torrent').subarray(0, 200)) }, /^seed_data: /],
    ['deep nesting', { seed_data: b64('d1:x' + 'l'.repeat(100_000) + 'e'.repeat(100_001)) }, /^seed_data: .*(depth|nest)/i],
    ['deep nesting named .torrent', { seed_data: b64('l'.repeat(100_000) + 'e'.repeat(100_000)), file_name: 'x.torrent' }, /^seed_data: .*(depth|nest)/i],
    ['huge integer', { seed_data: b64('d4:infod6:lengthi99999999999999999999999eee') }, /^seed_data: /],
    ['too many files', { seed_data: b64(manyFiles(100_001)) }, /too many files/],
    ['unsafe path', { seed_data: b64(JSON.stringify({ ...helloSeed(), files: [{ ...helloSeed().files[0], path: '../x' }] })) }, /unsafe path/],
    ['json that is no seed', { seed_data: b64('{"hello": 1}') }, /^seed_data: /],
    ['oss read as torrent', { seed_data: b64(JSON.stringify(helloSeed())), format: 'torrent' }, /^seed_data: /],
    ['unknown format', { seed_data: b64(JSON.stringify(helloSeed())), format: 'zip' }, /^format: .*unknown seed format/],
    ['seed_data of the wrong type', { seed_data: 42 }, /seed_data must be string/],
    ['over 14 MiB of base64', { seed_data: 'A'.repeat(14 * MiB + 4) }, /too large/],
    ['decodes to over 10 MiB', { seed_data: b64(Buffer.concat([Buffer.from('d'), Buffer.alloc(10 * MiB, 0x30)])) }, /^seed_data: /],
    ['path with NUL', { path: '/a\u0000.oss' }, /relative path/],
  ];
  for (const [name, body, re] of cases) {
    test(name, async () => {
      const r = await seedOp(h, admin, 'parse', body);
      assert.ok(r.status === 400 || (name === 'path with NUL' && r.status === 403), `${name}: ${r.status} ${r.body.message}`);
      assert.equal(r.body.code, r.status);
      assert.match(r.body.message, re);
    });
  }

  test('the same refusals on the other operations', async () => {
    for (const op of ['diagnose', 'convert', 'update', 'update_channels']) {
      await seedError(h, admin, op, { seed_data: b64('l'.repeat(5_000)), target_format: 'oss' }, 400, /^seed_data: /);
      await seedError(h, admin, op, { seed_data: '%%%%', target_format: 'oss' }, 400, /^seed_data: not valid base64/);
    }
  });
});
