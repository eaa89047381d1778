/**
 * Upload sidecars, the decision and the headers (contract §10.4): each step of the decision
 * order and its precedence, the format choice, every bad header value (400, nothing stored),
 * as_task with sidecars (400, nothing stored), on /api/fs/put, /fs/put and /api/fs/form.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { forEachDialect } from '../support/harness.js';
import { FORMATS, hostPath, put, putOk, readSidecar, setSettings, sidecarsOn } from './helpers.js';

const POLICIES_OFF = JSON.stringify({ oss: 'off', torrent: 'off', cas: 'off' });
const ONLY = (f: string) => JSON.stringify({ oss: 'off', torrent: 'off', cas: 'off', [f]: 'on' });

forEachDialect('upload sidecars: decision order and headers', (h) => {
  let admin: string;
  const roots: Record<string, string> = {};

  before(async () => {
    admin = await h().adminToken();
    for (const policy of ['on', 'off', 'inherit'] as const) {
      roots[policy] = mkdtempSync(join(tmpdir(), `ferry-sc-${policy}-`));
      const r = await h().post('/api/admin/storage/create', { mount_path: `/${policy}`, driver: 'local', seed_policy: policy, addition: { root_folder_path: roots[policy] } }, { token: admin });
      assert.equal(r.status, 200, r.body.message);
    }
  });

  const reset = (extra: Record<string, string> = {}) =>
    setSettings(h(), admin, { seed_format_policies: POLICIES_OFF, seed_auto_generate_policy: 'off', seed_default_format: 'oss', ...extra });

  /** Sidecar formats written beside `<mount>/<name>` on the host. */
  const onHost = (mount: 'on' | 'off' | 'inherit', name: string) => FORMATS.filter((f) => existsSync(join(roots[mount]!, `${name}.${f}`)));

  test('defaults: no headers, policies off → no sidecars', async () => {
    await reset();
    await putOk(h(), admin, '/plain.bin', 'plain');
    assert.deepEqual(sidecarsOn(h(), '/plain.bin'), []);
  });

  test('(1) X-Seed-Sidecars non-empty → on, with exactly those formats (bt = torrent)', async () => {
    await reset();
    await putOk(h(), admin, '/s1.bin', 'one', { 'x-seed-sidecars': 'oss, BT' });
    assert.deepEqual(sidecarsOn(h(), '/s1.bin'), ['oss', 'torrent']);
    // ... and it beats X-Generate-Seed: off, a storage policy off and X-Seed-Format
    await putOk(h(), admin, '/off/s1.bin', 'one', { 'x-seed-sidecars': 'cas', 'x-generate-seed': 'off', 'x-seed-format': 'oss' });
    assert.deepEqual(onHost('off', 's1.bin'), ['cas']);
  });

  test('(2) X-Generate-Seed on/true/1 → on even with no format enabled (formats: default format)', async () => {
    await reset({ seed_default_format: 'torrent' });
    for (const v of ['on', 'TRUE', '1']) {
      await putOk(h(), admin, `/g-${v}.bin`, 'gen', { 'x-generate-seed': v });
      assert.deepEqual(sidecarsOn(h(), `/g-${v}.bin`), ['torrent'], v);
    }
    // X-Seed-Format chooses the formats when generation is on...
    await putOk(h(), admin, '/g-fmt.bin', 'gen', { 'x-generate-seed': 'on', 'x-seed-format': 'cas,oss' });
    assert.deepEqual(sidecarsOn(h(), '/g-fmt.bin'), ['oss', 'cas']);
    // ...but alone it does not turn generation on
    await putOk(h(), admin, '/fmt-only.bin', 'gen', { 'x-seed-format': 'cas' });
    assert.deepEqual(sidecarsOn(h(), '/fmt-only.bin'), []);
  });

  test('(2) X-Generate-Seed off beats the storage policy and the global policy', async () => {
    await reset({ seed_format_policies: ONLY('oss'), seed_auto_generate_policy: 'on' });
    await putOk(h(), admin, '/on/g-off.bin', 'x', { 'x-generate-seed': 'off' });
    assert.deepEqual(onHost('on', 'g-off.bin'), []);
    await putOk(h(), admin, '/g-off.bin', 'x', { 'x-generate-seed': 'off' });
    assert.deepEqual(sidecarsOn(h(), '/g-off.bin'), []);
  });

  test('(2) X-Generate-Seed inherit or empty falls through to the storage policy', async () => {
    await reset({ seed_format_policies: ONLY('torrent') });
    await putOk(h(), admin, '/on/inh.bin', 'x', { 'x-generate-seed': 'inherit' });
    assert.deepEqual(onHost('on', 'inh.bin'), ['torrent']);
    await putOk(h(), admin, '/on/empty.bin', 'x', { 'x-generate-seed': '' });
    assert.deepEqual(onHost('on', 'empty.bin'), ['torrent']);
  });

  test('(3) storage seed_policy: on needs a format on in seed_format_policies; off beats the global on', async () => {
    await reset();
    await putOk(h(), admin, '/on/nofmt.bin', 'x');
    assert.deepEqual(onHost('on', 'nofmt.bin'), [], 'no format enabled → nothing');
    await reset({ seed_format_policies: JSON.stringify({ oss: 'On', torrent: 'off', cas: ' on ' }), seed_auto_generate_policy: 'on' });
    await putOk(h(), admin, '/on/pol.bin', 'x');
    assert.deepEqual(onHost('on', 'pol.bin'), ['oss', 'cas'], 'formats from the policies');
    await putOk(h(), admin, '/off/pol.bin', 'x');
    assert.deepEqual(onHost('off', 'pol.bin'), [], 'storage off beats the global on');
  });

  test('(4) global seed_auto_generate_policy applies to inherit storages, only with a format on', async () => {
    await reset({ seed_auto_generate_policy: 'on' });
    await putOk(h(), admin, '/inherit/a.bin', 'x');
    assert.deepEqual(onHost('inherit', 'a.bin'), []);
    await reset({ seed_auto_generate_policy: 'on', seed_format_policies: ONLY('cas') });
    await putOk(h(), admin, '/inherit/b.bin', 'x');
    assert.deepEqual(onHost('inherit', 'b.bin'), ['cas']);
    await reset({ seed_auto_generate_policy: 'off', seed_format_policies: ONLY('cas') });
    await putOk(h(), admin, '/inherit/c.bin', 'x');
    assert.deepEqual(onHost('inherit', 'c.bin'), []);
    await reset({ seed_auto_generate_policy: 'on', seed_format_policies: JSON.stringify({ oss: 'yes', torrent: true, cas: 1 }) });
    await putOk(h(), admin, '/inherit/d.bin', 'x');
    assert.deepEqual(onHost('inherit', 'd.bin'), [], 'only "on" counts as on');
  });

  test('X-Seed-Piece-Size is used, and forced to 10 MiB when cas is a format', async () => {
    await reset();
    await putOk(h(), admin, '/ps.bin', Buffer.alloc(100_000, 7), { 'x-seed-sidecars': 'oss', 'x-seed-piece-size': '32768', 'x-seed-hash-matrix': JSON.stringify({ sha256: { whole: true, pieces: true } }) });
    const oss = readSidecar(h(), '/ps.bin', 'oss').seed;
    assert.equal(oss.piece_size, 32768);
    assert.equal(oss.files[0]!.hashes.pieces?.sha256?.length, 4);
    await putOk(h(), admin, '/ps-cas.bin', Buffer.alloc(100_000, 7), { 'x-seed-sidecars': 'oss,cas', 'x-seed-piece-size': '32768' });
    assert.equal(readSidecar(h(), '/ps-cas.bin', 'oss').seed.piece_size, 10 * 1024 * 1024);
  });

  test('X-Seed-Hash-Matrix raw and URL-encoded select the hashes written', async () => {
    await reset();
    const m = { md5: { whole: true, pieces: false }, sha1: { whole: false, pieces: false }, sha256: { whole: false, pieces: false } };
    for (const [name, value] of [['raw', JSON.stringify(m)], ['enc', encodeURIComponent(JSON.stringify(m))]] as const) {
      await putOk(h(), admin, `/m-${name}.bin`, 'matrix', { 'x-seed-sidecars': 'oss', 'x-seed-hash-matrix': value });
      const f = readSidecar(h(), `/m-${name}.bin`, 'oss').seed.files[0]!;
      assert.ok(f.hashes.md5, name);
      assert.equal(f.hashes.sha1, undefined, name);
      assert.equal(f.hashes.sha256, undefined, name);
    }
  });

  test('every bad sidecar header → 400 naming it, nothing stored', async () => {
    await reset({ seed_format_policies: ONLY('oss') });
    const cases: [Record<string, string>, RegExp][] = [
      [{ 'x-seed-sidecars': 'oss,zip' }, /X-Seed-Sidecars.*zip/],
      [{ 'x-seed-format': 'rar' }, /X-Seed-Format.*rar/],
      [{ 'x-generate-seed': 'maybe' }, /X-Generate-Seed/],
      [{ 'x-seed-sidecars': 'oss', 'x-seed-piece-size': '1000' }, /X-Seed-Piece-Size.*16 KiB/],
      [{ 'x-seed-sidecars': 'oss', 'x-seed-piece-size': String(128 * 1024 * 1024) }, /X-Seed-Piece-Size/],
      [{ 'x-seed-sidecars': 'oss', 'x-seed-piece-size': '1e6' }, /X-Seed-Piece-Size.*decimal/],
      [{ 'x-seed-sidecars': 'oss', 'x-seed-piece-size': '-16384' }, /X-Seed-Piece-Size/],
      [{ 'x-seed-sidecars': 'cas', 'x-seed-piece-size': '5' }, /X-Seed-Piece-Size/],
      [{ 'x-seed-sidecars': 'oss', 'x-seed-hash-matrix': '{md5:' }, /seed hash matrix/],
      [{ 'x-seed-sidecars': 'oss', 'x-seed-hash-matrix': '{"crc32":{"whole":true}}' }, /seed hash matrix.*crc32/],
      [{ 'x-seed-sidecars': 'oss', 'x-seed-hash-matrix': '{"md5":{"whole":"yes"}}' }, /seed hash matrix/],
      // bad values are refused even when sidecars end up off
      [{ 'x-generate-seed': 'off', 'x-seed-piece-size': 'big' }, /X-Seed-Piece-Size/],
    ];
    for (const [i, [headers, re]] of cases.entries()) {
      const r = await put(h(), admin, `/bad-${i}.bin`, 'should not land', headers);
      assert.equal(r.status, 400, `${JSON.stringify(headers)}: ${r.status} ${r.body.message}`);
      assert.match(r.body.message, re, JSON.stringify(headers));
      assert.equal(existsSync(hostPath(h(), `/bad-${i}.bin`)), false, `${JSON.stringify(headers)} stored the file`);
      assert.deepEqual(sidecarsOn(h(), `/bad-${i}.bin`), []);
    }
  });

  test('as_task with sidecars on (header, query, form field, storage policy) → 400, nothing stored, no task', async () => {
    await reset({ seed_format_policies: ONLY('oss') });
    const tasksBefore = (await h().get('/api/task/upload/undone', { token: admin })).body.data?.length ?? 0;
    const tries = [
      () => put(h(), admin, '/t1.bin', 'task', { 'as-task': 'true', 'x-seed-sidecars': 'oss' }),
      () => h().call('PUT', '/api/fs/put?as_task=true', { token: admin, body: 'task', headers: { 'file-path': '/t2.bin', 'x-generate-seed': 'on' } }),
      () => put(h(), admin, '/on/t3.bin', 'task', { 'as-task': 'true' }),
      () => form(h(), admin, '/t4.bin', { 'x-seed-sidecars': 'cas' }, true),
    ];
    for (const [i, t] of tries.entries()) {
      const r = await t();
      assert.equal(r.status, 400, `try ${i}: ${r.status} ${r.body.message}`);
      assert.match(r.body.message, /synchronous/);
    }
    for (const p of ['/t1.bin', '/t2.bin', '/t4.bin']) assert.equal(existsSync(hostPath(h(), p)), false, p);
    assert.deepEqual(readdirSync(roots.on!).filter((n) => n.startsWith('t3')), []);
    const tasksAfter = (await h().get('/api/task/upload/undone', { token: admin })).body.data?.length ?? 0;
    assert.equal(tasksAfter, tasksBefore);
    // as_task without sidecars still works
    const ok = await put(h(), admin, '/t5.bin', 'task', { 'as-task': 'true' });
    assert.equal(ok.status, 200, ok.body.message);
    assert.ok(ok.body.data.task);
  });

  test('the same rules on /fs/put and /api/fs/form', async () => {
    await reset();
    const r = await h().call('PUT', '/fs/put', { token: admin, body: 'root path', headers: { 'file-path': '/root-put.bin', 'x-seed-sidecars': 'torrent' } });
    assert.equal(r.status, 200, r.body.message);
    assert.deepEqual(sidecarsOn(h(), '/root-put.bin'), ['torrent']);
    const f = await form(h(), admin, '/form.bin', { 'x-seed-sidecars': 'oss,cas' }, false);
    assert.equal(f.status, 200, f.body.message);
    assert.deepEqual(sidecarsOn(h(), '/form.bin'), ['oss', 'cas']);
    const bad = await form(h(), admin, '/form-bad.bin', { 'x-seed-sidecars': 'nope' }, false);
    assert.equal(bad.status, 400);
    assert.equal(existsSync(hostPath(h(), '/form-bad.bin')), false);
  });
});

/** Multipart upload with an optional `as_task` form field before the file. */
function form(h: import('../support/harness.js').Harness, token: string, path: string, headers: Record<string, string>, asTask: boolean) {
  const boundary = '----ferry' + Math.random().toString(16).slice(2);
  const parts: Buffer[] = [];
  if (asTask) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="as_task"\r\n\r\ntrue\r\n`));
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="x.bin"\r\nContent-Type: application/octet-stream\r\n\r\nform body\r\n--${boundary}--\r\n`));
  return h.call('PUT', '/api/fs/form', {
    token,
    body: Buffer.concat(parts),
    headers: { 'file-path': encodeURIComponent(path), 'content-type': `multipart/form-data; boundary=${boundary}`, ...headers },
  });
}
