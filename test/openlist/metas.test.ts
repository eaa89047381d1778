/**
 * Metas (per-folder rules) through every protocol: the admin API with OpenList's fields; hidden names absent from
 * HTTP listings, fs/dirs, SFTP `ls` (OpenSSH's sftp) and share downloads for users without bit 0; a folder
 * password asked by fs/list and fs/get, its attempts counted by the lockout, and honoured by `/d/` (a sign is
 * required even with `sign_all` off); readme/header in fs/list; the write bypass. Both databases.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { forEachDialect, type Harness } from '../support/harness.js';
import { keygen, sftpBatch } from '../sftp/support.js';
import { assertShape } from './shape.js';

const bits = (...n: number[]) => n.reduce((a, b) => a | (1 << b), 0);
const T = { timeout: 120_000 };

function files(h: Harness, dir: string, names: string[]): void {
  for (const n of names) {
    const p = join(h.dataDir, 'files', dir, n);
    mkdirSync(join(p, '..'), { recursive: true });
    writeFileSync(p, `content of ${n}`);
  }
}

const META_FIELDS = { id: 'integer', path: 'string', password: 'string', p_sub: 'boolean', write: 'boolean', w_sub: 'boolean', hide: 'string', h_sub: 'boolean', readme: 'string', r_sub: 'boolean', header: 'string', header_sub: 'boolean' } as const;

forEachDialect('metas', (h) => {
  let admin: string;
  let user: string;
  let seer: string;
  const names = async (path: string, token: string, password?: string) => {
    const r = await h().post('/api/fs/list', { path, password, page: 1, per_page: 0 }, { token });
    assert.equal(r.status, 200, r.body.message);
    return (r.body.data.content as { name: string }[]).map((e) => e.name).sort();
  };
  const meta = async (body: Record<string, unknown>) => {
    const r = await h().post('/api/admin/meta/create', body, { token: admin });
    assert.equal(r.status, 200, r.body.message);
    return r.body.data as { id: number };
  };

  before(async () => {
    admin = await h().adminToken();
    // bits 3 (write) and 10 (SFTP), not 0 (see hidden) nor 1 (no password)
    await h().createUser('ursula', 'ursula-pass-1', { permission: bits(3, 4, 5, 6, 7, 10, 14) });
    await h().createUser('sven', 'sven-pass-1', { permission: bits(0, 1, 10) });
    await h().createUser('wendy', 'wendy-pass-1', { permission: bits(10) });
    user = await h().login('ursula', 'ursula-pass-1');
    seer = await h().login('sven', 'sven-pass-1');
  });

  test('admin API: OpenList fields; one meta per path; bad hide pattern 400; admins only', T, async () => {
    const empty = await h().get('/api/admin/meta/list', { token: admin });
    assert.equal(empty.status, 200);
    assert.deepEqual(empty.body.data, { content: [], total: 0 });
    // the frontend posts every field, `id: 0` included
    const created = await h().post('/api/admin/meta/create', { id: 0, path: '/m-admin', password: '', p_sub: false, write: false, w_sub: false, hide: '', h_sub: false, readme: '# hi', r_sub: true, header: '', header_sub: false }, { token: admin });
    assert.equal(created.status, 200, created.body.message);
    assertShape(created.body.data, META_FIELDS, 'meta');
    const id = created.body.data.id as number;
    const list = await h().get('/api/admin/meta/list?page=1&per_page=20', { token: admin });
    assert.equal(list.body.data.total, 1);
    assertShape(list.body.data.content[0], META_FIELDS, 'list[0]');
    assert.equal((await h().get(`/api/admin/meta/get?id=${id}`, { token: admin })).body.data.readme, '# hi');
    assert.equal((await h().post('/api/admin/meta/create', { path: '/m-admin/' }, { token: admin })).status, 409);
    const bad = await h().post('/api/admin/meta/create', { path: '/m-bad', hide: 'ok\n(?=x)' }, { token: admin });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /hide \(line 2\)/);
    const upd = await h().post('/api/admin/meta/update', { ...created.body.data, readme: 'changed', path: '/m-admin2' }, { token: admin });
    assert.equal(upd.status, 200, upd.body.message);
    assert.equal(upd.body.data.path, '/m-admin2');
    assert.equal((await h().get('/api/admin/meta/list', { token: user })).status, 403);
    assert.equal((await h().post(`/api/admin/meta/delete?id=${id}`, undefined, { token: admin })).status, 200);
    assert.equal((await h().post(`/api/admin/meta/delete?id=${id}`, undefined, { token: admin })).status, 404);
  });

  test('hide: absent from fs/list, fs/dirs and fs/get for users without bit 0; h_sub reaches subfolders', T, async () => {
    files(h(), 'mh', ['secret.txt', 'public.txt', 'secretdir/x.txt', 'sub/secret2.txt', 'sub/ok.txt']);
    const m = await meta({ path: '/mh', hide: '^secret', h_sub: false });
    assert.deepEqual(await names('/mh', user), ['public.txt', 'sub']);
    assert.deepEqual(await names('/mh', admin), ['public.txt', 'secret.txt', 'secretdir', 'sub']);
    assert.deepEqual(await names('/mh', seer), ['public.txt', 'secret.txt', 'secretdir', 'sub']);
    assert.deepEqual(await names('/mh/sub', user), ['ok.txt', 'secret2.txt']);
    const dirs = await h().post('/api/fs/dirs', { path: '/mh' }, { token: user });
    assert.deepEqual((dirs.body.data as { name: string }[]).map((d) => d.name), ['sub']);
    assert.equal((await h().post('/api/fs/get', { path: '/mh/secret.txt' }, { token: user })).status, 403);
    assert.equal((await h().post('/api/fs/list', { path: '/mh/secretdir' }, { token: user })).status, 403);
    assert.equal((await h().post('/api/fs/get', { path: '/mh/secret.txt' }, { token: seer })).status, 200);
    await h().post('/api/admin/meta/update', { id: m.id, path: '/mh', hide: '^secret', h_sub: true }, { token: admin });
    assert.deepEqual(await names('/mh/sub', user), ['ok.txt']);
  });

  test('hide: absent from SFTP ls (OpenSSH sftp) for users without bit 0', T, async () => {
    files(h(), 'ms', ['hidden.bin', 'shown.bin']);
    await meta({ path: '/ms', hide: '^hidden\\.' });
    const key = keygen('metas-wendy', 'ed25519');
    const wendy = await h().login('wendy', 'wendy-pass-1');
    assert.equal((await h().post('/api/me/sshkey/add', { title: 'k', key: key.pub }, { token: wendy })).status, 200);
    const ls = await sftpBatch(h().sftp!.address.port, key, 'wendy', ['ls -1 /ms']);
    assert.equal(ls.code, 0, ls.stderr);
    assert.match(ls.stdout, /shown\.bin/);
    assert.doesNotMatch(ls.stdout, /hidden\.bin/);
    // an admin's key sees it
    const akey = keygen('metas-admin', 'ed25519');
    assert.equal((await h().post('/api/me/sshkey/add', { title: 'k', key: akey.pub }, { token: admin })).status, 200);
    const als = await sftpBatch(h().sftp!.address.port, akey, 'admin', ['ls -1 /ms']);
    assert.match(als.stdout, /hidden\.bin/);
  });

  test('hide: a hidden file inside a shared folder is not served by /sd/', T, async () => {
    files(h(), 'msh', ['draft.txt', 'final.txt']);
    await meta({ path: '/msh', hide: '^draft' });
    const share = await h().post('/api/share/create', { files: ['/msh'] }, { token: user });
    assert.equal(share.status, 200, share.body.message);
    const id = share.body.data.id as string;
    const ok = await h().app.inject({ method: 'GET', url: `/sd/${id}/final.txt` });
    assert.equal(ok.statusCode, 200);
    assert.equal(ok.body, 'content of final.txt');
    assert.equal((await h().app.inject({ method: 'GET', url: `/sd/${id}/draft.txt` })).statusCode, 404);
  });

  test('folder password: asked by fs/list and fs/get, bit 1 skips it, guesses are rate-limited', T, async () => {
    files(h(), 'mp', ['doc.txt', 'inner/deep.txt']);
    await meta({ path: '/mp', password: 'open-sesame', p_sub: false });
    const none = await h().post('/api/fs/list', { path: '/mp' }, { token: user });
    assert.equal(none.status, 403);
    assert.equal(none.body.message, 'password is incorrect or you have no permission');
    assert.deepEqual(await names('/mp', user, 'open-sesame'), ['doc.txt', 'inner']);
    assert.equal((await h().post('/api/fs/get', { path: '/mp/doc.txt' }, { token: user })).status, 403);
    assert.equal((await h().post('/api/fs/get', { path: '/mp/doc.txt', password: 'open-sesame' }, { token: user })).status, 200);
    // p_sub off: the subfolder is open
    assert.deepEqual(await names('/mp/inner', user), ['deep.txt']);
    assert.deepEqual(await names('/mp', seer), ['doc.txt', 'inner']);
    assert.deepEqual(await names('/mp', admin), ['doc.txt', 'inner']);
    // wrong guesses from one address: 5 are checked, then 429 even with the right password
    const ip = '10.9.8.7';
    for (let i = 0; i < 5; i++) assert.equal((await h().call('POST', '/api/fs/list', { token: user, body: { path: '/mp', password: `wrong-${i}` }, remoteAddress: ip })).status, 403);
    const locked = await h().call('POST', '/api/fs/list', { token: user, body: { path: '/mp', password: 'open-sesame' }, remoteAddress: ip });
    assert.equal(locked.status, 429);
  });

  test('folder password is honoured by /d/: a sign is required even with sign_all off, and only fs/list hands it out', T, async () => {
    files(h(), 'mpd', ['file.txt']);
    files(h(), 'open', ['free.txt']);
    await meta({ path: '/mpd', password: 'pw-d', p_sub: true });
    assert.equal((await h().post('/api/admin/setting/save', [{ key: 'sign_all', value: 'false' }], { token: admin })).status, 200);
    try {
      assert.equal((await h().app.inject({ method: 'GET', url: '/d/open/free.txt' })).statusCode, 200);
      assert.equal((await h().app.inject({ method: 'GET', url: '/d/mpd/file.txt' })).statusCode, 401);
      assert.equal((await h().app.inject({ method: 'GET', url: '/p/mpd/file.txt' })).statusCode, 401);
      const listed = await h().post('/api/fs/list', { path: '/mpd', password: 'pw-d' }, { token: user });
      const sign = (listed.body.data.content as { name: string; sign: string }[]).find((e) => e.name === 'file.txt')!.sign;
      assert.ok(sign.length > 0);
      const dl = await h().app.inject({ method: 'GET', url: `/d/mpd/file.txt?sign=${encodeURIComponent(sign)}` });
      assert.equal(dl.statusCode, 200);
      assert.equal(dl.body, 'content of file.txt');
      const got = await h().post('/api/fs/get', { path: '/mpd/file.txt', password: 'pw-d' }, { token: user });
      assert.match(got.body.data.raw_url, /\/d\/mpd\/file\.txt\?sign=/);
    } finally {
      await h().post('/api/admin/setting/save', [{ key: 'sign_all', value: 'true' }], { token: admin });
    }
  });

  test('readme and header come with fs/list (r_sub / header_sub reach subfolders)', T, async () => {
    files(h(), 'mr', ['a.txt', 'child/b.txt']);
    await meta({ path: '/mr', readme: '# Read me', r_sub: true, header: 'Top text', header_sub: false });
    const top = await h().post('/api/fs/list', { path: '/mr' }, { token: user });
    assert.equal(top.body.data.readme, '# Read me');
    assert.equal(top.body.data.header, 'Top text');
    const child = await h().post('/api/fs/list', { path: '/mr/child' }, { token: user });
    assert.equal(child.body.data.readme, '# Read me');
    assert.equal(child.body.data.header, '');
    assert.equal((await h().post('/api/fs/list', { path: '/' }, { token: user })).body.data.readme, '');
  });

  test('write bypass: a user without bit 3 may mkdir and upload where a meta allows it, nowhere else', T, async () => {
    mkdirSync(join(h().dataDir, 'files', 'mw'), { recursive: true });
    await meta({ path: '/mw', write: true, w_sub: false });
    const wendy = await h().login('wendy', 'wendy-pass-1');
    assert.equal((await h().post('/api/fs/mkdir', { path: '/elsewhere' }, { token: wendy })).status, 403);
    assert.equal((await h().post('/api/fs/mkdir', { path: '/mw/new' }, { token: wendy })).status, 200);
    const listed = await h().post('/api/fs/list', { path: '/mw' }, { token: wendy });
    assert.equal(listed.body.data.write, true);
    assert.equal((await h().post('/api/fs/list', { path: '/' }, { token: wendy })).body.data.write, false);
    const put = (path: string) => h().call('PUT', '/api/fs/put', { token: wendy, headers: { 'file-path': encodeURIComponent(path), 'content-type': 'application/octet-stream' }, body: Buffer.from('hello') });
    assert.equal((await put('/mw/up.txt')).status, 200);
    assert.equal((await put('/mw/new/up.txt')).status, 403);
    assert.equal((await put('/up.txt')).status, 403);
  });
}, { FERRY_SFTP_LISTEN: '127.0.0.1:0' });
