/**
 * The body idle timeout counts only the client's silence: when the storage is slow and the
 * server stops reading the request (back-pressure), the pause — longer than the timeout —
 * does not cut the upload. A client that stops sending is still cut off (slowloris.test.ts).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, test } from 'node:test';
import { Harness } from '../support/harness.js';
import { patternBody, materialize, rawUpload } from '../fs/helpers.js';
import { driverOf } from '../seeds-generate/helpers.js';
import type { PendingWrite } from '../../src/modules/storages/drivers/index.js';

const IDLE_MS = 400;
const STALL_MS = 1500;

describe('body idle timeout vs a slow storage', () => {
  const h = new Harness('sqlite', { FERRY_BODY_IDLE_TIMEOUT_MS: String(IDLE_MS) });
  let base: string;
  let admin: string;
  before(async () => {
    await h.start();
    admin = await h.adminToken();
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(() => h.stop());

  test(`a storage that stalls ${STALL_MS} ms mid-upload (idle timeout ${IDLE_MS} ms): the upload succeeds`, async () => {
    const d = driverOf(h);
    const orig = d.beginWrite.bind(d);
    let stalled = false;
    d.beginWrite = async (path, opts) => {
      const w = await orig(path, opts);
      let seen = 0;
      const slow = new Writable({
        highWaterMark: 64 * 1024,
        write(chunk: Buffer, _e, cb) {
          seen += chunk.length;
          const go = () => (w.stream.write(chunk) ? cb() : w.stream.once('drain', () => cb()));
          if (!stalled && seen > 4 * 1024 * 1024) {
            stalled = true;
            setTimeout(go, STALL_MS);
          } else go();
        },
        final(cb) {
          w.stream.end(cb);
        },
        destroy(err, cb) {
          if (err) w.stream.destroy(err);
          cb(err);
        },
      });
      return new Proxy(w, {
        get: (t, k) => (k === 'stream' ? slow : k === 'pipeFrom' ? async (src: NodeJS.ReadableStream) => (await pipeline(src, slow), seen) : Reflect.get(t, k)),
      }) as PendingWrite;
    };
    try {
      const body = patternBody(16 * 1024 * 1024, 9);
      const r = await rawUpload(base, { headers: { Authorization: admin, 'File-Path': '/slow.bin', 'Content-Length': body.size }, body, chunkSize: 256 * 1024 });
      assert.equal(r.status, 200, `${r.status} ${r.body} ${r.error?.message ?? ''}`);
      assert.ok(stalled, 'the storage stalled');
      assert.ok(readFileSync(join(h.dataDir, 'files', 'slow.bin')).equals(materialize(body)));
    } finally {
      d.beginWrite = orig;
    }
  });
});
