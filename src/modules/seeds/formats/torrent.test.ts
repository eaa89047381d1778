import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { ABC, MiB, exampleSeed, fixture, hashBytes, helloSeed, pieceStream, seedError } from '../../../../test/fixtures/seeds/helpers.js';
import { decodeBencode, encodeBencode } from './bencode.js';
import type { BencodeDict } from './bencode.js';
import { canonicalizeSeed, createSeed } from './model.js';
import type { Seed, SeedFile } from './model.js';
import { decodeTorrent, encodeTorrent, isPieceAligned, torrentFileOrder, torrentPiecesFromSeed } from './torrent.js';

const KiB32 = 32768;
const NOW = new Date(Date.UTC(2026, 10, 21, 10, 0, 0));
const sha1 = (b: Uint8Array | string) => createHash('sha1').update(b).digest('hex');
const root = (t: Buffer) => decodeBencode(t).value as BencodeDict;
const infoHashOf = (t: Buffer) => {
  const r = decodeBencode(t).rootRanges.get('info')!;
  return sha1(t.subarray(r.start, r.end));
};
const seedOf = (name: string, files: SeedFile[], pieceSize = KiB32): Seed =>
  createSeed({ name, files, pieceSize, createdBy: 'Ferry 0.1.0', createdAt: new Date(Date.UTC(2026, 0, 1)) });

const content = (rel: string) => fixture(`content/${rel}`);
const DEMO = ['a.bin', 'sub/b.txt'];
const ALIGNED = ['1.bin', '2.bin'];
const ORDER = ['Z', 'é', 'a/b', 'empty', 'a-c', 'B/x'];

describe('torrent encode matches mktorrent', () => {
  it('single file: same info bytes and info hash as mktorrent', () => {
    const seed = seedOf('hello', [hashBytes('hello.txt', content('hello.txt'), KiB32)]);
    const ours = encodeTorrent(seed);
    const theirs = fixture('hello.mktorrent.torrent');
    assert.equal(infoHashOf(ours), '6ab7ab26bf8f9e737aa70f35605582cbbf47037e');
    assert.equal(infoHashOf(ours), infoHashOf(theirs));
    const r = root(ours);
    assert.deepEqual([...r.keys()], ['created by', 'creation date', 'info', 'x-cas', 'x-openlist']);
    assert.equal((r.get('info') as BencodeDict).get('name')!.toString(), 'hello.txt');
  });

  it('multi-file, not piece-aligned: needs the stream, then matches', () => {
    const files = DEMO.map((p) => hashBytes(p, content(`demo/${p}`), KiB32));
    const seed = seedOf('demo', files);
    assert.equal(torrentPiecesFromSeed(seed), null);
    assert.match(seedError(() => encodeTorrent(seed)).message, /needs the SHA-1 piece stream/);
    const hashes = pieceStream(DEMO.map((p) => content(`demo/${p}`)), KiB32);
    const ours = encodeTorrent(seed, { pieces: { pieceSize: KiB32, hashes } });
    assert.equal(infoHashOf(ours), '4c363041c22d272363f57a5d5d1e1d5e6a0e188b');
  });

  it('multi-file, piece-aligned: per-file SHA-1 lists are enough', () => {
    const seed = seedOf('aligned', ALIGNED.map((p) => hashBytes(p, content(`aligned/${p}`), KiB32)));
    assert.equal(isPieceAligned(seed.files, KiB32), true);
    assert.deepEqual(torrentPiecesFromSeed(seed), pieceStream(ALIGNED.map((p) => content(`aligned/${p}`)), KiB32));
    assert.equal(infoHashOf(encodeTorrent(seed)), 'a5d18910f3c6f366ad875098ec661459645abcd9');
  });

  it('orders files by the bytes of their path, empty files included', () => {
    const files = ORDER.map((p) => hashBytes(p, content(`order/${p}`), KiB32));
    const seed = seedOf('order', files);
    const ordered = torrentFileOrder(seed.files).map((f) => f.path);
    assert.deepEqual(ordered, ['B/x', 'Z', 'a-c', 'a/b', 'empty', 'é']);
    const hashes = pieceStream(ordered.map((p) => content(`order/${p}`)), KiB32);
    const t = encodeTorrent(seed, { pieces: { pieceSize: KiB32, hashes } });
    assert.equal(infoHashOf(t), '1ff11cfcdeef9bdd8df5118a2987b41c01d5ba2f');
    const back = decodeTorrent(t);
    assert.deepEqual(back.seed.files.map((f) => f.path), ordered);
  });
});

describe('torrent encode', () => {
  it('writes the Appendix A hello torrent without md5sum, with x-cas and x-openlist', () => {
    const t = encodeTorrent(helloSeed());
    const info = `d6:lengthi3e4:name9:hello.txt12:piece lengthi10485760e6:pieces20:${Buffer.from(ABC.sha1, 'hex').toString('latin1')}e`;
    assert.equal(infoHashOf(t), sha1(Buffer.from(info, 'latin1')));
    const r = root(t);
    assert.equal(r.get('announce')!.toString(), 'https://tracker.example.org/announce');
    assert.deepEqual(encodeBencode(r.get('announce-list')!).toString(), 'll36:https://tracker.example.org/announceee');
    assert.equal(r.get('comment')!.toString(), 'demo seed');
    assert.equal(r.get('created by')!.toString(), 'OpenList');
    assert.equal(r.get('creation date'), 1767225600n);
    const up = ABC.md5.toUpperCase();
    assert.equal(
      encodeBencode(r.get('x-cas')!).toString(),
      `d5:cloud3:1898:file_md532:${up}9:slice_md532:${up}10:slice_md5sl32:${up}e10:slice_sizei10485760ee`,
    );
    assert.deepEqual(decodeTorrent(t).seed, canonicalizeSeed(helloSeed()));
  });

  it('writes trackers as one tier each and honours creation date options', () => {
    const s = helloSeed();
    s.trackers = ['udp://a:1', 'udp://b:2'];
    const r = root(encodeTorrent(s, { creationDate: new Date(5000), createdBy: 'Ferry 0.1.0' }));
    assert.equal(encodeBencode(r.get('announce-list')!).toString(), 'll9:udp://a:1el9:udp://b:2ee');
    assert.equal(r.get('creation date'), 5n);
    assert.equal(r.get('created by')!.toString(), 'Ferry 0.1.0');
    const bare = root(encodeTorrent({ ...s, trackers: [] }, { creationDate: null, openlistExtension: false, casExtension: false }));
    assert.deepEqual([...bare.keys()], ['comment', 'created by', 'info']);
  });

  it('checks the piece stream it is given', () => {
    const seed = seedOf('demo', DEMO.map((p) => hashBytes(p, content(`demo/${p}`), KiB32)));
    const hashes = pieceStream(DEMO.map((p) => content(`demo/${p}`)), KiB32);
    assert.match(seedError(() => encodeTorrent(seed, { pieces: { pieceSize: 65536, hashes } })).message, /computed at 65536 bytes/);
    assert.match(seedError(() => encodeTorrent(seed, { pieces: { pieceSize: KiB32, hashes: hashes.subarray(20) } })).message, /has 20 bytes, expected 40/);
    const aligned = seedOf('aligned', ALIGNED.map((p) => hashBytes(p, content(`aligned/${p}`), KiB32)));
    const wrong = Buffer.alloc(40, 7);
    const e = seedError(() => encodeTorrent(aligned, { pieces: { pieceSize: KiB32, hashes: wrong } }));
    assert.equal(e.field, 'files[0].hashes.pieces.sha1');
    assert.equal(e.file, '1.bin');
  });

  it('fills per-file SHA-1 lists from the stream when files are aligned', () => {
    const files = ALIGNED.map((p) => hashBytes(p, content(`aligned/${p}`), KiB32)).map((f) => ({ ...f, hashes: { md5: f.hashes.md5 } }));
    const seed = seedOf('aligned', files);
    const hashes = pieceStream(ALIGNED.map((p) => content(`aligned/${p}`)), KiB32);
    const back = decodeTorrent(encodeTorrent(seed, { pieces: { pieceSize: KiB32, hashes } })).seed;
    assert.deepEqual(back.files.map((f) => f.hashes.pieces?.sha1), [[sha1(content('aligned/1.bin'))], [sha1(content('aligned/2.bin'))]]);
  });

  it('single file in a folder: info.name is the file name, the seed keeps its name and path', () => {
    const s = helloSeed();
    s.name = 'greeting';
    s.files[0]!.path = 'docs/hello.txt';
    const t = encodeTorrent(s);
    const d = decodeTorrent(t);
    assert.equal(d.info_name, 'hello.txt');
    assert.equal(d.seed.name, 'greeting');
    assert.equal(d.seed.files[0]!.path, 'docs/hello.txt');
    const plain = decodeTorrent(encodeTorrent(s, { openlistExtension: false }), { now: NOW });
    assert.equal(plain.seed.name, 'hello.txt');
    assert.equal(plain.seed.files[0]!.path, 'hello.txt');
    assert.equal(plain.info_hash, d.info_hash);
    // layout 'multi' (a folder was hashed): info.files even for one file, as mktorrent writes it.
    const multi = decodeTorrent(encodeTorrent(s, { layout: 'multi' }));
    assert.equal(multi.info_name, 'greeting');
    assert.equal(multi.seed.files[0]!.path, 'docs/hello.txt');
    assert.notEqual(multi.info_hash, d.info_hash);
  });

  it('keeps SHA-256 and the CAS cloud through x-openlist ([TST1])', () => {
    const s = exampleSeed();
    s.files[0]!.cas_cloud = 'aliyundrive_open';
    s.files[0]!.cas_slice_md5 = '9'.repeat(32);
    const t = encodeTorrent(s);
    const back = decodeTorrent(t).seed;
    assert.equal(back.files[0]!.hashes.sha256, '3'.repeat(64));
    assert.equal(back.files[0]!.cas_cloud, 'aliyundrive_open');
    assert.equal(back.files[0]!.cas_slice_md5, '9'.repeat(32));
    const cas = root(t).get('x-cas') as BencodeDict;
    assert.equal(cas.get('cloud')!.toString(), 'aliyundrive_open');
    assert.equal(cas.get('slice_md5')!.toString(), '9'.repeat(32));
  });

  it('x-cas cloud defaults to 189 and keeps an explicit one ([TST1])', () => {
    const cloudOf = (s: Seed) => ((root(encodeTorrent(s)).get('x-cas') as BencodeDict).get('cloud') as Buffer).toString();
    assert.equal(cloudOf(exampleSeed()), '189');
    const s = exampleSeed();
    s.files[0]!.cas_cloud = '115';
    assert.equal(cloudOf(s), '115');
    const noMd5 = helloSeed();
    delete noMd5.files[0]!.hashes.md5;
    assert.equal(root(encodeTorrent(noMd5)).has('x-cas'), false);
    const multi = helloSeed();
    multi.files.push({ path: 'b', size: 0, hashes: { md5: 'd41d8cd98f00b204e9800998ecf8427e' } });
    assert.equal(root(encodeTorrent(multi)).has('x-cas'), false);
  });

  it('refuses a document over 10 MiB', () => {
    const files: SeedFile[] = Array.from({ length: 80_000 }, (_, i) => ({ path: `dir/file-${i}.bin`, size: 0, hashes: { sha256: 'a'.repeat(64), sha1: 'b'.repeat(40) } }));
    const e = seedError(() => encodeTorrent(seedOf('many', files)));
    assert.match(e.message, /the \.torrent document would be \d+ bytes, over the limit of 10485760/);
  });
});

describe('torrent decode', () => {
  it('reads a plain mktorrent single-file torrent', () => {
    const d = decodeTorrent(fixture('hello.mktorrent.torrent'), { now: NOW });
    assert.equal(d.info_hash, '6ab7ab26bf8f9e737aa70f35605582cbbf47037e');
    assert.deepEqual(d.extensions, { openlist: false, cas: false });
    assert.deepEqual(d.seed, {
      format: 'openlist-sharing-seed',
      version: 1,
      name: 'hello.txt',
      comment: 'demo comment',
      created_at: '2026-11-21T10:00:00Z',
      created_by: 'mktorrent 1.1',
      piece_size: KiB32,
      trackers: ['https://tracker.example.org/announce'],
      files: [{ path: 'hello.txt', size: 3, hashes: { pieces: { sha1: [ABC.sha1] } } }],
    });
    assert.deepEqual(d.unsliced_files, []);
    assert.equal(Buffer.from(d.piece_stream!.hashes).toString('hex'), ABC.sha1);
  });

  it('reads a multi-file torrent whose files are not piece-aligned', () => {
    const d = decodeTorrent(fixture('demo.mktorrent.torrent'), { now: NOW });
    assert.equal(d.info_hash, '4c363041c22d272363f57a5d5d1e1d5e6a0e188b');
    assert.equal(d.seed.name, 'demo');
    assert.deepEqual(d.seed.trackers, ['https://tracker.example.org/announce', 'udp://tracker2.example.org:80']);
    assert.deepEqual(d.seed.files, [
      { path: 'a.bin', size: 40000, hashes: {} },
      { path: 'sub/b.txt', size: 1200, hashes: {} },
    ]);
    assert.deepEqual(d.unsliced_files, ['a.bin', 'sub/b.txt']);
    assert.equal(d.total_size, 41200);
    // Re-encoding with the decoded stream reproduces the info hash.
    assert.equal(infoHashOf(encodeTorrent(d.seed, { pieces: d.piece_stream })), d.info_hash);
  });

  it('slices SHA-1 pieces per file when files are piece-aligned', () => {
    const d = decodeTorrent(fixture('aligned.mktorrent.torrent'), { now: NOW });
    assert.deepEqual(d.seed.files.map((f) => [f.path, f.size, f.hashes.pieces?.sha1]), [
      ['1.bin', 32768, [sha1(content('aligned/1.bin'))]],
      ['2.bin', 5000, [sha1(content('aligned/2.bin'))]],
    ]);
    assert.deepEqual(d.unsliced_files, []);
    assert.equal(infoHashOf(encodeTorrent(d.seed)), 'a5d18910f3c6f366ad875098ec661459645abcd9');
  });

  it('reads transmission-create output and notes the extra info key', () => {
    const d = decodeTorrent(fixture('hello.transmission.torrent'));
    assert.equal(d.info_hash, '96e00a861fc6c54f8c0b023f99abe6eb612eca75');
    assert.equal(d.seed.created_at, '2026-11-21T22:56:40Z');
    assert.equal(d.seed.created_by, 'Transmission/3.00 (bb6b5a062e)');
    assert.equal(d.seed.piece_size, 16384);
    assert.ok(d.notes.some((n) => /private/.test(n) && /changes its info hash/.test(n)));
  });

  it('hashes the original info bytes even when keys are not sorted', () => {
    const info = `d4:name5:x.bin6:lengthi3e12:piece lengthi16384e6:pieces20:${Buffer.from(ABC.sha1, 'hex').toString('latin1')}e`;
    const t = Buffer.from(`d4:info${info}8:announce5:udp:xe`, 'latin1');
    const d = decodeTorrent(t, { now: NOW });
    assert.equal(d.info_hash, sha1(Buffer.from(info, 'latin1')));
    assert.notEqual(d.info_hash, infoHashOf(encodeTorrent(d.seed)));
    assert.ok(d.notes.some((n) => /not in sorted order/.test(n)));
  });

  it('skips BEP 47 padding files and slices the aligned files', () => {
    const a = Buffer.alloc(20000, 1);
    const b = Buffer.alloc(100, 2);
    const padded = Buffer.concat([a, Buffer.alloc(16384 * 2 - 20000), b]);
    const t = encodeBencode({
      info: {
        files: [{ length: 20000, path: ['a'] }, { attr: 'p', length: 16384 * 2 - 20000, path: ['.pad', '12768'] }, { length: 100, path: ['b'] }],
        name: 'pad',
        'piece length': 16384,
        pieces: pieceStream([padded], 16384),
      },
    });
    const d = decodeTorrent(t, { now: NOW });
    assert.deepEqual(d.seed.files.map((f) => f.path), ['a', 'b']);
    assert.deepEqual(d.seed.files[1]!.hashes.pieces?.sha1, [sha1(b)]);
    assert.equal(d.seed.files[0]!.hashes.pieces, undefined);
    assert.equal(d.piece_stream, undefined);
  });

  it('reads x-cas from a plain single-file torrent', () => {
    const up = ABC.md5.toUpperCase();
    const t = encodeBencode({
      info: { length: 3, name: 'hello.txt', 'piece length': 10485760, pieces: Buffer.from(ABC.sha1, 'hex') },
      'x-cas': { cloud: '115', file_md5: up, slice_md5: up, slice_md5s: [up], slice_size: 10485760 },
    });
    const f = decodeTorrent(t, { now: NOW }).seed.files[0]!;
    assert.deepEqual(f, { path: 'hello.txt', size: 3, hashes: { md5: ABC.md5, pieces: { md5: [ABC.md5], sha1: [ABC.sha1] } }, cas_slice_md5: ABC.md5, cas_cloud: '115' });
  });

  it('refuses x-openlist that does not match info', () => {
    const base = encodeTorrent(exampleSeed());
    const tamper = (fn: (ext: BencodeDict) => void) => {
      const r = root(base);
      fn(r.get('x-openlist') as BencodeDict);
      return seedError(() => decodeTorrent(encodeBencode(r)));
    };
    const fileOf = (ext: BencodeDict) => ((ext.get('files') as BencodeDict[])[0]!);
    assert.match(tamper((x) => fileOf(x).set('size', BigInt(10 * MiB + 2))).message, /does not match info: size 10485762/);
    assert.match(tamper((x) => { x.set('piece_size', 16384n); (fileOf(x).get('hashes') as BencodeDict).delete('pieces'); }).message, /piece_size 16384 ≠ piece length 10485760/);
    const pieces = (x: BencodeDict) => ((fileOf(x).get('hashes') as BencodeDict).get('pieces') as BencodeDict);
    assert.match(tamper((x) => pieces(x).set('sha1', [Buffer.from('e'.repeat(40)), Buffer.from('d'.repeat(40))])).message, /SHA-1 pieces differ/);
    const width = tamper((x) => (fileOf(x).get('hashes') as BencodeDict).set('md5', Buffer.from('abc')));
    assert.equal(width.field, 'x-openlist.files[0].hashes.md5');
    assert.equal(width.file, 'example.bin');
    assert.equal(tamper((x) => x.set('version', Buffer.from('1'))).field, 'x-openlist.version');
    assert.equal(tamper((x) => fileOf(x).set('path', Buffer.from('../x'))).field, 'x-openlist.files[0].path');
  });
});

describe('torrent decode refuses hostile input cleanly', () => {
  const info = (patch: Record<string, unknown>) => encodeBencode({ info: { length: 3, name: 'x', 'piece length': 16384, pieces: Buffer.alloc(20), ...patch } as never });
  const multi = (files: unknown[]) => info({ length: undefined, files });

  it('every truncation of a real torrent', () => {
    const t = encodeTorrent(helloSeed());
    for (let n = 0; n < t.length; n += 7) seedError(() => decodeTorrent(t.subarray(0, n)));
    seedError(() => decodeTorrent(t.subarray(0, t.length - 1)));
  });

  it('trailing garbage, non-dict root, missing info', () => {
    assert.match(seedError(() => decodeTorrent(Buffer.concat([encodeTorrent(helloSeed()), Buffer.from('x')]))).message, /trailing data/);
    assert.equal(seedError(() => decodeTorrent(Buffer.from('li1ee'))).field, 'torrent');
    assert.equal(seedError(() => decodeTorrent(Buffer.from('de'))).field, 'info');
    assert.equal(seedError(() => decodeTorrent(Buffer.from('d4:infoi1ee'))).field, 'info');
  });

  it('bad info fields', () => {
    assert.equal(seedError(() => decodeTorrent(info({ name: '..' }))).field, 'info.name');
    assert.equal(seedError(() => decodeTorrent(info({ name: Buffer.from([0xff]) }))).message, 'info.name: is not valid UTF-8');
    assert.equal(seedError(() => decodeTorrent(info({ 'piece length': 8192 }))).field, 'info.piece length');
    assert.equal(seedError(() => decodeTorrent(info({ 'piece length': 128 * MiB }))).field, 'info.piece length');
    assert.equal(seedError(() => decodeTorrent(info({ pieces: Buffer.alloc(19) }))).field, 'info.pieces');
    assert.match(seedError(() => decodeTorrent(info({ pieces: Buffer.alloc(40) }))).message, /has 2 pieces, expected 1/);
    assert.equal(seedError(() => decodeTorrent(info({ length: -1 }))).field, 'info.length');
    assert.equal(seedError(() => decodeTorrent(info({ md5sum: 'xyz' }))).field, 'info.md5sum');
    assert.equal(seedError(() => decodeTorrent(info({ length: undefined }))).field, 'info.files');
    assert.equal(seedError(() => decodeTorrent(info({ files: [] }))).field, 'info');
    assert.match(seedError(() => decodeTorrent(Buffer.from('d4:infod6:lengthi03eee'))).message, /non-canonical integer/);
  });

  it('traversal, duplicate and empty paths', () => {
    const f = (path: string[], length = 0) => ({ length, path });
    assert.equal(seedError(() => decodeTorrent(multi([f(['..', 'etc', 'passwd'], 3)]))).field, 'info.files[0].path');
    assert.equal(seedError(() => decodeTorrent(multi([f(['a/..', 'b'], 3)]))).field, 'info.files[0].path');
    assert.equal(seedError(() => decodeTorrent(multi([f(['a\\b'], 3)]))).field, 'info.files[0].path');
    assert.equal(seedError(() => decodeTorrent(multi([f([], 3)]))).field, 'info.files[0].path');
    assert.equal(seedError(() => decodeTorrent(multi([f([''], 3)]))).field, 'info.files[0].path');
    assert.equal(seedError(() => decodeTorrent(multi([f(['a'], 3), f(['a'])]))).field, 'files[1].path');
  });

  it('100 001 files', () => {
    const files = Array.from({ length: 100_001 }, (_, i) => ({ length: 0, path: [`f${i}`] }));
    const t = encodeBencode({ info: { files, name: 'many', 'piece length': 16384, pieces: Buffer.alloc(0) } });
    assert.match(seedError(() => decodeTorrent(t)).message, /too many files: 100001/);
  });
});
