/**
 * Every fs route confines a user to their base path (contract §5): a user with base_path
 * `/home/u` and every permission bit tries `..` in all its shapes on list/get/dirs/mkdir/
 * rename/move/copy/remove/put/form. Each attempt is 403 `using relative path is not allowed`
 * (400 for a malformed encoding), and nothing outside /home/u is created, changed or revealed.
 * Normal paths map into /home/u.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Harness } from '../support/harness.js';
import { treeOf } from './helpers.js';

const RELATIVE = 'using relative path is not allowed';

/** Paths (relative to the user's root) that try to climb out. */
const PATHS = [
  '..',
  '../..',
  '../../secret.txt',
  '/../secret.txt',
  '/..',
  '../u2',
  'd/../../other',
  '%2e%2e',
  '%2e%2e/%2e%2e/secret.txt',
  '%2E%2E%2Fsecret.txt',
  '%252e%252e/secret.txt',
  '..\\',
  '..\\..\\secret.txt',
  'd\\..\\..\\other',
  '/../',
  '/../../',
  'a\u0000b',
  'f.txt\u0000',
  '\u0000/../secret.txt',
];

/** Single names (rename `name`, move/copy/remove `names`) that try to climb out. */
const NAMES = ['..', '../secret.txt', '../../secret.txt', '%2e%2e', '%2e%2e%2fsecret.txt', '..\\', '..\\secret.txt', '/../', '/../secret.txt', 'x\u0000', '\u0000'];

/** File-Path values that are not valid percent-encoding at all → 400. */
const MALFORMED = ['%E0%A4%A', '%', 'd/%zz/../x'];

const h = new Harness('sqlite');
let admin: string;
let user: string;
let files: string;

interface Snap {
  [rel: string]: string;
}

/** Everything outside home/u: path → kind, size, mtime and content hash. */
async function outside(): Promise<Snap> {
  const snap: Snap = {};
  for (const rel of await treeOf(files)) {
    if (rel === 'home/u/' || rel.startsWith('home/u/')) continue;
    const p = join(files, rel);
    const st = await stat(p);
    snap[rel] = rel.endsWith('/') ? `dir ${st.mtimeMs}` : `${st.size} ${st.mtimeMs} ${createHash('sha256').update(await readFile(p)).digest('hex')}`;
  }
  return snap;
}

async function put(route: 'put' | 'form', filePath: string, token: string, body = Buffer.from('payload')) {
  const headers: Record<string, string> = { authorization: token, 'file-path': filePath };
  let payload: Buffer = body;
  if (route === 'form') {
    const b = '----traversal';
    payload = Buffer.concat([
      Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="file"; filename="x.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`),
      body,
      Buffer.from(`\r\n--${b}--\r\n`),
    ]);
    headers['content-type'] = `multipart/form-data; boundary=${b}`;
  } else headers['content-type'] = 'application/octet-stream';
  const res = await h.app.inject({ method: 'PUT', url: `/api/fs/${route}`, headers, payload });
  let json: { code: number; message: string; data: unknown } | null = null;
  try {
    json = res.json();
  } catch {
    json = null;
  }
  return { status: res.statusCode, body: json, raw: res.body };
}

before(async () => {
  await h.start();
  files = join(h.dataDir, 'files');
  admin = await h.adminToken();
  // Outside the user's tree: things that must stay untouched and unseen.
  writeFileSync(join(files, 'secret.txt'), 'top secret');
  mkdirSync(join(files, 'home/other'), { recursive: true });
  writeFileSync(join(files, 'home/other/x.txt'), 'other user');
  mkdirSync(join(files, 'home/u2'), { recursive: true });
  writeFileSync(join(files, 'home/u2/y.txt'), 'sibling with a common prefix');
  for (const p of ['secret.txt', 'home/other/x.txt', 'home/u2/y.txt']) utimesSync(join(files, p), new Date(1e12), new Date(1e12));
  // The user's folder, created by the admin through the API.
  for (const p of ['/home/u', '/home/u/d']) assert.equal((await h.post('/api/fs/mkdir', { path: p }, { token: admin })).status, 200);
  assert.equal((await put('put', '/home/u/f.txt', admin, Buffer.from('user file'))).status, 200);
  const r = await h.post('/api/admin/user/create', { username: 'u', password: 'u-password-1', base_path: '/home/u', permission: 0xffff }, { token: admin });
  assert.equal(r.status, 200, r.body.message);
  user = await h.login('u', 'u-password-1');
});

after(() => h.stop());

describe('fs routes refuse traversal for a user with base_path /home/u', () => {
  const attempts: [string, () => Promise<{ status: number; body: unknown }>][] = [];
  const json = (route: string, body: unknown) => async () => {
    const r = await h.post(`/api/fs/${route}`, body, { token: user });
    return { status: r.status, body: r.body };
  };
  for (const p of PATHS) {
    attempts.push([`list path=${JSON.stringify(p)}`, json('list', { path: p })]);
    attempts.push([`get path=${JSON.stringify(p)}`, json('get', { path: p })]);
    attempts.push([`dirs path=${JSON.stringify(p)}`, json('dirs', { path: p })]);
    attempts.push([`mkdir path=${JSON.stringify(p)}`, json('mkdir', { path: p })]);
    attempts.push([`mkdir path=${JSON.stringify(p + '/new')}`, json('mkdir', { path: `${p}/new` })]);
    attempts.push([`rename path=${JSON.stringify(p)}`, json('rename', { path: p, name: 'renamed' })]);
    for (const kind of ['move', 'copy']) {
      attempts.push([`${kind} src_dir=${JSON.stringify(p)}`, json(kind, { src_dir: p, dst_dir: '/d', names: ['secret.txt'] })]);
      attempts.push([`${kind} dst_dir=${JSON.stringify(p)}`, json(kind, { src_dir: '/', dst_dir: p, names: ['f.txt'] })]);
    }
    attempts.push([`remove dir=${JSON.stringify(p)}`, json('remove', { dir: p, names: ['secret.txt'] })]);
    for (const route of ['put', 'form'] as const) {
      attempts.push([`${route} File-Path=encoded ${JSON.stringify(p)}`, () => put(route, encodeURIComponent(p), user)]);
      if (!p.includes('\u0000')) attempts.push([`${route} File-Path=raw ${JSON.stringify(p)}`, () => put(route, p, user)]);
      attempts.push([`${route} File-Path=${JSON.stringify(p + '/x.bin')}`, () => put(route, encodeURIComponent(`${p}/x.bin`), user)]);
    }
  }
  for (const n of NAMES) {
    attempts.push([`rename name=${JSON.stringify(n)}`, json('rename', { path: '/f.txt', name: n })]);
    for (const kind of ['move', 'copy']) attempts.push([`${kind} names=[${JSON.stringify(n)}]`, json(kind, { src_dir: '/', dst_dir: '/d', names: [n] })]);
    attempts.push([`remove names=[${JSON.stringify(n)}]`, json('remove', { dir: '/', names: [n] })]);
  }

  test(`${attempts.length} attempts: each 403 "${RELATIVE}", nothing outside /home/u touched or revealed`, async () => {
    const before = await outside();
    const wrong: string[] = [];
    for (const [what, run] of attempts) {
      const r = await run();
      const text = JSON.stringify(r.body);
      if (r.status !== 403 || (r.body as { message?: string } | null)?.message !== RELATIVE) wrong.push(`${what}: ${r.status} ${text}`);
      for (const leak of ['secret', 'top secret', 'x.txt', 'y.txt', 'other user', '/home']) {
        if (text.includes(leak)) wrong.push(`${what}: reply reveals ${JSON.stringify(leak)}: ${text}`);
      }
    }
    assert.deepEqual(wrong, [], `${wrong.length} of ${attempts.length} attempts were not refused cleanly:\n${wrong.join('\n')}`);
    assert.deepEqual(await outside(), before, 'nothing outside /home/u changed');
    assert.deepEqual((await treeOf(join(files, 'home/u'))).sort(), ['d/', 'f.txt'], 'nothing was created inside either');
  });

  test('malformed percent-encoding in File-Path → 400 naming the header, nothing stored', async () => {
    const before = await outside();
    for (const route of ['put', 'form'] as const) {
      for (const p of MALFORMED) {
        const r = await put(route, p, user);
        assert.equal(r.status, 400, `${route} ${p}: ${r.raw}`);
        assert.match(r.body?.message ?? '', /File-Path/);
      }
    }
    assert.deepEqual(await outside(), before);
    assert.deepEqual((await treeOf(join(files, 'home/u'))).sort(), ['d/', 'f.txt']);
  });

  test("dirs with force_root is an admin's option only", async () => {
    const r = await h.post('/api/fs/dirs', { path: '/', force_root: true }, { token: user });
    assert.equal(r.status, 403);
    assert.doesNotMatch(JSON.stringify(r.body), /home|secret/);
  });
});

describe("a user's normal paths map into /home/u", () => {
  test('upload /a.txt (put and form) lands at /home/u/…, listings and links are relative to the base', async () => {
    assert.equal((await put('put', encodeURIComponent('/a.txt'), user, Buffer.from('AAA'))).status, 200);
    assert.equal(await readFile(join(files, 'home/u/a.txt'), 'utf8'), 'AAA');
    assert.equal((await put('form', encodeURIComponent('sub dir/b.txt'), user, Buffer.from('BBB'))).status, 200);
    assert.equal(await readFile(join(files, 'home/u/sub dir/b.txt'), 'utf8'), 'BBB');

    const list = await h.post('/api/fs/list', { path: '/' }, { token: user });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.data.content.map((e: { name: string }) => e.name).sort(), ['a.txt', 'd', 'f.txt', 'sub dir']);
    const dots = await h.post('/api/fs/list', { path: './sub dir/.' }, { token: user });
    assert.deepEqual(dots.body.data.content.map((e: { name: string }) => e.name), ['b.txt'], '. segments are just cleaned');

    const got = await h.post('/api/fs/get', { path: '/a.txt' }, { token: user });
    assert.equal(got.status, 200);
    assert.equal(got.body.data.name, 'a.txt');
    // raw_url names the full path and carries its signature (sign_all is on by default); it downloads the file
    assert.match(got.body.data.raw_url, /\/d\/home\/u\/a\.txt\?sign=[^&]+$/);
    const raw = new URL(got.body.data.raw_url);
    const dl = await h.app.inject({ method: 'GET', url: raw.pathname + raw.search });
    assert.equal(dl.statusCode, 200);
    assert.equal(dl.body, 'AAA');
    const root = await h.post('/api/fs/get', { path: '/' }, { token: user });
    assert.equal(root.body.data.name, 'u');
  });

  test('mkdir, rename, copy, move and remove act inside /home/u', async () => {
    const before = await outside();
    const ok = async (route: string, body: unknown) => {
      const r = await h.post(`/api/fs/${route}`, body, { token: user });
      assert.equal(r.status, 200, `${route} ${JSON.stringify(body)}: ${r.body.message}`);
    };
    await ok('mkdir', { path: '/made/deep' });
    assert.ok((await stat(join(files, 'home/u/made/deep'))).isDirectory());
    await ok('rename', { path: '/a.txt', name: 'a2.txt' });
    await ok('copy', { src_dir: '/', dst_dir: '/made', names: ['a2.txt'] });
    await ok('move', { src_dir: '/made', dst_dir: '/made/deep', names: ['a2.txt'] });
    assert.equal(await readFile(join(files, 'home/u/made/deep/a2.txt'), 'utf8'), 'AAA');
    await ok('remove', { dir: '/', names: ['a2.txt', 'made'] });
    assert.deepEqual((await treeOf(join(files, 'home/u'))).filter((e) => !e.startsWith('sub dir')).sort(), ['d/', 'f.txt']);
    assert.deepEqual(await outside(), before);
  });
});
