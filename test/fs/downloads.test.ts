/**
 * Downloads (`/d/`, `/p/`) from the BUILT server as a process, checked byte for byte with the
 * real curl binary: whole files, ranges, HEAD, Content-Disposition with a UTF-8 name, ETag →
 * 304; folders → 404; traversal in the URL; an S3 storage without proxy (302 to a presigned
 * URL curl follows; /p/ refuses); `sign_all` (on by default): links carry `?sign=`.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { requireCommand } from '../support/commands.js';
import { eventually } from '../support/eventually.js';
import { startCephS3, type CephS3 } from '../support/ceph.js';
import { curl, curlFull, ok, putHeaders, rawUpload, s3Addition, startFerry, type Ferry } from './helpers.js';

let ferry: Ferry;
let ceph: CephS3;

const data = randomBytes(100_000);
const UTF8_NAME = 'Ünïcødé 文件 "quoted" ;100%.bin';

/** The admin API `token` setting: the key download signatures are made with. */
let signKey: string;

/** `/d/…` URL of a virtual path (each segment percent-encoded, as raw_url does), without a signature. */
const enc = (p: string) => p.split('/').map(encodeURIComponent).join('/');
const unsigned = (p: string, prefix = 'd') => `${ferry.url}/${prefix}${enc(p)}`;
/**
 * OpenList's signature of a path, written from the wire format (fs-api.md §3.2), not from Ferry's code:
 * `base64url(HMAC-SHA256(token, "<path>:<expire>"))` with `=` padding, then `:<expire>`; 0 = never expires.
 */
const signOf = (p: string, expire = 0) =>
  `${createHmac('sha256', signKey).update(`${p}:${expire}`).digest('base64').replace(/\+/g, '-').replace(/\//g, '_')}:${expire}`;
/** The signed `/d/…` (or `/p/…`) URL of a virtual path, as the links Ferry hands out. */
const dl = (p: string, prefix = 'd') => `${unsigned(p, prefix)}?sign=${encodeURIComponent(signOf(p.replace(/(.)\/+$/, '$1') || '/'))}`;

async function upload(path: string, body: Buffer): Promise<void> {
  const r = await rawUpload(ferry.url, { headers: putHeaders(ferry.token, path, { 'Content-Length': body.length }), body });
  assert.equal(r.status, 200, r.body);
}

/** Sends a HEAD on a raw socket (Connection: close) and returns whatever follows the header block. */
function rawHeadTail(url: string): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const sock = net.connect(Number(u.port), u.hostname, () => {
      sock.write(`HEAD ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nConnection: close\r\n\r\n`);
    });
    const chunks: Buffer[] = [];
    sock.on('data', (d: Buffer) => chunks.push(d));
    sock.on('error', reject);
    sock.on('close', () => {
      const all = Buffer.concat(chunks).toString('latin1');
      const i = all.indexOf('\r\n\r\n');
      if (i < 0) return reject(new Error(`no header block: ${all}`));
      resolve(all.slice(i + 4));
    });
    sock.setTimeout(5000, () => sock.destroy(new Error('HEAD timed out')));
  });
}

async function setSetting(key: string, value: string): Promise<void> {
  await ok(ferry.call('POST', '/api/admin/setting/save', [{ key, value }]));
}

before(async () => {
  requireCommand('curl', 'curl');
  [ceph, ferry] = await Promise.all([startCephS3(), startFerry()]);
  signKey = (await ok(ferry.call('GET', '/api/admin/setting/get?key=token'))).value;
  await ok(ferry.call('POST', '/api/admin/storage/create', { mount_path: '/s3', driver: 's3', addition: s3Addition(ceph, 'dl-proxy') }));
  await ok(ferry.call('POST', '/api/admin/storage/create', { mount_path: '/s3direct', driver: 's3', proxy: false, addition: s3Addition(ceph, 'dl-direct') }));
  for (const root of ['', '/s3', '/s3direct']) {
    await upload(`${root}/dl/file.bin`, data);
    await upload(`${root}/dl/${UTF8_NAME}`, data.subarray(0, 1000));
  }
});

after(async () => {
  await ferry?.stop();
  await ceph?.stop();
});

for (const root of ['', '/s3']) {
  describe(`downloads through the server: ${root || 'local /'}`, () => {
    const file = `${root}/dl/file.bin`;

    test('whole file, byte for byte, with length and type', async () => {
      const r = await curlFull([dl(file)]);
      assert.equal(r.status, 200);
      assert.ok(r.body.equals(data), 'same bytes');
      assert.equal(r.headers['content-length'], String(data.length));
      assert.equal(r.headers['accept-ranges'], 'bytes');
      // /p/ always proxies: same bytes
      const p = await curlFull([dl(file, 'p')]);
      assert.equal(p.status, 200);
      assert.ok(p.body.equals(data));
    });

    test('ranges: -r 0-0, -r 100-, -r -500 (suffix), a middle slice', async () => {
      const cases: [string, number, number][] = [
        ['0-0', 0, 0],
        ['100-', 100, data.length - 1],
        ['-500', data.length - 500, data.length - 1],
        ['1000-1999', 1000, 1999],
        ['99990-200000', 99990, data.length - 1],
      ];
      for (const [spec, a, b] of cases) {
        const r = await curlFull(['-r', spec, dl(file)]);
        assert.equal(r.status, 206, `-r ${spec}`);
        assert.ok(r.body.equals(data.subarray(a, b + 1)), `-r ${spec}: bytes ${a}-${b}`);
        assert.equal(r.headers['content-range'], `bytes ${a}-${b}/${data.length}`, `-r ${spec}`);
        assert.equal(r.headers['content-length'], String(b - a + 1));
      }
    });

    test('a range past the end → 416 with Content-Range bytes */size', async () => {
      for (const spec of [`${data.length}-`, `${data.length + 10}-${data.length + 20}`]) {
        const r = await curlFull(['-r', spec, dl(file)]);
        assert.equal(r.status, 416, `-r ${spec}`);
        assert.equal(r.headers['content-range'], `bytes */${data.length}`);
      }
    });

    test('HEAD (-I): headers of the whole file, no body', async () => {
      const r = await curlFull(['-I', dl(file)]);
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-length'], String(data.length));
      // curl -I prints the header block on stdout; nothing else may follow it
      assert.equal(r.body.toString('latin1'), r.all);
      assert.equal(await rawHeadTail(dl(file)), '', 'no body bytes after the HEAD response headers');
      assert.ok(r.headers.etag);
      assert.ok(r.headers['last-modified']);
      const ranged = await curlFull(['-I', '-r', '10-19', dl(file)]);
      assert.equal(ranged.status, 206);
      assert.equal(ranged.headers['content-length'], '10');
    });

    test('Content-Disposition carries the UTF-8 name (RFC 5987) and an ASCII fallback', async () => {
      const r = await curlFull([dl(`${root}/dl/${UTF8_NAME}`)]);
      assert.equal(r.status, 200);
      assert.ok(r.body.equals(data.subarray(0, 1000)));
      const cd = r.headers['content-disposition'] ?? '';
      assert.match(cd, /^attachment;/);
      const star = /filename\*=UTF-8''([^;\s]+)/.exec(cd);
      assert.ok(star, cd);
      assert.equal(decodeURIComponent(star[1]!), UTF8_NAME);
      const plain = /filename="([^"]*)"/.exec(cd);
      assert.ok(plain, cd);
      assert.match(plain[1]!, /^[\x20-\x7e]+$/, 'fallback is ASCII');
    });

    test('ETag + If-None-Match → 304 without a body; another tag → 200', async () => {
      const first = await curlFull([dl(file)]);
      const etag = first.headers.etag!;
      assert.ok(etag);
      const again = await curlFull(['-H', `If-None-Match: ${etag}`, dl(file)]);
      assert.equal(again.status, 304);
      assert.equal(again.body.length, 0);
      // If-None-Match compares weakly (RFC 9110 §13.1.2): a W/ tag (e.g. from a compressing proxy) still matches
      for (const h of [`W/${etag}`, `"something-else", ${etag}`, '*']) {
        const r = await curlFull(['-H', `If-None-Match: ${h}`, dl(file)]);
        assert.equal(r.status, 304, `If-None-Match: ${h}`);
      }
      // If-Range: the current tag gets the range, a stale one the whole file
      const ranged = await curlFull(['-r', '0-9', '-H', `If-Range: ${etag}`, dl(file)]);
      assert.equal(ranged.status, 206);
      assert.ok(ranged.body.equals(data.subarray(0, 10)));
      const stale = await curlFull(['-r', '0-9', '-H', 'If-Range: "stale"', dl(file)]);
      assert.equal(stale.status, 200);
      assert.ok(stale.body.equals(data));
      const other = await curlFull(['-H', 'If-None-Match: "something-else"', dl(file)]);
      assert.equal(other.status, 200);
      assert.ok(other.body.equals(data));
    });

    test('a folder or a missing file → 404', async () => {
      for (const p of [`${root}/dl`, `${root}/dl/`, `${root}/dl/missing.bin`, root || '/']) {
        const r = await curlFull([dl(p)]);
        assert.equal(r.status, 404, p);
        assert.equal(JSON.parse(r.body.toString()).code, 404);
      }
    });
  });
}

describe('downloads: files of many read chunks (written straight to the socket from a few reused buffers)', () => {
  // more than the reader's buffers (2 × 256 KiB) hold, and not a multiple of a chunk
  const big = randomBytes(3 * 1024 * 1024 + 4321);
  const K = 256 * 1024;
  const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

  before(async () => {
    await upload('/dl/big.bin', big);
  });

  test('whole file via /d/ and /p/: every byte, with the headers of any download', async () => {
    for (const prefix of ['d', 'p']) {
      const r = await curlFull([dl('/dl/big.bin', prefix)]);
      assert.equal(r.status, 200, prefix);
      assert.ok(r.body.equals(big), `/${prefix}/: same bytes`);
      assert.equal(r.headers['content-length'], String(big.length));
      assert.equal(r.headers['accept-ranges'], 'bytes');
      assert.equal(r.headers['content-type'], 'application/octet-stream');
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
      assert.match(r.headers['content-security-policy'] ?? '', /^sandbox;/);
      assert.match(r.headers['content-disposition'] ?? '', /^attachment; filename="big.bin"/);
      assert.ok(r.headers.etag && r.headers['last-modified']);
    }
  });

  test('ranges across chunk boundaries and to the end', async () => {
    for (const [spec, a, b] of [
      [`${K - 1}-${K}`, K - 1, K],
      [`1000-${5 * K / 2}`, 1000, 5 * K / 2],
      ['-300000', big.length - 300000, big.length - 1],
      [`${K * 4}-`, K * 4, big.length - 1],
    ] as const) {
      const r = await curlFull(['-r', spec, dl('/dl/big.bin')]);
      assert.equal(r.status, 206, spec);
      assert.equal(r.headers['content-range'], `bytes ${a}-${b}/${big.length}`);
      assert.ok(r.body.equals(big.subarray(a, b + 1)), `-r ${spec}`);
    }
  });

  test('two downloads on one kept-alive connection, and a client that leaves early harms nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ferry-dl-'));
    try {
      const r = await curl(['-w', '%{num_connects}\n', '-o', join(dir, '1'), dl('/dl/big.bin'), '-o', join(dir, '2'), dl('/dl/big.bin', 'p')]);
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(r.stdout.toString().trim().split('\n'), ['1', '0'], 'the second download reused the connection');
      assert.ok(readFileSync(join(dir, '1')).equals(big) && readFileSync(join(dir, '2')).equals(big));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // a client that reads a little and hangs up
    const u = new URL(dl('/dl/big.bin'));
    await new Promise<void>((resolve, reject) => {
      const sock = net.connect(Number(u.port), u.hostname, () => sock.write(`GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\n\r\n`));
      let got = 0;
      sock.on('data', (d: Buffer) => {
        got += d.length;
        if (got > 100_000) {
          sock.destroy();
          resolve();
        }
      });
      sock.on('error', reject);
    });
    const after = await curlFull([dl('/dl/big.bin')]);
    assert.equal(after.status, 200);
    assert.ok(after.body.equals(big));
  });

  test('a download of a file whose digests the index lacks teaches the index (storage with hash_on_write "")', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ferry-dl-nohash-'));
    try {
      await ok(ferry.call('POST', '/api/admin/storage/create', { mount_path: '/nohash', driver: 'local', addition: { root_folder_path: root, hash_on_write: '' } }));
      await upload('/nohash/big.bin', big);
      const before = await ok(ferry.call('POST', '/api/fs/get', { path: '/nohash/big.bin' }));
      assert.ok(!before.hash_info?.sha256, 'nothing recorded on write');
      const r = await curlFull(['-r', '0-99', dl('/nohash/big.bin')]);
      assert.equal(r.status, 206);
      const partial = await ok(ferry.call('POST', '/api/fs/get', { path: '/nohash/big.bin' }));
      assert.ok(!partial.hash_info?.sha256, 'a range is not the whole file: nothing learnt');
      const whole = await curlFull([dl('/nohash/big.bin')]);
      assert.ok(whole.body.equals(big));
      // the index learns as the last bytes leave, just after the response ended
      const learnt = await eventually(
        () => ok(ferry.call('POST', '/api/fs/get', { path: '/nohash/big.bin' })),
        (g) => Boolean(g.hash_info?.sha256),
      );
      assert.equal(learnt.hash_info?.sha256, sha256(big));
      assert.equal(learnt.hash_info?.md5, createHash('md5').update(big).digest('hex'));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('downloads: traversal in the URL', () => {
  test('/d/ and /p/ with .. (plain with --path-as-is, encoded, backslash, NUL) are refused', async () => {
    for (const prefix of ['d', 'p']) {
      for (const tail of ['dl/../../../etc/passwd', '%2e%2e/%2e%2e/etc/passwd', 'dl/..%2f..%2f..%2fetc%2fpasswd', 'dl/..%5c..%5cetc%5cpasswd', 'dl/%252e%252e/x', 'dl/file.bin%00']) {
        const r = await curlFull(['--path-as-is', `${ferry.url}/${prefix}/${tail}`]);
        assert.equal(r.status, 403, `/${prefix}/${tail}: ${r.body.toString()}`);
        assert.equal(JSON.parse(r.body.toString()).message, 'using relative path is not allowed');
      }
    }
  });
});

describe('downloads: S3 storage with proxy off', () => {
  const file = '/s3direct/dl/file.bin';

  test('/d/ answers 302 to a presigned URL; curl -L follows it to the right bytes', async () => {
    const r = await curlFull([dl(file)]);
    assert.equal(r.status, 302);
    const loc = r.headers.location!;
    assert.ok(loc.startsWith(ceph.endpoint + '/'), loc);
    assert.match(loc, /X-Amz-Signature=/);
    const followed = await curlFull(['-L', dl(file)]);
    assert.equal(followed.status, 200);
    assert.ok(followed.body.equals(data), 'presigned bytes');
    const range = await curlFull(['-L', '-r', '100-199', dl(file)]);
    assert.ok(range.body.equals(data.subarray(100, 200)), 'ranges pass through the redirect');
    const utf = await curlFull(['-L', dl(`/s3direct/dl/${UTF8_NAME}`)]);
    assert.ok(utf.body.equals(data.subarray(0, 1000)));
  });

  test('/p/ refuses (the storage does not stream through Ferry)', async () => {
    const r = await curlFull([dl(file, 'p')]);
    assert.equal(r.status, 403);
    assert.match(JSON.parse(r.body.toString()).message, /proxy/);
  });
});

describe('downloads: sign_all (on by default)', () => {
  for (const file of ['/dl/file.bin', `/dl/${UTF8_NAME}`, '/s3/dl/file.bin', '/s3direct/dl/file.bin']) {
    test(`no or a wrong sign → 401; the sign from fs/get raw_url → the file (${file})`, async () => {
      for (const prefix of ['d', 'p']) {
        assert.equal((await curlFull([unsigned(file, prefix)])).status, 401, 'no sign');
        assert.equal((await curlFull(['-I', unsigned(file, prefix)])).status, 401, 'no sign (HEAD)');
        assert.equal((await curlFull([`${unsigned(file, prefix)}?sign=abc:0`])).status, 401, 'garbage sign');
      }
      const got = await ok(ferry.call('POST', '/api/fs/get', { path: file }));
      assert.ok(got.sign, 'fs/get reports a sign');
      assert.ok(got.raw_url.includes('?sign='), got.raw_url);
      const dir = file.slice(0, file.lastIndexOf('/'));
      const isBin = file.endsWith('/file.bin');
      const r = await curlFull(['-L', got.raw_url]);
      assert.equal(r.status, 200, got.raw_url);
      assert.ok(r.body.equals(isBin ? data : data.subarray(0, 1000)), 'signed download bytes');
      // a sign is bound to its path
      const sibling = isBin ? `${dir}/${UTF8_NAME}` : `${dir}/file.bin`;
      const sign = new URL(got.raw_url).searchParams.get('sign')!;
      assert.equal(sign, signOf(file, 0), 'the OpenList wire format');
      assert.equal((await curlFull([`${unsigned(sibling)}?sign=${encodeURIComponent(sign)}`])).status, 401, 'sign of another path');
    });
  }

  test('a folder listing carries a sign per file that works with /d/', async () => {
    const list = await ok(ferry.call('POST', '/api/fs/list', { path: '/dl' }));
    const f = list.content.find((e: { name: string }) => e.name === 'file.bin');
    assert.ok(f?.sign);
    const r = await curl([`${unsigned('/dl/file.bin')}?sign=${encodeURIComponent(f.sign)}`]);
    assert.equal(r.code, 0);
    assert.ok(r.stdout.equals(data));
  });

  test('an expired signature → 401 "sign expired"', async () => {
    const r = await curlFull([`${unsigned('/dl/file.bin')}?sign=${encodeURIComponent(signOf('/dl/file.bin', Math.floor(Date.now() / 1000) - 60))}`]);
    assert.equal(r.status, 401);
    assert.equal(JSON.parse(r.body.toString()).message, 'sign expired');
  });

  test('with sign_all saved off, unsigned links download again', async () => {
    await setSetting('sign_all', 'false');
    try {
      const r = await curlFull([unsigned('/dl/file.bin', 'p')]);
      assert.equal(r.status, 200);
      assert.ok(r.body.equals(data));
    } finally {
      await setSetting('sign_all', 'true');
    }
  });
});
