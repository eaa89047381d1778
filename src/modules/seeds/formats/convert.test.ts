import assert from 'node:assert/strict';
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { ABC, MiB, exampleSeed, fixture, hashBytes, helloSeed, seedError } from '../../../../test/fixtures/seeds/helpers.js';
import { encodeCas } from './cas.js';
import { allConversions, conversionFeasibility, convertSeed, decodeAny, detectFormat, diagnose, encodeSeed, seedFileName } from './convert.js';
import { canonicalizeSeed, createSeed } from './model.js';
import type { Seed, SeedFile, SeedFormat } from './model.js';
import { encodeOss } from './oss.js';
import { encodeTorrent } from './torrent.js';

const KiB32 = 32768;
const seedOf = (files: SeedFile[], pieceSize = KiB32, name = 'pack'): Seed =>
  createSeed({ name, files, pieceSize, createdBy: 'Ferry 0.1.0', createdAt: new Date(Date.UTC(2026, 0, 1)) });
const wholeOnly = (f: SeedFile): SeedFile => ({ ...f, hashes: { md5: f.hashes.md5, sha1: f.hashes.sha1, sha256: f.hashes.sha256 } });
const infoHash = (t: Buffer) => decodeAny(t, { format: 'torrent' }).info_hash;

describe('detectFormat', () => {
  const oss = encodeOss(helloSeed());
  const torrent = encodeTorrent(helloSeed());
  const cas = encodeCas(helloSeed());

  it('uses the extension first', () => {
    assert.equal(detectFormat(cas, 'x.OSS'), 'oss');
    assert.equal(detectFormat(oss, 'a/b/x.torrent'), 'torrent');
    assert.equal(detectFormat(oss, 'movie.cas.torrent'), 'torrent');
    assert.equal(detectFormat(torrent, 'x.Cas'), 'cas');
  });

  it('falls back to the content', () => {
    assert.equal(detectFormat(oss), 'oss');
    assert.equal(detectFormat(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(' \n'), oss]), 'x.json'), 'oss');
    assert.equal(detectFormat(torrent), 'torrent');
    assert.equal(detectFormat(cas), 'cas');
    assert.equal(detectFormat(Buffer.from(cas.toString(), 'base64')), 'cas');
    assert.equal(detectFormat(Buffer.from('{broken')), 'oss');
    assert.equal(detectFormat(Buffer.alloc(0)), 'cas');
  });
});

describe('decodeAny', () => {
  it('decodes each container to the same model', () => {
    const want = canonicalizeSeed(helloSeed());
    assert.deepEqual(decodeAny(encodeOss(helloSeed())).seed, want);
    const t = decodeAny(encodeTorrent(helloSeed()));
    assert.equal(t.format, 'torrent');
    assert.deepEqual(t.seed, want);
    assert.match(t.info_hash!, /^[0-9a-f]{40}$/);
    const c = decodeAny(encodeCas(helloSeed(), { now: new Date(0) }), { filename: 'hello.txt.cas' });
    assert.equal(c.format, 'cas');
    assert.equal(c.seed.files[0]!.hashes.md5, ABC.md5);
  });

  it('reports plain-torrent notes', () => {
    const d = decodeAny(fixture('demo.mktorrent.torrent'));
    assert.ok(d.notes.includes('no per-file SHA-1 pieces for: a.bin, sub/b.txt'));
    assert.ok(d.torrent_pieces);
  });

  it('rejects an unknown format ([TST2])', () => {
    const e = seedError(() => decodeAny(encodeOss(helloSeed()), { format: 'does-not-exist' as SeedFormat }));
    assert.equal(e.field, 'format');
    assert.equal(seedError(() => encodeSeed(helloSeed(), 'does-not-exist' as SeedFormat)).field, 'format');
    assert.equal(seedError(() => convertSeed(helloSeed(), 'zip' as SeedFormat)).field, 'target_format');
  });

  it('passes container errors through', () => {
    assert.equal(seedError(() => decodeAny(Buffer.from('d4:infoi1ee'))).field, 'info');
    assert.equal(seedError(() => decodeAny(Buffer.from('%%%'))).message, 'document: is neither base64 nor JSON');
  });
});

describe('cross-format consistency ([TST2])', () => {
  it('OSS → torrent → seed → CAS → seed keeps the MD5 and the file count', () => {
    const fromOss = decodeAny(encodeOss(exampleSeed())).seed;
    const fromTorrent = decodeAny(encodeTorrent(fromOss)).seed;
    const fromCas = decodeAny(encodeCas(fromTorrent)).seed;
    assert.equal(fromCas.files.length, 1);
    assert.equal(fromCas.files[0]!.hashes.md5!.toUpperCase(), '1'.repeat(32));
    assert.deepEqual(fromCas.files[0]!.hashes.pieces?.md5, ['a'.repeat(32), 'b'.repeat(32)]);
  });
});

describe('conversion feasibility', () => {
  const demo = ['a.bin', 'sub/b.txt'].map((p) => hashBytes(p, fixture(`content/demo/${p}`), KiB32));
  const aligned = ['1.bin', '2.bin'].map((p) => hashBytes(p, fixture(`content/aligned/${p}`), KiB32));

  it('a complete seed converts everywhere', () => {
    assert.deepEqual(allConversions(helloSeed()), { oss: { feasible: true, missing: [] }, torrent: { feasible: true, missing: [] }, cas: { feasible: true, missing: [] } });
  });

  it('unaligned files need the concatenated SHA-1 stream, for every file', () => {
    const f = conversionFeasibility(seedOf(demo), 'torrent');
    assert.equal(f.feasible, false);
    assert.deepEqual(f.missing, [
      { file: 'a.bin', needs: [{ algorithm: 'sha1', kind: 'stream', piece_size: KiB32 }], reason: 'size 40000 is not a multiple of the piece size 32768, so torrent pieces span into the next file' },
      { file: 'sub/b.txt', needs: [{ algorithm: 'sha1', kind: 'stream', piece_size: KiB32 }], reason: 'its bytes are part of the torrent piece stream, which spans file boundaries' },
    ]);
    assert.equal(conversionFeasibility(seedOf(demo), 'torrent', { torrentPieces: { pieceSize: KiB32, hashes: Buffer.alloc(40) } }).feasible, true);
    assert.equal(conversionFeasibility(seedOf(demo), 'torrent', { torrentPieces: { pieceSize: 65536, hashes: Buffer.alloc(20) } }).feasible, false);
  });

  it('aligned files need only their own SHA-1 pieces; empty files need nothing', () => {
    const files = [wholeOnly(aligned[0]!), aligned[1]!, { path: 'zz-empty', size: 0, hashes: {} }];
    assert.deepEqual(conversionFeasibility(seedOf(files), 'torrent').missing, [
      { file: '1.bin', needs: [{ algorithm: 'sha1', kind: 'pieces', piece_size: KiB32 }], reason: 'no SHA-1 piece hashes' },
    ]);
    assert.equal(conversionFeasibility(seedOf(aligned), 'torrent').feasible, true);
  });

  it('cas needs the whole MD5, and 10 MiB MD5 pieces above 10 MiB', () => {
    const big: SeedFile = { path: 'big.bin', size: 20 * MiB, hashes: { md5: ABC.md5 } };
    const noMd5: SeedFile = { path: 'small.bin', size: 5, hashes: { sha1: ABC.sha1 } };
    const bare: SeedFile = { path: 'bare.bin', size: 11 * MiB, hashes: {} };
    const ok: SeedFile = { path: 'ok.bin', size: 10 * MiB, hashes: { md5: ABC.md5 } };
    const f = conversionFeasibility(seedOf([big, noMd5, bare, ok]), 'cas');
    assert.deepEqual(f.missing, [
      { file: 'big.bin', needs: [{ algorithm: 'md5', kind: 'pieces', piece_size: 10 * MiB }], reason: '.cas needs MD5 pieces at 10 MiB' },
      { file: 'small.bin', needs: [{ algorithm: 'md5', kind: 'whole' }], reason: '.cas needs the whole-file MD5' },
      {
        file: 'bare.bin',
        needs: [{ algorithm: 'md5', kind: 'whole' }, { algorithm: 'md5', kind: 'pieces', piece_size: 10 * MiB }],
        reason: '.cas needs the whole-file MD5 and MD5 pieces at 10 MiB',
      },
    ]);
    assert.equal(conversionFeasibility(seedOf([{ ...big, cas_slice_md5: ABC.md5 }]), 'cas').feasible, true);
  });
});

describe('convertSeed', () => {
  it('re-encodes a plain torrent with its own piece stream: same info hash', () => {
    const src = fixture('demo.mktorrent.torrent');
    const decoded = decodeAny(src);
    const r = convertSeed(decoded, 'torrent');
    assert.equal(r.feasible, true);
    if (!r.feasible) return;
    assert.equal(r.file_name, 'demo.torrent');
    assert.equal(infoHash(r.data), '4c363041c22d272363f57a5d5d1e1d5e6a0e188b');
    // Through .oss the stream is lost, and the files are not aligned.
    const viaOss = decodeAny((convertSeed(decoded, 'oss') as { data: Buffer }).data);
    const back = convertSeed(viaOss, 'torrent');
    assert.equal(back.feasible, false);
    assert.deepEqual(!back.feasible && back.missing.map((m) => m.file), ['a.bin', 'sub/b.txt']);
    const cas = convertSeed(decoded, 'cas');
    assert.deepEqual(!cas.feasible && cas.missing.map((m) => [m.file, m.needs.map((n) => n.kind)]), [['a.bin', ['whole']], ['sub/b.txt', ['whole']]]);
  });

  it('converts oss → cas → oss keeping what .cas carries', () => {
    const r = convertSeed(helloSeed(), 'cas', { now: new Date(1767225600_000) });
    assert.ok(r.feasible);
    assert.equal(r.file_name, 'hello.txt.cas');
    const seed = decodeAny(r.data, { filename: r.file_name }).seed;
    assert.deepEqual(seed.files[0], { path: 'hello.txt', size: 3, hashes: { md5: ABC.md5, pieces: { md5: [ABC.md5] } }, cas_slice_md5: ABC.md5, cas_create_time: '1767225600' });
  });

  it('oss → torrent matches the engine-free piece stream of a content hash', () => {
    const content = fixture('content/aligned/1.bin');
    const r = convertSeed(seedOf([hashBytes('1.bin', content, KiB32)], KiB32, '1'), 'torrent');
    assert.ok(r.feasible);
    const info = `d6:lengthi32768e4:name5:1.bin12:piece lengthi32768e6:pieces20:${createHash('sha1').update(content).digest().toString('latin1')}e`;
    assert.equal(infoHash(r.data), createHash('sha1').update(Buffer.from(info, 'latin1')).digest('hex'));
    assert.equal(seedFileName(helloSeed(), 'oss'), 'hello.txt.oss');
  });
});

describe('diagnose', () => {
  it('lists what containers drop or lack', () => {
    const s = helloSeed();
    s.name = 'greeting';
    s.files[0]!.path = 'docs/hello.txt';
    s.files[0]!.sources!.push({ type: 'openlist-share', url: 'https://pan.example.com/sd/x', expires_at: '2000-01-01T00:00:00Z' });
    const codes = diagnose(s, { now: new Date(Date.UTC(2026, 0, 1)) }).map((d) => `${d.level}:${d.code}`);
    assert.deepEqual(codes.sort(), [
      'info:cas.drops_name',
      'info:torrent.name_differs',
      'info:torrent.piece_size',
      'warning:cas.drops_channels',
      'warning:cas.drops_comments',
      'warning:cas.drops_folder',
      'warning:cas.drops_hashes',
      'warning:cas.drops_modified',
      'warning:cas.drops_sources',
      'warning:cas.drops_trackers',
      'warning:seed.source_expired',
    ]);
  });

  it('reports missing data as errors per file and decode notes as info', () => {
    const decoded = decodeAny(fixture('demo.mktorrent.torrent'));
    const d = diagnose({ ...decoded, torrent_pieces: undefined });
    const errors = d.filter((x) => x.level === 'error').map((x) => `${x.code}:${x.file}`);
    assert.deepEqual(errors, ['torrent.missing_hashes:a.bin', 'torrent.missing_hashes:sub/b.txt', 'cas.missing_hashes:a.bin', 'cas.missing_hashes:sub/b.txt']);
    assert.ok(d.some((x) => x.code === 'decode.note' && x.format === 'torrent' && /sub\/b\.txt/.test(x.message)));
    assert.equal(diagnose(decoded).filter((x) => x.code === 'torrent.missing_hashes').length, 0);
  });

  it('flags an inconsistent stored sliceMd5 and a reordered file list', () => {
    const s = exampleSeed();
    s.files[0]!.cas_slice_md5 = '0'.repeat(32);
    s.files.unshift({ path: 'z.bin', size: 0, hashes: {} });
    const codes = diagnose(s).map((d) => d.code);
    assert.ok(codes.includes('cas.slice_md5_mismatch'));
    assert.ok(codes.includes('torrent.reorders_files'));
    assert.ok(codes.includes('torrent.piece_size'), '10 MiB is not a power of two');
    assert.ok(!diagnose(helloSeed()).some((d) => d.code === 'torrent.reorders_files'));
  });
});
