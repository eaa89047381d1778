/**
 * 20 concurrent 50 MB uploads, each with all three sidecars, over real sockets: every
 * upload succeeds and every sidecar's whole hashes equal coreutils over its stored file.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Harness, requireCommand } from '../support/harness.js';
import { patternBody, rawUpload } from '../fs/helpers.js';
import { coreutils, hostPath, MiB, readSidecar } from './helpers.js';

const N = 20;
const SIZE = 50 * 1000 * 1000;

describe('upload sidecars: 20 concurrent 50 MB uploads', () => {
  const h = new Harness('sqlite');
  let admin: string;
  let base: string;
  before(async () => {
    requireCommand('sha256sum', 'coreutils');
    await h.start();
    admin = await h.adminToken();
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(() => h.stop());

  test('every upload lands and every sidecar matches its file', { timeout: 300_000 }, async () => {
    const results = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        rawUpload(base, {
          headers: { Authorization: admin, 'File-Path': encodeURIComponent(`/many/f${i}.bin`), 'Content-Length': SIZE, 'X-Seed-Sidecars': 'oss,torrent,cas' },
          body: patternBody(SIZE, i + 1),
          chunkSize: MiB,
        }),
      ),
    );
    results.forEach((r, i) => assert.equal(r.status, 200, `upload ${i}: ${r.status} ${r.body}`));
    for (let i = 0; i < N; i++) {
      const path = `/many/f${i}.bin`;
      const file = hostPath(h, path);
      const sums = { md5: coreutils('md5', file), sha1: coreutils('sha1', file), sha256: coreutils('sha256', file) };
      for (const format of ['oss', 'torrent', 'cas'] as const) {
        const f = readSidecar(h, path, format).seed.files[0]!;
        assert.equal(f.size, SIZE, `${path}.${format} size`);
        assert.equal(f.hashes.md5?.toLowerCase(), sums.md5, `${path}.${format} md5`);
        if (format !== 'cas') assert.equal(f.hashes.sha1, sums.sha1, `${path}.${format} sha1`);
        if (format === 'oss') assert.equal(f.hashes.sha256, sums.sha256, `${path}.oss sha256`);
      }
    }
  });
});
