/**
 * Metas against changes (issue #18): a name hidden from a user (no bit 0) can be neither renamed, moved, copied,
 * removed, overwritten nor shared by them — over the HTTP API, OpenList's batch routes, SFTP (ssh2's client) and
 * tasks checked at their claim — and a meta's `write` grant reaches SFTP and as-task uploads as it reaches HTTP.
 * Every refusal changes nothing. Both databases.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import type { SFTPWrapper } from 'ssh2';
import { COPY_TASK, MOVE_TASK } from '../../src/modules/fs/fs.task.js';
import { OFFLINE_TRANSFER_TASK } from '../../src/modules/offline/offline.tasks.js';
import { listen } from '../seeds-ops/transfer-helpers.js';
import { TaskState } from '../../src/modules/tasks/task.model.js';
import { forEachDialect, type Harness } from '../support/harness.js';
import { call, ssh2Sftp } from '../sftp/support.js';

const bits = (...n: number[]) => n.reduce((a, b) => a | (1 << b), 0);
const T = { timeout: 120_000 };
const DENIED = 3; // SFTP PERMISSION_DENIED
const FLAGS = { READ: 0x01, WRITE: 0x02, CREAT: 0x08, TRUNC: 0x10 };

function files(h: Harness, dir: string, names: string[]): void {
  for (const n of names) {
    const p = join(h.dataDir, 'files', dir, n);
    mkdirSync(join(p, '..'), { recursive: true });
    if (n.endsWith('/')) mkdirSync(p, { recursive: true });
    else writeFileSync(p, `content of ${n}`);
  }
}

forEachDialect('metas vs writes, shares, SFTP and tasks', (h) => {
  let admin: string;
  let user: string;
  let userId: number;
  let seer: string;
  let grantee: string;
  const disk = (p: string) => join(h().dataDir, 'files', p);
  const has = (p: string) => existsSync(disk(p));
  const meta = async (body: Record<string, unknown>) => {
    const r = await h().post('/api/admin/meta/create', body, { token: admin });
    assert.equal(r.status, 200, r.body.message);
  };
  const names = async (path: string, token: string) => {
    const r = await h().post('/api/fs/list', { path, page: 1, per_page: 0 }, { token });
    assert.equal(r.status, 200, r.body.message);
    return (r.body.data.content as { name: string }[]).map((e) => e.name).sort();
  };
  const put = (token: string, path: string, body: string, extra: Record<string, string> = {}) =>
    h().call('PUT', '/api/fs/put', { token, headers: { 'file-path': encodeURIComponent(path), 'content-type': 'application/octet-stream', ...extra }, body: Buffer.from(body) });

  before(async () => {
    admin = await h().adminToken();
    // every file right and SFTP read/write, but not bit 0 (see hidden)
    userId = await h().createUser('hilda', 'hilda-pass-1', { permission: bits(3, 4, 5, 6, 7, 10, 11, 14) });
    await h().createUser('seymour', 'seymour-pass-1', { permission: bits(0, 3, 4, 5, 6, 7, 10, 11, 14) });
    // SFTP read only, no write bit: only a meta's write grant lets them create
    await h().createUser('gus', 'gus-pass-1', { permission: bits(10) });
    user = await h().login('hilda', 'hilda-pass-1');
    seer = await h().login('seymour', 'seymour-pass-1');
    grantee = await h().login('gus', 'gus-pass-1');
  });

  test('HTTP: rename, move, copy, remove, mkdir and upload refuse hidden sources and targets (403, nothing changes)', T, async () => {
    files(h(), 'hw', ['keep.txt', 'secret.txt', 'secretdir/inner.txt']);
    files(h(), 'hw-dst', ['placeholder.txt']);
    await meta({ path: '/hw', hide: '^secret', h_sub: true });
    await meta({ path: '/hw-dst', hide: '^secret', h_sub: true });
    const expect403 = async (r: Promise<{ status: number; body: { message: string } }>, what: string) => {
      const got = await r;
      assert.equal(got.status, 403, `${what}: ${got.status} ${got.body.message}`);
      assert.equal(got.body.message, 'permission denied', what);
    };
    await expect403(h().post('/api/fs/rename', { path: '/hw/secret.txt', name: 'visible.txt' }, { token: user }), 'rename a hidden file');
    await expect403(h().post('/api/fs/rename', { path: '/hw/keep.txt', name: 'secret-now.txt' }, { token: user }), 'rename to a hidden name');
    await expect403(h().post('/api/fs/rename', { path: '/hw/secretdir/inner.txt', name: 'x.txt' }, { token: user }), 'rename inside a hidden folder');
    await expect403(h().post('/api/fs/copy', { src_dir: '/hw', dst_dir: '/hw-dst', names: ['keep.txt', 'secret.txt'] }, { token: user }), 'copy with a hidden source');
    await expect403(h().post('/api/fs/move', { src_dir: '/hw', dst_dir: '/hw/secretdir', names: ['keep.txt'] }, { token: user }), 'move into a hidden folder');
    await expect403(h().post('/api/fs/remove', { dir: '/hw', names: ['keep.txt', 'secret.txt'] }, { token: user }), 'remove with a hidden name');
    await expect403(h().post('/api/fs/mkdir', { path: '/hw/secret-new' }, { token: user }), 'mkdir of a hidden name');
    await expect403(put(user, '/hw/secret.txt', 'overwritten'), 'upload over a hidden file');
    await expect403(put(user, '/hw/secretdir/new.txt', 'x'), 'upload into a hidden folder');
    await expect403(put(user, '/hw/secret-fresh.txt', 'x', { 'as-task': 'true' }), 'as-task upload of a hidden name');
    // nothing changed: not even the visible half of a request that named a hidden entry
    assert.equal(readFileSync(disk('hw/secret.txt'), 'utf8'), 'content of secret.txt');
    assert.ok(has('hw/keep.txt') && has('hw/secretdir/inner.txt'));
    assert.ok(!has('hw-dst/keep.txt') && !has('hw/secret-new') && !has('hw/secret-now.txt') && !has('hw/secretdir/new.txt'));
    assert.deepEqual(await names('/hw', user), ['keep.txt']);
    // a user with bit 0 may do all of it
    assert.equal((await h().post('/api/fs/copy', { src_dir: '/hw', dst_dir: '/hw-dst', names: ['secret.txt'] }, { token: seer })).status, 200);
    assert.equal((await h().post('/api/fs/rename', { path: '/hw/secret.txt', name: 'secret-renamed.txt' }, { token: seer })).status, 200);
    assert.equal((await put(seer, '/hw/secretdir/new.txt', 'by seer')).status, 200);
    assert.ok(has('hw-dst/secret.txt') && has('hw/secret-renamed.txt') && has('hw/secretdir/new.txt'));
    // visible work still works for the user
    assert.equal((await h().post('/api/fs/copy', { src_dir: '/hw', dst_dir: '/hw-dst', names: ['keep.txt'] }, { token: user })).status, 200);
    assert.equal((await h().post('/api/fs/remove', { dir: '/hw-dst', names: ['keep.txt'] }, { token: user })).status, 200);
  });

  test('shares: a hidden path cannot be shared; a shared folder serves no hidden name, nested ones included', T, async () => {
    files(h(), 'hs', ['pub.txt', 'secret.txt', 'secretdir/in.txt', 'sub/secret2.txt', 'sub/ok.txt']);
    await meta({ path: '/hs', hide: '^secret', h_sub: true });
    for (const f of ['/hs/secret.txt', '/hs/secretdir', '/hs/secretdir/in.txt']) {
      const r = await h().post('/api/share/create', { files: [f] }, { token: user });
      assert.equal(r.status, 403, `${f}: ${r.body.message}`);
    }
    assert.equal((await h().post('/api/share/create', { files: ['/hs/pub.txt', '/hs/secret.txt'] }, { token: user })).status, 403);
    assert.equal((await h().get('/api/share/list', { token: user })).body.data.total, 0);
    const share = await h().post('/api/share/create', { files: ['/hs'] }, { token: user });
    assert.equal(share.status, 200, share.body.message);
    const id = share.body.data.id as string;
    const sd = async (p: string) => (await h().app.inject({ method: 'GET', url: `/sd/${id}/${p}` })).statusCode;
    assert.equal(await sd('pub.txt'), 200);
    assert.equal(await sd('sub/ok.txt'), 200);
    for (const p of ['secret.txt', 'secretdir/in.txt', 'sub/secret2.txt']) assert.equal(await sd(p), 404, p);
    // a user with bit 0 may share a hidden file by name; visitors still get it (it is the shared item itself)
    const own = await h().post('/api/share/create', { files: ['/hs/secret.txt'] }, { token: seer });
    assert.equal(own.status, 200, own.body.message);
  });

  test('batch routes: batch_rename and regex_rename refuse hidden names; recursive_move and remove_empty_directory skip them', T, async () => {
    files(h(), 'hb', ['a.txt', 'b.txt', 'secret.txt', 'empty/', 'secret-empty/', 'nest/secret-deep.txt', 'nest/c.txt']);
    files(h(), 'hb-dst', ['x.md']);
    await meta({ path: '/hb', hide: '^secret', h_sub: true });
    await meta({ path: '/hb-dst', hide: '^secret', h_sub: true });
    const br = (pairs: [string, string][]) => h().post('/api/fs/batch_rename', { src_dir: '/hb', rename_objects: pairs.map(([s, n]) => ({ src_name: s, new_name: n })) }, { token: user });
    assert.equal((await br([['a.txt', 'a2.txt'], ['secret.txt', 'open.txt']])).status, 403);
    assert.equal((await br([['a.txt', 'secret-a.txt']])).status, 403);
    assert.ok(has('hb/a.txt') && !has('hb/a2.txt'), 'a refused batch renames nothing');
    const rr = (from: string, to: string) => h().post('/api/fs/regex_rename', { src_dir: '/hb', src_name_regex: from, new_name_regex: to }, { token: user });
    assert.equal((await rr('^(a)\\.txt$', 'secret-${1}.txt')).status, 403);
    assert.ok(has('hb/a.txt'));
    // a pattern matching hidden names too renames only the visible ones
    assert.equal((await rr('\\.txt$', '.text')).status, 200);
    assert.ok(has('hb/a.text') && has('hb/b.text') && has('hb/secret.txt'));
    assert.equal((await rr('\\.text$', '.txt')).status, 200);

    // recursive_move: hidden files stay; a target name hidden in dst_dir is skipped or refused, never written
    files(h(), 'hb-src', ['m1.txt', 'secret-m.txt', 'deep/m2.txt']);
    const rm = (policy: string) => h().post('/api/fs/recursive_move', { src_dir: '/hb-src', dst_dir: '/hb-dst', conflict_policy: policy }, { token: user });
    // hb-src has no meta: secret-m.txt is visible there, but its name is hidden in hb-dst
    assert.equal((await rm('overwrite')).status, 403);
    assert.ok(has('hb-src/m1.txt') && !has('hb-dst/m1.txt'), 'refused before moving anything');
    assert.equal((await rm('skip')).status, 200);
    assert.ok(has('hb-dst/m1.txt') && has('hb-dst/m2.txt') && has('hb-src/secret-m.txt') && !has('hb-dst/secret-m.txt'));
    const fromHidden = await h().post('/api/fs/recursive_move', { src_dir: '/hb', dst_dir: '/hb-dst', conflict_policy: 'skip' }, { token: user });
    assert.equal(fromHidden.status, 200, fromHidden.body.message);
    assert.ok(has('hb/secret.txt') && has('hb/nest/secret-deep.txt'), 'hidden files are not moved');
    assert.ok(has('hb-dst/c.txt') && has('hb-dst/a.txt'));
    assert.equal((await h().post('/api/fs/recursive_move', { src_dir: '/hb/secret-empty', dst_dir: '/hb-dst' }, { token: user })).status, 403);

    // remove_empty_directory: the visible empty folders go, the hidden empty one stays
    const red = await h().post('/api/fs/remove_empty_directory', { src_dir: '/hb' }, { token: user });
    assert.equal(red.status, 200, red.body.message);
    assert.ok(!has('hb/empty'), 'visible empty folder removed');
    assert.ok(has('hb/secret-empty'), 'hidden empty folder kept');
    assert.equal((await h().post('/api/fs/remove_empty_directory', { src_dir: '/hb/secret-empty' }, { token: user })).status, 403);
  });

  test('SFTP: hidden names cannot be opened, stat-ed, written, renamed or removed; visible ones can', T, async () => {
    files(h(), 'hsf', ['keep.txt', 'secret.txt', 'secret-empty/']);
    await meta({ path: '/hsf', hide: '^secret', h_sub: true });
    const { client, sftp } = await ssh2Sftp(h().sftp!.address.port, { username: 'hilda', password: 'hilda-pass-1' });
    try {
      const code = async (fn: (s: SFTPWrapper, cb: (err: (Error & { code?: number }) | null | undefined, v?: unknown) => void) => void) => (await call((cb) => fn(sftp, cb))).err?.code ?? 0;
      assert.equal(await code((s, cb) => s.open('/hsf/secret.txt', 'r', cb)), DENIED, 'open for read');
      assert.equal(await code((s, cb) => s.stat('/hsf/secret.txt', cb)), DENIED, 'stat');
      assert.equal(await code((s, cb) => s.open('/hsf/secret.txt', FLAGS.WRITE | FLAGS.CREAT | FLAGS.TRUNC, cb)), DENIED, 'open for write (overwrite)');
      assert.equal(await code((s, cb) => s.open('/hsf/secret-new.txt', FLAGS.WRITE | FLAGS.CREAT | FLAGS.TRUNC, cb)), DENIED, 'create a hidden name');
      assert.equal(await code((s, cb) => s.rename('/hsf/secret.txt', '/hsf/free.txt', cb)), DENIED, 'rename from hidden');
      assert.equal(await code((s, cb) => s.rename('/hsf/keep.txt', '/hsf/secret-keep.txt', cb)), DENIED, 'rename to hidden');
      assert.equal(await code((s, cb) => s.unlink('/hsf/secret.txt', cb)), DENIED, 'remove');
      assert.equal(await code((s, cb) => s.rmdir('/hsf/secret-empty', cb)), DENIED, 'rmdir');
      assert.equal(await code((s, cb) => s.mkdir('/hsf/secret-dir', cb)), DENIED, 'mkdir');
      assert.equal(await code((s, cb) => s.opendir('/hsf/secret-empty', cb)), DENIED, 'opendir');
      assert.equal(readFileSync(disk('hsf/secret.txt'), 'utf8'), 'content of secret.txt');
      assert.ok(has('hsf/keep.txt') && has('hsf/secret-empty') && !has('hsf/free.txt') && !has('hsf/secret-dir') && !has('hsf/secret-new.txt'));
      // the visible ones work
      assert.equal(await code((s, cb) => s.stat('/hsf/keep.txt', cb)), 0);
      assert.equal(await code((s, cb) => s.rename('/hsf/keep.txt', '/hsf/kept.txt', cb)), 0);
      assert.equal(await code((s, cb) => s.mkdir('/hsf/plain', cb)), 0);
      assert.ok(has('hsf/kept.txt') && has('hsf/plain'));
    } finally {
      client.end();
    }
  });

  test("a meta's write grant reaches SFTP (mkdir, upload) for a user without bit 11, only where it applies", T, async () => {
    mkdirSync(disk('gw'), { recursive: true });
    mkdirSync(disk('gw-no'), { recursive: true });
    await meta({ path: '/gw', write: true, w_sub: false });
    const { client, sftp } = await ssh2Sftp(h().sftp!.address.port, { username: 'gus', password: 'gus-pass-1' });
    try {
      const err = async (fn: (cb: (err: (Error & { code?: number }) | null | undefined, v?: unknown) => void) => void) => (await call(fn)).err?.code ?? 0;
      assert.equal(await err((cb) => sftp.mkdir('/gw/made', cb)), 0);
      assert.equal(await err((cb) => sftp.writeFile('/gw/up.txt', 'over sftp', cb)), 0);
      assert.equal(readFileSync(disk('gw/up.txt'), 'utf8'), 'over sftp');
      // not below it (w_sub off), not elsewhere, and nothing but creating
      assert.equal(await err((cb) => sftp.mkdir('/gw/made/deeper', cb)), DENIED);
      assert.equal(await err((cb) => sftp.writeFile('/gw-no/up.txt', 'x', cb)), DENIED);
      assert.equal(await err((cb) => sftp.unlink('/gw/up.txt', cb)), DENIED);
      assert.equal(await err((cb) => sftp.rename('/gw/up.txt', '/gw/moved.txt', cb)), DENIED);
      assert.ok(has('gw/made') && has('gw/up.txt') && !has('gw/made/deeper') && !has('gw-no/up.txt'));
    } finally {
      client.end();
    }
  });

  test('tasks: an as-task upload honours the write grant; queued copies and moves of hidden names fail at their claim', T, async () => {
    mkdirSync(disk('tw'), { recursive: true });
    await meta({ path: '/tw', write: true });
    const ok = await put(grantee, '/tw/task.txt', 'via a task', { 'as-task': 'true' });
    assert.equal(ok.status, 200, ok.body.message);
    const done = await h().ctx.tasks.settle(ok.body.data.task.id as string, 30_000);
    assert.equal(done.state, TaskState.SUCCEEDED, done.error ?? '');
    assert.equal(readFileSync(disk('tw/task.txt'), 'utf8'), 'via a task');
    assert.equal((await put(grantee, '/elsewhere-task.txt', 'x', { 'as-task': 'true' })).status, 403);

    files(h(), 'ht', ['secret.txt', 'plain.txt']);
    await meta({ path: '/ht', hide: '^secret' });
    for (const [kind, payload] of [
      [COPY_TASK, { src: '/ht/secret.txt', dst: '/ht-copy.txt', overwrite: false }],
      [MOVE_TASK, { src: '/ht/plain.txt', dst: '/ht/secret-plain.txt', overwrite: false }],
    ] as const) {
      const row = await h().ctx.tasks.create(kind, { name: kind.type, creatorId: userId, payload });
      const end = await h().ctx.tasks.settle(row.id, 30_000);
      assert.equal(end.state, TaskState.FAILED, `${kind.type}: ${end.error}`);
      assert.match(end.error ?? '', /permission denied/);
    }
    assert.ok(has('ht/secret.txt') && has('ht/plain.txt') && !has('ht-copy.txt') && !has('ht/secret-plain.txt'));
  });

  test('sidecars follow their file even under hidden names, but never replace an object hidden from the user', T, async () => {
    files(h(), 'hsc', ['a.txt', 'a.txt.oss', 'b.txt.oss']);
    files(h(), 'hsc-dst', ['c.txt.oss']);
    await meta({ path: '/hsc', hide: '\\.oss$' });
    await meta({ path: '/hsc-dst', hide: '\\.oss$' });
    assert.deepEqual(await names('/hsc', user), ['a.txt']);
    const rename = (token: string, name: string) => h().post('/api/fs/rename', { path: '/hsc/a.txt', name }, { token });
    // a.txt.oss would follow onto the hidden b.txt.oss
    const refused = await rename(user, 'b.txt');
    assert.equal(refused.status, 403, refused.body.message);
    assert.ok(has('hsc/a.txt') && has('hsc/a.txt.oss') && !has('hsc/b.txt'));
    assert.equal(readFileSync(disk('hsc/b.txt.oss'), 'utf8'), 'content of b.txt.oss');
    // no hidden object in the way: the hidden sidecar follows its file
    const renamed = await rename(user, 'c.txt');
    assert.equal(renamed.status, 200, renamed.body.message);
    assert.ok(has('hsc/c.txt') && has('hsc/c.txt.oss') && !has('hsc/a.txt.oss'));
    // a move whose sidecar would replace a hidden one in the destination is refused whole
    const move = await h().post('/api/fs/move', { src_dir: '/hsc', dst_dir: '/hsc-dst', names: ['c.txt'] }, { token: user });
    assert.equal(move.status, 403, move.body.message);
    assert.ok(has('hsc/c.txt') && has('hsc/c.txt.oss') && !has('hsc-dst/c.txt'));
    assert.equal(readFileSync(disk('hsc-dst/c.txt.oss'), 'utf8'), 'content of c.txt.oss');
    // a user who sees hidden names may
    const seen = await h().post('/api/fs/move', { src_dir: '/hsc', dst_dir: '/hsc-dst', names: ['c.txt'] }, { token: seer });
    assert.equal(seen.status, 200, seen.body.message);
    assert.equal(readFileSync(disk('hsc-dst/c.txt.oss'), 'utf8'), 'content of a.txt.oss');
  });

  test('offline downloads: a hidden destination is refused, a hidden downloaded name is not written, visible ones land', T, async () => {
    const olgaId = await h().createUser('olga', 'olga-pass-1', { permission: bits(2, 3) });
    const olga = await h().login('olga', 'olga-pass-1');
    mkdirSync(disk('ho/secretdir'), { recursive: true });
    await meta({ path: '/ho', hide: '^secret', h_sub: true });
    const source = await listen();
    try {
      source.routes.set('/secret.bin', { body: 'hidden name' });
      source.routes.set('/open.bin', { body: 'visible name' });
      const save = await h().post('/api/admin/setting/save', [{ key: 'seed_trusted_source_hosts', value: source.host }], { token: admin });
      assert.equal(save.status, 200, save.body.message);
      const add = (url: string, path: string) => h().post('/api/fs/add_offline_download', { urls: [`${source.url}${url}`], path, tool: 'SimpleHttp' }, { token: olga });

      const hiddenDir = await add('/open.bin', '/ho/secretdir');
      assert.equal(hiddenDir.status, 403, hiddenDir.body.message);
      assert.equal(hiddenDir.body.message, 'permission denied');
      assert.equal(source.hits.length, 0, 'nothing fetched for a refused destination');

      const hiddenName = await add('/secret.bin', '/ho');
      assert.equal(hiddenName.status, 200, hiddenName.body.message);
      const failed = await h().ctx.tasks.settle(hiddenName.body.data.tasks[0].id as string, 30_000);
      assert.equal(failed.state, TaskState.FAILED, failed.error ?? '');
      assert.match(failed.error ?? '', /secret\.bin: permission denied/);
      assert.ok(!has('ho/secret.bin'));

      const visible = await add('/open.bin', '/ho');
      const landed = await h().ctx.tasks.settle(visible.body.data.tasks[0].id as string, 30_000);
      assert.equal(landed.state, TaskState.SUCCEEDED, landed.error ?? '');
      assert.equal(readFileSync(disk('ho/open.bin'), 'utf8'), 'visible name');
    } finally {
      await source.close();
    }

    // a transfer from a tool's folder (a torrent's files): the hidden one stays out, the rest lands
    const work = join(h().dataDir, 'offline', 'metas-transfer');
    mkdirSync(join(work, 'pack'), { recursive: true });
    writeFileSync(join(work, 'pack', 'secret-notes.txt'), 'hidden');
    writeFileSync(join(work, 'pack', 'readme.txt'), 'shown');
    const row = await h().ctx.tasks.create(OFFLINE_TRANSFER_TASK, {
      name: 'transfer',
      creatorId: olgaId,
      payload: { user_id: olgaId, tool: 'aria2', work, target: '/ho', delete_policy: 'delete_never', files: [{ rel: 'pack/secret-notes.txt', size: 6 }, { rel: 'pack/readme.txt', size: 5 }] },
    });
    const end = await h().ctx.tasks.settle(row.id, 30_000);
    assert.equal(end.state, TaskState.SUCCEEDED, end.error ?? '');
    assert.deepEqual(JSON.parse(end.result ?? 'null'), { files: ['pack/readme.txt'], target: '/ho', hidden: ['pack/secret-notes.txt'] });
    assert.equal(readFileSync(disk('ho/pack/readme.txt'), 'utf8'), 'shown');
    assert.ok(!has('ho/pack/secret-notes.txt'));
  });

}, { FERRY_SFTP_LISTEN: '127.0.0.1:0' });
