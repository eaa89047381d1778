/**
 * Slowloris against the built server, with the timeouts lowered through the environment
 * (FERRY_HEADERS_TIMEOUT_MS, FERRY_BODY_IDLE_TIMEOUT_MS = 1 s): slow headers get 408 and a
 * closed connection; a stalled body (raw, multipart, JSON) loses its connection and leaves
 * nothing behind; a slow but steady body — longer in total than the timeout — still succeeds,
 * and a kept-alive connection is not cut after its body ended.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { putHeaders, signedUrl, startFerry, treeOf, type Ferry } from '../fs/helpers.js';
import { connect, parseResponse, sleep, within } from './raw.js';

const IDLE_MS = 1000;

describe('slowloris (server process, 1 s timeouts)', () => {
  let f: Ferry;
  before(async () => {
    f = await startFerry({ FERRY_HEADERS_TIMEOUT_MS: String(IDLE_MS), FERRY_BODY_IDLE_TIMEOUT_MS: String(IDLE_MS) });
  });
  after(() => f.stop());

  const putHead = (path: string, length: number, extra = '') => {
    const h = putHeaders(f.token, path);
    return `PUT /api/fs/put HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${h.Authorization}\r\nFile-Path: ${h['File-Path']}\r\nContent-Length: ${length}\r\n${extra}\r\n`;
  };

  /** The files dir holds exactly `names` (no temp file, no partial file). */
  async function onlyFiles(names: string[]): Promise<void> {
    // The aborted upload cleans up asynchronously after the connection dies: allow it a moment.
    for (let i = 0; i < 50; i++) {
      if (JSON.stringify(await treeOf(f.files)) === JSON.stringify([...names].sort())) return;
      await sleep(100);
    }
    assert.deepEqual(await treeOf(f.files), [...names].sort());
  }

  test('headers trickled one line at a time: 408 and the connection is closed', async () => {
    const c = await connect(f.url);
    await c.write('GET /api/me HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // Keep trickling (bounded): the server must give up on its own.
    for (let i = 0; i < 100 && !c.socket.destroyed && c.received().length === 0; i++) {
      await c.write(`X-Slow-${i}: ${'a'.repeat(10)}\r\n`);
      await sleep(200);
    }
    await within(c.closed, 20_000, 'server closing a slow-header connection');
    assert.equal(parseResponse(c.received()).status, 408);
  });

  test('a stalled raw upload body loses its connection and leaves no file and no temp file', async () => {
    const c = await connect(f.url);
    await c.write(putHead('/stalled.bin', 10 * 1024 * 1024));
    await c.write(Buffer.alloc(1024 * 1024, 7));
    // ...and then nothing.
    await within(c.closed, 20_000, 'server cutting a stalled upload');
    await onlyFiles([]);
  });

  test('a stalled multipart upload loses its connection and leaves nothing', async () => {
    const c = await connect(f.url);
    const boundary = 'slow';
    const h = putHeaders(f.token, '/stalled-form.bin');
    await c.write(
      `PUT /api/fs/form HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${h.Authorization}\r\nFile-Path: ${h['File-Path']}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 5000000\r\n\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="x.bin"\r\n\r\n${'x'.repeat(100_000)}`,
    );
    await within(c.closed, 20_000, 'server cutting a stalled multipart upload');
    await onlyFiles([]);
  });

  test('a stalled JSON body loses its connection', async () => {
    const c = await connect(f.url);
    await c.write(`POST /api/fs/list HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${f.token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"path":`);
    await within(c.closed, 20_000, 'server cutting a stalled JSON body');
  });

  test('a slow but steady upload, longer in total than the timeout, succeeds; the kept-alive connection then idles safely', async () => {
    const chunk = Buffer.alloc(4096);
    const chunks = 12;
    const body = Buffer.concat(Array.from({ length: chunks }, (_, i) => chunk.fill(i + 1)).map((b) => Buffer.from(b)));
    const c = await connect(f.url);
    await c.write(putHead('/steady.bin', body.length));
    for (let i = 0; i < chunks; i++) {
      await c.write(body.subarray(i * chunk.length, (i + 1) * chunk.length));
      await sleep(IDLE_MS / 4); // 12 × 250 ms = 3 s in total, never 1 s silent
    }
    assert.ok(await c.waitFor('\r\n\r\n{'), 'a reply');
    assert.ok(await c.waitFor('}'), 'the whole JSON reply');
    const r = parseResponse(c.received());
    assert.equal(r.status, 200, r.body.toString());
    await onlyFiles(['steady.bin']);
    const stored = Buffer.from(await (await fetch(await signedUrl(f, '/steady.bin', 'p'))).arrayBuffer());
    assert.equal(createHash('sha256').update(stored).digest('hex'), createHash('sha256').update(body).digest('hex'));

    // The body timeout ended with the body: idle longer than it, then reuse the connection.
    await sleep(IDLE_MS * 2);
    assert.equal(c.socket.destroyed, false, 'kept-alive connection cut after its body ended');
    const before = c.received().length;
    await c.write(`GET /api/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${f.token}\r\n\r\n`);
    assert.ok(await c.waitFor(/HTTP\/1\.1 200[\s\S]*HTTP\/1\.1 200/), 'second reply on the same connection');
    assert.ok(c.received().length > before);
    c.socket.destroy();
  });
});
