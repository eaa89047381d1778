/**
 * Upload sidecars, their content: whole hashes equal coreutils over the stored file, piece
 * hashes equal the 10 MiB slices, the `.torrent` verifies with libtorrent, the `.cas`
 * sliceMd5 follows the rule for 0 B, 1 B, 10 MiB, 10 MiB + 1 and 35 MiB; seed name, file
 * entry, modified time, piece size and trackers; and the bytes are read once (the driver
 * receives each byte once, nothing reads the stored file back).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { Harness, requireCommand } from '../support/harness.js';
import { driverOf } from '../seeds-generate/helpers.js';
import type { PendingWrite } from '../../src/modules/storages/drivers/index.js';
import { ALL_SIX, bytes, coreutils, hostPath, ltcheck, MiB, putOk, readSidecar, setSettings } from './helpers.js';

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

/** The sliceMd5 rule (seed-formats.md §4.3) over 10 MiB slices, computed here independently. */
function expectedSliceMd5(data: Buffer): string {
  const slices: string[] = [];
  for (let o = 0; o < data.length; o += 10 * MiB) slices.push(md5(data.subarray(o, o + 10 * MiB)).toUpperCase());
  if (slices.length <= 1) return md5(data).toUpperCase();
  return createHash('md5').update(slices.join('\n')).digest('hex').toUpperCase();
}

describe('upload sidecars: content', () => {
  const h = new Harness('sqlite');
  let admin: string;
  before(async () => {
    requireCommand('md5sum', 'coreutils');
    await h.start();
    admin = await h.adminToken();
    await setSettings(h, admin, { seed_default_trackers: 'udp://tracker.example:6969/announce\nnot a url\nhttps://t.example/announce' });
  });
  after(() => h.stop());

  const sizes: [string, number][] = [
    ['0 B', 0],
    ['1 B', 1],
    ['10 MiB', 10 * MiB],
    ['10 MiB + 1', 10 * MiB + 1],
    ['35 MiB', 35 * MiB],
  ];
  for (const [label, size] of sizes) {
    test(`${label}: all three sidecars match the stored file`, async () => {
      const data = bytes(size, size + 3);
      const name = `f-${size}.bin`;
      const modified = Date.UTC(2025, 4, 6, 7, 8, 9, 123);
      await putOk(h, admin, `/c/${name}`, data, { 'x-seed-sidecars': 'oss,torrent,cas', 'x-seed-hash-matrix': JSON.stringify(ALL_SIX), 'last-modified': String(modified) });
      const stored = hostPath(h, `/c/${name}`);
      assert.ok(readFileSync(stored).equals(data), 'stored bytes');

      for (const format of ['oss', 'torrent', 'cas'] as const) {
        const { seed } = readSidecar(h, `/c/${name}`, format);
        assert.equal(seed.name, name, format);
        assert.equal(seed.files.length, 1, format);
        const f = seed.files[0]!;
        assert.equal(f.path, name, format);
        assert.equal(f.size, size, format);
        assert.equal(seed.piece_size, 10 * MiB, `${format}: forced to 10 MiB with cas`);
        assert.equal(f.hashes.md5?.toLowerCase(), coreutils('md5', stored), `${format} md5`);
        if (format !== 'cas') {
          assert.equal(f.hashes.sha1, coreutils('sha1', stored), `${format} sha1`);
          assert.ok(Math.abs(new Date(f.modified!).getTime() - modified) < 1000, `${format} modified ${f.modified}`);
        }
        if (format === 'oss') {
          assert.equal(f.hashes.sha256, coreutils('sha256', stored), 'oss sha256');
          const slices = Math.ceil(size / (10 * MiB));
          for (const alg of ['md5', 'sha1', 'sha256'] as const) {
            const expected = Array.from({ length: slices }, (_, i) => createHash(alg).update(data.subarray(i * 10 * MiB, (i + 1) * 10 * MiB)).digest('hex'));
            assert.deepEqual(f.hashes.pieces?.[alg] ?? [], expected, `oss ${alg} pieces`);
          }
          assert.deepEqual(seed.trackers, ['udp://tracker.example:6969/announce', 'https://t.example/announce'], 'trackers from seed_default_trackers (invalid lines dropped)');
        }
      }
      // .cas: the legacy fields on the wire
      const cas = JSON.parse(Buffer.from(readFileSync(hostPath(h, `/c/${name}.cas`), 'utf8'), 'base64').toString('utf8')) as Record<string, unknown>;
      assert.equal(cas.name, name);
      assert.equal(cas.size, size);
      assert.equal(String(cas.md5).toUpperCase(), md5(data).toUpperCase());
      assert.equal(cas.sliceMd5, expectedSliceMd5(data), 'sliceMd5 rule');

      if (size > 0) {
        requireCommand('/usr/bin/python3', 'python3-libtorrent');
        const t = join(mkdtempSync(join(tmpdir(), 'ferry-lt-')), 'x.torrent');
        writeFileSync(t, readFileSync(hostPath(h, `/c/${name}.torrent`)));
        assert.match(ltcheck(t, hostPath(h, '/c')), /OK$/, 'libtorrent verifies every piece');
      }
    });
  }

  test('modified comes from Last-Modified (ms), else now', async () => {
    const at = Date.UTC(2024, 0, 2, 3, 4, 5);
    await putOk(h, admin, '/m/lm.bin', 'x', { 'x-seed-sidecars': 'oss', 'last-modified': String(at) });
    assert.ok(Math.abs(new Date(readSidecar(h, '/m/lm.bin', 'oss').seed.files[0]!.modified!).getTime() - at) < 1000);
    const before = Date.now() - 2000;
    await putOk(h, admin, '/m/now.bin', 'x', { 'x-seed-sidecars': 'oss' });
    const t = new Date(readSidecar(h, '/m/now.bin', 'oss').seed.files[0]!.modified!).getTime();
    assert.ok(t >= before && t <= Date.now() + 1000, `modified ${t} is now`);
  });

  test('one read: the driver receives each byte once and nothing reads the stored file', async () => {
    const d = driverOf(h);
    const origWrite = d.beginWrite.bind(d);
    const origRead = d.read.bind(d);
    const written = new Map<string, number>();
    let reads = 0;
    d.beginWrite = async (path, opts) => {
      const p = await origWrite(path, opts);
      const counter = new Writable({
        write(chunk: Buffer, _e, cb) {
          written.set(path, (written.get(path) ?? 0) + chunk.length);
          if (!p.stream.write(chunk)) p.stream.once('drain', () => cb());
          else cb();
        },
        final(cb) {
          p.stream.end(cb);
        },
        destroy(err, cb) {
          if (err) p.stream.destroy(err);
          cb(err);
        },
      });
      return new Proxy(p, { get: (t, k) => (k === 'stream' ? counter : k === 'pipeFrom' ? (src: NodeJS.ReadableStream) => import('node:stream/promises').then((s) => s.pipeline(src, counter)).then(() => written.get(path) ?? 0) : Reflect.get(t, k)) }) as PendingWrite;
    };
    d.read = async (path, range) => {
      reads++;
      return origRead(path, range);
    };
    try {
      const data = bytes(12 * MiB + 5, 77);
      await putOk(h, admin, '/once/big.bin', data, { 'x-seed-sidecars': 'oss,torrent,cas' });
      assert.equal(written.get('/once/big.bin'), data.length, 'every byte reached the driver exactly once');
      assert.equal(reads, 0, 'no read of the stored file');
      assert.equal(readSidecar(h, '/once/big.bin', 'oss').seed.files[0]!.hashes.md5, md5(data));
    } finally {
      d.beginWrite = origWrite;
      d.read = origRead;
    }
  });

  test('the local hash index learns the digests from the upload (a later generate reads nothing)', async () => {
    const data = bytes(300_000, 5);
    await putOk(h, admin, '/idx/a.bin', data, { 'x-seed-sidecars': 'oss' });
    const r = await h.post('/api/fs/seed/capabilities', { paths: ['/idx/a.bin'] }, { token: admin });
    assert.equal(r.status, 200, r.body.message);
    const file = JSON.stringify(r.body.data);
    assert.match(file, /"available_hashes":\["md5","sha1","sha256"\]/, file);
    assert.match(file, /"requires_download":false/, file);
  });
});
