/**
 * Crash safety of offline downloads (issue #10): the built server is killed with SIGKILL while
 * an `offline_download` task is streaming a seed's file from a (slow, loopback, trusted) source.
 * After the restart the start-up cleanup removes the half-written temp file, the task is taken
 * over and finishes, and what lands is the complete file, verified — never a partial one.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createSeed, encodeSeed } from '../../src/modules/seeds/formats/index.js';
import { bytes } from '../seeds-generate/helpers.js';
import { FAST_TASKS, MiB, cleanupLog, filesBelow, killHard, login, okData, restart, startNode, until, type Node } from './support.js';

const SIZE = 48 * MiB;
const DATA = bytes(SIZE, 4242);
const hex = (alg: string) => createHash(alg).update(DATA).digest('hex');

describe('kill -9 during an offline download', { timeout: 240_000 }, () => {
  let source: Server;
  let sourceUrl: string;
  let sent = 0;
  let dataDir: string;
  let node: Node;

  before(async () => {
    // A slow source: 64 KiB every 4 ms (~16 MB/s), so the download is still running when the
    // server is killed.
    source = createServer((req, res) => {
      if (req.url !== '/d/big.bin') {
        res.statusCode = 404;
        res.end();
        return;
      }
      res.writeHead(200, { 'content-length': String(SIZE), 'content-type': 'application/octet-stream' });
      let off = 0;
      const tick = () => {
        if (res.destroyed) return;
        if (off >= SIZE) return void res.end();
        const chunk = DATA.subarray(off, off + 64 * 1024);
        off += chunk.length;
        sent += chunk.length;
        res.write(chunk);
        setTimeout(tick, 4);
      };
      tick();
    });
    await new Promise<void>((r) => source.listen(0, '127.0.0.1', r));
    const port = (source.address() as { port: number }).port;
    sourceUrl = `http://127.0.0.1:${port}`;
    dataDir = mkdtempSync(join(tmpdir(), 'ferry-offline-crash-'));
    node = await startNode('offline', {
      FERRY_DATA_DIR: dataDir,
      FERRY_ADMIN_PASSWORD: 'offline-pass-1',
      FERRY_STALE_TEMP_MS: '500',
      ...FAST_TASKS,
    });
  });

  after(async () => {
    await killHard(node).catch(() => undefined);
    await new Promise((r) => source.close(r));
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('nothing partial is visible; after the restart the task finishes with the verified file', async () => {
    let token = await login(node.url, 'admin', 'offline-pass-1');
    const call = (method: string, path: string, body?: unknown) => fetch(`${node.url}${path}`, { method, headers: { authorization: token, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: (await r.json()) as { code: number; message: string; data: any } }));
    await okData(call('POST', '/api/admin/setting/save', [{ key: 'seed_trusted_source_hosts', value: new URL(sourceUrl).host }]));
    await okData(call('POST', '/api/fs/mkdir', { path: '/dst' }));
    const seed = createSeed({
      name: 'big',
      createdBy: 'test',
      files: [{ path: 'big.bin', size: SIZE, hashes: { md5: hex('md5'), sha1: hex('sha1'), sha256: hex('sha256') }, sources: [{ type: 'openlist-direct', url: `${sourceUrl}/d/big.bin` }] }],
    });
    const seedData = encodeSeed(seed, 'oss').toString('base64');
    const res = await okData(call('POST', '/api/fs/seed/offline_download', { seed_data: seedData, path: '/dst' }));
    const tid = res.results[0].task?.id as string;
    assert.ok(tid, JSON.stringify(res));

    // Kill while the body is flowing: some bytes in, far from the end.
    await until(async () => sent >= 8 * MiB, 60_000, 'the download to be under way');
    await killHard(node);
    const dst = join(dataDir, 'files', 'dst');
    const during = await filesBelow(dst);
    assert.deepEqual(during.files, [], 'nothing visible while it was being written');
    assert.equal(during.temps.length, 1, 'the download was killed mid-write (its temp file is there)');

    node = await restart(node);
    const log = await cleanupLog(node);
    token = await login(node.url, 'admin', 'offline-pass-1');
    const task = await until(
      async () => {
        const t = (await call('GET', `/api/task/offline_download/info?tid=${tid}`)).body.data;
        return t && [2, 4, 7].includes(t.state) ? t : null;
      },
      120_000,
      'the task to settle after the restart',
    );
    assert.equal(task.state, 2, `task ended in state ${task.state}: ${task.error}`);
    assert.ok(task.attempts === undefined || task.attempts >= 2, 'the task was started again');
    assert.ok(log.removed.some((r) => r.endsWith(during.temps[0]!)), `the half-written temp file was cleaned: ${JSON.stringify(log.removed)}`);

    const after = await filesBelow(dst);
    assert.deepEqual(after.files, ['big.bin']);
    assert.deepEqual(after.temps, [], 'no temp file left');
    assert.equal(createHash('sha256').update(readFileSync(join(dst, 'big.bin'))).digest('hex'), hex('sha256'));
  });
});
