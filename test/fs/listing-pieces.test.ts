/**
 * `POST /api/fs/list` written in pieces (issue #17): the text of each entry is byte for byte what the response
 * schema's serializer makes of `presentObj`, times exactly `isoTime`; a folder bigger than one piece (with a mount
 * point inside, which the storage does not list in order) comes back whole, in listing order, as one JSON
 * document, and pages across piece boundaries are slices of it.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import build from 'fast-json-stringify';
import { isoTimes, objJson, presentObj } from '../../src/modules/fs/fs.present.js';
import { ObjSchema } from '../../src/modules/fs/fs.schemas.js';
import { LIST_PIECE } from '../../src/modules/fs/fs.routes.js';
import { isoTime } from '../../src/lib/time.js';
import { compareListed } from '../../src/lib/name-order.js';
import type { Entry } from '../../src/modules/storages/drivers/index.js';
import { entryColumns } from '../../src/modules/storages/drivers/columns.js';
import { forEachDialect } from '../support/harness.js';

const serialize = build(ObjSchema as object);
const T = Date.UTC(2026, 10, 24, 20, 8, 25, 457);

test('an entry as JSON text (a row of its columns) is what the response schema made of presentObj', () => {
  const names = ['a.txt', 'x"y\\z.png', 'tab\there', 'nl\nx\u0001.mp4', '</script><img src=x onerror=alert(1)>.md', 'ünï 🎞.mkv', 'no-ext', '.hidden'];
  const times: Array<[number, number | undefined]> = [[T, undefined], [T, T], [T, T - 1], [0, 1], [-1, -86_400_001], [253_402_300_799_999, T], [253_402_300_800_000, T], [-62_167_219_200_001, 5]];
  const hashes = [undefined, {}, { sha256: 'c'.repeat(64), md5: 'a'.repeat(32) }, { sha1: 'b'.repeat(40) }];
  let n = 0;
  for (const name of names) {
    for (const [m, c] of times) {
      for (const h of hashes) {
        for (const isDir of [false, true]) {
          const e: Entry = { name, path: `/p/${name}`, size: 12345 + n, isDir, modified: new Date(m), ...(c === undefined ? {} : { created: new Date(c) }), ...(h ? { hashes: h } : {}) };
          const sign = isDir ? '' : `sig${n}=:0`;
          const thumb = n % 3 ? '' : `http://h/d/p/${encodeURIComponent(name)}?type=thumb&v=1`;
          assert.equal(objJson(entryColumns([e]), 0, sign, thumb, isoTimes()), serialize(presentObj(e, sign, thumb)), `${name} ${m} ${c} ${JSON.stringify(h)} ${isDir}`);
          n++;
        }
      }
    }
  }
});

test('isoTimes gives exactly isoTime, one formatter across many days and back', () => {
  const time = isoTimes();
  const samples = [0, 1, 999, 1000, 86_399_999, 86_400_000, -1, -86_400_000, T, 253_402_300_799_999, 253_402_300_800_000, -62_167_219_200_000, -62_167_219_200_001];
  for (let i = 0; i < 5000; i++) samples.push(Math.floor((Math.random() * 2 - 0.5) * 4e12));
  for (const ms of samples) assert.equal(time(ms), isoTime(ms), String(ms));
});

forEachDialect('fs/list in pieces', (h) => {
  const FILES = 2 * LIST_PIECE + 517;
  const names = Array.from({ length: FILES }, (_, i) => `f${i}${i % 7 === 0 ? '.png' : '.txt'}`);
  let token: string;
  const list = async (body: Record<string, unknown>) => h().post('/api/fs/list', { path: '/big', ...body }, { token });

  before(async () => {
    token = await h().adminToken();
    const root = join(h().dataDir, 'files', 'big');
    mkdirSync(join(root, 'sub'), { recursive: true });
    for (const n of names) writeFileSync(join(root, n), n);
    // a mount point inside the folder: merged after the storage's own (sorted) entries, so the listing must sort
    const r = await h().post('/api/admin/storage/create', { mount_path: '/big/mnt', driver: 'local', addition: { root_folder_path: mkdtempSync(join(tmpdir(), 'ferry-mnt-')) } }, { token });
    assert.equal(r.status, 200, r.body.message);
  });

  test('a folder of several pieces: one JSON document, every entry once, folders first, in order', async () => {
    const r = await list({});
    assert.equal(r.status, 200, r.body.message);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    const items = r.body.data.content as Array<{ name: string; is_dir: boolean; size: number; sign: string; thumb: string }>;
    assert.equal(r.body.data.total, FILES + 2);
    assert.equal(items.length, FILES + 2);
    assert.deepEqual(items.slice(0, 2).map((e) => e.name), ['mnt', 'sub']);
    const sorted = items.map((e) => ({ name: e.name, isDir: e.is_dir })).sort(compareListed);
    assert.deepEqual(items.map((e) => e.name), sorted.map((e) => e.name));
    assert.deepEqual(new Set(items.slice(2).map((e) => e.name)), new Set(names));
    for (const e of items.slice(2)) assert.equal(e.size, e.name.length);
    assert.equal(r.body.data.provider, 'local');
    assert.equal(r.body.data.write, true);
    // a sign downloads its own file, the thumb link of an image carries it too
    const png = items.find((e) => e.name === names.filter((n) => n.endsWith('.png')).pop())!;
    assert.ok(png.thumb.includes(`&sign=${encodeURIComponent(png.sign)}`), png.thumb);
    const got = await h().call('GET', `/d/big/${png.name}?sign=${encodeURIComponent(png.sign)}`);
    assert.equal(got.status, 200);
    assert.equal((await h().call('GET', `/d/big/f3.txt?sign=${encodeURIComponent(png.sign)}`)).status, 401);
  });

  test('pages across piece boundaries are slices of the whole listing', async () => {
    const all = ((await list({})).body.data.content as Array<{ name: string }>).map((e) => e.name);
    for (const [page, per_page] of [[1, LIST_PIECE], [2, LIST_PIECE - 1], [3, LIST_PIECE + 1], [2, 1500], [1, 100_000]]) {
      const r = await list({ page, per_page });
      assert.equal(r.body.data.total, all.length);
      assert.deepEqual(r.body.data.content.map((e: { name: string }) => e.name), all.slice((page! - 1) * per_page!, page! * per_page!), `${page}/${per_page}`);
    }
  });
});
