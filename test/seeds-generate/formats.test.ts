/**
 * What is written, checked by other tools: `.torrent` verified by libtorrent against the stored
 * data with the same info hash as mktorrent (and transmission-show) for the same folder and
 * piece size; `.oss` and `.cas` hashes equal coreutils'; comments in every format that can
 * carry them, `.cas` dropping them with a diagnostic.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { forEachDialect } from '../support/harness.js';
import { requireCommand, run } from '../support/commands.js';
import { decodeBencode, decodeCas, decodeOss, decodeTorrent, isBencodeDict } from '../../src/modules/seeds/formats/index.js';
import { ALL_SIX, KiB, MiB, bytes, coreutils, filesDir, generated, infoHashOf, ltcheck, mktorrentInfoHash, putIndexed, putRaw, transmissionHash } from './helpers.js';

const work = mkdtempSync(join(tmpdir(), 'ferry-seedgen-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** coreutils digests of each `size`-byte piece of `file` (via split). */
function coreutilsPieces(algo: 'md5' | 'sha1' | 'sha256', file: string, size: number, tag: string): string[] {
  const dir = mkdtempSync(join(work, `split-${tag}-`));
  run('split', ['-b', String(size), '-a', '5', '-d', file, join(dir, 'p')]);
  return readdirSync(dir).sort().map((p) => coreutils(algo, join(dir, p)));
}

forEachDialect('seed generation: formats against peers', (h) => {
  let token: string;
  before(async () => {
    requireCommand('mktorrent', 'mktorrent');
    requireCommand('transmission-show', 'transmission-cli');
    token = await h().adminToken();
  });

  test('.torrent of a folder: libtorrent verifies every piece; info hash = mktorrent -l 16 = transmission-show', async () => {
    const root = filesDir(h());
    // Sizes that do not align with the 64 KiB pieces, so pieces span file boundaries; nested folders.
    putRaw(root, 'tor/show/e01.mkv', bytes(200_003, 21));
    putRaw(root, 'tor/show/e02.mkv', bytes(70_001, 22));
    putRaw(root, 'tor/show/extras/notes.txt', bytes(5_000, 23));
    putRaw(root, 'tor/show/Z-last.bin', bytes(131_072, 24));
    const d = await generated(h(), token, { paths: ['/tor/show'], formats: ['torrent'], piece_size: 64 * KiB });
    assert.deepEqual(d.paths, ['/tor/show.torrent']);
    const file = join(root, 'tor/show.torrent');
    assert.match(ltcheck(file, join(root, 'tor')), /pieces ok (\d+) \/ \1 OK/);
    const ours = infoHashOf(readFileSync(file));
    assert.equal(ours, mktorrentInfoHash(join(root, 'tor/show'), 16, work));
    assert.equal(ours, transmissionHash(file));
    assert.equal(decodeTorrent(readFileSync(file)).info_hash, ours);
  });

  test('.torrent of one file: libtorrent verifies it; info hash = mktorrent -l 15', async () => {
    const root = filesDir(h());
    putRaw(root, 'tor1/disk.img', bytes(300_000, 25));
    const d = await generated(h(), token, { paths: ['/tor1/disk.img'], formats: ['torrent'], piece_size: 32 * KiB });
    const file = join(root, d.paths[0].slice(1));
    assert.match(ltcheck(file, join(root, 'tor1')), /OK$/);
    assert.equal(infoHashOf(readFileSync(file)), mktorrentInfoHash(join(root, 'tor1/disk.img'), 15, work));
  });

  test('a corrupted byte makes libtorrent reject the generated torrent (the check can fail)', async () => {
    const root = filesDir(h());
    putRaw(root, 'torbad/data.bin', bytes(100_000, 26));
    const d = await generated(h(), token, { paths: ['/torbad/data.bin'], formats: ['torrent'], piece_size: 16 * KiB });
    const corrupt = bytes(100_000, 26);
    corrupt[50_000] = corrupt[50_000]! ^ 0xff;
    putRaw(root, 'torbad/data.bin', corrupt);
    assert.match(ltcheck(join(root, d.paths[0].slice(1)), join(root, 'torbad')), /BAD$/);
  });

  test('.oss: whole and piece hashes equal md5sum / sha1sum / sha256sum', async () => {
    const root = filesDir(h());
    const abs = putRaw(root, 'oss/big.bin', bytes(5 * MiB + 12345, 27));
    await putIndexed(h(), '/oss/small.txt', Buffer.from('hello seeds\n'));
    const ps = 1 * MiB;
    const d = await generated(h(), token, { paths: ['/oss'], formats: ['oss'], hash_matrix: ALL_SIX, piece_size: ps, output_path: '/oss-out' });
    const seed = decodeOss(readFileSync(join(root, 'oss-out/oss.oss')));
    const big = seed.files.find((f) => f.path === 'big.bin')!;
    for (const algo of ['md5', 'sha1', 'sha256'] as const) {
      assert.equal(big.hashes[algo], coreutils(algo, abs), `whole ${algo}`);
      assert.deepEqual(big.hashes.pieces?.[algo], coreutilsPieces(algo, abs, ps, `oss-${algo}`), `pieces ${algo}`);
    }
    const small = seed.files.find((f) => f.path === 'small.txt')!;
    assert.equal(small.hashes.sha256, coreutils('sha256', join(root, 'oss/small.txt')));
    assert.deepEqual(d.seed, JSON.parse(readFileSync(join(root, 'oss-out/oss.oss'), 'utf8')));
  });

  test('.cas: md5 and sliceMd5 (10 MiB slices) equal what coreutils computes', async () => {
    const root = filesDir(h());
    const abs = putRaw(root, 'cas/movie.mp4', bytes(25 * MiB + 7, 28));
    await generated(h(), token, { paths: ['/cas/movie.mp4'], formats: ['cas'] });
    const raw = JSON.parse(Buffer.from(readFileSync(join(root, 'cas/movie.cas'), 'latin1').toString(), 'base64').toString('utf8'));
    assert.equal(raw.md5.toLowerCase(), coreutils('md5', abs));
    const slices = coreutilsPieces('md5', abs, 10 * MiB, 'cas').map((s) => s.toUpperCase());
    assert.equal(slices.length, 3);
    assert.equal(raw.sliceMd5, run('md5sum', [], { input: slices.join('\n') }).split(' ')[0]!.toUpperCase());
    assert.equal(raw.size, 25 * MiB + 7);
    assert.equal(decodeCas(readFileSync(join(root, 'cas/movie.cas'))).files[0]!.hashes.md5, coreutils('md5', abs));
  });

  test('comments: .oss carries both, .torrent in `comment` + x-openlist, .cas drops them and diagnostics say so', async () => {
    await putIndexed(h(), '/cm/a.txt', Buffer.from('alpha'));
    await putIndexed(h(), '/cm/b.txt', Buffer.from('beta'));
    const d = await generated(h(), token, {
      paths: ['/cm/a.txt', '/cm/b.txt'],
      formats: ['oss', 'torrent', 'cas'],
      comment: 'line one\nline two',
      file_comments: { '/cm/a.txt': 'first file', 'b.txt': 'second file' },
      output_path: '/cm-out',
    });
    const root = filesDir(h());
    const oss = decodeOss(readFileSync(join(root, 'cm-out/cm.oss')));
    assert.equal(oss.comment, 'line one\nline two');
    assert.deepEqual(oss.files.map((f) => [f.path, f.comment]), [['a.txt', 'first file'], ['b.txt', 'second file']]);

    const tbytes = readFileSync(join(root, 'cm-out/cm.torrent'));
    const troot = decodeBencode(tbytes).value;
    assert.ok(isBencodeDict(troot));
    assert.equal(Buffer.from(troot.get('comment') as Uint8Array).toString(), 'line one\nline two');
    const embedded = decodeTorrent(tbytes).seed;
    assert.deepEqual(embedded.files.map((f) => f.comment), ['first file', 'second file']);

    const cas = Buffer.from(readFileSync(join(root, 'cm-out/cm.cas'), 'latin1').toString(), 'base64').toString('utf8');
    assert.doesNotMatch(cas, /first file|line one/);
    const drop = d.diagnostics.find((x: { code: string }) => x.code === 'cas.drops_comments');
    assert.ok(drop, `diagnostics: ${JSON.stringify(d.diagnostics)}`);
    assert.equal(drop.format, 'cas');
  });

  test('without cas among the formats, no cas diagnostics are reported', async () => {
    const d = await generated(h(), token, { paths: ['/cm/a.txt'], formats: ['oss'], comment: 'x', output_path: '/cm-out2' });
    assert.equal(d.diagnostics.filter((x: { format?: string }) => x.format === 'cas').length, 0);
  });
});
