import assert from 'node:assert/strict';
import { test } from 'node:test';
import { forEachDialect } from '../../../test/support/harness.js';

forEachDialect('profile and admin users', (h) => {
  test('GET /api/me has exactly the 9 fields, password always empty', async () => {
    const r = await h().get('/api/me', { token: await h().adminToken() });
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body.data).sort(), ['base_path', 'disabled', 'id', 'otp', 'password', 'permission', 'role', 'sso_id', 'username']);
    assert.deepEqual(r.body.data, { id: 1, username: 'admin', password: '', base_path: '/', role: 2, disabled: false, permission: 0xffff, sso_id: '', otp: false });
  });

  test('first start made the disabled guest and the local storage at /', async () => {
    const admin = await h().adminToken();
    const users = (await h().get('/api/admin/user/list', { token: admin })).body.data;
    const guest = users.content.find((u: { username: string }) => u.username === 'guest');
    assert.deepEqual({ role: guest.role, disabled: guest.disabled, permission: guest.permission }, { role: 1, disabled: true, permission: 0 });
    const storages = await h().ctx.database.db.selectFrom('storages').selectAll().execute();
    assert.equal(storages.length, 1);
    assert.equal(storages[0]!.mount_path, '/');
    assert.equal(storages[0]!.driver, 'local');
  });

  test('POST /api/me/update changes username and sso_id; guest is refused', async () => {
    await h().createUser('renamer', 'renamer-pw');
    const t = await h().login('renamer', 'renamer-pw');
    assert.equal((await h().post('/api/me/update', { sso_id: 'sso-42' }, { token: t })).status, 200);
    assert.equal((await h().get('/api/me', { token: t })).body.data.sso_id, 'sso-42');
    assert.equal((await h().post('/api/me/update', { username: 'admin' }, { token: t })).status, 409);
    assert.equal((await h().post('/api/me/update', { username: 'renamed' }, { token: t })).status, 200);
    const t2 = await h().login('renamed', 'renamer-pw');
    assert.equal((await h().get('/api/me', { token: t2 })).body.data.username, 'renamed');
  });

  test('guest enabled: /api/me answers as guest, profile update is 403', async () => {
    const admin = await h().adminToken();
    const guest = (await h().get('/api/admin/user/list', { token: admin })).body.data.content.find((u: { role: number }) => u.role === 1);
    await h().post('/api/admin/user/update', { id: guest.id, username: 'guest', disabled: false }, { token: admin });
    try {
      const me = await h().get('/api/me');
      assert.equal(me.status, 200);
      assert.equal(me.body.data.username, 'guest');
      const upd = await h().post('/api/me/update', { username: 'x' });
      assert.equal(upd.status, 403);
      assert.equal((await h().get('/api/admin/user/list')).status, 403);
    } finally {
      await h().post('/api/admin/user/update', { id: guest.id, username: 'guest', disabled: true }, { token: admin });
    }
  });

  test('admin user rules: no admin/guest creation, no role change, admin cannot be disabled or deleted', async () => {
    const admin = await h().adminToken();
    assert.equal((await h().post('/api/admin/user/create', { username: 'boss', password: 'x', role: 2 }, { token: admin })).status, 400);
    assert.equal((await h().post('/api/admin/user/create', { username: 'nopw', password: '' }, { token: admin })).status, 400);
    const id = await h().createUser('worker', 'worker-pw', { base_path: '/home\\worker//', permission: 8 });
    const got = (await h().get(`/api/admin/user/get?id=${id}`, { token: admin })).body.data;
    assert.equal(got.base_path, '/home/worker');
    assert.equal(got.permission, 8);
    assert.equal((await h().post('/api/admin/user/create', { username: 'worker', password: 'y' }, { token: admin })).status, 409);
    assert.equal((await h().post('/api/admin/user/update', { id, username: 'worker', role: 2 }, { token: admin })).status, 400);
    assert.equal((await h().post('/api/admin/user/update', { id: 1, username: 'admin', disabled: true }, { token: admin })).status, 400);
    assert.equal((await h().post('/api/admin/user/delete?id=1', undefined, { token: admin })).status, 403);
    assert.equal((await h().post('/api/admin/user/delete?id=abc', undefined, { token: admin })).status, 400);
    assert.equal((await h().post('/api/admin/user/delete?id=99999', undefined, { token: admin })).status, 404);
    const traversal = await h().post('/api/admin/user/create', { username: 'sneaky', password: 'x', base_path: '/a/../..' }, { token: admin });
    assert.equal(traversal.status, 403);
    // A non-admin gets 403 everywhere under /api/admin.
    const t = await h().login('worker', 'worker-pw');
    const r = await h().get('/api/admin/user/list', { token: t });
    assert.equal(r.status, 403);
    assert.equal(r.body.message, 'You are not an admin');
  });

  test('user list pages with page/per_page and reports total', async () => {
    const admin = await h().adminToken();
    const all = (await h().get('/api/admin/user/list', { token: admin })).body.data;
    assert.equal(all.total, all.content.length);
    const page2 = (await h().get('/api/admin/user/list?page=2&per_page=1', { token: admin })).body.data;
    assert.equal(page2.content.length, 1);
    assert.equal(page2.content[0].id, all.content[1].id);
    assert.equal(page2.total, all.total);
  });
});

forEachDialect('settings', (h) => {
  test('every seed setting of contract §9 exists with its default', async () => {
    const admin = await h().adminToken();
    const list = (await h().get('/api/admin/setting/list', { token: admin })).body.data as { key: string; value: string }[];
    const v = Object.fromEntries(list.map((s) => [s.key, s.value]));
    assert.equal(v.site_title, 'Ferry');
    assert.equal(v.token_expires_in, '48');
    assert.equal(v.sign_all, 'true');
    assert.equal(v.api_errors_http_200, 'false');
    assert.equal(v.seed_default_format, 'oss');
    assert.equal(v.seed_auto_generate_policy, 'off');
    assert.equal(v.seed_follow, 'true');
    assert.equal(v.seed_async_threshold, '1073741824');
    assert.equal(v.seed_fallback_name, 'Service Seed');
    assert.deepEqual(JSON.parse(v.seed_format_policies!), { oss: 'off', torrent: 'off', cas: 'off' });
    assert.deepEqual(JSON.parse(v.seed_default_matrix!), {
      md5: { whole: true, pieces: false },
      sha1: { whole: true, pieces: false },
      sha256: { whole: true, pieces: false },
    });
    for (const k of ['seed_site_url', 'seed_default_trackers', 'seed_single_direct_preview', 'seed_cas_direct_access', 'seed_trusted_source_hosts', 'link_expiration', 'sftp_disable_password_login', 'token']) {
      assert.ok(k in v, k);
    }
  });

  test('save is validated and all-or-nothing; public settings hide private keys', async () => {
    const admin = await h().adminToken();
    const bad = await h().post('/api/admin/setting/save', [{ key: 'site_title', value: 'Mine' }, { key: 'sign_all', value: 'maybe' }], { token: admin });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /sign_all/);
    assert.equal((await h().get('/api/admin/setting/get?key=site_title', { token: admin })).body.data.value, 'Ferry');
    assert.equal((await h().post('/api/admin/setting/save', [{ key: 'nope', value: '1' }], { token: admin })).status, 400);
    assert.equal((await h().post('/api/admin/setting/save', [{ key: 'site_title', value: 'Mine' }], { token: admin })).status, 200);
    const pub = await h().get('/api/public/settings');
    assert.equal(pub.status, 200);
    assert.equal(pub.body.data.site_title, 'Mine');
    assert.ok(!('token' in pub.body.data));
    assert.ok(!('seed_async_threshold' in pub.body.data));
    assert.equal((await h().get('/api/admin/setting/get?key=nope', { token: admin })).status, 404);
  });
});

forEachDialect('service endpoints', (h) => {
  test('/ping, /healthz and the OpenAPI document', async () => {
    const ping = await h().app.inject({ method: 'GET', url: '/ping' });
    assert.equal(ping.body, 'pong');
    const health = await h().get('/healthz');
    assert.equal(health.status, 200);
    assert.equal(health.body.data.database.ok, true);
    assert.equal(health.body.data.database.dialect, h().dialect);
    const doc = (await h().app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
    assert.match(doc.openapi, /^3\./);
    for (const p of ['/api/auth/login', '/api/auth/login/hash', '/api/auth/2fa/generate', '/api/auth/2fa/verify', '/api/me', '/api/me/sshkey/list', '/api/me/sshkey/add', '/api/me/sshkey/delete', '/api/admin/user/list']) {
      assert.ok(doc.paths[p], `OpenAPI has ${p}`);
    }
    assert.ok(doc.paths['/api/auth/login'].post.requestBody);
  });

  test('unknown API route is a 404 envelope', async () => {
    const r = await h().get('/api/nope');
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 404);
  });
});
