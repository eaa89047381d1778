/**
 * Crash safety (kill -9) of the built server, on both databases, with a local storage and an S3
 * storage on Ceph: uploads cut off mid-stream (new files, overwrites, temp-key and direct S3
 * multipart, an as-task spool, an upload with sidecars) leave nothing visible after a restart
 * and the start-up cleanup removes their leftovers; a seed generation task killed mid-hash is
 * taken over after the restart and finishes correctly. The cleanup's age and task-reference
 * rules in process (what a live writer is doing is never removed). A short run of the kill -9 loop.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AbortMultipartUploadCommand, CreateMultipartUploadCommand, PutObjectCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { runStartupCleanup } from '../../src/app/cleanup.js';
import { TaskState, pendingTaskRow } from '../../src/modules/tasks/task.model.js';
import { TasksRepo } from '../../src/modules/tasks/tasks.repo.js';
import { cephForThisFile } from '../support/ceph.js';
import { createTestDatabase, DIALECTS, type TestDatabase } from '../support/databases.js';
import { forEachDialect } from '../support/harness.js';
import { api } from '../support/process.js';
import { hashOf, keysOf, materialize, objectBytes, patternBody, putHeaders, rawUpload, s3Addition, sha256, type RawResult } from '../fs/helpers.js';
import { runKillLoop } from '../soak/kill-loop.js';
import {
  FAST_TASKS,
  MiB,
  cleanupLog,
  filesBelow,
  hashFile,
  killHard,
  login,
  multipartUploads,
  okData,
  query,
  restart,
  startNode,
  taskRow,
  taskRows,
  until,
  type Node,
} from './support.js';

const { ceph, s3 } = cephForThisFile();
const PASSWORD = 'crash-pass-1';

for (const dialect of DIALECTS) {
  describe(`kill -9 and restart [${dialect}]`, { timeout: 300_000 }, () => {
    let db: TestDatabase;
    let dataDir: string;
    let node: Node;
    let token: string;
    let prefix: string;
    const files = () => join(dataDir, 'files');
    const call = (method: string, path: string, body?: unknown) => api(node.url, method, path, { token, body });

    before(async () => {
      db = await createTestDatabase(dialect);
      dataDir = mkdtempSync(join(tmpdir(), 'ferry-crash-'));
      node = await startNode('crash', {
        FERRY_DATA_DIR: dataDir,
        FERRY_ADMIN_PASSWORD: PASSWORD,
        ...(db.url ? { FERRY_DATABASE_URL: db.url } : {}),
        FERRY_STALE_TEMP_MS: '1000',
        FERRY_STALE_MULTIPART_MS: '1000',
        ...FAST_TASKS,
      });
      token = await login(node.url, 'admin', PASSWORD);
      prefix = `crash-${dialect}-${randomBytes(3).toString('hex')}`;
      await okData(call('POST', '/api/admin/storage/create', { mount_path: '/s3', driver: 's3', addition: s3Addition(await ceph(), prefix) }));
    });
    after(async () => {
      await killHard(node).catch(() => undefined);
      await db?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    test('uploads cut off by kill -9 leave nothing visible; the restart cleans their leftovers', async () => {
      const c = await ceph();
      const client = await s3();
      const keepLocal = materialize(patternBody(MiB + 3, 1));
      const keepS3 = materialize(patternBody(7 * MiB + 5, 2));
      for (const [path, data] of [['/keep.bin', keepLocal], ['/s3/keep.bin', keepS3]] as const) {
        const r = await rawUpload(node.url, { headers: putHeaders(token, path, { 'Content-Length': data.length }), body: data });
        assert.equal(r.status, 200, r.body);
      }
      const big = (seed: number) => materialize(patternBody(40 * MiB, seed));
      const hashes = (b: Buffer) => ({ 'X-File-Md5': hashOf('md5', b), 'X-File-Sha1': hashOf('sha1', b), 'X-File-Sha256': sha256(b) });
      const direct = big(13);
      const cut: [string, Record<string, string>, Buffer][] = [
        ['/up/new.bin', {}, big(10)],
        ['/keep.bin', {}, big(11)],
        ['/s3/up/new.bin', {}, big(12)],
        ['/s3/up/direct.bin', hashes(direct), direct],
        ['/s3/keep.bin', {}, big(14)],
        ['/up/task.bin', { 'As-Task': 'true' }, big(15)],
        ['/up/side.bin', { 'X-Seed-Sidecars': 'oss,torrent,cas' }, big(16)],
      ];
      // 12 of 40 MiB each, then the client waits: the server holds open writes.
      const pending: Promise<RawResult>[] = cut.map(([path, extra, body]) =>
        rawUpload(node.url, { headers: putHeaders(token, path, { 'Content-Length': body.length, ...extra }), body, sendBytes: 12 * MiB }),
      );
      await until(async () => (await filesBelow(files())).temps.length >= 3, 30_000, 'local temp files of the open uploads');
      await until(async () => (await multipartUploads(client, c.bucket, prefix)).length >= 3, 30_000, 'the open multipart uploads');
      await until(async () => readdirSync(join(dataDir, 'tmp')).some((f) => statSync(join(dataDir, 'tmp', f)).size > 0), 30_000, 'the spool file');
      await new Promise((r) => setTimeout(r, 500)); // let some parts land
      await killHard(node);
      const results = await Promise.all(pending);
      for (const r of results) assert.notEqual(r.status, 200, 'no cut-off upload was acknowledged');
      const leftTemps = (await filesBelow(files())).temps;
      const leftUploads = await multipartUploads(client, c.bucket, prefix);
      const leftSpool = readdirSync(join(dataDir, 'tmp'));
      assert.ok(leftTemps.length >= 3 && leftUploads.length >= 3 && leftSpool.length === 1, 'the kill left work behind');

      await new Promise((r) => setTimeout(r, 1200)); // older than FERRY_STALE_*_MS
      node = await restart(node);
      const log = await cleanupLog(node);
      assert.deepEqual([...log.removed].sort(), leftTemps.map((t) => '/' + t).sort());
      assert.deepEqual([...log.aborted].sort(), leftUploads.map((u) => `${prefix}/${u}`).sort());
      assert.deepEqual(log.spool, leftSpool);

      const local = await filesBelow(files());
      assert.deepEqual(local.temps, []);
      assert.deepEqual(local.files, ['keep.bin']);
      assert.equal(sha256(readFileSync(join(files(), 'keep.bin'))), sha256(keepLocal), 'the overwritten local file is intact');
      assert.deepEqual(readdirSync(join(dataDir, 'tmp')), []);
      assert.deepEqual(await multipartUploads(client, c.bucket, prefix), []);
      assert.deepEqual((await keysOf(client, c.bucket, prefix)).filter((k) => k !== '' && !k.endsWith('/')), ['keep.bin']);
      assert.equal(sha256(await objectBytes(client, c.bucket, `${prefix}/keep.bin`)), sha256(keepS3), 'the overwritten S3 object is intact');
      // Through the API: nothing partial is listed; no task or hash-index row was half written.
      for (const dir of ['/up', '/s3/up']) {
        const r = await call('POST', '/api/fs/list', { path: dir });
        assert.ok(r.status === 404 || (r.status === 200 && (r.body.data.content ?? []).length === 0), `${dir}: ${r.status} ${JSON.stringify(r.body.data)}`);
      }
      assert.deepEqual(await taskRows(db.url, dataDir), []);
      // one row per storage (both drivers keep the index): the local and the S3 keep.bin, nothing of the cut uploads
      const indexed = await query<{ path: string; storage_id: number }>(db.url, dataDir, 'SELECT path, storage_id FROM hash_index ORDER BY storage_id');
      assert.deepEqual(indexed.map((r) => r.path), ['/keep.bin', '/keep.bin']);
      assert.equal(new Set(indexed.map((r) => Number(r.storage_id))).size, 2);
    });

    test('a seed generation task killed mid-hash is taken over after the restart and finishes correctly', async () => {
      await okData(call('POST', '/api/admin/setting/save', [{ key: 'seed_async_threshold', value: String(MiB) }]));
      mkdirSync(join(files(), 'gen'), { recursive: true });
      const file = join(files(), 'gen', 'big.bin');
      const fd = openSync(file, 'w');
      const block = randomBytes(4 * MiB);
      for (let i = 0; i < 48; i++) writeSync(fd, block);
      closeSync(fd);
      const expected = await hashFile(file, ['md5', 'sha1', 'sha256']);
      const d = await okData(call('POST', '/api/fs/seed/generate', { paths: ['/gen/big.bin'], formats: ['oss', 'torrent', 'cas'], output_path: '/gen-out' }));
      const id = d.task.id as string;
      await until(async () => {
        const r = await taskRow(db.url, dataDir, id);
        assert.ok(r.state <= 1, `the task ended before it could be interrupted (state ${r.state}): make the file bigger`);
        return r.state === 1 && r.progress > 0;
      }, 60_000, 'the task to run and report progress', 25);
      await killHard(node);
      node = await restart(node);
      await cleanupLog(node);
      const done = await until(async () => {
        const r = await taskRow(db.url, dataDir, id);
        return r.state >= 2 ? r : null;
      }, 120_000, 'the task to finish after the restart');
      assert.equal(done.state, 2, done.error);
      assert.equal(done.attempts, 2);
      const oss = JSON.parse(readFileSync(join(files(), 'gen-out', 'big.oss'), 'utf8')) as { files: { size: number; hashes: Record<string, string> }[] };
      assert.equal(oss.files[0]!.size, 192 * MiB);
      assert.deepEqual(Object.fromEntries(['md5', 'sha1', 'sha256'].map((a) => [a, oss.files[0]!.hashes[a]])), expected);
      const out = await filesBelow(join(files(), 'gen-out'));
      assert.deepEqual(out, { files: ['big.cas', 'big.oss', 'big.torrent'], temps: [] });
      assert.deepEqual((await filesBelow(files())).temps, []);
      assert.ok((await taskRows(db.url, dataDir)).every((t) => t.state === 2));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

forEachDialect('start-up cleanup rules (in process)', (h) => {
  test('only old leftovers go: fresh temp files, open writes and spool files of unfinished tasks stay', async () => {
    const c = await ceph();
    const client = await s3();
    const prefix = `cleanup-${h().dialect}-${randomBytes(3).toString('hex')}`;
    const token = await h().adminToken();
    const r = await h().post('/api/admin/storage/create', { mount_path: '/s3', driver: 's3', addition: s3Addition(c, prefix) }, { token });
    assert.equal(r.status, 200, r.body.message);
    const files = join(h().dataDir, 'files');
    const spool = join(h().dataDir, 'tmp');
    mkdirSync(join(files, 'a', '.ferry-tmp-dir'), { recursive: true });
    writeFileSync(join(files, 'a', '.ferry-tmp-old'), 'x');
    writeFileSync(join(files, 'a', '.ferry-tmp-dir', 'part'), 'x');
    writeFileSync(join(files, 'a', 'regular.bin'), 'x');
    writeFileSync(join(spool, 'upload-old-unused'), 'x');
    writeFileSync(join(spool, 'upload-old-used'), 'x');
    await new TasksRepo(h().ctx.database.db).insert(
      // An upload task another instance is running (fresh heartbeat: nobody here takes it over).
      pendingTaskRow({
        id: `t-${randomBytes(4).toString('hex')}`,
        type: 'upload',
        name: 'elsewhere',
        creator_id: 1,
        payload: JSON.stringify({ tmp: join(spool, 'upload-old-used') }),
        state: TaskState.RUNNING,
        runner: 'other-host:1:abcd',
        heartbeat_at: Date.now() + 600_000,
      }),
    );
    const mp = (key: string) => client.send(new CreateMultipartUploadCommand({ Bucket: c.bucket, Key: `${prefix}/${key}` }));
    const old = await mp('x/.ferry-tmp-old');
    await client.send(new UploadPartCommand({ Bucket: c.bucket, Key: `${prefix}/x/.ferry-tmp-old`, UploadId: old.UploadId, PartNumber: 1, Body: 'y' }));
    await mp('x/direct.bin');
    await client.send(new PutObjectCommand({ Bucket: c.bucket, Key: `${prefix}/x/.ferry-tmp-done`, Body: 'z' }));
    await client.send(new PutObjectCommand({ Bucket: c.bucket, Key: `${prefix}/x/kept.bin`, Body: 'k' }));
    await sleep(5000);
    // Fresh: a temp file, a spool file, a multipart upload, and an open local write still receiving bytes.
    writeFileSync(join(files, 'a', '.ferry-tmp-new'), 'x');
    writeFileSync(join(spool, 'upload-new'), 'x');
    const fresh = await mp('x/.ferry-tmp-new');
    const local = h().ctx.storages.list().find((m) => m.record.mountPath === '/')!.driver!;
    const open = await local.beginWrite('/a/open.bin');
    open.stream.write(Buffer.alloc(1000));
    await sleep(200);

    const s = await runStartupCleanup(h().ctx, { tempMs: 2500, multipartMs: 2500 });
    const byMount = Object.fromEntries(s.storages.map((x) => [x.mountPath, x]));
    assert.deepEqual(byMount['/']!.temps.sort(), ['/a/.ferry-tmp-dir', '/a/.ferry-tmp-old']);
    assert.deepEqual(byMount['/s3']!.uploads.sort(), [`${prefix}/x/.ferry-tmp-old`, `${prefix}/x/direct.bin`]);
    assert.deepEqual(byMount['/s3']!.temps, [`${prefix}/x/.ferry-tmp-done`]);
    assert.deepEqual(s.spool, ['upload-old-unused']);
    assert.deepEqual(readdirSync(join(files, 'a')).filter((n) => n !== '.ferry-tmp-new' && !n.startsWith('.ferry-tmp-')).sort(), ['regular.bin']);
    assert.ok(existsSync(join(files, 'a', '.ferry-tmp-new')));
    assert.deepEqual(readdirSync(spool).sort(), ['upload-new', 'upload-old-used']);
    assert.deepEqual(await multipartUploads(client, c.bucket, prefix), ['x/.ferry-tmp-new']);
    assert.deepEqual((await keysOf(client, c.bucket, prefix)).filter((k) => k !== '' && !k.endsWith('/')), ['x/kept.bin']);
    // The open write was not disturbed: it commits with all its bytes.
    open.stream.write(Buffer.alloc(24));
    const e = await open.commit();
    assert.equal(e.size, 1024);
    await client.send(new AbortMultipartUploadCommand({ Bucket: c.bucket, Key: `${prefix}/x/.ferry-tmp-new`, UploadId: fresh.UploadId }));
  });
});

describe('the kill -9 loop, short', { timeout: 300_000 }, () => {
  test('3 iterations: no mismatch, no crash', async () => {
    const lines: string[] = [];
    const r = await runKillLoop({ iterations: 3, deadlineMs: 180_000, log: (s) => lines.push(s), ceph: await ceph() });
    const why = lines.join('\n');
    assert.equal(r.faults, 3, why);
    assert.equal(r.mismatches, 0, why);
    assert.equal(r.crashes, 0, why);
    assert.ok(r.operations >= 7 && r.filesChecked > 0, why);
  });
});
