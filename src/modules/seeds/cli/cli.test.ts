import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { decodeAny } from '../formats/index.js';
import { createSeeds } from './create.js';
import { convertFile } from './convert.js';
import { FALLBACK_SEED_NAME, collectInputs } from './files.js';
import { deriveSeedName as rule } from '../generation/names.js';

const deriveSeedName = (files: string[], root: string) => rule(files, root, FALLBACK_SEED_NAME).name;
import { inspectJson, inspectText } from './inspect.js';
import { parseByteSize, parseFormats } from './options.js';
import { verifySeed, verifyText } from './verify.js';

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));
let tmp = '';
before(() => {
  tmp = mkdtempSync(join(tmpdir(), 'ferry-seed-cli-'));
});
after(() => rmSync(tmp, { recursive: true, force: true }));

function tree(name: string, files: Record<string, number | Buffer>): string {
  const root = join(tmp, name);
  for (const [rel, v] of Object.entries(files)) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), typeof v === 'number' ? randomBytes(v) : v);
  }
  return root;
}

describe('seed name derivation (rule 5) and inputs', () => {
  test('deriveSeedName', () => {
    // the CLI uses the server's rule (generation/names.ts) on the files it collected and their root
    assert.equal(deriveSeedName(['/x/movie.mp4'], '/x'), 'movie');
    assert.equal(deriveSeedName(['/x/a.tar.gz'], '/x'), 'a.tar');
    assert.equal(deriveSeedName(['/x/.bashrc'], '/x'), '.bashrc');
    assert.equal(deriveSeedName(['/x/Photos/1.jpg', '/x/Photos/2.jpg'], '/x/Photos'), 'Photos');
    assert.equal(deriveSeedName(['/x/show.mkv', '/y/show.srt'], '/'), 'show');
    assert.equal(deriveSeedName(['/x/p/a.bin', '/x/p/q/b.bin'], '/x/p'), 'p');
    assert.equal(deriveSeedName(['/a.bin', '/b.bin'], '/'), FALLBACK_SEED_NAME);
  });

  test('collectInputs: recursive, byte-ordered, symlinks followed, loops cut', () => {
    const root = tree('collect/D', { 'sub/x': 1, 'sub-file': 2, 'a.bin': 3, '.hidden': 4, 'z/empty': 0 });
    symlinkSync(join(root, 'a.bin'), join(root, 'link.bin'));
    symlinkSync(root, join(root, 'sub', 'loop'));
    return collectInputs([root]).then((c) => {
      assert.equal(c.name, 'D');
      assert.equal(c.root, root);
      assert.deepEqual(
        c.files.map((f) => [f.path, f.size]),
        [['.hidden', 4], ['a.bin', 3], ['link.bin', 3], ['sub-file', 2], ['sub/x', 1], ['z/empty', 0]],
      );
    });
  });

  test('collectInputs refuses missing paths and empty inputs', async () => {
    await assert.rejects(collectInputs([join(tmp, 'nope')]), /no such file or directory/);
    mkdirSync(join(tmp, 'emptydir'));
    await assert.rejects(collectInputs([join(tmp, 'emptydir')]), /no files/);
  });

  test('option parsing', () => {
    assert.deepEqual(parseFormats('oss, .BT,torrent'), ['oss', 'torrent']);
    assert.deepEqual(parseFormats('CAS,bt,oss'), ['cas', 'torrent', 'oss']);
    assert.throws(() => parseFormats('oss,zip'), /unknown seed format/);
    assert.throws(() => parseFormats('oss,oss,oss,oss'), /at most 3/);
    assert.equal(parseByteSize('2^18'), 262144);
    assert.equal(parseByteSize('256KiB'), 262144);
    assert.equal(parseByteSize('10M'), 10485760);
    assert.equal(parseByteSize('16384'), 16384);
    assert.throws(() => parseByteSize('1.5M'), /not a byte size/);
  });
});

describe('create, inspect, verify, convert (in process)', () => {
  test('all three formats from one pass; inspect shows them; convert between them', async () => {
    const data = randomBytes(300_000);
    const root = tree('all/film', { 'film.mkv': data });
    const out = join(tmp, 'all/out');
    const r = await createSeeds([join(root, 'film.mkv')], { format: 'torrent,oss,cas', output: out, comment: 'two\nlines', tracker: ['https://t/a'] });
    assert.deepEqual(
      r.written.map((w) => w.path),
      ['film.torrent', 'film.oss', 'film.cas'].map((n) => join(out, n)),
    );
    assert.equal(r.seed.name, 'film');
    assert.equal(r.seed.piece_size, 10 * 1024 * 1024, 'cas forces 10 MiB');
    const f = r.seed.files[0]!;
    assert.equal(f.hashes.md5, createHash('md5').update(data).digest('hex'));
    assert.deepEqual(f.hashes.pieces?.md5, [f.hashes.md5]);
    assert.deepEqual(f.hashes.pieces?.sha1, [createHash('sha1').update(data).digest('hex')]);
    assert.match(r.seed.created_by, /^Ferry \d+\.\d+\.\d+/);

    const torrent = decodeAny(readFileSync(r.written[0]!.path), { filename: 'film.torrent' });
    assert.equal(torrent.info_hash, r.written[0]!.infoHash);
    const text = inspectText(torrent);
    assert.match(text, /Seed:\s+film/);
    assert.match(text, /Container:\s+torrent \(info hash [0-9a-f]{40}\)/);
    assert.match(text, /Comment:\s+two\n\s+lines/);
    assert.match(text, /Tracker:\s+https:\/\/t\/a/);
    assert.match(text, /film\.mkv\s+293 KiB \(300000 bytes\)/);
    assert.match(text, /torrent yes/);
    const json = inspectJson(decodeAny(readFileSync(r.written[1]!.path)));
    assert.equal(json.format, 'oss');
    assert.equal(json.total_size, 300_000);
    assert.equal(json.conversions.torrent.feasible, true);

    const back = await convertFile(r.written[2]!.path, { to: 'oss', output: join(tmp, 'all/conv.oss') });
    assert.equal(decodeAny(readFileSync(back.path)).seed.files[0]!.hashes.md5, f.hashes.md5);
    await assert.rejects(convertFile(r.written[2]!.path, { to: 'torrent', output: join(tmp, 'all') }), /missing:\n\s+film\.mkv: no SHA-1 piece hashes/);
    await assert.rejects(createSeeds([join(root, 'film.mkv')], { format: 'oss', output: out }), /exists \(use --force/);
    await assert.rejects(createSeeds([join(root, 'film.mkv')], { name: 'a/b', output: out }), /invalid seed name/);
  });

  test('verify reports missing and resized files and keeps checking the rest', async () => {
    const root = tree('verify/d', { 'a.bin': 40_000, 'b.bin': 40_000, 'c.bin': 40_000 });
    const r = await createSeeds([root], { format: 'torrent', pieceSize: '16KiB', output: join(tmp, 'verify/out') });
    rmSync(join(root, 'a.bin'));
    writeFileSync(join(root, 'b.bin'), randomBytes(10));
    const d = decodeAny(readFileSync(r.written[0]!.path), { filename: 'd.torrent' });
    const rep = await verifySeed(d, root);
    assert.equal(rep.ok, false);
    assert.deepEqual(
      rep.files.map((f) => [f.path, f.status]),
      [['a.bin', 'missing'], ['b.bin', 'size'], ['c.bin', 'ok']],
    );
    assert.match(verifyText(rep, 'd'), /2 of 3 files failed; torrent pieces: \d+ of 8 OK/);
  });
});

describe('the command line (subprocess)', () => {
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'src/modules/seeds/cli/main.ts', 'seed', ...args], { cwd: ROOT, encoding: 'utf8' });

  test('usage errors exit non-zero with a message; help lists the commands', () => {
    const bad = cli('create', join(tmp, 'missing-file'), '-o', tmp);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /ferry: .*no such file or directory/);
    const help = cli('--help');
    assert.match(help.stdout, /create \[options\] <paths\.\.\.>/);
    assert.match(help.stdout, /inspect/);
    assert.match(help.stdout, /verify/);
    assert.match(help.stdout, /convert/);
  });

  test('create then inspect --json', () => {
    const root = tree('sub/pkg', { 'one.txt': Buffer.from('abc') });
    const out = join(tmp, 'sub/out');
    const c = cli('create', root, '--format', 'oss', '--matrix', '{"md5":{"whole":true,"pieces":true}}', '-o', out);
    assert.equal(c.status, 0, c.stderr);
    assert.equal(c.stdout.trim(), join(out, 'pkg.oss'));
    const j = cli('inspect', join(out, 'pkg.oss'), '--json');
    const parsed = JSON.parse(j.stdout) as { seed: { files: { hashes: unknown }[] } };
    assert.deepEqual(parsed.seed.files[0]!.hashes, {
      md5: '900150983cd24fb0d6963f7d28e17f72',
      pieces: { md5: ['900150983cd24fb0d6963f7d28e17f72'] },
    });
  });
});
