/**
 * Private by default (#16): on a fresh install `sign_all` is on, so `/d/` and `/p/` serve nothing to
 * someone who merely knows a path. The links Ferry hands out (`raw_url`, listings' `sign`, a seed's
 * recorded direct link) carry a signature of exactly their path; a signature never opens another path;
 * an install that saved `sign_all=false` keeps it across restarts.
 */
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { signPath } from '../../src/modules/fs/sign.js';
import { forEachDialect, type Harness } from '../support/harness.js';

const A = Buffer.from('content of file A');
const B = Buffer.from('content of file B, which no link names');

const enc = (p: string) => p.split('/').map(encodeURIComponent).join('/');
const withSign = (url: string, sign: string) => `${url}?sign=${encodeURIComponent(sign)}`;
/** Path and query of an absolute URL (the harness injects, it does not connect). */
const local = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

async function put(h: Harness, token: string, path: string, body: Buffer): Promise<void> {
  const r = await h.call('PUT', '/api/fs/put', { token, body, headers: { 'File-Path': encodeURIComponent(path), 'Content-Type': 'application/octet-stream' } });
  assert.equal(r.status, 200, r.body.message);
}

async function save(h: Harness, token: string, values: Record<string, string>): Promise<void> {
  const r = await h.post('/api/admin/setting/save', Object.entries(values).map(([key, value]) => ({ key, value })), { token });
  assert.equal(r.status, 200, r.body.message);
}

/** Asserts `url` is refused in the envelope (401, a reason, no file bytes). */
async function refused(h: Harness, url: string, method = 'GET'): Promise<void> {
  const r = await h.call(method, url);
  assert.equal(r.status, 401, `${method} ${url}: ${r.status} ${r.body.message}`);
  if (method === 'GET') {
    assert.equal(r.body.code, 401, url);
    assert.match(r.body.message, /expire|sign/, url);
    assert.doesNotMatch(JSON.stringify(r.body), /content of file/, url);
  }
}

async function served(h: Harness, url: string, want: Buffer): Promise<void> {
  const r = await h.app.inject({ method: 'GET', url });
  assert.equal(r.statusCode, 200, `${url}: ${r.statusCode} ${r.body}`);
  assert.deepEqual(r.rawPayload, want, url);
}

forEachDialect('private by default', (h) => {
  let token: string;
  let key: string;
  before(async () => {
    token = await h().adminToken();
    await put(h(), token, '/pv/a.txt', A);
    await put(h(), token, '/pv/b.txt', B);
    await put(h(), token, '/pv/sub/a.txt', B);
    key = await h().ctx.settings.get('token');
  });

  test('a fresh install has sign_all on: unsigned /d/ and /p/ (GET and HEAD) are refused', async () => {
    const s = await h().get('/api/admin/setting/get?key=sign_all', { token });
    assert.equal(s.body.data.value, 'true');
    // unsaved settings are not written at first start, so they keep following the defaults of later versions
    const stored = await h().ctx.database.db.selectFrom('settings').select('key').execute();
    assert.deepEqual(stored.map((r) => r.key).filter((k) => k === 'sign_all' || k === 'link_expiration'), []);
    for (const prefix of ['d', 'p']) {
      await refused(h(), `/${prefix}/pv/a.txt`);
      await refused(h(), `/${prefix}/pv/a.txt`, 'HEAD');
      await refused(h(), `/${prefix}/pv/a.txt?sign=`);
      await refused(h(), `/${prefix}/pv/a.txt?sign=${encodeURIComponent('AAAA:0')}`);
    }
  });

  test('raw_url from fs/get and sign from fs/list download the file through /d/ and /p/', async () => {
    const got = await h().post('/api/fs/get', { path: '/pv/a.txt' }, { token });
    assert.equal(got.status, 200, got.body.message);
    assert.match(got.body.data.raw_url, /\?sign=/);
    await served(h(), local(got.body.data.raw_url), A);
    assert.notEqual(got.body.data.sign, '');

    const list = await h().post('/api/fs/list', { path: '/pv' }, { token });
    const items = list.body.data.content as { name: string; sign: string; is_dir: boolean }[];
    assert.equal(items.find((o) => o.name === 'sub')!.sign, '');
    const a = items.find((o) => o.name === 'a.txt')!;
    const b = items.find((o) => o.name === 'b.txt')!;
    await served(h(), withSign('/d/pv/a.txt', a.sign), A);
    await served(h(), withSign('/p/pv/a.txt', a.sign), A);
    await served(h(), withSign('/d/pv/b.txt', b.sign), B);
    const head = await h().call('HEAD', withSign('/d/pv/a.txt', a.sign));
    assert.equal(head.status, 200);
  });

  test('a signature opens its own path only: not another file, a folder’s files, another case, or a look-alike path', async () => {
    const signA = signPath(key, '/pv/a.txt', 0);
    const signDir = signPath(key, '/pv', 0);
    await served(h(), withSign('/d/pv/a.txt', signA), A);
    // the same path spelt differently is the same file
    await served(h(), withSign('/d/pv//a.txt', signA), A);
    await served(h(), withSign('/d/pv/a.txt/', signA), A);
    for (const prefix of ['d', 'p']) {
      for (const path of ['/pv/b.txt', '/pv/sub/a.txt', '/pv/A.txt', '/PV/a.txt', '/pv/a.txt.bak', '/pv/a.tx', '/a.txt']) {
        await refused(h(), withSign(`/${prefix}${enc(path)}`, signA));
      }
      // a folder's signature does not open the files inside it
      await refused(h(), withSign(`/${prefix}/pv/a.txt`, signDir));
      await refused(h(), withSign(`/${prefix}/pv/sub/a.txt`, signDir));
    }
    // traversal and encoding tricks around a signed path never serve another file
    for (const url of ['/d/pv/a.txt/../b.txt', '/d/pv/a.txt/%2e%2e/b.txt', '/d/pv/a.txt%2F..%2Fb.txt', '/d/pv/sub/..%2F..%2Fpv%2Fb.txt', '/d/pv/a.txt%00']) {
      const r = await h().get(withSign(url, signA));
      assert.notEqual(r.status, 200, url);
      assert.doesNotMatch(r.body.message ?? '', /content of file B/, url);
    }
    // two signs, one of them valid for the path: refused in the envelope (400), never served
    const signB = signPath(key, '/pv/b.txt', 0);
    for (const q of [[signA, signB], [signB, signA]]) {
      const r = await h().get(`/d/pv/b.txt?${q.map((x) => `sign=${encodeURIComponent(x)}`).join('&')}`);
      assert.equal(r.status, 400);
      assert.match(r.body.message, /sign/);
    }
    // tampered, truncated, or re-dated signatures
    const [mac] = signA.split(':');
    for (const bad of [`${mac}:1`, `${mac}:${Math.floor(Date.now() / 1000) + 3600}`, `${mac!.slice(0, -2)}:0`, mac!, `x${signA}`]) {
      await refused(h(), withSign('/d/pv/a.txt', bad));
    }
    // an expired signature, even a correct one
    const past = Math.floor(Date.now() / 1000) - 60;
    await refused(h(), withSign('/d/pv/a.txt', signPath(key, '/pv/a.txt', past)));
  });

  test('direct_files: the seed records a non-expiring signed link that downloads that file and nothing else, usable in the preview', async () => {
    await save(h(), token, { link_expiration: '1' });
    try {
      // the links Ferry hands out for reading expire after link_expiration…
      const got = await h().post('/api/fs/get', { path: '/pv/a.txt' }, { token });
      assert.doesNotMatch(got.body.data.sign, /:0$/);

      const caps = await h().post('/api/fs/seed/capabilities', { paths: ['/pv/a.txt'] }, { token });
      assert.equal(caps.status, 200, caps.body.message);
      assert.equal(caps.body.data.files[0].direct_source_available, true);

      const gen = await h().post('/api/fs/seed/generate', { paths: ['/pv/a.txt'], formats: ['oss'], direct_files: ['/pv/a.txt'], output_path: '/pv-seeds' }, { token });
      assert.equal(gen.status, 200, gen.body.message);
      const sources = gen.body.data.seed.files[0].sources as { type: string; url: string }[];
      assert.equal(sources.length, 1);
      assert.equal(sources[0]!.type, 'openlist-direct');
      const url = new URL(sources[0]!.url);
      assert.equal(url.pathname, '/d/pv/a.txt');
      // …the recorded one never does
      const sign = url.searchParams.get('sign')!;
      assert.match(sign, /:0$/);
      await served(h(), local(sources[0]!.url), A);
      await served(h(), withSign('/p/pv/a.txt', sign), A);
      for (const other of ['/d/pv/b.txt', '/d/pv/sub/a.txt', '/p/pv/b.txt', '/d/pv']) await refused(h(), withSign(other, sign));

      // the preview finds the recorded link usable; the same seed with the signature stripped or moved is not
      const oss = JSON.parse(Buffer.from(gen.body.data.artifacts[0].seed_data, 'base64').toString('utf8'));
      const preview = async (u: string) => {
        oss.files[0].sources = [{ type: 'openlist-direct', url: u }];
        const r = await h().post('/api/fs/seed/parse', { seed_data: Buffer.from(JSON.stringify(oss)).toString('base64') }, { token });
        assert.equal(r.status, 200, r.body.message);
        return r.body.data.files[0].sources[0] as { usable: boolean; reason?: string };
      };
      assert.deepEqual(await preview(sources[0]!.url), { type: 'openlist-direct', url: sources[0]!.url, usable: true });
      const unsigned = await preview(`${url.origin}${url.pathname}`);
      assert.equal(unsigned.usable, false);
      assert.match(unsigned.reason!, /sign_all/);
      const elsewhere = await preview(`${url.origin}/d/pv/b.txt${url.search}`);
      assert.equal(elsewhere.usable, false);
      assert.match(elsewhere.reason!, /sign invalid/);
    } finally {
      await save(h(), token, { link_expiration: '0' });
    }
  });

  test('an install that saved sign_all=false keeps it across a restart: unsigned links work again', async () => {
    await save(h(), token, { sign_all: 'false' });
    await h().close();
    await h().open();
    token = await h().adminToken();
    const s = await h().get('/api/admin/setting/get?key=sign_all', { token });
    assert.equal(s.body.data.value, 'false');
    await served(h(), '/d/pv/b.txt', B);
    await served(h(), '/p/pv/a.txt', A);
    const got = await h().post('/api/fs/get', { path: '/pv/a.txt' }, { token });
    assert.equal(got.body.data.sign, '');
    await served(h(), local(got.body.data.raw_url), A);
    await save(h(), token, { sign_all: 'true' });
    await refused(h(), '/d/pv/b.txt');
  });
});
