/**
 * Offline downloads through Transmission (`transmission-daemon`, RPC with user and password) and qBittorrent
 * (`qbittorrent-nox`, Web API) in the local swarm (opentracker + aria2c seeders): set_transmission / set_qbit
 * answer the version or why not; a magnet, a stored `.torrent` and a torrent-only seed land verified through the
 * transfer task; a seeder serving corrupted pieces makes the tool fetch them again from a good seeder (for
 * Transmission, which keeps one peer per address, a libtorrent seeder on [::1]); a cancel mid-way leaves nothing in
 * the target and the tool no longer holds the torrent.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import { forEachDialect, requireCommand, type Harness } from '../support/harness.js';
import { bytes, filesDir, putIndexed, setSettings } from '../seeds-generate/helpers.js';
import { settledTask } from '../seeds-ops/transfer-helpers.js';
import { seedOk } from '../seeds-peers/peers.js';
import { QBittorrent } from '../../src/modules/offline/tools/qbittorrent.js';
import { Transmission } from '../../src/modules/offline/tools/transmission.js';
import type { DownloadTool } from '../../src/modules/offline/tools/tool.js';
import { assertFilesAt, corruptedSeederRefetched, offlineDownloadDone, seedDownloadLands } from './offline-helpers.js';
import { freePort, ipv6Seeder, qbittorrent, startSwarm, transmission, until, type Proc, type Swarm } from './swarm.js';

let swarm: Swarm;
before(async () => {
  swarm = await startSwarm(bytes, seedOk);
});
after(() => swarm.stop());

interface ToolCase {
  name: 'Transmission' | 'qBittorrent';
  /** Each test starts its own seeders of the torrents it downloads (see Swarm.freshSeeder). */
  freshSeeders: boolean;
  route: string;
  pkg: [string, string];
  /** Starts the daemon; returns its URL with credentials, and a client. */
  start(dir: string): Promise<{ url: string; proc: Proc; client: DownloadTool; peerPort: number }>;
}

const CASES: ToolCase[] = [
  {
    name: 'Transmission',
    freshSeeders: true,
    route: 'set_transmission',
    pkg: ['transmission-daemon', 'transmission-daemon'],
    async start(dir) {
      const port = await freePort();
      const peerPort = await freePort();
      const proc = transmission(join(dir, 'transmission'), port, peerPort, 'ferry', 'tr-pass');
      const url = `http://ferry:tr-pass@127.0.0.1:${port}/transmission/rpc`;
      const client = new Transmission(url);
      await until(() => client.version().catch(() => null), 20_000, `Transmission RPC (${proc.log()})`);
      return { url, proc, client, peerPort };
    },
  },
  {
    name: 'qBittorrent',
    freshSeeders: false,
    route: 'set_qbit',
    pkg: ['qbittorrent-nox', 'qbittorrent-nox'],
    async start(dir) {
      const port = await freePort();
      const peerPort = await freePort();
      const proc = qbittorrent(join(dir, 'qbittorrent'), port, peerPort, 'ferry', 'qb-pass-1');
      const url = `http://ferry:qb-pass-1@127.0.0.1:${port}/`;
      const client = new QBittorrent(url);
      await until(() => client.version().catch(() => null), 30_000, `qBittorrent Web API (${proc.log()})`);
      return { url, proc, client, peerPort };
    },
  },
];

function assertAlbumAt(h: Harness, dir: string): void {
  assertFilesAt(h, join(dir, 'album'), swarm.album.files);
}

for (const c of CASES) {
  forEachDialect(`offline downloads through ${c.name}`, (h) => {
    let token: string;
    let daemon: { url: string; proc: Proc; client: DownloadTool; peerPort: number };
    const add = (body: Record<string, unknown>) => h().post('/api/fs/add_offline_download', body, { token });
    /** Fresh seeders of `name` for this test (stopped after it), when the tool needs them. */
    const seeded = async (t: TestContext, name: 'album' | 'big' | 'lone') => {
      if (!c.freshSeeders && name !== 'lone') return;
      const p = await swarm.freshSeeder(name);
      t.after(() => p.stop());
    };

    before(async () => {
      requireCommand(...c.pkg);
      token = await h().adminToken();
      await setSettings(h(), token, { seed_trusted_source_hosts: swarm.trustedHosts });
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

    test('magnet → the album lands verified through the transfer task', async (t) => {
      await seeded(t, 'album');
      await offlineDownloadDone(h(), token, { urls: [swarm.magnet(swarm.album.hash, 'album')], path: '/dl-magnet', tool: c.name });
      assertAlbumAt(h(), 'dl-magnet');
    });

    test('a stored .torrent → same', async (t) => {
      await seeded(t, 'album');
      await putIndexed(h(), '/torrents/album.torrent', swarm.album.torrent);
      const tid = await offlineDownloadDone(h(), token, { urls: ['/torrents/album.torrent'], path: '/dl-torrent', tool: c.name, delete_policy: 'delete_always' });
      assertAlbumAt(h(), 'dl-torrent');
      assert.ok(!existsSync(join(h().dataDir, 'offline', tid)), 'the tool\'s copy is deleted');
    });

    test('offline_download of a torrent-only seed hands it to the tool; every file lands at <path>/<seed path>, checked against the seed', async (t) => {
      await seeded(t, 'album');
      await seedDownloadLands(h(), token, swarm, '/dl-seed');
    });

    test(c.name === 'Transmission'
      ? 'a seeder serving corrupted pieces: Transmission discards them, nothing lands meanwhile; a good seeder joins from [::1] (Transmission keeps one peer per address) and the discarded pieces are fetched again: the file lands with the right bytes'
      : `a seeder serving corrupted pieces: ${c.name} drops them and fetches them again from the good seeder; the file lands with the right bytes`, async (t) => {
      if (c.name === 'Transmission') await seeded(t, 'lone');
      await corruptedSeederRefetched(h(), token, swarm, c.name, '/dl-corrupt', c.name === 'Transmission' ? () => ipv6Seeder(swarm, 'lone', daemon.peerPort) : undefined);
    });

    test('only a seeder serving corrupted pieces: the download stalls, the task fails naming the first piece that never arrived intact and its file; nothing lands, the tool drops it', async (t) => {
      await seeded(t, 'lone');
      await setSettings(h(), token, { offline_stall_timeout: '20' });
      try {
        const r = await add({ urls: [swarm.magnet(swarm.lone.hash, 'lone')], path: '/dl-corrupt-only', tool: c.name });
        assert.equal(r.status, 200, r.body.message);
        const tid = r.body.data.tasks[0].id as string;
        const end = await settledTask(h(), token, tid, 'offline_download', 150_000);
        assert.equal(end.state, 7, `failed, not ${end.state}: ${end.status}`);
        // piece 0 is one of the corrupted ones: only the corrupt seeder has it, so it can never arrive intact
        assert.match(end.error, new RegExp(`^${c.name}: no progress for 20 s \\(.*; piece 0 of 25 \\(in lone/lone\\.bin\\) never arrived intact; .*nothing landed$`));
        if (c.name === 'Transmission') assert.match(end.error, /bytes of corrupt pieces discarded/);
        assert.ok(!existsSync(join(filesDir(h()), 'dl-corrupt-only')), 'nothing landed');
        assert.ok(!existsSync(join(h().dataDir, 'offline', tid)), 'the tool\'s folder is gone');
        assert.equal((await daemon.client.status(swarm.lone.hash, '')).state, 'error', `${c.name} no longer holds it`);
      } finally {
        await setSettings(h(), token, { offline_stall_timeout: '1800' });
      }
    });

    test(`seedtime > 0 (${c.route}): ${c.name} keeps seeding after the transfer with delete_never; the files landed`, async (t) => {
      await seeded(t, 'album');
      const set = (seedtime: number) => h().post(`/api/admin/setting/${c.route}`, { uri: daemon.url, url: daemon.url, seedtime }, { token });
      assert.equal((await set(30)).status, 200);
      try {
        await putIndexed(h(), '/torrents/album.torrent', swarm.album.torrent);
        const tid = await offlineDownloadDone(h(), token, { urls: ['/torrents/album.torrent'], path: '/dl-seeding', tool: c.name, delete_policy: 'delete_never' });
        assertAlbumAt(h(), 'dl-seeding');
        const st = await daemon.client.status(swarm.album.hash, join(h().dataDir, 'offline', tid));
        assert.equal(st.state, 'done', `${c.name} still holds the complete torrent: ${st.error ?? st.text}`);
        assert.ok(st.seeding);
      } finally {
        await daemon.client.forget(swarm.album.hash, true);
        assert.equal((await set(0)).status, 200);
      }
    });

    test('cancel mid-way: the tool drops the torrent, nothing lands', async (t) => {
      await seeded(t, 'big');
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
