/**
 * Offline download in one process (contract §10.5): sources served by a loopback listener that
 * is a trusted source host. The `offline_download` task streams the file in, hashing on the way;
 * a mismatch (whole or piece hashes) or a wrong size aborts the write before commit, so nothing
 * lands. Untrusted hosts are never contacted. A relay folder gives method `transfer`. What
 * landed is indexed, so the next rapid upload finds it.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { forEachDialect } from '../support/harness.js';
import { bytes, filesDir, putIndexed, seedOk, setSettings } from './helpers.js';
import { landed, listen, seedData, seedFileOf, settledTask, type Listener } from './transfer-helpers.js';

const DATA = bytes(300_000, 21);
/** Content stored nowhere in these tests: quick_save cannot take the rapid path. */
const FRESH = bytes(120_000, 22);
const FRESH2 = bytes(130_000, 23);
const PIECE = 16 * 1024;
const OFFLINE = 1 << 2;
const WRITE = 1 << 3;

forEachDialect('seed offline download (one process)', (h) => {
  let admin: string;
  let src: Listener;
  let untrusted: Listener;
  const direct = (name: string) => [{ type: 'openlist-direct', url: `${src.url}/d/${name}` }];

  before(async () => {
    admin = await h().adminToken();
    src = await listen();
    untrusted = await listen();
    src.routes.set('/d/good.bin', { body: DATA, headers: { 'content-length': String(DATA.length) } });
    const bad = Buffer.from(DATA);
    bad[150_000] = bad[150_000]! ^ 0xff;
    src.routes.set('/d/bad.bin', { body: bad });
    src.routes.set('/d/long.bin', { body: Buffer.concat([DATA, Buffer.from('extra')]) });
    src.routes.set('/d/moved.bin', { status: 302, headers: { location: '/d/good.bin' } });
    src.routes.set('/d/fresh2.bin', { body: FRESH2 });
    untrusted.routes.set('/d/fresh.bin', { body: FRESH });
    await setSettings(h(), admin, { seed_trusted_source_hosts: `# test source\n${src.host}\n` });
    for (const d of ['/off/a', '/off/b', '/off/c', '/off/d', '/off/e', '/relay', '/off/f', '/off/g']) await h().post('/api/fs/mkdir', { path: d }, { token: admin });
  });
  after(async () => {
    await src.close();
    await untrusted.close();
  });

  const save = async (op: string, body: Record<string, unknown>) => (await seedOk(h(), admin, op, body)).results;

  test('quick_save with nothing stored → an offline_download task; the file lands verified, no credentials sent', async () => {
    const hits = src.hits.length;
    const [r] = await save('quick_save', { seed_data: seedData('g', [seedFileOf('good.bin', DATA, { sources: direct('moved.bin') })]), path: '/off/a' });
    assert.equal(r.method, 'offline_download', JSON.stringify(r));
    assert.ok(r.task?.id, 'a task is returned');
    const t = await settledTask(h(), admin, r.task.id);
    assert.equal(t.state, 2, t.error);
    assert.deepEqual(landed(h(), 'off/a/good.bin'), DATA);
    const mine = src.hits.slice(hits);
    assert.deepEqual(mine.map((x) => x.path), ['/d/moved.bin', '/d/good.bin']);
    for (const x of mine) {
      assert.equal(x.headers.authorization, undefined);
      assert.equal(x.headers.cookie, undefined);
      assert.match(String(x.headers['user-agent']), /^Ferry/);
    }
  });

  test('what landed is indexed: the next rapid upload copies it without fetching', async () => {
    const hits = src.hits.length;
    const [r] = await save('rapid_upload', { seed_data: seedData('g', [seedFileOf('good.bin', DATA, { sources: direct('good.bin') })]), path: '/off/b' });
    assert.equal(r.method, 'rapid_upload', JSON.stringify(r));
    assert.deepEqual(landed(h(), 'off/b/good.bin'), DATA);
    assert.equal(src.hits.length, hits);
  });

  test('a corrupted source: the task fails with "hash mismatch", nothing lands (no temp file either)', async () => {
    const [r] = await save('offline_download', { seed_data: seedData('b', [seedFileOf('bad.bin', DATA, { sources: direct('bad.bin') })]), path: '/off/c' });
    assert.equal(r.method, 'offline_download');
    const t = await settledTask(h(), admin, r.task.id);
    assert.equal(t.state, 7);
    assert.match(t.error, /^hash mismatch: \/off\/c\/bad\.bin: md5 is [0-9a-f]{32}, the seed says/);
    assert.deepEqual(readdirSync(join(filesDir(h()), 'off/c')), []);
  });

  test('piece hashes only (no whole-file hash): verified per piece; one bad piece fails', async () => {
    const pieces = { size: PIECE, algs: ['sha1' as const] };
    const good = seedFileOf('good.bin', DATA, { algs: [], pieces, sources: direct('good.bin') });
    const [ok] = await save('offline_download', { seed_data: seedData('p', [good], 'oss', PIECE), path: '/off/d' });
    assert.equal((await settledTask(h(), admin, ok.task.id)).state, 2);
    assert.deepEqual(landed(h(), 'off/d/good.bin'), DATA);
    const bad = seedFileOf('bad.bin', DATA, { algs: [], pieces, sources: direct('bad.bin') });
    const [ko] = await save('offline_download', { seed_data: seedData('p', [bad], 'oss', PIECE), path: '/off/d' });
    const t = await settledTask(h(), admin, ko.task.id);
    assert.equal(t.state, 7);
    assert.match(t.error, /^hash mismatch: .*sha1 of piece 9 differs/);
    assert.equal(landed(h(), 'off/d/bad.bin'), null);
  });

  test('more bytes than the seed says: cut off, nothing lands', async () => {
    const [r] = await save('offline_download', { seed_data: seedData('l', [seedFileOf('long.bin', DATA, { sources: direct('long.bin') })]), path: '/off/e' });
    const t = await settledTask(h(), admin, r.task.id);
    assert.equal(t.state, 7);
    assert.match(t.error, /more than the seed's 300000 bytes/);
    assert.deepEqual(readdirSync(join(filesDir(h()), 'off/e')), []);
  });

  test('an untrusted host is never contacted: unavailable with the reason, no task', async () => {
    const file = seedFileOf('fresh.bin', FRESH, { sources: [{ type: 'openlist-direct', url: `${untrusted.url}/d/fresh.bin` }] });
    const [r] = await save('quick_save', { seed_data: seedData('u', [file]), path: '/off/e' });
    assert.equal(r.method, 'unavailable');
    assert.match(r.error, /no usable source .*neither this site .* nor one of seed_trusted_source_hosts/);
    assert.equal(r.task, undefined);
    assert.equal(untrusted.hits.length, 0);
  });

  test('transit_path: downloaded into the relay folder, copied to the destination (method transfer), relay emptied', async () => {
    const [r] = await save('quick_save', { seed_data: seedData('t', [seedFileOf('good.bin', bytes(20_000, 5), { sources: [] }), seedFileOf('x/fresh2.bin', FRESH2, { sources: direct('fresh2.bin') })]), path: '/off/f', transit_path: '/relay', files: ['x/fresh2.bin'] });
    assert.equal(r.method, 'transfer', JSON.stringify(r));
    const t = await settledTask(h(), admin, r.task.id);
    assert.equal(t.state, 2, t.error);
    assert.deepEqual(landed(h(), 'off/f/x/fresh2.bin'), FRESH2);
    assert.equal(landed(h(), 'relay/x/fresh2.bin'), null);
    // a file the user keeps in the relay folder is never replaced
    await putIndexed(h(), '/relay/keep.bin', Buffer.from('mine'));
    const [k] = await save('offline_download', { seed_data: seedData('k', [seedFileOf('keep.bin', FRESH2, { sources: direct('fresh2.bin') })]), path: '/off/f', transit_path: '/relay' });
    assert.equal(k.method, 'unavailable');
    assert.match(k.error, /the relay folder already holds \/relay\/keep\.bin/);
    assert.deepEqual(landed(h(), 'relay/keep.bin'), Buffer.from('mine'));
  });

  test('a stalled download reports progress and can be canceled: canceled, nothing lands', async () => {
    const STALL = bytes(200_000, 24);
    src.routes.set('/d/stall.bin', { body: STALL, stallAfter: 70_000, headers: { 'content-length': String(STALL.length) } });
    const [r] = await save('offline_download', { seed_data: seedData('s', [seedFileOf('stall.bin', STALL, { sources: direct('stall.bin') })]), path: '/off/e' });
    const info = async () => (await h().get(`/api/task/offline_download/info?tid=${r.task.id}`, { token: admin })).body.data;
    const end = Date.now() + 20_000;
    // progress is persisted at most every 500 ms, so the count seen may trail the bytes received
    while ((await info()).done_bytes === 0 && Date.now() < end) await new Promise((res) => setTimeout(res, 50));
    const running = await info();
    assert.equal(running.state, 1);
    assert.ok(running.done_bytes > 0 && running.done_bytes <= 70_000, `done_bytes ${running.done_bytes}`);
    assert.equal(running.total_bytes, STALL.length);
    assert.equal((await h().post(`/api/task/offline_download/cancel?tid=${r.task.id}`, undefined, { token: admin })).status, 200);
    const t = await settledTask(h(), admin, r.task.id);
    assert.equal(t.state, 4);
    assert.deepEqual(readdirSync(join(filesDir(h()), 'off/e')), []);
  });

  test('without the offline download permission: unavailable, says so', async () => {
    await h().createUser('carol', 'carol-pass-1', { base_path: '/', permission: WRITE });
    const carol = await h().login('carol', 'carol-pass-1');
    const [r] = (await seedOk(h(), carol, 'offline_download', { seed_data: seedData('c', [seedFileOf('good.bin', DATA, { sources: direct('good.bin') })]), path: '/off/g' })).results;
    assert.equal(r.method, 'unavailable');
    assert.match(r.error, /offline download permission is required/);
    await h().createUser('dave', 'dave-pass-1', { base_path: '/', permission: WRITE | OFFLINE });
    const dave = await h().login('dave', 'dave-pass-1');
    const [d] = (await seedOk(h(), dave, 'offline_download', { seed_data: seedData('c', [seedFileOf('good.bin', DATA, { sources: direct('good.bin') })]), path: '/off/g' })).results;
    assert.equal(d.method, 'offline_download');
    assert.equal((await settledTask(h(), dave, d.task.id)).state, 2);
    assert.deepEqual(landed(h(), 'off/g/good.bin'), DATA);
  });
});
