/**
 * How rclone 1.60's webdav backend (Debian) verifies transfers against Ferry, on both databases, read from
 * rclone's own debug output. Both vendors send `OC-Checksum: SHA1:…` with every PUT: Ferry computes that
 * digest besides the storage's `hash_on_write` ones, refuses the PUT on a mismatch and records it, so every
 * upload is checked by hash on the server. rclone then compares one digest itself (after each copy and in
 * `rclone check`): nextcloud the SHA-1 it declared; owncloud MD5, which Ferry has only where the storage
 * records it on write (else rclone logs "Dst hash empty" and falls back to sizes).
 */
import assert from 'node:assert/strict';
import { createHash, randomFillSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
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
    const md5Root = join(h().dataDir, 'md5-root');
    mkdirSync(md5Root);
    const r = await h().post('/api/admin/storage/create', { mount_path: '/md5', driver: 'local', addition: { root_folder_path: md5Root, hash_on_write: 'md5,sha256' } }, { token: await h().adminToken() });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await h().app.listen({ host: '127.0.0.1', port: 0 });
    const addr = h().app.server.address();
    assert.ok(addr && typeof addr === 'object');
    url = `http://127.0.0.1:${addr.port}/dav/`;
  });

  // [vendor, folder under /dav, the digest rclone compares, whether Ferry has it]
  const cases = [
    ['nextcloud', 'nc', 'sha1', true],
    ['owncloud', 'oc', 'md5', false],
    ['owncloud', 'md5/oc', 'md5', true],
  ] as const;
  for (const [vendor, folder, compared, known] of cases) {
    const storage = folder.startsWith('md5/') ? 'hash_on_write md5,sha256' : 'hash_on_write default (sha256)';
    test(`rclone copy and check, vendor ${vendor}, ${storage}: every PUT declares SHA-1 and Ferry checks it; rclone compares ${compared} ${known ? 'itself' : '(absent: sizes)'}`, T, async () => {
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
      for (const [rel, sums] of src.files) {
        // the declared SHA-1 was computed from the bytes received and recorded (the storage alone would not record it)
        const pf = await dav(h(), 'PROPFIND', `/dav/${folder}/${rel.split('/').map(encodeURIComponent).join('/')}`, { auth: ADMIN, headers: { depth: '0' }, body: propfindProps('<oc:checksums/>') });
        assert.equal(pf.status, 207, pf.body);
        assert.match(propText(pf.body, 'checksum') ?? '', new RegExp(`^SHA1:${sums.sha1} `), `${rel}: ${pf.body}`);
        // rclone's own comparison after the copy and in check
        const line = `${rel}: ${compared} = ${sums[compared]} OK`;
        for (const out of [copy.out, check.out]) {
          if (known) assert.ok(out.includes(line), `${line} in ${out.slice(-4000)}`);
          else assert.ok(out.includes(`${rel}: Dst hash empty`), `${rel}: Dst hash empty in ${out.slice(-4000)}`);
        }
      }
      if (known) assert.doesNotMatch(check.out, /hashes could not be checked/);
      else assert.match(check.out, new RegExp(`${src.files.size} hashes could not be checked`));
    });
  }
});
