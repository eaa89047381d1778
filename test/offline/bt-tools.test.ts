/**
 * Offline downloads through Transmission (`transmission-daemon`, RPC with user and password) and qBittorrent
 * (`qbittorrent-nox`, Web API) in the local swarm (opentracker + aria2c seeders): set_transmission / set_qbit
 * answer the version or why not; a magnet and a stored `.torrent` land verified through the transfer task;
 * a cancel mid-way leaves nothing in the target and the tool no longer holds the torrent.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { forEachDialect, requireCommand, type Harness } from '../support/harness.js';
import { bytes, filesDir, putIndexed } from '../seeds-generate/helpers.js';
import { settledTask } from '../seeds-ops/transfer-helpers.js';
import { seedOk } from '../seeds-peers/peers.js';
import { QBittorrent } from '../../src/modules/offline/tools/qbittorrent.js';
import { Transmission } from '../../src/modules/offline/tools/transmission.js';
import type { DownloadTool } from '../../src/modules/offline/tools/tool.js';
import { assertFilesAt, corruptedSeederRefetched, seedDownloadLands, settledTransfer } from './offline-helpers.js';
import { freePort, qbittorrent, startSwarm, transmission, until, type Proc, type Swarm } from './swarm.js';

let swarm: Swarm;
before(async () => {
  swarm = await startSwarm(bytes, seedOk);
});
after(() => swarm.stop());

interface ToolCase {
  name: 'Transmission' | 'qBittorrent';
  route: string;
  pkg: [string, string];
  /** Starts the daemon; returns its URL with credentials, and a client. */
  start(dir: string): Promise<{ url: string; proc: Proc; client: DownloadTool }>;
}

const CASES: ToolCase[] = [
  {
    name: 'Transmission',
    route: 'set_transmission',
    pkg: ['transmission-daemon', 'transmission-daemon'],
    async start(dir) {
      const port = await freePort();
      const proc = transmission(join(dir, 'transmission'), port, await freePort(), 'ferry', 'tr-pass');
      const url = `http://ferry:tr-pass@127.0.0.1:${port}/transmission/rpc`;
      const client = new Transmission(url);
      await until(() => client.version().catch(() => null), 20_000, `Transmission RPC (${proc.log()})`);
      return { url, proc, client };
    },
  },
  {
    name: 'qBittorrent',
    route: 'set_qbit',
    pkg: ['qbittorrent-nox', 'qbittorrent-nox'],
    async start(dir) {
      const port = await freePort();
      const proc = qbittorrent(join(dir, 'qbittorrent'), port, await freePort(), 'ferry', 'qb-pass-1');
      const url = `http://ferry:qb-pass-1@127.0.0.1:${port}/`;
      const client = new QBittorrent(url);
      await until(() => client.version().catch(() => null), 30_000, `qBittorrent Web API (${proc.log()})`);
      return { url, proc, client };
    },
  },
];

function assertAlbumAt(h: Harness, dir: string): void {
  assertFilesAt(h, join(dir, 'album'), swarm.album.files);
}

for (const c of CASES) {
  forEachDialect(`offline downloads through ${c.name}`, (h) => {
    let token: string;
    let daemon: { url: string; proc: Proc; client: DownloadTool };
    const add = (body: Record<string, unknown>) => h().post('/api/fs/add_offline_download', body, { token });

    before(async () => {
      requireCommand(...c.pkg);
      token = await h().adminToken();
      daemon = await c.start(h().dataDir);
    });
    after(() => daemon.proc.stop());

    test(`${c.route} answers the version, or why ${c.name} cannot be used`, async () => {
      const wrong = daemon.url.replace(/:[^:@/]+@/, ':wrong-pass@');
      const bad = await h().post(`/api/admin/setting/${c.route}`, { uri: wrong, url: wrong }, { token });
      assert.equal(bad.status, 400);
      assert.match(bad.body.message, new RegExp(`failed to connect to ${c.name}: .*(wrong user or password)`));
      const good = await h().post(`/api/admin/setting/${c.route}`, { uri: daemon.url, url: daemon.url, seedtime: 0 }, { token });
      assert.equal(good.status, 200, good.body.message);
      assert.match(good.body.data, /\d+\.\d+/);
      assert.ok((await h().get('/api/public/offline_download_tools')).body.data.includes(c.name));
    });

    test('magnet → the album lands verified through the transfer task', async () => {
      const r = await add({ urls: [swarm.magnet(swarm.album.hash, 'album')], path: '/dl-magnet', tool: c.name });
      assert.equal(r.status, 200, r.body.message);
      const done = await settledTask(h(), token, r.body.data.tasks[0].id, 'offline_download', 120_000);
      assert.equal(done.state, 2, done.error);
      const tr = await settledTransfer(h(), token, '/dl-magnet');
      assert.equal(tr.state, 2, tr.error);
      assertAlbumAt(h(), 'dl-magnet');
    });

    test('a stored .torrent → same', async () => {
      await putIndexed(h(), '/torrents/album.torrent', swarm.album.torrent);
      const r = await add({ urls: ['/torrents/album.torrent'], path: '/dl-torrent', tool: c.name, delete_policy: 'delete_always' });
      assert.equal(r.status, 200, r.body.message);
      const tid = r.body.data.tasks[0].id as string;
      const done = await settledTask(h(), token, tid, 'offline_download', 120_000);
      assert.equal(done.state, 2, done.error);
      const tr = await settledTransfer(h(), token, '/dl-torrent');
      assert.equal(tr.state, 2, tr.error);
      assertAlbumAt(h(), 'dl-torrent');
      assert.ok(!existsSync(join(h().dataDir, 'offline', tid)), 'the tool\'s copy is deleted');
    });

    test('offline_download of a torrent-only seed hands it to the tool; every file lands at <path>/<seed path>, checked against the seed', async () => {
      await seedDownloadLands(h(), token, swarm, '/dl-seed');
    });

    test(c.name === 'Transmission'
      ? 'a seeder serving corrupted pieces: Transmission drops them and either fetches them from the good seeder (the file lands right) or, having only the corrupt peer, shows the discarded data, lands nothing, and a cancel leaves nothing'
      : `a seeder serving corrupted pieces: ${c.name} drops them and fetches them again from the good seeder; the file lands with the right bytes`, async (t) => {
      const outcome = await corruptedSeederRefetched(h(), token, swarm, c.name, '/dl-corrupt', c.name === 'Transmission');
      t.diagnostic(`${c.name}: ${outcome}`);
    });

    test('cancel mid-way: the tool drops the torrent, nothing lands', async () => {
      const r = await add({ urls: [swarm.magnet(swarm.big.hash, 'big')], path: '/dl-cancel', tool: c.name });
      assert.equal(r.status, 200, r.body.message);
      const tid = r.body.data.tasks[0].id as string;
      await until(async () => {
        const i = await h().get(`/api/task/offline_download/info?tid=${tid}`, { token });
        assert.ok(i.body.data.state < 2, `ended early: ${i.body.data.state} ${i.body.data.error}`);
        return i.body.data.progress > 0 && i.body.data.progress < 100;
      }, 90_000, 'some bytes of the big file');
      assert.equal((await h().post(`/api/task/offline_download/cancel?tid=${tid}`, undefined, { token })).status, 200);
      assert.equal((await settledTask(h(), token, tid, 'offline_download')).state, 4);
      const st = await daemon.client.status(swarm.big.hash, '');
      assert.equal(st.state, 'error', 'the tool no longer holds it');
      assert.ok(!existsSync(join(h().dataDir, 'offline', tid)));
      assert.ok(!existsSync(join(filesDir(h()), 'dl-cancel', 'big')));
    });
  });
}
