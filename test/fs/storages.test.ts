/**
 * Storages through the admin API (contract §7) on both databases, with a real S3 (Ceph RGW):
 * create/validate/enable/disable/delete, a storage that fails to initialise, longest mount
 * wins, mount points as folders, the local hash index against md5sum/sha1sum/sha256sum
 * (and never stale after the file changes on disk), and cross-storage copy/move (tasks
 * above 16 MiB).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cephForThisFile, type CephS3 } from '../support/ceph.js';
import { requireCommand, run } from '../support/commands.js';
import { forEachDialect, type Harness } from '../support/harness.js';
import { MiB, eventually, keysOf, objectBytes, s3Addition, uploadsOf } from './helpers.js';

const { ceph, s3 } = cephForThisFile();

const enc = (p: string) => p.split('/').map(encodeURIComponent).join('/');

/** A loopback port nobody listens on. */
async function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

function sums(file: string): { md5: string; sha1: string; sha256: string } {
  const first = (out: string) => out.trim().split(/\s+/)[0]!;
  return { md5: first(run('md5sum', [file])), sha1: first(run('sha1sum', [file])), sha256: first(run('sha256sum', [file])) };
}

forEachDialect('storages', (h: () => Harness) => {
  let token: string;
  let files: string;
  const tmpDirs: string[] = [];
  const newDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'ferry-st-'));
    tmpDirs.push(d);
    return d;
  };
  const api = (path: string, body?: unknown) => (body === undefined ? h().get(path, { token }) : h().post(path, body, { token }));
  const okData = async (path: string, body?: unknown) => {
    const r = await api(path, body);
    assert.equal(r.status, 200, `${path} ${JSON.stringify(body)}: ${r.status} ${r.body.message}`);
    return r.body.data;
  };
  const upload = async (path: string, body: Buffer | string) => {
    const r = await h().app.inject({
      method: 'PUT',
      url: '/api/fs/put',
      headers: { authorization: token, 'file-path': encodeURIComponent(path), 'content-type': 'application/octet-stream' },
      payload: Buffer.from(body),
    });
    assert.equal(r.statusCode, 200, `upload ${path}: ${r.body}`);
  };
  /** The download link Ferry hands out for `path` (fs/get's `raw_url`: `/d/…?sign=…`), as path and query. */
  const signedUrl = async (path: string) => {
    const u = new URL((await okData('/api/fs/get', { path })).raw_url as string);
    assert.equal(u.pathname, `/d${enc(path)}`);
    return u.pathname + u.search;
  };
  const download = async (path: string) => {
    const r = await h().app.inject({ method: 'GET', url: await signedUrl(path) });
    assert.equal(r.statusCode, 200, `download ${path}: ${r.body}`);
    return r.rawPayload;
  };
  const names = async (path: string) => ((await okData('/api/fs/list', { path })).content as { name: string; is_dir: boolean }[]).map((e) => `${e.name}${e.is_dir ? '/' : ''}`).sort();
  const storages = async () => (await okData('/api/admin/storage/list')).content as { id: number; mount_path: string; status: string; disabled: boolean; driver: string }[];
  const byMount = async (mp: string) => (await storages()).find((s) => s.mount_path === mp);
  const createLocal = async (mount_path: string, dir = newDir(), extra: Record<string, unknown> = {}) => {
    const s = await okData('/api/admin/storage/create', { mount_path, driver: 'local', addition: { root_folder_path: dir }, ...extra });
    return { id: s.id as number, dir, status: s.status as string };
  };

  before(async () => {
    token = await h().adminToken();
    files = join(h().dataDir, 'files');
  });
  after(() => {
    for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
  });

  test('driver list describes local and s3 with their options', async () => {
    const d = await okData('/api/admin/driver/list');
    assert.deepEqual(Object.keys(d).sort(), ['local', 's3']);
    assert.ok(d.local.additional.some((o: { name: string; required: boolean }) => o.name === 'root_folder_path' && o.required));
    for (const n of ['bucket', 'endpoint', 'region', 'access_key_id', 'secret_access_key', 'force_path_style', 'root_folder_path']) {
      assert.ok(d.s3.additional.some((o: { name: string }) => o.name === n), `s3 option ${n}`);
    }
  });

  test('create local and s3 storages: status work, listed, files land where they should', async () => {
    const c = await ceph();
    const prefix = `st-${h().dialect}`;
    const loc = await createLocal('/loc');
    assert.equal(loc.status, 'work');
    const s = await okData('/api/admin/storage/create', { mount_path: '/s3', driver: 's3', remark: 'ceph', addition: JSON.stringify(s3Addition(c, prefix)) });
    assert.equal(s.status, 'work');
    assert.equal(s.driver, 's3');
    assert.equal(JSON.parse(s.addition).bucket, c.bucket);
    const got = await okData(`/api/admin/storage/get?id=${s.id}`);
    assert.equal(got.mount_path, '/s3');
    assert.equal(got.remark, 'ceph');
    await upload('/loc/l.txt', 'local bytes');
    assert.equal(readFileSync(join(loc.dir, 'l.txt'), 'utf8'), 'local bytes');
    await upload('/s3/dir/o.txt', 'object bytes');
    assert.equal((await objectBytes(await s3(), c.bucket, `${prefix}/dir/o.txt`)).toString(), 'object bytes');
    assert.deepEqual(await names('/'), ['loc/', 's3/']);
  });

  test('invalid options → 400 naming the option; unknown driver → 400; nothing is saved', async () => {
    const c = await ceph();
    const before = (await storages()).length;
    const bad: [Record<string, unknown>, string][] = [
      [{ mount_path: '/bad1', driver: 'local', addition: { root_folder_path: '/nonexistent/ferry/dir' } }, 'root_folder_path'],
      [{ mount_path: '/bad2', driver: 'local', addition: { root_folder_path: newDir(), mkdir_perm: '9z' } }, 'mkdir_perm'],
      [{ mount_path: '/bad3', driver: 'local', addition: {} }, 'root_folder_path'],
      [{ mount_path: '/bad4', driver: 's3', addition: s3Addition(c, 'x', { upload_part_size: 1 }) }, 'upload_part_size'],
      [{ mount_path: '/bad5', driver: 's3', addition: s3Addition(c, 'x', { bucket: '' }) }, 'bucket'],
      [{ mount_path: '/bad6', driver: 's3', addition: s3Addition(c, 'x', { list_object_version: 'v3' }) }, 'list_object_version'],
      [{ mount_path: '/bad7', driver: 's3', addition: s3Addition(c, 'x', { endpoint: 'http://' }) }, 'endpoint'],
      [{ mount_path: '/bad8', driver: 's3', addition: s3Addition(c, 'x', { force_path_style: 'maybe' }) }, 'force_path_style'],
      [{ mount_path: '/bad9', driver: 's3', addition: 'not json' }, 'addition'],
      [{ mount_path: '/bad10', driver: 'ftp', addition: {} }, 'driver'],
      [{ mount_path: '/bad11', driver: 'local', seed_policy: 'sometimes', addition: { root_folder_path: newDir() } }, 'seed_policy'],
    ];
    for (const [body, option] of bad) {
      const r = await api('/api/admin/storage/create', body);
      assert.equal(r.status, 400, `${JSON.stringify(body)} → ${r.status} ${r.body.message}`);
      assert.match(r.body.message, new RegExp(option), `message names ${option}: ${r.body.message}`);
    }
    const dup = await api('/api/admin/storage/create', { mount_path: '/loc/', driver: 'local', addition: { root_folder_path: newDir() } });
    assert.equal(dup.status, 409, 'mount path in use (after cleaning)');
    assert.equal((await storages()).length, before, 'nothing saved');
  });

  test('a storage that fails to initialise is listed with its error; the others keep serving', async () => {
    const port = await closedPort();
    const r = await api('/api/admin/storage/create', {
      mount_path: '/broken',
      driver: 's3',
      addition: { bucket: 'nope', endpoint: `http://127.0.0.1:${port}`, access_key_id: 'k', secret_access_key: 's', force_path_style: true },
    });
    assert.equal(r.status, 200, r.body.message);
    assert.notEqual(r.body.data.status, 'work', 'an unreachable endpoint is not "work"');
    const listed = await byMount('/broken');
    assert.ok(listed);
    assert.notEqual(listed.status, 'work');
    assert.ok(listed.status.length > 0, 'status carries the error');
    // the rest of the tree works
    assert.ok((await names('/')).includes('broken/'), 'its mount point is still shown');
    await upload('/loc/still.txt', 'fine');
    assert.ok((await download('/loc/still.txt')).equals(Buffer.from('fine')));
    const inside = await api('/api/fs/list', { path: '/broken' });
    assert.equal(inside.status, 500);
    assert.match(inside.body.message, /broken/);
    const health = await h().get('/healthz');
    assert.equal(health.status, 200);
    assert.notEqual(health.body.data.storages.find((s: { mount_path: string }) => s.mount_path === '/broken').status, 'work');
    // a local storage whose folder disappears fails at the next start, and only that one
    const gone = await createLocal('/gone');
    rmSync(gone.dir, { recursive: true });
    await h().close();
    await h().open();
    token = await h().adminToken();
    assert.match((await byMount('/gone'))!.status, /not exist|no such|ENOENT/i);
    assert.equal((await byMount('/loc'))!.status, 'work');
    assert.ok((await download('/loc/still.txt')).equals(Buffer.from('fine')));
    for (const mp of ['/broken', '/gone']) await okData(`/api/admin/storage/delete?id=${(await byMount(mp))!.id}`, {});
  });

  test('disable hides a storage, enable brings it back; delete unmounts it and keeps its files', async () => {
    const s = await createLocal('/toggle');
    await upload('/toggle/t.txt', 'toggle');
    const link = await signedUrl('/toggle/t.txt');
    await okData(`/api/admin/storage/disable?id=${s.id}`, {});
    assert.equal((await byMount('/toggle'))!.status, 'disabled');
    assert.equal((await byMount('/toggle'))!.disabled, true);
    assert.ok(!(await names('/')).includes('toggle/'));
    assert.equal((await api('/api/fs/get', { path: '/toggle/t.txt' })).status, 404);
    assert.equal((await h().app.inject({ method: 'GET', url: link })).statusCode, 404);
    assert.equal((await api(`/api/admin/storage/disable?id=${s.id}`, {})).status, 400, 'already disabled');
    await okData(`/api/admin/storage/enable?id=${s.id}`, {});
    assert.equal((await byMount('/toggle'))!.status, 'work');
    assert.ok((await download('/toggle/t.txt')).equals(Buffer.from('toggle')));
    await okData(`/api/admin/storage/delete?id=${s.id}`, {});
    assert.equal(await byMount('/toggle'), undefined);
    assert.ok(!(await names('/')).includes('toggle/'));
    assert.equal((await api(`/api/admin/storage/get?id=${s.id}`)).status, 404);
    assert.equal(readFileSync(join(s.dir, 't.txt'), 'utf8'), 'toggle', 'deleting a storage leaves its files alone');
  });

  test('the longest mount path wins; mount points show as folders in parent listings', async () => {
    const a = await createLocal('/m');
    const b = await createLocal('/m/inner');
    // a real folder of /m's storage with the same name is shadowed by the mount
    mkdirSync(join(a.dir, 'inner'));
    writeFileSync(join(a.dir, 'inner', 'shadowed.txt'), 'x');
    await upload('/m/inner/f.txt', 'to B');
    await upload('/m/g.txt', 'to A');
    assert.equal(readFileSync(join(b.dir, 'f.txt'), 'utf8'), 'to B');
    assert.ok(!existsSync(join(a.dir, 'inner', 'f.txt')));
    assert.equal(readFileSync(join(a.dir, 'g.txt'), 'utf8'), 'to A');
    assert.deepEqual(await names('/m'), ['g.txt', 'inner/']);
    assert.deepEqual(await names('/m/inner'), ['f.txt']);
    // a deep mount with no folders above it in the root storage
    await createLocal('/deep/a/b');
    await upload('/deep/a/b/z.txt', 'deep');
    assert.ok((await names('/')).includes('deep/'));
    assert.deepEqual(await names('/deep'), ['a/']);
    assert.deepEqual(await names('/deep/a'), ['b/']);
    assert.deepEqual(await names('/deep/a/b'), ['z.txt']);
    assert.equal((await okData('/api/fs/get', { path: '/deep/a' })).is_dir, true);
    assert.ok(!existsSync(join(files, 'deep')), 'nothing created in the root storage');
    const dirs = await okData('/api/fs/dirs', { path: '/deep' });
    assert.deepEqual(dirs.map((d: { name: string }) => d.name), ['a']);
  });

  describe('hash index', () => {
    before(() => {
      requireCommand('md5sum', 'coreutils');
    });
    const hashInfo = async (path: string) => (await okData('/api/fs/get', { path })).hash_info as Record<string, string> | null;

    test('after an upload, fs/get reports md5/sha1/sha256 equal to md5sum/sha1sum/sha256sum; they follow rename/copy/move', async () => {
      const data = randomBytes(3 * MiB + 17);
      await upload('/hash/h.bin', data);
      // an upload records what the storage's hash_on_write says (default: SHA-256 alone)
      const want = { sha256: sums(join(files, 'hash/h.bin')).sha256 };
      assert.deepEqual(await hashInfo('/hash/h.bin'), want);
      await okData('/api/fs/rename', { path: '/hash/h.bin', name: 'renamed.bin' });
      assert.deepEqual(await hashInfo('/hash/renamed.bin'), want, 'after rename');
      await okData('/api/fs/mkdir', { path: '/hash/sub' });
      await okData('/api/fs/copy', { src_dir: '/hash', dst_dir: '/hash/sub', names: ['renamed.bin'] });
      assert.deepEqual(await hashInfo('/hash/sub/renamed.bin'), want, 'the copy');
      await okData('/api/fs/move', { src_dir: '/hash', dst_dir: '/hash/sub', names: ['renamed.bin'], overwrite: true });
      assert.deepEqual(await hashInfo('/hash/sub/renamed.bin'), want, 'after move');
      assert.equal((await api('/api/fs/get', { path: '/hash/renamed.bin' })).status, 404);
      // a folder rename carries its files' entries
      await okData('/api/fs/rename', { path: '/hash/sub', name: 'sub2' });
      assert.deepEqual(await hashInfo('/hash/sub2/renamed.bin'), want, 'after folder rename');
    });

    test('after the file changes on disk (size, or mtime), stale hashes are not returned', async () => {
      const data = randomBytes(MiB);
      await upload('/hash/c.bin', data);
      const p = join(files, 'hash/c.bin');
      const first = sums(p);
      assert.deepEqual(await hashInfo('/hash/c.bin'), { sha256: first.sha256 }, 'the upload recorded SHA-256 (the default)');

      appendFileSync(p, 'more');
      const afterAppend = await hashInfo('/hash/c.bin');
      assert.ok(afterAppend === null || afterAppend.sha256 !== first.sha256, `stale after a size change: ${JSON.stringify(afterAppend)}`);
      if (afterAppend) assert.deepEqual(afterAppend, sums(p));

      // a whole read fills the index again, with the new content
      assert.ok((await download('/hash/c.bin')).equals(readFileSync(p)));
      const second = sums(p);
      await eventually(async () => assert.deepEqual(await hashInfo('/hash/c.bin'), second));

      // same size, different bytes and mtime
      const same = Buffer.from(readFileSync(p));
      same[0] = same[0]! ^ 0xff;
      writeFileSync(p, same);
      utimesSync(p, new Date(), new Date(Date.now() + 5000));
      const afterRewrite = await hashInfo('/hash/c.bin');
      assert.ok(afterRewrite === null || afterRewrite.sha256 !== second.sha256, `stale after an mtime change: ${JSON.stringify(afterRewrite)}`);
      if (afterRewrite) assert.deepEqual(afterRewrite, sums(p));

      // a file Ferry never saw has no hashes until it is read whole
      // larger than fs/get's 4 KiB content sniff, which reads a smaller file whole (and so records its hashes)
      writeFileSync(join(files, 'hash/foreign.bin'), randomBytes(10_000));
      assert.equal(await hashInfo('/hash/foreign.bin'), null);
      await download('/hash/foreign.bin');
      await eventually(async () => assert.deepEqual(await hashInfo('/hash/foreign.bin'), sums(join(files, 'hash/foreign.bin'))));
      // a partial read does not
      writeFileSync(join(files, 'hash/partial.bin'), randomBytes(10_000));
      const part = await h().app.inject({ method: 'GET', url: await signedUrl('/hash/partial.bin'), headers: { range: 'bytes=0-9' } });
      assert.equal(part.statusCode, 206);
      assert.equal(await hashInfo('/hash/partial.bin'), null);
    });

    test('S3: hashes of an uploaded object equal the tools', async () => {
      const data = randomBytes(2 * MiB + 5);
      await upload('/s3/hash/s.bin', data);
      const tmp = join(newDir(), 's.bin');
      writeFileSync(tmp, data);
      // SHA-256 recorded on write (the default hash_on_write), MD5 from the single-part ETag
      const { md5, sha256 } = sums(tmp);
      assert.deepEqual(await hashInfo('/s3/hash/s.bin'), { md5, sha256 });
    });
  });

  describe('cross-storage copy and move (local ↔ S3)', () => {
    const prefix = () => `st-${h().dialect}`;
    const obj = async (rel: string) => objectBytes(await s3(), (await ceph()).bucket, `${prefix()}/${rel}`);

    test('small files and folders stream across with identical bytes; move removes the source', async () => {
      const a = randomBytes(300_000);
      const b = randomBytes(5000);
      await upload('/x/one.bin', a);
      await upload('/x/tree/sub/two.bin', b);
      await upload('/x/tree/three.txt', 'three');
      await okData('/api/fs/mkdir', { path: '/s3/x' });
      const r = await okData('/api/fs/copy', { src_dir: '/x', dst_dir: '/s3/x', names: ['one.bin', 'tree'] });
      assert.match(r.message, /completed/);
      assert.ok((await obj('x/one.bin')).equals(a));
      assert.ok((await obj('x/tree/sub/two.bin')).equals(b));
      assert.equal((await obj('x/tree/three.txt')).toString(), 'three');
      assert.ok(readFileSync(join(files, 'x/one.bin')).equals(a), 'copy keeps the source');
      // and back: move S3 → local
      await okData('/api/fs/mkdir', { path: '/back' });
      await okData('/api/fs/move', { src_dir: '/s3/x', dst_dir: '/back', names: ['one.bin', 'tree'] });
      assert.ok(readFileSync(join(files, 'back/one.bin')).equals(a));
      assert.ok(readFileSync(join(files, 'back/tree/sub/two.bin')).equals(b));
      const c = await ceph();
      assert.deepEqual(
        (await keysOf(await s3(), c.bucket, `${prefix()}/x`)).filter((k) => k !== ''),
        [],
        'moved objects are gone from the bucket',
      );
      assert.deepEqual(await uploadsOf(await s3(), c.bucket, `${prefix()}/x`), []);
      // hashes were computed on the way into the local storage (its hash_on_write: SHA-256 by default)
      assert.deepEqual((await okData('/api/fs/get', { path: '/back/one.bin' })).hash_info, { sha256: sums(join(files, 'back/one.bin')).sha256 });
      // an existing target without overwrite is refused
      const again = await api('/api/fs/copy', { src_dir: '/x', dst_dir: '/back', names: ['one.bin'] });
      assert.equal(again.status, 403);
    });

    const waitTask = async (type: string, tid: string) => {
      await eventually(async () => {
        const info = await okData(`/api/task/${type}/info?tid=${tid}`);
        assert.ok([2, 7, 4].includes(info.state), `task still running: ${JSON.stringify(info)}`);
      }, 60_000);
      return okData(`/api/task/${type}/info?tid=${tid}`);
    };

    test('above 16 MiB a copy runs as a `copy` task (listed in undone/done) and gives identical bytes', async () => {
      const big = randomBytes(20 * MiB + 3);
      await upload('/big/big.bin', big);
      await okData('/api/fs/mkdir', { path: '/s3/big' });
      const r = await okData('/api/fs/copy', { src_dir: '/big', dst_dir: '/s3/big', names: ['big.bin'] });
      assert.equal(r.tasks?.length, 1, JSON.stringify(r));
      const t = r.tasks[0];
      assert.equal(t.type, 'copy');
      assert.equal(t.total_bytes, big.length);
      const undone = (await okData('/api/task/copy/undone')) as { id: string }[];
      const done0 = (await okData('/api/task/copy/done')) as { id: string }[];
      assert.ok([...undone, ...done0].some((x) => x.id === t.id), 'the task is listed');
      const info = await waitTask('copy', t.id);
      assert.equal(info.state, 2, info.error);
      assert.equal(info.progress, 100);
      assert.ok((await okData('/api/task/copy/done')).some((x: { id: string }) => x.id === t.id), 'listed as done');
      assert.ok(!(await okData('/api/task/copy/undone')).some((x: { id: string }) => x.id === t.id));
      assert.ok((await obj('big/big.bin')).equals(big), 'identical bytes in the bucket');
      const c = await ceph();
      assert.deepEqual((await keysOf(await s3(), c.bucket, `${prefix()}/big`)).filter((k) => k !== ''), ['big.bin'], 'no temp keys');
      assert.deepEqual(await uploadsOf(await s3(), c.bucket, `${prefix()}/big`), []);

      // and a large move back to local runs as a `move` task
      await okData('/api/fs/mkdir', { path: '/big/back' });
      const m = await okData('/api/fs/move', { src_dir: '/s3/big', dst_dir: '/big/back', names: ['big.bin'] });
      assert.equal(m.tasks?.[0]?.type, 'move');
      const minfo = await waitTask('move', m.tasks[0].id);
      assert.equal(minfo.state, 2, minfo.error);
      assert.ok(readFileSync(join(files, 'big/back/big.bin')).equals(big));
      assert.deepEqual((await keysOf(await s3(), c.bucket, `${prefix()}/big`)).filter((k) => k !== ''), []);
    });

    test('canceling a running copy task leaves no object and no multipart upload; retry then completes it', async () => {
      const big = randomBytes(64 * MiB);
      await upload('/cancel/big.bin', big);
      await okData('/api/fs/mkdir', { path: '/s3/cancel' });
      const r = await okData('/api/fs/copy', { src_dir: '/cancel', dst_dir: '/s3/cancel', names: ['big.bin'] });
      const tid = r.tasks[0].id as string;
      // wait until bytes are flowing into a multipart upload, then cancel
      const c = await ceph();
      await eventually(async () => assert.ok((await uploadsOf(await s3(), c.bucket, `${prefix()}/cancel`)).length > 0, 'copy started'), 30_000);
      await okData(`/api/task/copy/cancel?tid=${tid}`, {});
      const info = await waitTask('copy', tid);
      assert.equal(info.state, 4, JSON.stringify(info));
      await eventually(async () => {
        assert.deepEqual((await keysOf(await s3(), c.bucket, `${prefix()}/cancel`)).filter((k) => k !== ''), [], 'no object or temp key');
        assert.deepEqual(await uploadsOf(await s3(), c.bucket, `${prefix()}/cancel`), [], 'no multipart upload left');
      });
      await okData(`/api/task/copy/retry?tid=${tid}`, {});
      const again = await waitTask('copy', tid);
      assert.equal(again.state, 2, again.error);
      assert.ok((await obj('cancel/big.bin')).equals(big));
    });
  });
});
