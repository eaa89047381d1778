import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { before, test } from 'node:test';
import { forEachDialect, type Harness } from '../../../test/support/harness.js';
import { Perm } from '../users/user.model.js';
import { generateShareId, parseExpires, SEED_SHARE_REMARK } from './shares.service.js';

const bit = (...bits: number[]) => bits.reduce((p, b) => p | (1 << b), 0);
const SHARE_KEYS = ['accessed', 'creator', 'creator_role', 'disabled', 'expires', 'files', 'id', 'max_accessed', 'pwd', 'remark', 'url'];
const TIME_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;

test('generated ids are 8 characters of A-Z a-z 0-9', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 200; i++) {
    const id = generateShareId();
    assert.match(id, /^[A-Za-z0-9]{8}$/);
    seen.add(id);
  }
  assert.ok(seen.size > 190);
});

test('parseExpires: RFC 3339 → ms, null/""/Go zero time → never, garbage → 400', () => {
  assert.equal(parseExpires(undefined), undefined);
  assert.equal(parseExpires(null), null);
  assert.equal(parseExpires(''), null);
  assert.equal(parseExpires('0001-01-01T00:00:00Z'), null);
  assert.equal(parseExpires('2030-01-02T03:04:05.678Z'), Date.UTC(2030, 0, 2, 3, 4, 5, 678));
  assert.equal(parseExpires('2030-01-02T05:04:05.678+02:00'), Date.UTC(2030, 0, 2, 3, 4, 5, 678));
  for (const bad of ['tomorrow', '12345', '2030-13-45T99:00:00Z']) {
    assert.throws(() => parseExpires(bad), (e: { code: number; message: string }) => e.code === 400 && e.message.startsWith('expires:'));
  }
});

forEachDialect('shares', (h) => {
  const A_BYTES = randomBytes(100_000);
  const B_BYTES = Buffer.from('bravo file below the sub folder\n');
  const P_BYTES = randomBytes(4096);
  const SECRET = Buffer.from('TOP-SECRET-SIBLING-CONTENT');
  let admin = '';
  let alice = ''; // base /alice, bits 3+14
  let aliceId = 0;
  let bob = ''; // base /, bits 3+14+15
  let carol = ''; // base /, bit 3 only
  let carolId = 0;
  let origin = '';

  async function upload(token: string, path: string, body: Buffer): Promise<void> {
    const r = await h().call('PUT', '/api/fs/put', {
      token,
      headers: { 'file-path': encodeURIComponent(path), 'content-type': 'application/octet-stream' },
      body,
    });
    assert.equal(r.status, 200, `upload ${path}: ${r.status} ${r.body.message}`);
  }

  /** A raw GET/HEAD through inject (URL normalised by WHATWG rules). */
  const fetchSd = (url: string, o: { method?: 'GET' | 'HEAD'; headers?: Record<string, string> } = {}) =>
    h().app.inject({ method: o.method ?? 'GET', url, headers: o.headers ?? {} });

  /** A GET over a real socket with the path sent byte for byte (no client-side normalisation). */
  function rawGet(path: string): Promise<{ status: number; body: Buffer }> {
    return new Promise((resolve, reject) => {
      const u = new URL(origin);
      const req = request({ host: u.hostname, port: u.port, path, method: 'GET' }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
  }

  async function create(token: string, body: Record<string, unknown>) {
    return h().post('/api/share/create', body, { token });
  }
  async function mustCreate(token: string, body: Record<string, unknown>): Promise<string> {
    const r = await create(token, body);
    assert.equal(r.status, 200, `${r.status} ${r.body.message}`);
    return r.body.data.id as string;
  }
  const getShare = async (id: string, token = admin) => {
    const r = await h().get(`/api/share/get?id=${encodeURIComponent(id)}`, { token });
    assert.equal(r.status, 200, r.body.message);
    return r.body.data;
  };

  before(async () => {
    admin = await h().adminToken();
    await upload(admin, '/alice/docs/a.txt', A_BYTES);
    await upload(admin, '/alice/docs/sub/b.txt', B_BYTES);
    await upload(admin, '/alice/pics/p.bin', P_BYTES);
    await upload(admin, '/alice/secret.txt', SECRET);
    await upload(admin, '/alice/docs-other/a.txt', SECRET);
    await upload(admin, '/outside.txt', SECRET);
    aliceId = await h().createUser('alice', 'alice-pass-1', { base_path: '/alice', permission: bit(Perm.WRITE, Perm.SHARE) });
    await h().createUser('bob', 'bob-pass-1', { permission: bit(Perm.WRITE, Perm.SHARE, Perm.CUSTOM_SHARE_ID) });
    carolId = await h().createUser('carol', 'carol-pass-1', { permission: bit(Perm.WRITE) });
    alice = await h().login('alice', 'alice-pass-1');
    bob = await h().login('bob', 'bob-pass-1');
    carol = await h().login('carol', 'carol-pass-1');
    await listen();
  });

  async function listen(): Promise<void> {
    await h().app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(h().app.server.address() as AddressInfo).port}`;
  }

  test('create / get / list / update / enable / disable / delete', async () => {
    const r = await create(alice, { files: ['/docs/a.txt'], remark: 'hello', max_accessed: 5 });
    assert.equal(r.status, 200, r.body.message);
    const s = r.body.data;
    assert.deepEqual(Object.keys(s).sort(), SHARE_KEYS);
    assert.match(s.id, /^[A-Za-z0-9]{8}$/);
    assert.deepEqual(s.files, ['/docs/a.txt'], 'paths relative to the viewer (alice, base /alice)');
    assert.equal(s.expires, null);
    assert.equal(s.pwd, '');
    assert.equal(s.accessed, 0);
    assert.equal(s.max_accessed, 5);
    assert.equal(s.disabled, false);
    assert.equal(s.remark, 'hello');
    assert.equal(s.creator, 'alice');
    assert.equal(s.creator_role, 0);
    assert.match(s.url, new RegExp(`^https?://[^/]+/sd/${s.id}$`));

    // The admin (base /) sees the full path, as stored.
    const asAdmin = await getShare(s.id);
    assert.deepEqual(asAdmin.files, ['/alice/docs/a.txt']);
    assert.deepEqual(await getShare(s.id, alice), s);

    // Update: given fields change, the rest stays.
    const exp = new Date(Date.now() + 3_600_000).toISOString();
    const u = await h().post('/api/share/update', { id: s.id, remark: 'changed', pwd: 'sesame', expires: exp }, { token: alice });
    assert.equal(u.status, 200, u.body.message);
    assert.equal(u.body.data.remark, 'changed');
    assert.equal(u.body.data.pwd, 'sesame');
    assert.match(u.body.data.expires, TIME_RE);
    assert.equal(Date.parse(u.body.data.expires), Date.parse(exp));
    assert.deepEqual(u.body.data.files, ['/docs/a.txt']);
    assert.equal(u.body.data.max_accessed, 5);
    // Files given back exactly as read round-trip.
    const u2 = await h().post('/api/share/update', { id: s.id, files: u.body.data.files, expires: null }, { token: alice });
    assert.equal(u2.status, 200, u2.body.message);
    assert.deepEqual(u2.body.data.files, ['/docs/a.txt']);
    assert.equal(u2.body.data.expires, null);

    for (const [action, want] of [['disable', true], ['enable', false]] as const) {
      const e = await h().post(`/api/share/${action}?id=${s.id}`, undefined, { token: alice });
      assert.equal(e.status, 200, e.body.message);
      assert.equal(e.body.data, null);
      assert.equal((await getShare(s.id, alice)).disabled, want);
    }

    const listed = await h().get('/api/share/list', { token: alice });
    assert.equal(listed.status, 200);
    assert.ok(listed.body.data.content.some((x: { id: string }) => x.id === s.id));
    assert.equal(listed.body.data.total, listed.body.data.content.length);

    const d = await h().post(`/api/share/delete?id=${s.id}`, undefined, { token: alice });
    assert.equal(d.status, 200, d.body.message);
    const gone = await h().get(`/api/share/get?id=${s.id}`, { token: alice });
    assert.equal(gone.status, 404);
    assert.equal(gone.body.message, 'sharing not found');
    assert.equal((await h().post(`/api/share/delete?id=${s.id}`, undefined, { token: alice })).status, 404);
  });

  test('list pages by id (GET query or POST body); admins see every share, users their own', async () => {
    const mine = [];
    for (let i = 0; i < 3; i++) mine.push(await mustCreate(bob, { files: ['/alice/pics'], remark: `page-${i}` }));
    const aliceShare = await mustCreate(alice, { files: ['/pics'] });
    const all = await h().get('/api/share/list', { token: bob });
    const ids: string[] = all.body.data.content.map((x: { id: string }) => x.id);
    assert.deepEqual(ids, [...ids].sort(), 'ordered by id');
    for (const id of mine) assert.ok(ids.includes(id));
    assert.ok(!ids.includes(aliceShare), "another user's share is not listed");
    assert.ok(all.body.data.content.every((x: { creator: string }) => x.creator === 'bob'));

    const p2 = await h().get('/api/share/list?page=2&per_page=2', { token: bob });
    assert.equal(p2.status, 200);
    assert.equal(p2.body.data.total, ids.length);
    assert.deepEqual(p2.body.data.content.map((x: { id: string }) => x.id), ids.slice(2, 4));
    const p1 = await h().post('/api/share/list', { page: 1, per_page: 2 }, { token: bob });
    assert.equal(p1.status, 200, p1.body.message);
    assert.deepEqual(p1.body.data.content.map((x: { id: string }) => x.id), ids.slice(0, 2));
    const bad = await h().get('/api/share/list?page=x', { token: bob });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /page/);

    const adminList = await h().get('/api/share/list', { token: admin });
    const adminIds: string[] = adminList.body.data.content.map((x: { id: string }) => x.id);
    for (const id of [...mine, aliceShare]) assert.ok(adminIds.includes(id));
    // The admin manages others' shares.
    assert.equal((await h().post(`/api/share/disable?id=${aliceShare}`, undefined, { token: admin })).status, 200);
    assert.equal((await getShare(aliceShare, alice)).disabled, true);
    assert.equal((await h().post(`/api/share/delete?id=${aliceShare}`, undefined, { token: admin })).status, 200);
  });

  test("another user's share is 404 sharing not found for every operation", async () => {
    const id = await mustCreate(alice, { files: ['/docs/a.txt'] });
    const calls = [
      () => h().get(`/api/share/get?id=${id}`, { token: bob }),
      () => h().post('/api/share/update', { id, remark: 'x' }, { token: bob }),
      () => h().post(`/api/share/delete?id=${id}`, undefined, { token: bob }),
      () => h().post(`/api/share/enable?id=${id}`, undefined, { token: bob }),
      () => h().post(`/api/share/disable?id=${id}`, undefined, { token: bob }),
      () => h().get('/api/share/get?id=NoSuchId', { token: bob }),
    ];
    for (const call of calls) {
      const r = await call();
      assert.equal(r.status, 404);
      assert.equal(r.body.message, 'sharing not found');
    }
    const still = await getShare(id, alice);
    assert.equal(still.remark, '');
    assert.equal(still.disabled, false);
  });

  test('guests are refused; bit 14 for create/update; bit 15 for a custom id or rename', async () => {
    const anon = await h().get('/api/share/list');
    assert.equal(anon.status, 401);
    const noBit = await create(carol, { files: ['/alice/docs/a.txt'] });
    assert.equal(noBit.status, 403);
    assert.equal(noBit.body.message, 'permission denied');

    const custom = await create(alice, { files: ['/docs/a.txt'], id: 'alice-custom' });
    assert.equal(custom.status, 403, 'alice lacks bit 15');
    const id = await mustCreate(alice, { files: ['/docs/a.txt'] });
    const rename = await h().post('/api/share/update', { id, new_id: 'renamed-by-alice' }, { token: alice });
    assert.equal(rename.status, 403);

    // Bob has bit 15.
    const ok = await create(bob, { files: ['/alice/docs/a.txt'], id: 'bob_custom-分享' });
    assert.equal(ok.status, 200, ok.body.message);
    assert.equal(ok.body.data.id, 'bob_custom-分享');
    assert.match(ok.body.data.url, /\/sd\/bob_custom-%E5%88%86%E4%BA%AB$/);
    const dup = await create(bob, { files: ['/alice/docs/a.txt'], id: 'bob_custom-分享' });
    assert.equal(dup.status, 409);
    for (const bad of ['a/b', 'has space', 'x'.repeat(65)]) {
      const r = await create(bob, { files: ['/alice/docs/a.txt'], id: bad });
      assert.equal(r.status, 400, bad);
      assert.match(r.body.message, /^id: /);
    }
    const renamed = await h().post('/api/share/update', { id: 'bob_custom-分享', new_id: 'bob-renamed' }, { token: bob });
    assert.equal(renamed.status, 200, renamed.body.message);
    assert.equal(renamed.body.data.id, 'bob-renamed');
    assert.equal((await h().get(`/api/share/get?id=${encodeURIComponent('bob_custom-分享')}`, { token: bob })).status, 404);

    // Losing bit 14 forbids update, not delete.
    const bobShare = await mustCreate(bob, { files: ['/alice/docs/a.txt'] });
    const bobId = (await h().get('/api/me', { token: bob })).body.data.id as number;
    assert.equal((await h().post('/api/admin/user/update', { id: bobId, username: 'bob', permission: bit(Perm.WRITE) }, { token: admin })).status, 200);
    const upd = await h().post('/api/share/update', { id: bobShare, remark: 'x' }, { token: bob });
    assert.equal(upd.status, 403);
    assert.equal((await h().post(`/api/share/delete?id=${bobShare}`, undefined, { token: bob })).status, 200);
    assert.equal((await h().post('/api/admin/user/update', { id: bobId, username: 'bob', permission: bit(Perm.WRITE, Perm.SHARE, Perm.CUSTOM_SHARE_ID) }, { token: admin })).status, 200);
  });

  test('files: resolved inside the base path (traversal 403), must exist (404), validation 400 names the field', async () => {
    for (const p of ['../secret.txt', '/docs/../../etc/passwd', '%2e%2e/secret.txt', '/docs/%252e%252e/x', 'a\0b']) {
      const r = await create(alice, { files: [p] });
      assert.equal(r.status, 403, p);
      assert.equal(r.body.message, 'using relative path is not allowed');
    }
    // '/secret.txt' for alice is /alice/secret.txt (inside); '/etc' does not exist under /alice.
    const missing = await create(alice, { files: ['/nope.txt'] });
    assert.equal(missing.status, 404);
    assert.match(missing.body.message, /^files\[0\]: \/nope.txt/);
    const belowFile = await create(alice, { files: ['/docs/a.txt/x'] });
    assert.equal(belowFile.status, 404);

    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /files/],
      [{ files: [] }, /^files: must add at least 1 object$/],
      [{ files: [''] }, /^files\[0\]/],
      [{ files: 'a.txt' }, /files/],
      [{ files: ['/docs/a.txt'], expires: 'soon' }, /^expires/],
      [{ files: ['/docs/a.txt'], expires: 5 }, /expires/],
      [{ files: ['/docs/a.txt'], max_accessed: -1 }, /max_accessed/],
      [{ files: ['/docs/a.txt'], disabled: 'yes' }, /disabled/],
      [{ files: ['/docs/a.txt', '/docs-other/a.txt'] }, /^files: .*"a.txt"/],
    ];
    for (const [body, re] of cases) {
      const r = await create(alice, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.body.message, re, JSON.stringify(body));
    }
    const noId = await h().post('/api/share/update', { remark: 'x' }, { token: alice });
    assert.equal(noId.status, 400);
    assert.match(noId.body.message, /id/);
    const delNoId = await h().post('/api/share/delete', undefined, { token: alice });
    assert.equal(delNoId.status, 400);
    assert.match(delNoId.body.message, /query\.id/);

    // Admin creating as another user: only inside that user's base path.
    const asAlice = await create(admin, { files: ['/alice/docs/a.txt'], creator: 'alice' });
    assert.equal(asAlice.status, 200, asAlice.body.message);
    assert.equal(asAlice.body.data.creator, 'alice');
    const escape = await create(admin, { files: ['/outside.txt'], creator: 'alice' });
    assert.equal(escape.status, 403);
    assert.equal(escape.body.message, 'permission denied to share path [/outside.txt]');
    assert.equal((await create(admin, { files: ['/alice/docs/a.txt'], creator: 'nobody' })).status, 400);
    assert.equal((await create(bob, { files: ['/alice/docs/a.txt'], creator: 'alice' })).status, 403, 'only admins name a creator');
  });

  test('/sd serves a single-file share: bytes, headers, Range 206, HEAD, by name', async () => {
    const id = await mustCreate(alice, { files: ['/docs/a.txt'] });
    const r = await fetchSd(`/sd/${id}`);
    assert.equal(r.statusCode, 200, r.body);
    assert.ok(r.rawPayload.equals(A_BYTES), 'downloaded bytes equal the upload');
    assert.equal(r.headers['content-length'], String(A_BYTES.length));
    assert.match(String(r.headers['content-disposition']), /filename="a.txt"/);

    const byName = await fetchSd(`/sd/${id}/a.txt`);
    assert.equal(byName.statusCode, 200);
    assert.ok(byName.rawPayload.equals(A_BYTES));
    assert.equal((await fetchSd(`/sd/${id}/other.txt`)).statusCode, 404);
    assert.equal((await fetchSd(`/sd/${id}/a.txt/x`)).statusCode, 404);

    const range = await fetchSd(`/sd/${id}`, { headers: { range: 'bytes=100-1099' } });
    assert.equal(range.statusCode, 206);
    assert.equal(range.headers['content-range'], `bytes 100-1099/${A_BYTES.length}`);
    assert.ok(range.rawPayload.equals(A_BYTES.subarray(100, 1100)));
    const suffix = await fetchSd(`/sd/${id}`, { headers: { range: 'bytes=-10' } });
    assert.equal(suffix.statusCode, 206);
    assert.ok(suffix.rawPayload.equals(A_BYTES.subarray(A_BYTES.length - 10)));

    const head = await fetchSd(`/sd/${id}`, { method: 'HEAD' });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers['content-length'], String(A_BYTES.length));
    assert.equal(head.rawPayload.length, 0);

    // Real socket too (what a browser or curl sees).
    const raw = await rawGet(`/sd/${id}`);
    assert.equal(raw.status, 200);
    assert.ok(raw.body.equals(A_BYTES));

    const unknown = await fetchSd('/sd/NoSuchShare');
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().message, 'sharing not found');
    // Every successful GET above (5, including the 206s) and none of the HEAD/404s.
    assert.equal((await getShare(id)).accessed, 5);
  });

  test('/sd password: missing or wrong → 403 wrong share code, right → 200', async () => {
    const id = await mustCreate(alice, { files: ['/docs/a.txt'], pwd: 'open sesame' });
    for (const url of [`/sd/${id}`, `/sd/${id}?pwd=`, `/sd/${id}?pwd=wrong`, `/sd/${id}/a.txt?pwd=open`]) {
      const r = await fetchSd(url);
      assert.equal(r.statusCode, 403, url);
      assert.equal(r.json().message, 'wrong share code');
    }
    const head = await fetchSd(`/sd/${id}`, { method: 'HEAD' });
    assert.equal(head.statusCode, 403);
    const r = await fetchSd(`/sd/${id}?pwd=${encodeURIComponent('open sesame')}`);
    assert.equal(r.statusCode, 200);
    assert.ok(r.rawPayload.equals(A_BYTES));
    assert.equal((await getShare(id)).accessed, 1, 'refused attempts are not counted');
  });

  test('/sd: expired (via update or in the database), disabled and deleted shares are 404', async () => {
    const id = await mustCreate(alice, { files: ['/docs/a.txt'], expires: new Date(Date.now() + 60_000).toISOString() });
    assert.equal((await fetchSd(`/sd/${id}`)).statusCode, 200);

    const past = await h().post('/api/share/update', { id, expires: new Date(Date.now() - 1000).toISOString() }, { token: alice });
    assert.equal(past.status, 200, past.body.message);
    for (const method of ['GET', 'HEAD'] as const) assert.equal((await fetchSd(`/sd/${id}`, { method })).statusCode, 404);
    assert.equal((await fetchSd(`/sd/${id}`)).json().message, 'the share has expired or is no longer valid');

    await h().post('/api/share/update', { id, expires: null }, { token: alice });
    assert.equal((await fetchSd(`/sd/${id}`)).statusCode, 200);
    await h().ctx.database.db.updateTable('shares').set({ expires_at: Date.now() - 1 }).where('id', '=', id).execute();
    assert.equal((await fetchSd(`/sd/${id}`)).statusCode, 404);
    await h().ctx.database.db.updateTable('shares').set({ expires_at: null }).where('id', '=', id).execute();
    assert.equal((await fetchSd(`/sd/${id}`)).statusCode, 200);

    await h().post(`/api/share/disable?id=${id}`, undefined, { token: alice });
    assert.equal((await fetchSd(`/sd/${id}`)).statusCode, 404);
    await h().post(`/api/share/enable?id=${id}`, undefined, { token: alice });
    assert.equal((await fetchSd(`/sd/${id}`)).statusCode, 200);

    await h().post(`/api/share/delete?id=${id}`, undefined, { token: alice });
    const r = await fetchSd(`/sd/${id}`);
    assert.equal(r.statusCode, 404);
    assert.equal(r.json().message, 'sharing not found');
  });

  test('/sd download limit: HEAD and 304 are free, GETs count, the one over the limit is 404', async () => {
    const id = await mustCreate(alice, { files: ['/docs/a.txt'], max_accessed: 2 });
    const head = await fetchSd(`/sd/${id}`, { method: 'HEAD' });
    assert.equal(head.statusCode, 200);
    const etag = String(head.headers.etag);
    const cond = await fetchSd(`/sd/${id}`, { headers: { 'if-none-match': etag } });
    assert.equal(cond.statusCode, 304);
    assert.equal((await fetchSd(`/sd/${id}`, { headers: { range: 'bytes=999999999-' } })).statusCode, 416);
    assert.equal((await getShare(id)).accessed, 0);

    assert.equal((await fetchSd(`/sd/${id}`)).statusCode, 200);
    assert.equal((await fetchSd(`/sd/${id}`, { headers: { range: 'bytes=0-0' } })).statusCode, 206);
    assert.equal((await getShare(id)).accessed, 2);
    assert.equal((await fetchSd(`/sd/${id}`)).statusCode, 404);
    assert.equal((await fetchSd(`/sd/${id}`, { method: 'HEAD' })).statusCode, 404);
    assert.equal((await getShare(id)).accessed, 2);

    // Raising the limit (or resetting accessed) revives it.
    await h().post('/api/share/update', { id, max_accessed: 3 }, { token: alice });
    assert.equal((await fetchSd(`/sd/${id}`)).statusCode, 200);
    assert.equal((await fetchSd(`/sd/${id}`)).statusCode, 404);
  });

  test('/sd download limit holds under concurrent downloads', async () => {
    // Kept small: every concurrent request may open another pooled database connection.
    const id = await mustCreate(alice, { files: ['/pics/p.bin'], max_accessed: 2 });
    const results = await Promise.all(Array.from({ length: 5 }, () => rawGet(`/sd/${id}`)));
    const okCount = results.filter((r) => r.status === 200).length;
    assert.equal(okCount, 2, `statuses ${results.map((r) => r.status).join(',')}`);
    for (const r of results) {
      if (r.status === 200) assert.ok(r.body.equals(P_BYTES));
      else assert.equal(r.status, 404);
    }
    assert.equal((await getShare(id)).accessed, 2);

    // The count lives in the database: a restart does not reset it. (The restart also
    // retires the pooled connections the burst opened.)
    await h().close();
    await h().open();
    await listen();
    assert.equal((await getShare(id)).accessed, 2);
    assert.equal((await rawGet(`/sd/${id}`)).status, 404);
  });

  test('/sd: creator losing bit 14, disabled or deleted makes the share 404', async () => {
    const daveId = await h().createUser('dave', 'dave-pass-1', { permission: bit(Perm.SHARE) });
    const dave = await h().login('dave', 'dave-pass-1');
    const id = await mustCreate(dave, { files: ['/alice/docs/a.txt'] });
    assert.equal((await fetchSd(`/sd/${id}`)).statusCode, 200);
    const setUser = (patch: Record<string, unknown>) => h().post('/api/admin/user/update', { id: daveId, username: 'dave', ...patch }, { token: admin });

    assert.equal((await setUser({ permission: 0 })).status, 200);
    assert.equal((await fetchSd(`/sd/${id}`)).statusCode, 404);
    assert.equal((await setUser({ permission: bit(Perm.SHARE) })).status, 200);
    assert.equal((await fetchSd(`/sd/${id}`)).statusCode, 200);

    // A non-admin creator whose base path no longer covers the files.
    assert.equal((await setUser({ base_path: '/elsewhere' })).status, 200);
    assert.equal((await fetchSd(`/sd/${id}`)).statusCode, 404);
    assert.equal((await setUser({ base_path: '/' })).status, 200);
    assert.equal((await fetchSd(`/sd/${id}`)).statusCode, 200);

    assert.equal((await h().post(`/api/admin/user/delete?id=${daveId}`, undefined, { token: admin })).status, 200);
    const r = await fetchSd(`/sd/${id}`);
    assert.equal(r.statusCode, 404);
    // Deleting a user deletes their shares.
    const listed = (await h().get('/api/share/list', { token: admin })).body.data.content.find((x: { id: string }) => x.id === id);
    assert.equal(listed, undefined);
    assert.equal((await h().get(`/api/share/get?id=${id}`, { token: admin })).status, 404);
  });

  test('/sd folder share: files below it, never a folder, never outside it', async () => {
    const id = await mustCreate(alice, { files: ['/docs'] });
    const a = await fetchSd(`/sd/${id}/a.txt`);
    assert.equal(a.statusCode, 200);
    assert.ok(a.rawPayload.equals(A_BYTES));
    const b = await fetchSd(`/sd/${id}/sub/b.txt`);
    assert.equal(b.statusCode, 200);
    assert.ok(b.rawPayload.equals(B_BYTES));
    const enc = await rawGet(`/sd/${id}/sub%2Fb.txt`);
    assert.equal(enc.status, 200);
    assert.ok(enc.body.equals(B_BYTES));

    for (const p of [`/sd/${id}`, `/sd/${id}/`, `/sd/${id}/sub`, `/sd/${id}/nope.txt`, `/sd/${id}/a.txt/x`]) {
      assert.equal((await fetchSd(p)).statusCode, 404, p);
    }
    // Traversal, sent raw over a socket (an HTTP client would normalise some of these away).
    const attacks = [
      `/sd/${id}/../secret.txt`,
      `/sd/${id}/sub/../../secret.txt`,
      `/sd/${id}/%2e%2e/secret.txt`,
      `/sd/${id}/%2E%2E/secret.txt`,
      `/sd/${id}/..%2fsecret.txt`,
      `/sd/${id}/..%5csecret.txt`,
      `/sd/${id}/%252e%252e/secret.txt`,
      `/sd/${id}/sub/..`,
      `/sd/${id}/..`,
      `/sd/${id}/a.txt%00`,
    ];
    for (const p of attacks) {
      const r = await rawGet(p);
      assert.equal(r.status, 403, `${p} → ${r.status}`);
      assert.ok(!r.body.includes(SECRET), p);
      assert.equal(JSON.parse(r.body.toString()).message, 'using relative path is not allowed');
    }
    // `docs-other/a.txt` shares a prefix with `docs` but is outside it.
    const sibling = await rawGet(`/sd/${id}/..%2fdocs-other/a.txt`);
    assert.equal(sibling.status, 403);
    assert.equal((await getShare(id)).accessed, 3, 'only the three downloads counted');
  });

  test('/sd multi-file share: <base name>[/<sub>]', async () => {
    const id = await mustCreate(alice, { files: ['/docs/a.txt', '/pics'] });
    assert.deepEqual((await getShare(id, alice)).files, ['/docs/a.txt', '/pics']);
    const a = await fetchSd(`/sd/${id}/a.txt`);
    assert.equal(a.statusCode, 200);
    assert.ok(a.rawPayload.equals(A_BYTES));
    const p = await fetchSd(`/sd/${id}/pics/p.bin`);
    assert.equal(p.statusCode, 200);
    assert.ok(p.rawPayload.equals(P_BYTES));
    for (const url of [`/sd/${id}`, `/sd/${id}/pics`, `/sd/${id}/docs/a.txt`, `/sd/${id}/a.txt/more`, `/sd/${id}/p.bin`, `/sd/${id}/ics/p.bin`, `/sd/${id}/secret.txt`]) {
      assert.equal((await fetchSd(url)).statusCode, 404, url);
    }
    const r = await rawGet(`/sd/${id}/pics/../../secret.txt`);
    assert.equal(r.status, 403);
  });

  test('service API: createShare / deleteShare for other modules (seed generation)', async () => {
    const svc = h().ctx.shares;
    const made = await svc.createShare({ creatorId: aliceId, files: ['/alice/docs/a.txt'], remark: SEED_SHARE_REMARK });
    assert.match(made.id, /^[A-Za-z0-9]{8}$/);
    assert.equal(made.path, `/sd/${made.id}`);
    const s = await getShare(made.id, alice);
    assert.equal(s.remark, 'Transfer seed source');
    assert.equal(s.creator, 'alice');
    assert.deepEqual(s.files, ['/docs/a.txt']);
    const dl = await fetchSd(made.path);
    assert.equal(dl.statusCode, 200);
    assert.ok(dl.rawPayload.equals(A_BYTES));

    assert.equal(await svc.deleteShare(made.id), true);
    assert.equal((await fetchSd(made.path)).statusCode, 404);
    assert.equal(await svc.deleteShare(made.id), false);

    const withPwd = await svc.createShare({ creatorId: aliceId, files: ['/alice/docs/a.txt'], remark: 'x', password: 'pw', expiresAt: Date.now() + 60_000 });
    assert.equal((await fetchSd(withPwd.path)).statusCode, 403);
    assert.equal((await fetchSd(`${withPwd.path}?pwd=pw`)).statusCode, 200);

    await assert.rejects(svc.createShare({ creatorId: carolId, files: ['/alice/docs/a.txt'], remark: 'x' }), (e: { code: number }) => e.code === 403);
    await assert.rejects(svc.createShare({ creatorId: aliceId, files: ['/outside.txt'], remark: 'x' }), (e: { code: number }) => e.code === 403);
    await assert.rejects(svc.createShare({ creatorId: aliceId, files: ['/alice/none.txt'], remark: 'x' }), (e: { code: number }) => e.code === 404);
    await assert.rejects(svc.createShare({ creatorId: aliceId, files: ['/alice/../x'], remark: 'x' }), (e: { code: number }) => e.code === 403);
    await assert.rejects(svc.createShare({ creatorId: 999_999, files: ['/alice/docs/a.txt'], remark: 'x' }), (e: { code: number }) => e.code === 400);
  });
});
