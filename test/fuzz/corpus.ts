/**
 * The fuzzers' starting points: valid documents of every container (our encoders' output,
 * third-party torrents from the fixtures, hand-written legacy `.cas` JSON), each tagged with
 * its format. Mutations start from these so they reach deep into the validators.
 */
import { Buffer } from 'node:buffer';
import { readdirSync } from 'node:fs';
import { exampleSeed, fixture, FIXTURES, hashBytes, helloSeed, pieceStream } from '../fixtures/seeds/helpers.js';
import { createSeed, encodeCas, encodeOss, encodeTorrent, torrentFileOrder } from '../../src/modules/seeds/formats/index.js';
import type { Seed, SeedFormat } from '../../src/modules/seeds/formats/index.js';

export interface CorpusEntry {
  name: string;
  format: SeedFormat;
  bytes: Buffer;
}

const NOW = new Date(1767225600_000);
const PIECE = 16 * 1024;

/** Deterministic bytes (so the corpus is the same on every run). */
function bytesOf(size: number, salt: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 31 + salt + (i >> 8)) & 0xff;
  return b;
}

/** A multi-file seed with every hash, unicode paths, sources, channels, trackers and CAS fields. */
function richSeed(): { seed: Seed; stream: Buffer } {
  const contents: Array<[string, Buffer]> = [
    ['album/01 intro.flac', bytesOf(2 * PIECE, 1)],
    ['album/ü/文件.txt', bytesOf(PIECE + 17, 2)],
    ['empty', Buffer.alloc(0)],
  ];
  const files = contents.map(([p, b], i) => ({
    ...hashBytes(p, b, PIECE),
    modified: '2026-01-02T03:04:05Z',
    comment: i === 0 ? 'first "quoted" \\ file' : undefined,
    sources: i === 0 ? [{ type: 'openlist-direct', url: 'https://pan.example.com/d/album/01%20intro.flac', share_id: 'abc' }] : undefined,
    cas_cloud: i === 1 ? '115' : undefined,
    missing_channels: i === 1 ? ['S3'] : undefined,
    hashes: { ...hashBytes(p, b, PIECE).hashes, gcid: i === 0 ? 'ab'.repeat(20) : undefined },
  }));
  const seed = createSeed({
    name: 'album',
    files,
    createdBy: 'Ferry fuzz',
    pieceSize: PIECE,
    createdAt: NOW,
    comment: 'a comment with ünïcode and "quotes"',
    trackers: ['https://tracker.example.org/announce', 'udp://tracker2.example.org:80'],
    channels: [{ driver: 'Local', mount_path: '/local' }],
  });
  const ordered = torrentFileOrder(contents.map(([path, b]) => ({ path, b })));
  return { seed, stream: pieceStream(ordered.map((o) => o.b), PIECE) };
}

const LEGACY_CAS_JSON = JSON.stringify({
  name: 'hello.txt',
  size: 3,
  md5: '900150983CD24FB0D6963F7D28E17F72',
  sliceMd5: '900150983CD24FB0D6963F7D28E17F72',
  create_time: '1767225600',
});

let cached: CorpusEntry[] | undefined;

/** Every valid starting document (built once per process). */
export function corpus(): CorpusEntry[] {
  if (cached) return cached;
  const out: CorpusEntry[] = [];
  const add = (name: string, format: SeedFormat, bytes: Buffer) => out.push({ name, format, bytes });
  const hello = helloSeed();
  const example = exampleSeed();
  const rich = richSeed();
  for (const [name, seed] of [['hello', hello], ['example', example], ['rich', rich.seed]] as const) {
    add(`${name}.oss`, 'oss', encodeOss(seed));
  }
  add('hello.torrent', 'torrent', encodeTorrent(hello));
  add('hello-plain.torrent', 'torrent', encodeTorrent(hello, { openlistExtension: false }));
  add('hello-multi.torrent', 'torrent', encodeTorrent(hello, { layout: 'multi' }));
  add('example.torrent', 'torrent', encodeTorrent(example));
  add('rich.torrent', 'torrent', encodeTorrent(rich.seed, { pieces: { pieceSize: PIECE, hashes: rich.stream } }));
  add('rich-plain.torrent', 'torrent', encodeTorrent(rich.seed, { pieces: { pieceSize: PIECE, hashes: rich.stream }, openlistExtension: false }));
  add('hello.cas', 'cas', encodeCas(hello, { now: NOW }));
  add('example.cas', 'cas', encodeCas(example, { now: NOW }));
  add('legacy.cas', 'cas', Buffer.from(Buffer.from(LEGACY_CAS_JSON).toString('base64')));
  add('legacy-json.cas', 'cas', Buffer.from(LEGACY_CAS_JSON));
  const multiCas = { ...rich.seed, files: rich.seed.files.map((f) => ({ ...f, hashes: { md5: f.hashes.md5 } })) };
  add('rich.cas', 'cas', encodeCas(multiCas, { now: NOW }));
  for (const f of readdirSync(FIXTURES).filter((n) => n.endsWith('.torrent')).sort()) add(f, 'torrent', fixture(f));
  cached = out;
  return out;
}
