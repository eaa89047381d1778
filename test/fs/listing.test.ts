/**
 * `POST /api/fs/list` (issue #17): folders first in one stable, total order; `page`/`per_page` slice that order
 * with `total` counting everything; bad paging values are a 400; signs open the files they name.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { forEachDialect } from '../support/harness.js';

interface Item {
  name: string;
  is_dir: boolean;
  size: number;
  sign: string;
  hashinfo: string;
  hash_info: unknown;
}

// Mixed case, digits, unicode, the same name in NFC and NFD (the collation deems them equal), a dot file.
const FILES = ['b.txt', 'B.txt', 'a10.bin', 'a2.bin', 'Zeta.md', 'ünï.txt', 'caf\u00e9.txt', 'cafe\u0301.txt', '.hidden', ...Array.from({ length: 40 }, (_, i) => `n${i}.dat`)];
const DIRS = ['zdir', 'Adir', 'mdir'];

forEachDialect('fs/list: order, paging, signs', (h) => {
  let token: string;
  const list = async (body: Record<string, unknown>) => h().post('/api/fs/list', { path: '/lst', ...body }, { token });

  before(async () => {
    token = await h().adminToken();
    const root = join(h().dataDir, 'files', 'lst');
    mkdirSync(root, { recursive: true });
    for (const d of DIRS) mkdirSync(join(root, d));
    FILES.forEach((f, i) => writeFileSync(join(root, f), 'x'.repeat(i)));
  });

  test('folders first, then names; the same order every time; every entry once', async () => {
    const a = await list({});
    assert.equal(a.status, 200, a.body.message);
    const items = a.body.data.content as Item[];
    assert.equal(a.body.data.total, FILES.length + DIRS.length);
    assert.equal(items.length, FILES.length + DIRS.length);
    assert.deepEqual(new Set(items.map((e) => e.name)), new Set([...FILES, ...DIRS]));
    assert.deepEqual(items.slice(0, DIRS.length).map((e) => e.name), ['Adir', 'mdir', 'zdir']);
    assert.ok(items.slice(DIRS.length).every((e) => !e.is_dir));
    const b = await list({ page: 1, per_page: 0 });
    assert.deepEqual((b.body.data.content as Item[]).map((e) => e.name), items.map((e) => e.name));
    for (const [i, f] of FILES.entries()) assert.equal(items.find((e) => e.name === f)!.size, i, f);
  });

  test('pages slice that order; total counts everything; past the end is empty', async () => {
    const all = ((await list({})).body.data.content as Item[]).map((e) => e.name);
    const paged: string[] = [];
    for (let page = 1; page <= 20; page++) {
      const r = await list({ page, per_page: 7 });
      assert.equal(r.status, 200);
      assert.equal(r.body.data.total, all.length);
      const names = (r.body.data.content as Item[]).map((e) => e.name);
      if (names.length === 0) break;
      assert.ok(names.length <= 7);
      paged.push(...names);
    }
    assert.deepEqual(paged, all);
    const past = await list({ page: 1000, per_page: 50 });
    assert.deepEqual(past.body.data.content, []);
    assert.equal(past.body.data.total, all.length);
    // OpenList: a page below 1 is page 1, a per_page below 1 is everything
    for (const page of [0, -3]) assert.deepEqual((await list({ page, per_page: 5 })).body.data.content.map((e: Item) => e.name), all.slice(0, 5));
    for (const per_page of [0, -1]) assert.equal((await list({ page: 3, per_page })).body.data.content.length, all.length);
  });

  test('bad paging values are a 400 naming the field', async () => {
    for (const [field, value] of [['page', '2'], ['page', 1.5], ['per_page', 2 ** 31], ['per_page', 1e20], ['page', -(2 ** 31) - 1], ['per_page', null]] as const) {
      const r = await list({ [field]: value });
      assert.equal(r.status, 400, `${field}=${value}: ${r.body.message}`);
      assert.equal(r.body.code, 400);
      assert.match(r.body.message, new RegExp(field));
    }
  });

  test('files carry a sign that downloads them, folders none; no hashes known yet', async () => {
    const items = (await list({})).body.data.content as Item[];
    for (const e of items) {
      if (e.is_dir) assert.equal(e.sign, '');
      else assert.match(e.sign, /^[A-Za-z0-9_-]{43}=:0$/);
      assert.equal(e.hashinfo, 'null');
      assert.equal(e.hash_info, null);
    }
    for (const name of ['b.txt', 'ünï.txt', 'cafe\u0301.txt']) {
      const e = items.find((x) => x.name === name)!;
      const r = await h().call('GET', `/d/lst/${encodeURIComponent(name)}?sign=${encodeURIComponent(e.sign)}`);
      assert.equal(r.status, 200, `${name}: ${r.body.message}`);
      const other = items.find((x) => !x.is_dir && x.name !== name)!;
      assert.equal((await h().call('GET', `/d/lst/${encodeURIComponent(name)}?sign=${encodeURIComponent(other.sign)}`)).status, 401);
    }
  });
});
