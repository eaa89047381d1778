/**
 * Permission bits on the fs routes (contract §5, §8): a user lacking bit 3 (write), 4 (rename),
 * 5 (move), 6 (copy) or 7 (remove) gets 403 on the matching routes and nothing changes; the same
 * calls succeed for a user that has the bit (so each refusal is really about that bit).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Harness } from '../support/harness.js';
import { treeOf } from './helpers.js';

const ALL = 0xffff;
const h = new Harness('sqlite');
let admin: string;
let files: string;

async function upload(route: 'put' | 'form', token: string, path: string, body: string) {
  const headers: Record<string, string> = { authorization: token, 'file-path': encodeURIComponent(path) };
  let payload = Buffer.from(body);
  if (route === 'form') {
    const b = '----perm';
    payload = Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="file"; filename="x"\r\n\r\n${body}\r\n--${b}--\r\n`);
    headers['content-type'] = `multipart/form-data; boundary=${b}`;
  } else headers['content-type'] = 'application/octet-stream';
  const r = await h.app.inject({ method: 'PUT', url: `/api/fs/${route}`, headers, payload });
  return { status: r.statusCode, body: r.json() as { code: number; message: string } };
}

/** A user whose base path is its own folder, with `permission`; returns its token. */
async function userWith(name: string, permission: number): Promise<string> {
  const home = `/p/${name}`;
  for (const p of [home, `${home}/dir`, `${home}/dst`]) assert.equal((await h.post('/api/fs/mkdir', { path: p }, { token: admin })).status, 200);
  writeFileSync(join(files, `p/${name}/f.txt`), 'original');
  await h.createUser(name, `${name}-password`, { base_path: home, permission });
  return h.login(name, `${name}-password`);
}

type Call = (token: string) => Promise<{ status: number; body: { code: number; message: string } }>;
const post = (route: string, body: unknown): Call => async (token) => {
  const r = await h.post(`/api/fs/${route}`, body, { token });
  return { status: r.status, body: r.body };
};

const BY_BIT: [number, string, [string, Call][]][] = [
  [3, 'write', [
    ['mkdir', post('mkdir', { path: '/newdir' })],
    ['put', (t) => upload('put', t, '/new.txt', 'new')],
    ['form', (t) => upload('form', t, '/new2.txt', 'new')],
    ['put (overwrite)', (t) => upload('put', t, '/f.txt', 'changed')],
  ]],
  [4, 'rename', [['rename', post('rename', { path: '/f.txt', name: 'g.txt' })]]],
  [5, 'move', [['move', post('move', { src_dir: '/', dst_dir: '/dst', names: ['f.txt'] })]]],
  [6, 'copy', [['copy', post('copy', { src_dir: '/', dst_dir: '/dst', names: ['f.txt'] })]]],
  [7, 'remove', [['remove', post('remove', { dir: '/', names: ['f.txt'] })]]],
];

before(async () => {
  await h.start();
  admin = await h.adminToken();
  files = join(h.dataDir, 'files');
});
after(() => h.stop());

for (const [bit, what, calls] of BY_BIT) {
  describe(`bit ${bit} (${what})`, () => {
    test(`without bit ${bit}: 403 on ${calls.map((c) => c[0]).join(', ')}, nothing changes`, async () => {
      const token = await userWith(`no${bit}`, ALL & ~(1 << bit));
      const before = await treeOf(join(files, `p/no${bit}`));
      for (const [name, call] of calls) {
        const r = await call(token);
        assert.equal(r.status, 403, `${name}: ${r.status} ${r.body.message}`);
        assert.equal(r.body.code, 403);
        assert.match(r.body.message, /permission denied/i, name);
      }
      assert.deepEqual(await treeOf(join(files, `p/no${bit}`)), before, 'nothing created, moved or removed');
      assert.equal(readFileSync(join(files, `p/no${bit}/f.txt`), 'utf8'), 'original');
      // reads need none of these bits
      assert.equal((await h.post('/api/fs/list', { path: '/' }, { token })).status, 200);
      assert.equal((await h.post('/api/fs/get', { path: '/f.txt' }, { token })).status, 200);
    });

    test(`with only bit ${bit} (of bits 3–7): the same calls succeed`, async () => {
      const token = await userWith(`only${bit}`, (ALL & ~0b11111000) | (1 << bit));
      for (const [name, call] of calls) {
        const r = await call(token);
        assert.equal(r.status, 200, `${name}: ${r.status} ${r.body.message}`);
      }
    });
  });
}

describe('permission 0', () => {
  test('a user with no bits at all can list but not write, rename, move, copy or remove', async () => {
    const token = await userWith('nobits', 0);
    for (const [, , calls] of BY_BIT) {
      for (const [name, call] of calls) assert.equal((await call(token)).status, 403, name);
    }
    assert.equal((await h.post('/api/fs/list', { path: '/' }, { token })).status, 200);
  });
});
