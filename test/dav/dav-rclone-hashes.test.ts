/**
 * How rclone 1.60's webdav backend (Debian) verifies transfers against Ferry, on both databases, read from
 * rclone's own debug output. Both vendors send `OC-Checksum: SHA1:…` with every PUT: Ferry computes that
 * digest besides the storage's `hash_on_write` ones, refuses the PUT on a mismatch, and records MD5 and SHA-1
 * for such a client, so every upload is checked by hash on the server and rclone's own comparison after each
 * copy and in `rclone check` (nextcloud SHA-1, owncloud MD5) is by hash too, whatever `hash_on_write` says.
 * A file Ferry got another way (here the API, storage default SHA-256 only) has no MD5 until it is read whole:
 * rclone's first download compares sizes, Ferry learns the digests from that read, and the next check is by hash.
 */
import assert from 'node:assert/strict';
import { createHash, randomFillSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { eventually } from '../support/eventually.js';
import { ADMIN_PASSWORD, forEachDialect, requireCommand, type Harness } from '../support/harness.js';
import { basic, dav, propfindProps, propText, rcloneEnv, runClient } from './support.js';

const T = { timeout: 180_000 };
const ADMIN = basic('admin', ADMIN_PASSWORD);

let work: string | null = null;
const scratch = () => (work ??= mkdtempSync(join(tmpdir(), 'ferry-dav-hashes-')));
after(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Source {
  root: string;
  /** relative path → digests */
  files: Map<string, { md5: string; sha1: string }>;
}

/** A few small files in nested folders (a space and non-ASCII in names) and one of 3 MB. */
let source: Source | null = null;
function sourceTree(): Source {
  if (source) return source;
  const root = join(scratch(), 'src');
  const files = new Map<string, { md5: string; sha1: string }>();
  for (const [i, rel] of ['a.txt', 'sub dir/ü.bin', 'sub dir/deep/c.bin', 'big.bin'].entries()) {
    const body = randomFillSync(Buffer.alloc(rel === 'big.bin' ? 3 * 1024 * 1024 + 1 : 100 + i * 31));
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), body);
    files.set(rel, { md5: createHash('md5').update(body).digest('hex'), sha1: createHash('sha1').update(body).digest('hex') });
  }
  return (source = { root, files });
}

forEachDialect('webdav: rclone verifies transfers by hash', (h: () => Harness) => {
  let url = '';
  before(async () => {
    await h().app.listen({ host: '127.0.0.1', port: 0 });
    const addr = h().app.server.address();
    assert.ok(addr && typeof addr === 'object');
    url = `http://127.0.0.1:${addr.port}/dav/`;
  });

  /** The `oc:checksums` Ferry reports for a file under /dav. */
  const checksums = async (path: string): Promise<string> => {
    const pf = await dav(h(), 'PROPFIND', `/dav/${path.split('/').map(encodeURIComponent).join('/')}`, { auth: ADMIN, headers: { depth: '0' }, body: propfindProps('<oc:checksums/>') });
    assert.equal(pf.status, 207, pf.body);
    return propText(pf.body, 'checksum') ?? '';
  };

  // [vendor, folder under /dav, the digest rclone compares]; the storage records SHA-256 alone on write
  const cases = [
    ['nextcloud', 'nc', 'sha1'],
    ['owncloud', 'oc', 'md5'],
  ] as const;
  for (const [vendor, folder, compared] of cases) {
    test(`rclone copy and check, vendor ${vendor}, hash_on_write default (sha256): every PUT declares SHA-1 and Ferry checks it; rclone compares ${compared} itself`, T, async () => {
      requireCommand('rclone', 'rclone');
      const src = sourceTree();
      const env = await rcloneEnv(url, vendor, scratch());
      const copy = await runClient('rclone', ['copy', src.root, `d:${folder}`, '-vv'], { env });
      assert.equal(copy.status, 0, copy.out.slice(-4000));
      const check = await runClient('rclone', ['check', src.root, `d:${folder}`, '-vv'], { env });
      assert.equal(check.status, 0, check.out.slice(-4000));
      assert.match(check.out, /0 differences found/);
      assert.match(check.out, new RegExp(`${src.files.size} matching files`));
      assert.match(check.out, new RegExp(`Using ${compared} for hash comparisons`));
      assert.doesNotMatch(check.out, /hashes could not be checked/);
      for (const [rel, sums] of src.files) {
        // both digests were computed from the bytes received and recorded (the storage alone records SHA-256)
        const known = await checksums(`${folder}/${rel}`);
        assert.match(known, new RegExp(`(^| )SHA1:${sums.sha1}( |$)`), `${rel}: ${known}`);
        assert.match(known, new RegExp(`(^| )MD5:${sums.md5}( |$)`), `${rel}: ${known}`);
        // rclone's own comparison after the copy and in check
        const line = `${rel}: ${compared} = ${sums[compared]} OK`;
        for (const out of [copy.out, check.out]) assert.ok(out.includes(line), `${line} in ${out.slice(-4000)}`);
      }
    });
  }

  test('a file uploaded through the API (SHA-256 only): rclone owncloud downloads it comparing sizes; Ferry learns MD5 from that read, and the next check is by hash', T, async () => {
    requireCommand('rclone', 'rclone');
    const body = randomFillSync(Buffer.alloc(256 * 1024 + 7));
    const md5 = createHash('md5').update(body).digest('hex');
    const headers = { authorization: await h().adminToken(), 'file-path': encodeURIComponent('/api-up/one.bin'), 'content-type': 'application/octet-stream' };
    const up = await h().app.inject({ method: 'PUT', url: '/api/fs/put', headers, payload: body });
    assert.equal(up.statusCode, 200, up.body);
    assert.doesNotMatch(await checksums('api-up/one.bin'), /MD5:/);
    const env = await rcloneEnv(url, 'owncloud', scratch());
    const dest = join(scratch(), 'down');
    const copy = await runClient('rclone', ['copy', 'd:api-up', dest, '-vv'], { env });
    assert.equal(copy.status, 0, copy.out.slice(-4000));
    assert.ok(copy.out.includes('one.bin: Src hash empty') || copy.out.includes('one.bin: Dst hash empty') || /hash.*empty|could not be checked/i.test(copy.out), copy.out.slice(-4000));
    // the index records what it learnt once the read has ended, after the response
    const learnt = new RegExp(`(^| )MD5:${md5}( |$)`);
    assert.match(await eventually(() => checksums('api-up/one.bin'), (v) => learnt.test(v)), learnt);
    const check = await runClient('rclone', ['check', dest, 'd:api-up', '-vv'], { env });
    assert.equal(check.status, 0, check.out.slice(-4000));
    assert.ok(check.out.includes(`one.bin: md5 = ${md5} OK`), check.out.slice(-4000));
    assert.doesNotMatch(check.out, /hashes could not be checked/);
  });
});
