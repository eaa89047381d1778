/**
 * Offline downloads and dying instances, with aria2 in the local swarm: two Ferry processes share one data dir
 * (SQLite); the one running a magnet's `offline_download` is killed with SIGKILL mid-way and the other takes the
 * task over (aria2's half download is dropped and started again) and lands the file. A download whose task is
 * gone while its instance was dead is removed from aria2 and its `<data dir>/offline/<id>` folder deleted by the
 * start-up cleanup.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import SQLite from 'better-sqlite3';
import { bytes } from '../seeds-generate/helpers.js';
import { seedOk } from '../seeds-peers/peers.js';
import { FAST_TASKS, cleanupLog, killHard, login, okData, restart, runnerPid, startNode, taskRow, until, type Node } from '../crash/support.js';
import { api } from '../support/process.js';
import type { Aria2 } from '../../src/modules/offline/tools/aria2.js';
import { freePort, seeder, startAria2, startSwarm, type Proc, type Swarm } from './swarm.js';

const SECRET = 'crash-secret';
const PASSWORD = 'admin-pass-offline-crash';

describe('offline downloads when an instance dies (aria2)', { timeout: 400_000 }, () => {
  let swarm: Swarm;
  let aria2Proc: Proc;
  let aria2: Aria2;
  let rpcUri: string;
  let dataDir: string;
  let nodes: Node[] = [];
  let token = '';
  const call = (n: Node, method: string, path: string, body?: unknown) => api(n.url, method, path, { token, body });
  const work = (id: string) => join(dataDir, 'offline', id);
  /** aria2's downloads (any state) writing into `dir`. */
  const aria2In = async (dir: string) => {
    const keys = ['gid', 'dir'];
    const lists = await Promise.all([aria2.call<{ dir: string }[]>('aria2.tellActive', [keys]), aria2.call<{ dir: string }[]>('aria2.tellWaiting', [0, 1000, keys]), aria2.call<{ dir: string }[]>('aria2.tellStopped', [0, 1000, keys])]);
    return lists.flat().filter((d) => d.dir === dir);
  };
  /** Queues the slow `big` magnet and waits until aria2 reports bytes; answers the task id and its runner. */
  const startBig = async (n: Node, path: string) => {
    const r = await okData(call(n, 'POST', '/api/fs/add_offline_download', { urls: [swarm.magnet(swarm.big.hash, 'big')], path, tool: 'aria2' }));
    const id = r.tasks[0].id as string;
    const row = await until(async () => {
      const t = await taskRow(null, dataDir, id);
      assert.ok(t.state <= 1, `the download ended before it could be interrupted: ${t.state} ${t.error}`);
      return t.state === 1 && t.progress > 0 ? t : null;
    }, 90_000, 'the big download to run and report progress', 100);
    return { id, row };
  };

  before(async () => {
    swarm = await startSwarm(bytes, seedOk);
    ({ proc: aria2Proc, uri: rpcUri, client: aria2 } = await startAria2(swarm, SECRET));
    dataDir = mkdtempSync(join(tmpdir(), 'ferry-offline-crash-'));
    const env = { FERRY_DATA_DIR: dataDir, FERRY_ADMIN_PASSWORD: PASSWORD, FERRY_STALE_TEMP_MS: '1000', ...FAST_TASKS };
    nodes.push(await startNode('A', env));
    nodes.push(await startNode('B', env));
    token = await login(nodes[0]!.url, 'admin', PASSWORD);
    await okData(call(nodes[0]!, 'POST', '/api/admin/setting/save', [{ key: 'seed_trusted_source_hosts', value: swarm.trustedHosts }]));
    await okData(call(nodes[0]!, 'POST', '/api/admin/setting/set_aria2', { uri: rpcUri, secret: SECRET }));
  });
  after(async () => {
    await Promise.all(nodes.map((n) => n.server.stop().catch(() => null)));
    await aria2Proc?.stop();
    await swarm?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('kill -9 of the instance running an offline_download: the other instance takes it over and the file lands', async () => {
    const { id, row } = await startBig(nodes[0]!, '/dl-takeover');
    const victim = nodes.findIndex((n) => n.pid === runnerPid(row.runner));
    assert.ok(victim >= 0, `runner ${row.runner} is one of ours`);
    await killHard(nodes[victim]!);
    const survivor = nodes[1 - victim]!;
    // a fast seeder joins, so the restarted download does not take minutes
    const fast = seeder([swarm.torrentPath('big')], swarm.dataDir, await freePort());
    try {
      const done = await until(async () => {
        const t = await taskRow(null, dataDir, id);
        return t.state >= 2 ? t : null;
      }, 120_000, 'the download to be taken over and finish', 200);
      assert.equal(done.state, 2, done.error);
      assert.equal(done.attempts, 2, 'claimed by the killed instance, then once more by the survivor');
      const transfer = await until(async () => {
        const list = (await okData(call(survivor, 'GET', '/api/task/offline_download_transfer/done'))) as { name: string; state: number; error: string }[];
        return list.find((t) => t.name.endsWith('to [](/dl-takeover)'));
      }, 60_000, 'the transfer to finish', 200);
      assert.equal(transfer.state, 2, transfer.error);
    } finally {
      await fast.stop();
    }
    const landed = readFileSync(join(dataDir, 'files', 'dl-takeover', 'big', 'big.bin'));
    assert.ok(landed.equals(readFileSync(join(swarm.dataDir, 'big', 'big.bin'))), 'the seeder\'s bytes');
    assert.ok(!existsSync(work(id)), 'aria2\'s copy is deleted after the transfer');
    assert.deepEqual(await aria2In(work(id)), [], 'aria2 holds nothing of it');
    nodes[victim] = await restart(nodes[victim]!);
  });

  test('a download whose task is gone while no instance ran it: the start-up cleanup removes it from aria2 and deletes its folder', async () => {
    await Promise.all(nodes.slice(1).map((n) => n.server.stop()));
    nodes = nodes.slice(0, 1);
    const { id } = await startBig(nodes[0]!, '/dl-orphan');
    await killHard(nodes[0]!);
    assert.ok(existsSync(work(id)), 'aria2 was writing into its folder');
    assert.ok((await aria2In(work(id))).length >= 1, 'aria2 holds the download (a magnet: its metadata and its files)');
    // the task is gone (as if deleted by another instance's admin while this one was dead)
    const db = new SQLite(join(dataDir, 'ferry.db'));
    try {
      assert.equal(db.prepare('DELETE FROM tasks WHERE id = ?').run(id).changes, 1);
    } finally {
      db.close();
    }
    await new Promise((r) => setTimeout(r, 1200)); // older than FERRY_STALE_TEMP_MS
    nodes[0] = await restart(nodes[0]!);
    const log = await cleanupLog(nodes[0]!);
    assert.equal(log.done.offline, 1, JSON.stringify(log.done));
    assert.ok(!existsSync(work(id)), 'its folder is deleted');
    assert.deepEqual(await aria2In(work(id)), [], 'aria2 no longer holds it');
  });
});
