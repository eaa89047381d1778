/**
 * Bodies over the limits, against the built server over raw TCP: JSON routes refuse a declared
 * 1 GiB body at once (413, connection closed, nothing read) and cut a chunked body off at their
 * limit (1 MiB, 16 MiB for seed routes); no body is read for a client that may not use the route, and
 * deep nesting is refused before parsing; an error answered before a large body was read closes the
 * connection instead of draining it. Multipart uploads are streamed; their non-file parts are bounded.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { JSON_BODY_LIMIT, LARGE_JSON_BODY_LIMIT } from '../../src/http/json-body.js';
import { MiB, putHeaders, signedUrl, startFerry, treeOf, type Ferry } from '../fs/helpers.js';
import { connect, header, parseResponse, within } from './raw.js';

describe('request body limits (server process)', () => {
  let f: Ferry;
  before(async () => {
    f = await startFerry();
  });
  after(() => f.stop());

  const head = (path: string, extra: string) => `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${f.token}\r\n${extra}\r\n`;

  async function stillServes(): Promise<void> {
    const r = await fetch(`${f.url}/api/me`, { headers: { authorization: f.token } });
    assert.equal(r.status, 200);
  }

  test('a declared 1 GiB JSON body: 413 before any body byte, and the connection is closed', async () => {
    const c = await connect(f.url);
    // Headers only: the answer must not wait for the body.
    await c.write(head('/api/fs/list', 'Content-Type: application/json\r\nContent-Length: 1073741824\r\n'));
    const { error } = await within(c.closed, 10_000, 'server closing the connection');
    assert.equal(error, null);
    const r = parseResponse(c.received());
    assert.equal(r.status, 413);
    assert.deepEqual(header(r, 'connection'), ['close']);
    assert.deepEqual(JSON.parse(r.body.toString()), { code: 413, message: 'body: request body is too large', data: null });
    await stillServes();
  });

  test('JSON routes take 1 MiB unless they carry seeds (16 MiB); a body is never read for a client that may not use the route', async () => {
    const deep = (bytes: number) => '['.repeat(bytes / 2) + ']'.repeat(bytes / 2);
    const post = (path: string, body: string, token?: string) =>
      fetch(`${f.url}${path}`, { method: 'POST', headers: { ...(token ? { authorization: token } : {}), 'content-type': 'application/json' }, body });
    // 2 MiB to an ordinary route: too large for it
    let r = await post('/api/fs/list', JSON.stringify({ path: '/', pad: 'x'.repeat(2 * MiB) }), f.token);
    assert.equal(r.status, 413);
    // the same size carries a seed: accepted up to the seed limit (the seed itself is then checked)
    r = await post('/api/fs/seed/parse', JSON.stringify({ seed_data: 'A'.repeat(2 * MiB) }), f.token);
    assert.equal(r.status, 400);
    assert.match(((await r.json()) as { message: string }).message, /seed_data/);
    // no login: refused before the body is read or parsed, whatever it holds
    r = await post('/api/fs/list', deep(512 * 1024));
    assert.equal(r.status, 401);
    r = await post('/api/fs/seed/parse', deep(8 * MiB), 'not-a-token');
    assert.equal(r.status, 401);
    // logged in: a deeply nested document is refused before JSON.parse sees it
    r = await post('/api/fs/list', deep(512 * 1024), f.token);
    assert.equal(r.status, 400);
    assert.match(((await r.json()) as { message: string }).message, /nested deeper than 64 levels/);
    r = await post('/api/fs/list', JSON.stringify({ path: '/', deep: JSON.parse('['.repeat(60) + ']'.repeat(60)) }), f.token);
    assert.equal(r.status, 200, 'a document nested 60 levels is fine');
    await stillServes();
  });

  test('a chunked JSON body is cut off at the limit (413), not read to its end', async () => {
    const c = await connect(f.url);
    await c.write(head('/api/fs/list', 'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n'));
    const chunk = Buffer.alloc(MiB, 0x20);
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
    let sent = 0;
    // Offer up to 256 MiB; stop as soon as the server answers or hangs up.
    while (sent < 256 * MiB && c.received().length === 0) {
      if (!(await c.write(frame))) break;
      sent += chunk.length;
    }
    await within(c.closed, 10_000, 'server closing the connection');
    // What was accepted by the kernel beyond the limit is bounded by socket buffers, not the body.
    assert.ok(sent < LARGE_JSON_BODY_LIMIT + 32 * MiB, `sent ${sent / MiB} MiB before the server stopped reading`);
    const r = parseResponse(c.received());
    assert.equal(r.status, 413);
    assert.deepEqual(header(r, 'connection'), ['close']);
    await stillServes();
  });

  test('a JSON body just under the limit is read and served normally', async () => {
    const body = JSON.stringify({ path: '/', pad: 'x'.repeat(JSON_BODY_LIMIT - 100) });
    const r = await fetch(`${f.url}/api/fs/list`, { method: 'POST', headers: { authorization: f.token, 'content-type': 'application/json' }, body });
    assert.equal(r.status, 200);
    assert.equal(((await r.json()) as { code: number }).code, 200);
  });

  test('an error answered before a declared 1 GiB body (wrong content type) closes instead of draining it', async () => {
    const c = await connect(f.url);
    await c.write(head('/api/fs/list', 'Content-Type: application/octet-stream\r\nContent-Length: 1073741824\r\n'));
    await within(c.closed, 10_000, 'server closing the connection');
    const r = parseResponse(c.received());
    assert.equal(r.status, 400);
    assert.deepEqual(header(r, 'connection'), ['close']);
  });

  test('an upload refused before its body (no permission to the path) closes instead of draining 1 GiB', async () => {
    const c = await connect(f.url);
    const h = putHeaders(f.token, '/../escape.bin');
    await c.write(`PUT /api/fs/put HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${h.Authorization}\r\nFile-Path: ${h['File-Path']}\r\nContent-Length: 1073741824\r\n\r\n`);
    await within(c.closed, 10_000, 'server closing the connection');
    const r = parseResponse(c.received());
    assert.ok(r.status >= 400 && r.status < 500, `status ${r.status}`);
    assert.deepEqual(header(r, 'connection'), ['close']);
    assert.deepEqual((await treeOf(f.files)).filter((p) => p.includes('escape')), []);
  });

  test('multipart: non-file parts are bounded (1 MiB per field, 20 fields, one file); extra parts never reach the storage', async () => {
    const boundary = 'ferry-hostile';
    const part = (name: string, value: string, filename?: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"` : ''}\r\n\r\n${value}\r\n`;
    const send = (path: string, parts: string) =>
      fetch(`${f.url}/api/fs/form`, {
        method: 'PUT',
        headers: { ...(putHeaders(f.token, path) as Record<string, string>), 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: parts + `--${boundary}--\r\n`,
      });
    const content = async (name: string) => (await fetch(await signedUrl(f, `/${name}`, 'p'))).text();

    // A 2 MiB field is truncated by the parser (never buffered whole); the file still lands.
    let r = await send('/mp-field.txt', part('note', 'x'.repeat(2 * MiB)) + part('file', 'hello', 'a.txt'));
    assert.equal(r.status, 200, await r.text());
    assert.equal(await content('mp-field.txt'), 'hello');

    // A second file part is not stored anywhere.
    r = await send('/mp-two.txt', part('file', 'first', 'a.txt') + part('file', 'second', 'b.txt'));
    assert.equal(r.status, 200, await r.text());
    assert.equal(await content('mp-two.txt'), 'first');

    // 40 fields of 2 MiB: the fields limit answers 413, or the parser skips the extra fields
    // (which one depends on where the limit falls between parts) — never a 5xx, never a wrong file.
    r = await send('/mp-many.txt', Array.from({ length: 40 }, (_, i) => part(`f${i}`, 'x'.repeat(2 * MiB))).join('') + part('file', 'many', 'a.txt'));
    const text = await r.text();
    assert.ok(r.status === 200 || r.status === 413, `${r.status} ${text}`);
    if (r.status === 200) assert.equal(await content('mp-many.txt'), 'many');
    else assert.equal(existsSync(join(f.files, 'mp-many.txt')), false);
    assert.deepEqual((await treeOf(f.files)).filter((p) => p.startsWith('.ferry-tmp') || p === 'a.txt' || p === 'b.txt'), []);
    await stillServes();
  });
});
