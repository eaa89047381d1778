/**
 * Serving the built UI (src/http/static-ui.ts): SPA fallback for UI paths only, server paths
 * left to their routes (or the JSON 404), cache headers, and a clear page when nothing is built.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Fastify from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { staticUiRoutes } from '../../src/http/static-ui.js';

async function build(root: string) {
  const app = Fastify().withTypeProvider<TypeBoxTypeProvider>();
  app.setNotFoundHandler((req, reply) => reply.status(404).send({ code: 404, message: `no route for ${req.method} ${req.url}`, data: null }));
  app.get('/api/ping-json', async () => ({ code: 200, message: 'success', data: 'ok' }));
  app.get('/d/*', async () => 'download');
  await staticUiRoutes(app, { root });
  await app.ready();
  return app;
}

const HTML = { accept: 'text/html,application/xhtml+xml' };

describe('static UI', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'ferry-ui-'));
    mkdirSync(join(dir, 'built', 'assets'), { recursive: true });
    writeFileSync(join(dir, 'built', 'index.html'), '<!doctype html><title>Ferry UI</title>');
    writeFileSync(join(dir, 'built', 'assets', 'index-abc123.js'), 'console.log(1)');
    writeFileSync(join(dir, 'secret.txt'), 'outside the root');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('UI paths get index.html (no-cache); hashed assets are immutable', async () => {
    const app = await build(join(dir, 'built'));
    for (const url of ['/', '/files/a/b', '/preview?path=%2Fx.oss', '/admin/users']) {
      const r = await app.inject({ url, headers: HTML });
      assert.equal(r.statusCode, 200, url);
      assert.match(r.body, /Ferry UI/, url);
      assert.equal(r.headers['cache-control'], 'no-cache', url);
    }
    const js = await app.inject({ url: '/assets/index-abc123.js' });
    assert.equal(js.statusCode, 200);
    assert.equal(js.body, 'console.log(1)');
    assert.match(String(js.headers['cache-control']), /max-age=31536000, immutable/);
    assert.match(String(js.headers['content-type']), /javascript/);
    const head = await app.inject({ method: 'HEAD', url: '/files/x', headers: HTML });
    assert.equal(head.statusCode, 200);
    await app.close();
  });

  test('server paths, missing assets, non-HTML clients and traversal never get the page', async () => {
    const app = await build(join(dir, 'built'));
    for (const url of ['/api/nope', '/api', '/fs/put', '/sd/abc', '/p/x', '/ping', '/healthz', '/assets/missing-1.js']) {
      const r = await app.inject({ url, headers: HTML });
      assert.equal(r.statusCode, 404, url);
      assert.equal(r.json().code, 404, url);
    }
    assert.equal((await app.inject({ url: '/api/ping-json', headers: HTML })).json().data, 'ok');
    assert.equal((await app.inject({ url: '/d/file.bin', headers: HTML })).body, 'download');
    assert.equal((await app.inject({ url: '/files/x', headers: { accept: 'application/json' } })).statusCode, 404);
    for (const url of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/%00']) {
      const r = await app.inject({ url, headers: HTML });
      assert.doesNotMatch(r.body, /outside the root/, url);
    }
    await app.close();
  });

  test('without a build the server still answers and / says the UI was not built', async () => {
    const app = await build(join(dir, 'not-there'));
    const r = await app.inject({ url: '/', headers: HTML });
    assert.equal(r.statusCode, 503);
    assert.match(r.body, /web UI was not built/);
    assert.match(r.body, /npm run build/);
    assert.equal((await app.inject({ url: '/api/ping-json' })).json().data, 'ok');
    assert.equal((await app.inject({ url: '/api/nope', headers: HTML })).statusCode, 404);
    await app.close();
  });
});
