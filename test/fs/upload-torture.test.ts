/**
 * Upload torture against the BUILT server as a process, over real sockets (node:http), on the
 * default local storage and on an S3 storage (Ceph RGW) mounted at /s3 through the admin API.
 * After every scenario the storage itself is inspected (readdir of the host directory with hidden
 * names / ListObjectsV2 + ListMultipartUploads of the bucket): no partial or temp object may remain.
 *
 * Sizes: the local "large" upload declares 200 MB. On S3 it declares 64 MiB (32 MiB sent): Ceph
 * here runs an in-memory OSD (memstore, 2 GiB) and RGW garbage-collects the parts of aborted
 * multipart uploads only hours later, so every aborted byte stays in RAM for the whole file; 64 MiB
 * still spans a dozen 5 MiB parts, which is what exercises the multipart abort.
 */
import assert from 'node:assert/strict';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { S3Client } from '@aws-sdk/client-s3';
import { startCephS3, type CephS3 } from '../support/ceph.js';
import {
  MiB,
  eventually,
  fileBytes,
  hashOf,
  keysOf,
  materialize,
  objectBytes,
  ok,
  patternBody,
  putHeaders,
  rawUpload,
  s3Addition,
  sha256,
  startFerry,
  treeOf,
  uploadsOf,
  type Ferry,
} from './helpers.js';

const S3_PREFIX = 'torture';

let ferry: Ferry;
let ceph: CephS3;
let s3: S3Client;

before(async () => {
  [ceph, ferry] = await Promise.all([startCephS3(), startFerry()]);
  s3 = ceph.client();
  const st = await ok(ferry.call('POST', '/api/admin/storage/create', { mount_path: '/s3', driver: 's3', addition: s3Addition(ceph, S3_PREFIX) }));
  assert.equal(st.status, 'work');
});

after(async () => {
  s3?.destroy();
  await ferry?.stop();
  await ceph?.stop();
});

interface Target {
  name: string;
  /** Virtual path prefix of the storage. */
  mount: string;
  /** Declared size of the "large" upload. */
  large: number;
  /** Everything stored below a folder of the storage (temp names included). */
  list(dir: string): Promise<string[]>;
  /** Multipart uploads in progress below the folder. */
  pending(dir: string): Promise<string[]>;
  /** The stored bytes of a file, read from the storage directly. */
  bytes(path: string): Promise<Buffer | null>;
  /** Evidence that an upload is in flight below the folder (temp file / multipart upload). */
  inFlight(dir: string): Promise<boolean>;
}

const targets: Target[] = [
  {
    name: 'local',
    mount: '',
    large: 200_000_000,
    list: (dir) => treeOf(join(ferry.files, dir)).catch(() => []),
    pending: async () => [],
    bytes: (p) => fileBytes(join(ferry.files, p)),
    inFlight: async (dir) => (await treeOf(join(ferry.files, dir)).catch(() => [])).some((n) => n.includes('.ferry-tmp-')),
  },
  {
    name: 's3',
    mount: '/s3',
    large: 64 * MiB,
    // '' is the folder's own marker object (`<dir>/`), which mkdir writes on purpose.
    list: async (dir) => (await keysOf(s3, ceph.bucket, `${S3_PREFIX}/${dir}`)).filter((k) => k !== ''),
    pending: (dir) => uploadsOf(s3, ceph.bucket, `${S3_PREFIX}/${dir}`),
    bytes: (p) => objectBytes(s3, ceph.bucket, `${S3_PREFIX}/${p}`).catch(() => null),
    inFlight: async (dir) => (await uploadsOf(s3, ceph.bucket, `${S3_PREFIX}/${dir}`)).length > 0,
  },
];

/** Storage below `dir` holds exactly `expected`, no upload in progress, nothing spooled. */
async function assertClean(t: Target, dir: string, expected: string[]): Promise<void> {
  await eventually(async () => {
    assert.deepEqual(await t.list(dir), expected, `${t.name}:${dir} holds exactly ${JSON.stringify(expected)}`);
    assert.deepEqual(await t.pending(dir), [], `${t.name}:${dir} has no multipart upload in progress`);
    assert.deepEqual(await readdir(join(ferry.dataDir, 'tmp')), [], 'nothing left in <data dir>/tmp');
    // and no temp name anywhere in either storage
    assert.deepEqual((await treeOf(ferry.files)).filter((n) => n.includes('.ferry-tmp-')), [], 'local storage root');
    assert.deepEqual((await keysOf(s3, ceph.bucket, S3_PREFIX)).filter((k) => k.includes('.ferry-tmp-')), [], 'bucket prefix');
    assert.deepEqual(await uploadsOf(s3, ceph.bucket, S3_PREFIX), [], 'no multipart upload in the bucket prefix');
  });
}

async function assertAlive(): Promise<void> {
  const r = await fetch(`${ferry.url}/ping`);
  assert.equal(await r.text(), 'pong', 'the server survived');
}

async function getObj(path: string) {
  return ferry.call('POST', '/api/fs/get', { path });
}

/** Uploads `data` normally and checks it landed. */
async function put(t: Target, rel: string, data: Buffer, extra: Record<string, string | number> = {}) {
  const r = await rawUpload(ferry.url, { headers: putHeaders(ferry.token, `${t.mount}/${rel}`, { 'Content-Length': data.length, ...extra }), body: data });
  assert.equal(r.status, 200, `upload ${rel}: ${r.status} ${r.body} ${r.error?.message ?? ''}`);
  assert.ok((await t.bytes(rel))?.equals(data), `${rel} stored exactly`);
}

for (const t of targets) {
  describe(`upload torture: ${t.name}${t.mount ? ` at ${t.mount}` : ''}`, { timeout: 120_000 }, () => {
    test(`(a) X-File-Size ${t.large} bytes declared, half sent, socket reset: nothing stored`, async () => {
      const body = patternBody(t.large, 1);
      let sawInFlight = false;
      const chunks = Math.ceil(t.large / 2 / MiB);
      const r = await rawUpload(ferry.url, {
        headers: putHeaders(ferry.token, `${t.mount}/a/big.bin`, { 'X-File-Size': t.large }),
        body,
        sendBytes: t.large / 2,
        then: 'destroy',
        beforeChunk: async (i) => {
          if (i !== chunks - 1) return;
          await eventually(async () => assert.ok(await t.inFlight('a')), 3000);
          sawInFlight = true;
        },
      });
      assert.ok(sawInFlight, 'the upload was streaming into the storage before the abort');
      assert.notEqual(r.status, 200);
      await assertClean(t, 'a', []);
      assert.equal((await getObj(`${t.mount}/a/big.bin`)).status, 404);
      await assertAlive();
    });

    test('(a) multipart form upload cut off mid-file: nothing stored', async () => {
      const boundary = '----ferry-torture';
      const file = materialize(patternBody(12 * MiB, 2));
      const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="f.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
      const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
      const body = Buffer.concat([head, file, tail]);
      const r = await rawUpload(ferry.url, {
        path: '/api/fs/form',
        headers: { ...putHeaders(ferry.token, `${t.mount}/aform/f.bin`), 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': body.length },
        body,
        sendBytes: head.length + 7 * MiB,
        then: 'destroy',
      });
      assert.notEqual(r.status, 200);
      await assertClean(t, 'aform', []);
      // control: the same request sent whole works
      const full = await rawUpload(ferry.url, {
        path: '/api/fs/form',
        headers: { ...putHeaders(ferry.token, `${t.mount}/aform/f.bin`), 'Content-Type': `multipart/form-data; boundary=${boundary}`, 'Content-Length': body.length },
        body,
      });
      assert.equal(full.status, 200, full.body);
      assert.ok((await t.bytes('aform/f.bin'))?.equals(file));
      await assertClean(t, 'aform', ['f.bin']);
    });

    for (const [label, declared, sent] of [
      ['small (single request body)', 1000, 10],
      ['large (streamed in parts)', 20 * MiB, 7 * MiB],
    ] as const) {
      test(`(b) Content-Length larger than the body, then the client closes: ${label}`, async () => {
        const dir = `b${declared}`;
        const r = await rawUpload(ferry.url, {
          headers: putHeaders(ferry.token, `${t.mount}/${dir}/short.bin`, { 'Content-Length': declared }),
          body: patternBody(declared, 3),
          sendBytes: sent,
          then: 'close',
        });
        assert.notEqual(r.status, 200);
        await assertClean(t, dir, []);
        assert.equal((await getObj(`${t.mount}/${dir}/short.bin`)).status, 404);
        await assertAlive();
      });
    }

    test('(c) a wrong X-File-Md5 fails with 400 and stores nothing (small, and large with every hash declared)', async () => {
      const small = Buffer.from('the real content');
      const bad = await rawUpload(ferry.url, {
        headers: putHeaders(ferry.token, `${t.mount}/c/small.txt`, { 'Content-Length': small.length, 'X-File-Md5': hashOf('md5', 'something else') }),
        body: small,
      });
      assert.equal(bad.status, 400, bad.body);
      assert.equal(bad.json?.code, 400);
      assert.match(bad.json?.message ?? '', /md5/i);

      // Large with all three declared: on S3 this streams straight to the final key (multipart), so
      // the mismatch must abort that upload.
      const big = materialize(patternBody(12 * MiB, 4));
      const hashes = { 'X-File-Md5': hashOf('md5', 'not it'), 'X-File-Sha1': hashOf('sha1', big), 'X-File-Sha256': sha256(big) };
      const bad2 = await rawUpload(ferry.url, { headers: putHeaders(ferry.token, `${t.mount}/c/big.bin`, { 'Content-Length': big.length, ...hashes }), body: big });
      assert.equal(bad2.status, 400, bad2.body);
      assert.match(bad2.json?.message ?? '', /md5/i);
      await assertClean(t, 'c', []);

      // control: the right digests are accepted
      await put(t, 'c/big.bin', big, { ...hashes, 'X-File-Md5': hashOf('md5', big) });
      await assertClean(t, 'c', ['big.bin']);
    });

    test('(d) Overwrite: false on an existing file → 403 file exists, the file is intact', async () => {
      const v1 = Buffer.from('version one');
      await put(t, 'd/f.txt', v1);
      for (const body of [Buffer.from('version two, longer'), materialize(patternBody(6 * MiB, 5))]) {
        const r = await rawUpload(ferry.url, { headers: putHeaders(ferry.token, `${t.mount}/d/f.txt`, { 'Content-Length': body.length, Overwrite: 'false' }), body });
        assert.equal(r.status, 403, r.body);
        assert.deepEqual(r.json, { code: 403, message: 'file exists', data: null });
        assert.ok((await t.bytes('d/f.txt'))?.equals(v1), 'existing content intact');
      }
      // control: Overwrite: false on a new name works
      await put(t, 'd/g.txt', Buffer.from('new'), { Overwrite: 'false' });
      await assertClean(t, 'd', ['f.txt', 'g.txt']);
    });

    for (const [label, size] of [
      ['small', 64 * 1024],
      ['large (multipart on S3)', 12 * MiB],
    ] as const) {
      test(`(e) concurrent uploads of one path, different contents: the result is exactly one of them (${label})`, async () => {
        const n = 4;
        const bodies = Array.from({ length: n }, (_, i) => materialize(patternBody(size, 10 + i)));
        const chunk = Math.max(16 * 1024, Math.floor(size / 8));
        // interleave: every writer sends chunk k before anyone sends chunk k+1
        let turn = 0;
        const waiting: (() => void)[] = [];
        let atBarrier = 0;
        const barrier = (k: number) =>
          new Promise<void>((resolve) => {
            if (k < turn) return resolve();
            waiting.push(resolve);
            if (++atBarrier === n) {
              atBarrier = 0;
              turn++;
              for (const w of waiting.splice(0)) w();
            }
          });
        const results = await Promise.all(
          bodies.map((b) =>
            rawUpload(ferry.url, {
              headers: putHeaders(ferry.token, `${t.mount}/e${size}/race.bin`, { 'Content-Length': b.length }),
              body: b,
              chunkSize: chunk,
              beforeChunk: (k) => barrier(k),
            }),
          ),
        );
        for (const r of results) assert.equal(r.status, 200, r.body);
        const got = await t.bytes(`e${size}/race.bin`);
        assert.ok(got, 'a file exists');
        const winners = bodies.filter((b) => b.equals(got));
        assert.equal(winners.length, 1, 'the stored file equals exactly one upload (never a mix)');
        // the hashes Ferry reports describe that winner
        const info = await ok(getObj(`${t.mount}/e${size}/race.bin`));
        assert.equal(info.hash_info?.sha256, sha256(got));
        assert.equal(info.size, size);
        await assertClean(t, `e${size}`, ['race.bin']);
      });
    }

    test('(f) an overwrite that fails midway leaves the old file intact (client abort, and too many bytes)', async () => {
      const old = materialize(patternBody(3 * MiB, 20));
      await put(t, 'f/keep.bin', old);
      const before = await ok(getObj(`${t.mount}/f/keep.bin`));
      assert.equal(before.hash_info?.sha256, sha256(old));

      // 1) the client goes away halfway through the new version
      const r1 = await rawUpload(ferry.url, {
        headers: putHeaders(ferry.token, `${t.mount}/f/keep.bin`, { 'X-File-Size': 20 * MiB }),
        body: patternBody(20 * MiB, 21),
        sendBytes: 10 * MiB,
        then: 'destroy',
      });
      assert.notEqual(r1.status, 200);
      await assertClean(t, 'f', ['keep.bin']);
      assert.ok((await t.bytes('f/keep.bin'))?.equals(old), 'old content intact after a client abort');

      // 2) the server refuses midway: more bytes than X-File-Size (chunked body, no Content-Length)
      const r2 = await rawUpload(ferry.url, {
        headers: putHeaders(ferry.token, `${t.mount}/f/keep.bin`, { 'X-File-Size': 4 * MiB }),
        body: patternBody(8 * MiB, 22),
        then: 'finish',
      });
      assert.notEqual(r2.status, 200, 'an over-long body is refused');
      if (r2.status !== null) assert.equal(r2.status, 400, r2.body);
      await assertClean(t, 'f', ['keep.bin']);
      assert.ok((await t.bytes('f/keep.bin'))?.equals(old), 'old content intact after a size overrun');

      // 3) complete body, wrong declared hash
      const r3 = await rawUpload(ferry.url, {
        headers: putHeaders(ferry.token, `${t.mount}/f/keep.bin`, { 'Content-Length': 6 * MiB, 'X-File-Sha256': sha256('nope') }),
        body: patternBody(6 * MiB, 23),
      });
      assert.equal(r3.status, 400, r3.body);
      await assertClean(t, 'f', ['keep.bin']);
      assert.ok((await t.bytes('f/keep.bin'))?.equals(old), 'old content intact after a hash mismatch');
      const afterAll = await ok(getObj(`${t.mount}/f/keep.bin`));
      assert.equal(afterAll.size, old.length);
      assert.equal(afterAll.hash_info?.sha256, sha256(old), 'reported hashes still describe the old file');
      await assertAlive();
    });
  });
}

for (const t of targets) {
  describe(`upload edge cases: ${t.name}`, { timeout: 120_000 }, () => {
    test('a chunked body with no declared size (several parts) and an empty file are stored exactly', async () => {
      const body = materialize(patternBody(13 * MiB + 5, 40));
      const r = await rawUpload(ferry.url, { headers: putHeaders(ferry.token, `${t.mount}/g/chunked.bin`), body, chunkSize: 256 * 1024 });
      assert.equal(r.status, 200, r.body);
      assert.ok((await t.bytes('g/chunked.bin'))?.equals(body));
      const empty = await rawUpload(ferry.url, { headers: putHeaders(ferry.token, `${t.mount}/g/empty.bin`, { 'Content-Length': 0 }), body: Buffer.alloc(0) });
      assert.equal(empty.status, 200, empty.body);
      assert.equal((await t.bytes('g/empty.bin'))?.length, 0);
      assert.equal((await ok(getObj(`${t.mount}/g/empty.bin`))).size, 0);
      await assertClean(t, 'g', ['chunked.bin', 'empty.bin']);
    });

    if (t.name === 'local') {
      test('Last-Modified (Unix ms) sets the stored file\'s mtime', async () => {
        const when = Date.UTC(2020, 1, 3, 4, 5, 6, 789);
        const r = await rawUpload(ferry.url, { headers: putHeaders(ferry.token, '/lm/t.txt', { 'Last-Modified': when }), body: Buffer.from('dated') });
        assert.equal(r.status, 200, r.body);
        assert.equal((await stat(join(ferry.files, 'lm/t.txt'))).mtimeMs, when);
        assert.equal((await ok(getObj('/lm/t.txt'))).modified, '2020-02-03T04:05:06.789+00:00');
      });
    }

    test('the root aliases /fs/put and /fs/form follow the same rules (abort cleanup, Overwrite: false, hash check)', async () => {
      for (const route of ['/fs/put', '/fs/form']) {
        const name = route === '/fs/put' ? 'p.bin' : 'f.bin';
        const boundary = '----alias';
        const wrap = (b: Buffer) =>
          route === '/fs/put'
            ? b
            : Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="x"\r\n\r\n`), b, Buffer.from(`\r\n--${boundary}--\r\n`)]);
        const ct: Record<string, string> = route === '/fs/put' ? {} : { 'Content-Type': `multipart/form-data; boundary=${boundary}` };
        const big = wrap(materialize(patternBody(8 * MiB, 41)));
        const cut = await rawUpload(ferry.url, { path: route, headers: putHeaders(ferry.token, `${t.mount}/alias/${name}`, { ...ct, 'Content-Length': big.length }), body: big, sendBytes: 4 * MiB, then: 'destroy' });
        assert.notEqual(cut.status, 200);
        await assertClean(t, 'alias', route === '/fs/put' ? [] : ['p.bin']);
        const v1 = Buffer.from(`v1 via ${route}`);
        const first = await rawUpload(ferry.url, { path: route, headers: putHeaders(ferry.token, `${t.mount}/alias/${name}`, { ...ct, 'X-File-Sha1': hashOf('sha1', v1) }), body: wrap(v1) });
        assert.equal(first.status, 200, first.body);
        const second = await rawUpload(ferry.url, { path: route, headers: putHeaders(ferry.token, `${t.mount}/alias/${name}`, { ...ct, Overwrite: 'false' }), body: wrap(Buffer.from('v2')) });
        assert.equal(second.status, 403, second.body);
        assert.equal(second.json?.message, 'file exists');
        const badHash = await rawUpload(ferry.url, { path: route, headers: putHeaders(ferry.token, `${t.mount}/alias/${name}`, { ...ct, 'X-File-Sha1': hashOf('sha1', 'x') }), body: wrap(Buffer.from('v3')) });
        assert.equal(badHash.status, 400, badHash.body);
        assert.ok((await t.bytes(`alias/${name}`))?.equals(v1));
      }
      await assertClean(t, 'alias', ['f.bin', 'p.bin']);
    });

    test('concurrent Overwrite: false uploads of a new path: one wins, the others get 403 file exists', async () => {
      const bodies = Array.from({ length: 4 }, (_, i) => materialize(patternBody(256 * 1024, 50 + i)));
      const results = await Promise.all(
        bodies.map((b) => rawUpload(ferry.url, { headers: putHeaders(ferry.token, `${t.mount}/h/once.bin`, { 'Content-Length': b.length, Overwrite: 'false' }), body: b, chunkSize: 32 * 1024 })),
      );
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 403, 403, 403], results.map((r) => `${r.status} ${r.body}`).join('\n'));
      for (const r of results) if (r.status === 403) assert.equal(r.json?.message, 'file exists');
      const winner = bodies[results.findIndex((r) => r.status === 200)]!;
      assert.ok((await t.bytes('h/once.bin'))?.equals(winner), 'the stored file is the one that was accepted');
      await assertClean(t, 'h', ['once.bin']);
    });
  });
}

describe('upload torture: as-task uploads (spooled to <data dir>/tmp)', { timeout: 60_000 }, () => {
  test('a client abort while spooling leaves no spool file, no task and no file', async () => {
    const r = await rawUpload(ferry.url, {
      headers: putHeaders(ferry.token, '/task/t.bin', { 'X-File-Size': 30 * MiB, 'As-Task': 'true' }),
      body: patternBody(30 * MiB, 30),
      sendBytes: 15 * MiB,
      then: 'destroy',
    });
    assert.notEqual(r.status, 200);
    await assertClean(targets[0]!, 'task', []);
    const undone = await ok(ferry.call('GET', '/api/task/upload/undone'));
    const done = await ok(ferry.call('GET', '/api/task/upload/done'));
    assert.deepEqual([...undone, ...done], []);
  });

  test('control: a complete as-task upload becomes a task that stores the file', async () => {
    const data = materialize(patternBody(2 * MiB, 31));
    const r = await rawUpload(ferry.url, { headers: putHeaders(ferry.token, '/task/ok.bin', { 'Content-Length': data.length, 'As-Task': 'true' }), body: data });
    assert.equal(r.status, 200, r.body);
    const tid = r.json!.data.task.id as string;
    await eventually(async () => {
      const info = await ok(ferry.call('GET', `/api/task/upload/info?tid=${tid}`));
      assert.equal(info.state, 2, JSON.stringify(info));
    }, 10_000);
    assert.ok((await fileBytes(join(ferry.files, 'task/ok.bin')))?.equals(data));
    await assertClean(targets[0]!, 'task', ['ok.bin']);
  });
});

describe('upload torture: graceful shutdown (SIGTERM) during uploads', { timeout: 90_000 }, () => {
  test('uploads cut off by the shutdown leave no temp file and no multipart upload behind', async () => {
    const own = await startFerry();
    try {
      await ok(own.call('POST', '/api/admin/storage/create', { mount_path: '/s3', driver: 's3', addition: s3Addition(ceph, 'shutdown') }));
      // two uploads stall halfway (client connected, sending nothing)
      let release!: () => void;
      const hold = new Promise<void>((r) => (release = r));
      const stalled: Promise<void>[] = [];
      const uploads = ['/sd/local.bin', '/s3/sd/remote.bin'].map((path) => {
        let reached!: () => void;
        stalled.push(new Promise<void>((r) => (reached = r)));
        return rawUpload(own.url, {
          headers: putHeaders(own.token, path, { 'X-File-Size': 40 * MiB }),
          body: patternBody(40 * MiB, 60),
          sendBytes: 30 * MiB,
          then: 'destroy',
          beforeChunk: async (i) => {
            if (i !== 20) return;
            reached();
            await hold;
          },
        });
      });
      await Promise.all(stalled);
      await eventually(async () => {
        assert.ok((await treeOf(join(own.files, 'sd'))).some((n) => n.startsWith('.ferry-tmp-')), 'local upload in flight');
        assert.equal((await uploadsOf(s3, ceph.bucket, 'shutdown/sd')).length, 1, 'S3 multipart upload in flight');
      });
      own.server.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 500));
      release(); // the clients give up (socket reset) while the server shuts down
      const results = await Promise.all(uploads);
      for (const r of results) assert.notEqual(r.status, 200);
      const code = await own.server.stop();
      assert.equal(code, 0, 'clean exit');
      assert.deepEqual(await treeOf(join(own.files, 'sd')), [], 'no temp file left on disk');
      assert.deepEqual(await uploadsOf(s3, ceph.bucket, 'shutdown/sd'), [], 'no multipart upload left in the bucket');
      assert.deepEqual((await keysOf(s3, ceph.bucket, 'shutdown/sd')).filter((k) => k !== ''), []);
    } finally {
      await own.stop();
    }
  });
});
