/**
 * Issue #22: a tool whose credentials break after they were saved. aria2, Transmission and qBittorrent each run
 * for real in the local swarm; Ferry saves working credentials (set_aria2 / set_transmission / set_qbit), then the
 * daemon is restarted on the same ports with another secret or password. A download queued then fails with an
 * error naming the tool, the cause and the setting to fix; nothing lands and the tool's folder is gone. Once the
 * admin saves the new credentials, retrying the same task lands the files.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { forEachDialect, requireCommand } from '../support/harness.js';
import { bytes, filesDir, setSettings } from '../seeds-generate/helpers.js';
import { settledTask } from '../seeds-ops/transfer-helpers.js';
import { seedOk } from '../seeds-peers/peers.js';
import { Aria2 } from '../../src/modules/offline/tools/aria2.js';
import { QBittorrent } from '../../src/modules/offline/tools/qbittorrent.js';
import { Transmission } from '../../src/modules/offline/tools/transmission.js';
import type { DownloadTool } from '../../src/modules/offline/tools/tool.js';
import { assertFilesAt, settledTransfer } from './offline-helpers.js';
import { aria2Rpc, freePort, qbittorrent, startSwarm, transmission, until, type Proc, type Swarm } from './swarm.js';

let swarm: Swarm;
before(async () => {
  swarm = await startSwarm(bytes, seedOk);
});
after(() => swarm.stop());

interface Daemon {
  proc: Proc;
  /** What set_* takes: `{uri, secret}` or `{url}` with the credentials in it. */
  body: Record<string, string>;
  client: DownloadTool;
}

interface ToolCase {
  name: 'aria2' | 'Transmission' | 'qBittorrent';
  route: string;
  pkg: [string, string];
  /** The daemon on fixed ports (`ports` from the first start) with credential number `n`. */
  start(dir: string, ports: number[], n: number): Promise<Daemon>;
  /** The error of a run with credentials the daemon refuses. */
  refused: RegExp;
}

const CASES: ToolCase[] = [
  {
    name: 'aria2',
    route: 'set_aria2',
    pkg: ['aria2c', 'aria2'],
    async start(dir, [rpc, peer], n) {
      const secret = `cred-secret-${n}`;
      const proc = aria2Rpc(rpc!, secret, peer!, join(dir, 'aria2-default'));
      const uri = `http://127.0.0.1:${rpc}/jsonrpc`;
      const client = new Aria2(uri, secret);
      await until(() => client.version().catch(() => null), 15_000, `aria2 RPC (${proc.log()})`);
      return { proc, body: { uri, secret }, client };
    },
    refused: /^aria2: Unauthorized \(wrong or missing secret\): the aria2 credentials saved with set_aria2 no longer work; nothing landed\. Fix them \(POST \/api\/admin\/setting\/set_aria2\), then retry the task$/,
  },
  {
    name: 'Transmission',
    route: 'set_transmission',
    pkg: ['transmission-daemon', 'transmission-daemon'],
    async start(dir, [rpc, peer], n) {
      const password = `tr-pass-${n}`;
      const proc = transmission(join(dir, 'transmission'), rpc!, peer!, 'ferry', password);
      const uri = `http://ferry:${password}@127.0.0.1:${rpc}/transmission/rpc`;
      const client = new Transmission(uri);
      await until(() => client.version().catch(() => null), 20_000, `Transmission RPC (${proc.log()})`);
      return { proc, body: { uri, seedtime: '0' }, client };
    },
    refused: /^Transmission: wrong user or password \(401\): the Transmission credentials saved with set_transmission no longer work; nothing landed\. Fix them \(POST \/api\/admin\/setting\/set_transmission\), then retry the task$/,
  },
  {
    name: 'qBittorrent',
    route: 'set_qbit',
    pkg: ['qbittorrent-nox', 'qbittorrent-nox'],
    async start(dir, [web, peer], n) {
      const password = `qb-pass-${n}`;
      const proc = qbittorrent(join(dir, 'qbittorrent'), web!, peer!, 'ferry', password);
      const url = `http://ferry:${password}@127.0.0.1:${web}/`;
      const client = new QBittorrent(url);
      await until(() => client.version().catch(() => null), 30_000, `qBittorrent Web API (${proc.log()})`);
      return { proc, body: { url, seedtime: '0' }, client };
    },
    refused: /^qBittorrent: wrong user or password: the qBittorrent credentials saved with set_qbit no longer work; nothing landed\. Fix them \(POST \/api\/admin\/setting\/set_qbit\), then retry the task$/,
  },
];

for (const c of CASES) {
  forEachDialect(`${c.name} credentials that break after set_*`, (h) => {
    let token: string;
    let daemon: Daemon | undefined;

    before(async () => {
      requireCommand(...c.pkg);
      token = await h().adminToken();
      await setSettings(h(), token, { seed_trusted_source_hosts: swarm.trustedHosts });
    });
    after(() => daemon?.proc.stop());

    test('the task fails naming the tool, the cause and the setting; nothing lands; retry lands the files once the settings are fixed', async (t) => {
      const ports = [await freePort(), await freePort()];
      daemon = await c.start(h().dataDir, ports, 1);
      const saved = await h().post(`/api/admin/setting/${c.route}`, daemon.body, { token });
      assert.equal(saved.status, 200, saved.body.message);
      // the daemon's secret or password changes behind Ferry's back
      await daemon.proc.stop();
      daemon = await c.start(h().dataDir, ports, 2);
      // a fresh seeder: aria2 seeders shun an address that once failed them (see Swarm.freshSeeder)
      const seeder = await swarm.freshSeeder('album');
      t.after(() => seeder.stop());

      const r = await h().post('/api/fs/add_offline_download', { urls: [swarm.magnet(swarm.album.hash, 'album')], path: '/dl-cred', tool: c.name }, { token });
      assert.equal(r.status, 200, r.body.message);
      const tid = r.body.data.tasks[0].id as string;
      const failed = await settledTask(h(), token, tid, 'offline_download', 60_000);
      assert.equal(failed.state, 7, `failed, not ${failed.state}: ${failed.status}`);
      assert.match(failed.error, c.refused);
      assert.ok(!existsSync(join(filesDir(h()), 'dl-cred', 'album')), 'nothing landed');
      assert.ok(!existsSync(join(h().dataDir, 'offline', tid)), "no folder of the failed attempt");
      assert.equal((await daemon.client.status(swarm.album.hash, join(h().dataDir, 'offline', tid)).catch((e: Error) => ({ state: 'error', error: e.message }))).state, 'error', `${c.name} holds nothing of it`);

      // a retry with the settings still broken fails the same way
      assert.equal((await h().post(`/api/task/offline_download/retry?tid=${tid}`, undefined, { token })).status, 200);
      const again = await settledTask(h(), token, tid, 'offline_download', 60_000);
      assert.equal(again.state, 7);
      assert.match(again.error, c.refused);

      const fixed = await h().post(`/api/admin/setting/${c.route}`, daemon.body, { token });
      assert.equal(fixed.status, 200, fixed.body.message);
      assert.equal((await h().post(`/api/task/offline_download/retry?tid=${tid}`, undefined, { token })).status, 200);
      const done = await settledTask(h(), token, tid, 'offline_download', 120_000);
      assert.equal(done.state, 2, done.error);
      const tr = await settledTransfer(h(), token, '/dl-cred');
      assert.equal(tr.state, 2, tr.error);
      assertFilesAt(h(), 'dl-cred/album', swarm.album.files);
    });
  });
}
