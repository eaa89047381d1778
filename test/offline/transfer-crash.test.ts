/**
 * Issue #22: a killed Ferry instance's `offline_download_transfer` is taken over like other tasks. Two Ferry
 * processes share one data dir and one database (SQLite, then PostgreSQL); aria2 downloads a large file from a
 * loopback (trusted) http server (`offline_http_via_tool`), and the instance copying aria2's finished copy into the
 * target folder is killed with SIGKILL while it copies (the file is large, so the copy is caught under way: its
 * progress is between 0 and 100 % in the task row). The other instance takes the transfer over; the file lands once,
 * with the source's bytes and its hash index row, nothing partial is visible, and aria2's copy is deleted
 * (`delete_on_upload_succeed`). The cut-off copy's hidden temp file stays until the killed instance restarts: its
 * start-up cleanup removes it (as for every write cut off by kill -9).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createReadStream, existsSync, mkdtempSync, openSync, rmSync, closeSync, statSync, writeSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FAST_TASKS, MiB, cleanupLog, filesBelow, killHard, login, okData, query, restart, runnerPid, sha256File, startNode, taskRows, until, type Node } from '../crash/support.js';
import { DIALECTS, createTestDatabase, type TestDatabase } from '../support/databases.js';
import { api } from '../support/process.js';
import { requireCommand } from '../support/commands.js';
import { Aria2 } from '../../src/modules/offline/tools/aria2.js';
import { aria2Rpc, freePort, type Proc } from './swarm.js';

const SECRET = 'transfer-crash-secret';
const PASSWORD = 'admin-pass-transfer-crash';
/** Large enough that copying it into the folder (hashing, fsync) spans several progress writes (every 500 ms). */
const SIZE = 384 * MiB;

describe('kill -9 during an offline_download_transfer', { timeout: 900_000 }, () => {
  let root: string;
  let sourcePath: string;
  let sourceSha256: string;
  let source: Server;
  let sourceHost: string;
  let aria2Proc: Proc;
  let rpcUri: string;
  let aria2: Aria2;

  before(async () => {
    requireCommand('aria2c', 'aria2');
    root = mkdtempSync(join(tmpdir(), 'ferry-transfer-crash-'));
    sourcePath = join(root, 'big.bin');
    const block = randomBytes(MiB);
    const fd = openSync(sourcePath, 'w');
    try {
      for (let i = 0; i < SIZE / MiB; i++) {
        block.writeUInt32BE(i, 0);
        writeSync(fd, block);
      }
    } finally {
      closeSync(fd);
    }
    sourceSha256 = await sha256File(sourcePath);
    // a plain http server with range requests (aria2 splits large downloads)
    source = createServer((req, res) => {
      if (req.url !== '/big.bin') return void res.writeHead(404).end();
      const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
      const start = m ? Number(m[1]) : 0;
      const end = m && m[2] ? Math.min(Number(m[2]), SIZE - 1) : SIZE - 1;
      res.writeHead(m ? 206 : 200, { 'content-length': String(end - start + 1), 'accept-ranges': 'bytes', ...(m ? { 'content-range': `bytes ${start}-${end}/${SIZE}` } : {}), 'content-type': 'application/octet-stream' });
      createReadStream(sourcePath, { start, end }).pipe(res);
    });
    await new Promise<void>((r) => source.listen(0, '127.0.0.1', r));
    sourceHost = `127.0.0.1:${(source.address() as { port: number }).port}`;
    const rpcPort = await freePort();
    aria2Proc = aria2Rpc(rpcPort, SECRET, await freePort(), join(root, 'aria2-default'));
    rpcUri = `http://127.0.0.1:${rpcPort}/jsonrpc`;
    aria2 = new Aria2(rpcUri, SECRET);
    await until(() => aria2.version().catch(() => null), 15_000, 'aria2 RPC');
  });
  after(async () => {
    await aria2Proc?.stop();
    await new Promise((r) => source?.close(r));
    if (root) rmSync(root, { recursive: true, force: true });
  });

  for (const dialect of DIALECTS) {
    describe(`[${dialect}]`, () => {
      let db: TestDatabase;
      let dataDir: string;
      const nodes: Node[] = [];
      let token = '';
      const call = (n: Node, method: string, path: string, body?: unknown) => api(n.url, method, path, { token, body });

      before(async () => {
        db = await createTestDatabase(dialect);
        dataDir = mkdtempSync(join(tmpdir(), 'ferry-transfer-crash-data-'));
        const env = { FERRY_DATA_DIR: dataDir, FERRY_ADMIN_PASSWORD: PASSWORD, FERRY_STALE_TEMP_MS: '1000', ...(db.url ? { FERRY_DATABASE_URL: db.url } : {}), ...FAST_TASKS };
        nodes.push(await startNode('A', env));
        nodes.push(await startNode('B', env));
        token = await login(nodes[0]!.url, 'admin', PASSWORD);
        await okData(call(nodes[0]!, 'POST', '/api/admin/setting/save', [
          { key: 'seed_trusted_source_hosts', value: sourceHost },
          { key: 'offline_http_via_tool', value: 'true' },
        ]));
        await okData(call(nodes[0]!, 'POST', '/api/admin/setting/set_aria2', { uri: rpcUri, secret: SECRET }));
        await okData(call(nodes[0]!, 'POST', '/api/fs/mkdir', { path: '/dst' }));
      });
      after(async () => {
        await Promise.all(nodes.map((n) => killHard(n).catch(() => null)));
        await db?.drop();
        if (dataDir) rmSync(dataDir, { recursive: true, force: true });
      });

      test('the other instance takes the transfer over: the file lands once, verified, nothing partial', async () => {
        const r = await okData(call(nodes[0]!, 'POST', '/api/fs/add_offline_download', { urls: [`http://${sourceHost}/big.bin`], path: '/dst', tool: 'aria2', delete_policy: 'delete_on_upload_succeed' }));
        const downloadId = r.tasks[0].id as string;
        const transferRow = async () => (await taskRows(db.url, dataDir)).find((t) => t.type === 'offline_download_transfer');
        // the transfer under way: claimed, some progress, not finished
        const running = await until(async () => {
          const t = await transferRow();
          if (t) assert.ok(t.state <= 1, `the transfer ended before it could be interrupted (state ${t.state} ${t.error}): make SIZE larger`);
          const d = (await taskRows(db.url, dataDir)).find((x) => x.id === downloadId)!;
          assert.ok(d.state <= 2, `the download failed: ${d.error}`);
          return t && t.state === 1 && t.progress > 0 ? t : null;
        }, 300_000, 'the transfer to run and report progress', 20);
        const victim = nodes.findIndex((n) => n.pid === runnerPid(running.runner));
        assert.ok(victim >= 0, `runner ${running.runner} is one of ours`);
        await killHard(nodes[victim]!);
        assert.ok(running.progress < 100, `killed mid-copy (${running.progress} %)`);

        const dst = join(dataDir, 'files', 'dst');
        const during = await filesBelow(dst);
        assert.deepEqual(during.files, [], 'nothing visible while it was being copied');
        assert.equal(during.temps.length, 1, 'the copy was cut off mid-write (its temp file is there)');
        const work = join(dataDir, 'offline', downloadId);
        assert.ok(existsSync(join(work, 'big.bin')), "aria2's copy is still there for the takeover");

        const survivor = nodes[1 - victim]!;
        const done = await until(async () => {
          const t = (await taskRows(db.url, dataDir)).find((x) => x.id === running.id)!;
          return t.state >= 2 ? t : null;
        }, 300_000, 'the transfer to be taken over and finish', 100);
        assert.equal(done.state, 2, done.error);
        assert.equal(done.attempts, 2, 'claimed by the killed instance, then once more by the survivor');

        const landed = await filesBelow(dst);
        assert.deepEqual(landed.files, ['big.bin'], 'the file landed once');
        assert.deepEqual(landed.temps, during.temps, "the survivor's copy left no temp file; only the killed attempt's (hidden) one is there");
        assert.equal(statSync(join(dst, 'big.bin')).size, SIZE);
        assert.equal(await sha256File(join(dst, 'big.bin')), sourceSha256, "the source's bytes");
        const listed = await okData(call(survivor, 'POST', '/api/fs/list', { path: '/dst', refresh: true }));
        assert.deepEqual((listed.content as { name: string }[]).map((c) => c.name), ['big.bin']);
        const idx = await query<{ path: string; size: unknown; sha256: string | null }>(db.url, dataDir, 'SELECT path, size, sha256 FROM hash_index');
        assert.deepEqual(idx.filter((x) => x.path.endsWith('big.bin')).map((x) => [x.path, Number(x.size)]), [['/dst/big.bin', SIZE]], JSON.stringify(idx));
        assert.ok(!existsSync(work), "aria2's copy is deleted after the transfer (delete_on_upload_succeed)");
        // the download task may have been the killed instance's too: it ends once the survivor takes it over as well
        const tasks = await until(async () => {
          const all = await taskRows(db.url, dataDir);
          return all.every((t) => t.state >= 2) ? all : null;
        }, 300_000, 'every task to end', 100);
        assert.deepEqual(tasks.map((t) => [t.type, t.state]).sort(), [['offline_download', 2], ['offline_download_transfer', 2]], 'one download, one transfer, both done');

        // the killed instance comes back: its start-up cleanup removes the temp file its cut-off copy left
        await new Promise((r) => setTimeout(r, 1200)); // older than FERRY_STALE_TEMP_MS
        nodes[victim] = await restart(nodes[victim]!);
        const log = await cleanupLog(nodes[victim]!);
        assert.ok(log.removed.some((x) => x.endsWith(during.temps[0]!)), `the cut-off copy's temp file is removed: ${JSON.stringify(log.removed)}`);
        assert.deepEqual(await filesBelow(dst), { files: ['big.bin'], temps: [] }, 'the file, once, and nothing else');
        assert.equal(await sha256File(join(dst, 'big.bin')), sourceSha256, 'the landed file is untouched by the cleanup');
      });
    });
  }
});
