/**
 * Issue #22: Ferry checks every piece of a BitTorrent tool's copy against the `.torrent` before anything lands,
 * and a mismatch names the file and the piece. The torrent is made by mktorrent (Debian) over a nested folder with
 * an empty file and files that do not end on piece boundaries (pieces span files).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, truncateSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { checkTorrentPieces, PieceMismatch } from '../../src/modules/offline/torrent-check.js';
import { mktorrentHash, need } from '../seeds-peers/peers.js';
import { bytes } from '../seeds-generate/helpers.js';

const PIECE = 32 * 1024;
let base: string;
let work: string;
let torrent: Buffer;
const file = (rel: string) => join(work, 'pack', ...rel.split('/'));

before(() => {
  need.mktorrent();
  base = mkdtempSync(join(tmpdir(), 'ferry-torrent-check-'));
  work = join(base, 'work');
  mkdirSync(join(work, 'pack', 'inner', 'deeper'), { recursive: true });
  writeFileSync(file('a.bin'), bytes(50_000, 1));
  writeFileSync(file('empty.txt'), '');
  writeFileSync(file('inner/b.bin'), bytes(70_001, 2));
  writeFileSync(file('inner/deeper/c.bin'), bytes(9_999, 3));
  mktorrentHash(join(work, 'pack'), 15, join(base, 'pack.torrent'));
  torrent = readFileSync(join(base, 'pack.torrent'));
});
after(() => rmSync(base, { recursive: true, force: true }));

test('an intact copy passes, also without the empty file (some tools never create it)', async () => {
  await checkTorrentPieces(work, torrent);
  rmSync(file('empty.txt'));
  await checkTorrentPieces(work, torrent);
  writeFileSync(file('empty.txt'), '');
});

test('one changed byte fails naming the piece and the file(s) it spans', async () => {
  // byte 60,000 of the stream: piece 1 (32768–65535), which holds the end of a.bin and the start of inner/b.bin
  // (torrent order is a.bin, empty.txt, inner/b.bin, inner/deeper/c.bin)
  const original = readFileSync(file('inner/b.bin'));
  const fd = openSync(file('inner/b.bin'), 'r+');
  writeSync(fd, Buffer.from([original[10_000]! ^ 0xff]), 0, 1, 10_000);
  closeSync(fd);
  try {
    await assert.rejects(checkTorrentPieces(work, torrent), (e: Error) => {
      assert.ok(e instanceof PieceMismatch, e.message);
      assert.match(e.message, /^piece 1 of 4 \(bytes 32768–65535, in pack\/a\.bin, pack\/inner\/b\.bin\) does not match/);
      return true;
    });
  } finally {
    writeFileSync(file('inner/b.bin'), original);
  }
  await checkTorrentPieces(work, torrent);
});

test('a short or missing file fails naming the file', async () => {
  truncateSync(file('inner/deeper/c.bin'), 9_000);
  await assert.rejects(checkTorrentPieces(work, torrent), /^PieceMismatch: pack\/inner\/deeper\/c\.bin: the tool's copy has 9000 bytes, the torrent says 9999 bytes$/);
  rmSync(file('inner/deeper/c.bin'));
  await assert.rejects(checkTorrentPieces(work, torrent), /pack\/inner\/deeper\/c\.bin: the tool's copy has no file/);
  writeFileSync(file('inner/deeper/c.bin'), bytes(9_999, 3));
  await checkTorrentPieces(work, torrent);
});
