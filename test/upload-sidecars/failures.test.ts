/**
 * Upload sidecars, failures are all or nothing: a chunked body shorter or longer than its
 * X-File-Size, a wrong X-File-Sha256, a client that disconnects, and a sidecar write that
 * fails inside the driver — afterwards neither the file nor any sidecar is new, an
 * overwritten file and its old sidecars are intact, and no temp file is left.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, statSync, truncateSync } from 'node:fs';
import { before, test } from 'node:test';
import { forEachDialect, type Harness } from '../support/harness.js';
import { rawUpload } from '../fs/helpers.js';
import { driverOf } from '../seeds-generate/helpers.js';
import { DriverError, type PendingWrite } from '../../src/modules/storages/drivers/index.js';
import { bytes, hostPath, MiB, putOk, put, sidecarsOn } from './helpers.js';

const ALL = { 'x-seed-sidecars': 'oss,torrent,cas' };

/** Every name below the storage root that looks like a temp file. */
function temps(h: Harness): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(`${dir}/${e.name}`);
      else if (e.name.includes('ferry-tmp')) out.push(`${dir}/${e.name}`);
    }
  };
  walk(hostPath(h, '/'));
  return out;
}

forEachDialect('upload sidecars: all or nothing', (h) => {
  let admin: string;
  let base: string;
  before(async () => {
    admin = await h().adminToken();
    base = await h().app.listen({ host: '127.0.0.1', port: 0 });
  });

  const headers = (path: string, extra: Record<string, string | number> = {}) => ({ Authorization: admin, 'File-Path': encodeURIComponent(path), ...ALL, ...extra });

  test('chunked body shorter than X-File-Size → 400, nothing stored', async () => {
    const r = await rawUpload(base, { headers: headers('/short.bin', { 'X-File-Size': 2 * MiB }), body: bytes(MiB + 3, 1) });
    assert.equal(r.status, 400, r.body);
    assert.equal(existsSync(hostPath(h(), '/short.bin')), false);
    assert.deepEqual(sidecarsOn(h(), '/short.bin'), []);
  });

  test('chunked body longer than X-File-Size → 400, nothing stored', async () => {
    const r = await rawUpload(base, { headers: headers('/long.bin', { 'X-File-Size': MiB }), body: bytes(MiB + 1, 2) });
    assert.equal(r.status, 400, r.body);
    assert.equal(existsSync(hostPath(h(), '/long.bin')), false);
    assert.deepEqual(sidecarsOn(h(), '/long.bin'), []);
  });

  test('a wrong X-File-Sha256 → 400, nothing stored', async () => {
    const r = await put(h(), admin, '/sha.bin', 'content', { ...ALL, 'x-file-sha256': 'a'.repeat(64) });
    assert.equal(r.status, 400, r.body.message);
    assert.equal(existsSync(hostPath(h(), '/sha.bin')), false);
    assert.deepEqual(sidecarsOn(h(), '/sha.bin'), []);
  });

  test('the client disconnecting halfway leaves nothing', async () => {
    const r = await rawUpload(base, { headers: headers('/gone.bin', { 'Content-Length': 4 * MiB }), body: bytes(4 * MiB, 3), sendBytes: 2 * MiB, then: 'destroy' });
    assert.ok(r.error || r.status !== 200);
    // the server notices the reset asynchronously
    for (let i = 0; i < 50 && temps(h()).length > 0; i++) await new Promise((res) => setTimeout(res, 100));
    assert.equal(existsSync(hostPath(h(), '/gone.bin')), false);
    assert.deepEqual(sidecarsOn(h(), '/gone.bin'), []);
  });

  for (const failing of ['oss', 'torrent', 'cas'] as const) {
    test(`a failing .${failing} sidecar write: the upload fails; the old file and its old sidecars are intact`, async () => {
      const path = `/keep-${failing}.bin`;
      const old = bytes(100_000, 10);
      await putOk(h(), admin, path, old, ALL);
      const oldSidecars = Object.fromEntries(['oss', 'torrent', 'cas'].map((f) => [f, readFileSync(hostPath(h(), `${path}.${f}`))]));

      const d = driverOf(h());
      const orig = d.beginWrite.bind(d);
      d.beginWrite = async (p, opts) => {
        const w = await orig(p, opts);
        if (!p.endsWith(`.${failing}`)) return w;
        return new Proxy(w, {
          get: (t, k) =>
            k === 'commit'
              ? async () => {
                  await t.abort();
                  throw new DriverError('io', 'injected: disk full while writing the sidecar');
                }
              : Reflect.get(t, k),
        }) as PendingWrite;
      };
      try {
        const r = await put(h(), admin, path, bytes(200_000, 11), ALL);
        assert.notEqual(r.status, 200);
        assert.match(r.body.message, /injected/);
      } finally {
        d.beginWrite = orig;
      }
      assert.ok(readFileSync(hostPath(h(), path)).equals(old), 'old file intact');
      for (const f of ['oss', 'torrent', 'cas']) assert.ok(readFileSync(hostPath(h(), `${path}.${f}`)).equals(oldSidecars[f]!), `old .${f} intact`);
    });
  }

  test('a failing sidecar write on a new file: neither the file nor any sidecar appears', async () => {
    const d = driverOf(h());
    const orig = d.beginWrite.bind(d);
    d.beginWrite = async (p, opts) => {
      if (p.endsWith('.cas')) throw new DriverError('io', 'injected: cannot begin');
      return orig(p, opts);
    };
    try {
      const r = await put(h(), admin, '/new-fail.bin', 'fresh', ALL);
      assert.notEqual(r.status, 200);
    } finally {
      d.beginWrite = orig;
    }
    assert.equal(existsSync(hostPath(h(), '/new-fail.bin')), false);
    assert.deepEqual(sidecarsOn(h(), '/new-fail.bin'), []);
  });

  test('overwrite=false on an existing file → 403; file and sidecars untouched', async () => {
    await putOk(h(), admin, '/exists.bin', 'first', ALL);
    const before = readFileSync(hostPath(h(), '/exists.bin.oss'));
    const r = await put(h(), admin, '/exists.bin', 'second', { ...ALL, overwrite: 'false' });
    assert.equal(r.status, 403, r.body.message);
    assert.equal(readFileSync(hostPath(h(), '/exists.bin'), 'utf8'), 'first');
    assert.ok(readFileSync(hostPath(h(), '/exists.bin.oss')).equals(before));
  });

  test('a successful overwrite replaces the file and all its sidecars together', async () => {
    await putOk(h(), admin, '/swap.bin', 'one', ALL);
    await putOk(h(), admin, '/swap.bin', 'two!', ALL);
    const oss = JSON.parse(readFileSync(hostPath(h(), '/swap.bin.oss'), 'utf8')) as { files: { hashes: { md5: string } }[] };
    assert.equal(JSON.stringify(oss).includes(createHash('md5').update('two!').digest('hex')), true);
  });

  test('a large non-seed file at a sidecar name is not replaced: 409, nothing written', async () => {
    const big = hostPath(h(), '/huge.bin.oss');
    closeSync(openSync(big, 'w'));
    truncateSync(big, 65 * MiB); // sparse: no bytes written
    const r = await put(h(), admin, '/huge.bin', 'payload', ALL);
    assert.equal(r.status, 409, r.body.message);
    assert.equal(existsSync(hostPath(h(), '/huge.bin')), false);
    assert.equal(statSync(big).size, 65 * MiB);
    assert.equal(existsSync(hostPath(h(), '/huge.bin.cas')), false);
  });

  test('no temp file is left behind by any of the above', () => {
    assert.deepEqual(temps(h()), []);
  });
});
