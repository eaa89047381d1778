/**
 * Offline downloads through aria2 in a real local swarm: opentracker on loopback, an aria2c seeder holding a
 * multi-file torrent (nested folder, empty file), Ferry driving `aria2c --enable-rpc`. A magnet and a stored
 * `.torrent` land in the target folder (bytes equal to the seeder's) through an `offline_download_transfer`;
 * delete policies decide about aria2's copy; a cancel mid-way leaves nothing; malformed magnets and URLs to
 * loopback/private addresses are refused before any tool sees them. Also set_aria2 and the tools list.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { forEachDialect, type Harness } from '../support/harness.js';
import { bytes, filesDir, putIndexed, setSettings } from '../seeds-generate/helpers.js';
import { listen, settledTask, type Listener } from '../seeds-ops/transfer-helpers.js';
import { seedOk } from '../seeds-peers/peers.js';
import { decodeTorrent, encodeTorrent } from '../../src/modules/seeds/formats/index.js';
import { assertFilesAt, corruptedSeederRefetched, seedDownloadLands, settledTransfer } from './offline-helpers.js';
import type { Aria2 } from '../../src/modules/offline/tools/aria2.js';
import { freePort, startAria2, startSwarm, until, type Proc, type Swarm } from './swarm.js';

const SECRET = 'swarm-secret';

let swarm: Swarm;
let aria2Proc: Proc;
let aria2: Aria2;
let rpcUri: string;
let ALBUM: Record<string, Buffer>;
let albumHash: string;
let bigHash: string;
let albumTorrent: Buffer;

before(async () => {
  swarm = await startSwarm(bytes, seedOk);
  ALBUM = swarm.album.files;
  albumHash = swarm.album.hash;
  albumTorrent = swarm.album.torrent;
  bigHash = swarm.big.hash;
  ({ proc: aria2Proc, uri: rpcUri, client: aria2 } = await startAria2(swarm, SECRET));
});

after(async () => {
  await aria2Proc.stop();
  await swarm.stop();
});

const magnetOf = (hash: string, name: string) => swarm.magnet(hash, name);

function assertAlbumAt(h: Harness, dir: string): void {
  assertFilesAt(h, join(dir, 'album'), ALBUM);
}

const workDir = (h: Harness) => join(h.dataDir, 'offline');

forEachDialect('offline downloads through aria2', (h) => {
  let token: string;
  const add = (body: Record<string, unknown>, tok = token) => h().post('/api/fs/add_offline_download', body, { token: tok });

  before(async () => {
    token = await h().adminToken();
    await setSettings(h(), token, { seed_trusted_source_hosts: swarm.trustedHosts });
  });

  test('set_aria2 answers the version, or why aria2 cannot be used (nothing saved then); the tools list follows', async () => {
    const before = await h().get('/api/public/offline_download_tools');
    assert.deepEqual(before.body.data, ['SimpleHttp']);
    const down = await h().post('/api/admin/setting/set_aria2', { uri: `http://127.0.0.1:${await freePort()}/jsonrpc`, secret: SECRET }, { token });
    assert.equal(down.status, 400);
    assert.match(down.body.message, /failed to connect to aria2: .*cannot be reached/);
    const wrong = await h().post('/api/admin/setting/set_aria2', { uri: rpcUri, secret: 'nope' }, { token });
    assert.equal(wrong.status, 400);
    assert.match(wrong.body.message, /Unauthorized.*secret/i);
    assert.deepEqual((await h().get('/api/public/offline_download_tools')).body.data, ['SimpleHttp']);
    const good = await h().post('/api/admin/setting/set_aria2', { uri: rpcUri, secret: SECRET }, { token });
    assert.equal(good.status, 200, good.body.message);
    assert.match(good.body.data, /^\d+\.\d+\.\d+/);
    assert.deepEqual((await h().get('/api/public/offline_download_tools')).body.data, ['SimpleHttp', 'aria2']);
  });

  test('magnet → the files land in the target (nested folder and empty file), aria2\'s copy is deleted on success', async () => {
    const r = await add({ urls: [magnetOf(albumHash, 'album')], path: '/dl-magnet', tool: 'aria2', delete_policy: 'delete_on_upload_succeed' });
    assert.equal(r.status, 200, r.body.message);
    assert.equal(r.body.data.tasks.length, 1);
    const t = r.body.data.tasks[0];
    assert.equal(t.name, `download ${magnetOf(albumHash, 'album')} to (/dl-magnet)`);
    const done = await settledTask(h(), token, t.id, 'offline_download', 90_000);
    assert.equal(done.state, 2, done.error);
    const tr = await settledTransfer(h(), token, '/dl-magnet');
    assert.equal(tr.state, 2, tr.error);
    assertAlbumAt(h(), 'dl-magnet');
    assert.ok(!existsSync(join(workDir(h()), t.id)), 'aria2\'s folder is gone');
    // landed through the normal write path: the hash index knows the file
    const got = await h().post('/api/fs/get', { path: '/dl-magnet/album/a.bin' }, { token });
    assert.equal(got.status, 200);
    assert.equal(got.body.data.size, ALBUM['a.bin']!.length);
  });

  test('a stored .torrent → same, and delete_never keeps aria2\'s copy', async () => {
    await putIndexed(h(), '/torrents/album.torrent', albumTorrent);
    const r = await add({ urls: ['/torrents/album.torrent'], path: '/dl-torrent', tool: 'aria2', delete_policy: 'delete_never' });
    assert.equal(r.status, 200, r.body.message);
    const t = r.body.data.tasks[0];
    const done = await settledTask(h(), token, t.id, 'offline_download', 90_000);
    assert.equal(done.state, 2, done.error);
    const tr = await settledTransfer(h(), token, '/dl-torrent');
    assert.equal(tr.state, 2, tr.error);
    assertAlbumAt(h(), 'dl-torrent');
    assert.ok(readFileSync(join(workDir(h()), t.id, 'album', 'a.bin')).equals(ALBUM['a.bin']!), 'aria2\'s copy kept');
  });

  test('an uploaded .torrent (a data: URL, what a browser FileReader gives) → same; its task names its info hash', async () => {
    const r = await add({ urls: [`data:application/x-bittorrent;base64,${albumTorrent.toString('base64')}`], path: '/dl-uploaded', tool: 'aria2' });
    assert.equal(r.status, 200, r.body.message);
    const t = r.body.data.tasks[0];
    assert.match(t.name, new RegExp(`an uploaded \\.torrent \\(${albumHash}\\)`));
    const done = await settledTask(h(), token, t.id, 'offline_download', 90_000);
    assert.equal(done.state, 2, done.error);
    const tr = await settledTransfer(h(), token, '/dl-uploaded');
    assert.equal(tr.state, 2, tr.error);
    assertAlbumAt(h(), 'dl-uploaded');
  });

  test('cancel mid-way: aria2 forgets the download, its folder is deleted, nothing lands', async () => {
    const r = await add({ urls: [magnetOf(bigHash, 'big')], path: '/dl-cancel', tool: 'aria2' });
    assert.equal(r.status, 200, r.body.message);
    const tid = r.body.data.tasks[0].id as string;
    await until(async () => {
      const i = await h().get(`/api/task/offline_download/info?tid=${tid}`, { token });
      assert.ok(i.body.data.state < 2, `the big download ended early: ${i.body.data.state} ${i.body.data.error}`);
      return i.body.data.progress > 0 && i.body.data.progress < 100;
    }, 60_000, 'some bytes of the big file');
    assert.equal((await h().post(`/api/task/offline_download/cancel?tid=${tid}`, undefined, { token })).status, 200);
    const end = await settledTask(h(), token, tid, 'offline_download');
    assert.equal(end.state, 4);
    const known = [...(await aria2.call<{ dir: string }[]>('aria2.tellActive', [['dir']])), ...(await aria2.call<{ dir: string }[]>('aria2.tellStopped', [0, 100, ['dir']]))];
    assert.ok(!known.some((d) => d.dir.startsWith(join(workDir(h()), tid))), 'aria2 no longer lists it');
    assert.ok(!existsSync(join(workDir(h()), tid)));
    assert.ok(!existsSync(join(filesDir(h()), 'dl-cancel', 'big')), 'nothing landed');
    const transfers = await h().get('/api/task/offline_download_transfer/undone', { token });
    assert.ok(!(transfers.body.data as { name: string }[]).some((x) => x.name.includes('/dl-cancel')));
  });

  test('a download that makes no progress (nobody has the torrent) fails after offline_stall_timeout: aria2 drops it, nothing lands', async () => {
    await setSettings(h(), token, { offline_stall_timeout: '2' });
    try {
      const r = await add({ urls: [magnetOf('5'.repeat(40), 'nobody')], path: '/dl-stalled', tool: 'aria2' });
      assert.equal(r.status, 200, r.body.message);
      const tid = r.body.data.tasks[0].id as string;
      const end = await settledTask(h(), token, tid, 'offline_download', 30_000);
      assert.equal(end.state, 7, `failed: ${end.status}`);
      assert.match(end.error, /aria2: no progress for 2 s/);
      const known = [...(await aria2.call<{ dir: string }[]>('aria2.tellActive', [['dir']])), ...(await aria2.call<{ dir: string }[]>('aria2.tellStopped', [0, 100, ['dir']]))];
      assert.ok(!known.some((d) => d.dir.startsWith(join(workDir(h()), tid))), 'aria2 no longer lists it');
      assert.ok(!existsSync(join(workDir(h()), tid)));
      assert.ok(!existsSync(join(filesDir(h()), 'dl-stalled', 'nobody')), 'nothing landed');
    } finally {
      await setSettings(h(), token, { offline_stall_timeout: '1800' });
    }
  });

  test('offline_download of a torrent-only seed hands it to aria2; every file lands at <path>/<seed path>, checked against the seed; quick_save copies what Ferry holds', async () => {
    assert.ok(decodeTorrent(albumTorrent).seed.files.some((f) => f.hashes.sha256), 'whole digests to check');
    await seedDownloadLands(h(), token, swarm, '/dl-seed');
    // the content is on a storage now: quick_save copies it (rapid upload), no tool involved
    assert.equal((await h().post('/api/fs/mkdir', { path: '/dl-quick' }, { token })).status, 200);
    const q = await h().post('/api/fs/seed/quick_save', { seed_data: albumTorrent.toString('base64'), path: '/dl-quick' }, { token });
    assert.deepEqual((q.body.data.results as { method: string }[]).map((x) => x.method), Object.keys(ALBUM).map(() => 'rapid_upload'));
  });

  test('a seeder serving corrupted pieces: aria2 drops them and fetches them again from the good seeder; the file lands with the right bytes', async () => {
    await corruptedSeederRefetched(h(), token, swarm, 'aria2', '/dl-corrupt');
  });

  test('a seed whose digests disagree with what the swarm serves: the transfer fails naming the file, nothing wrong lands', async () => {
    const decoded = decodeTorrent(albumTorrent);
    const seed = structuredClone(decoded.seed);
    const bad = seed.files.find((f) => f.path === 'a.bin')!;
    bad.hashes.sha256 = 'f'.repeat(64);
    const forged = encodeTorrent(seed, { pieces: decoded.piece_stream, layout: 'multi' });
    assert.equal(decodeTorrent(forged).info_hash, albumHash, 'same swarm');
    assert.equal((await h().post('/api/fs/mkdir', { path: '/dl-forged' }, { token })).status, 200);
    const r = await h().post('/api/fs/seed/offline_download', { seed_data: forged.toString('base64'), path: '/dl-forged', files: ['a.bin', 'z.txt'] }, { token });
    assert.equal(r.status, 200, r.body.message);
    const tid = r.body.data.results[0].task.id as string;
    assert.equal((await settledTask(h(), token, tid, 'offline_download', 90_000)).state, 2);
    const tr = await settledTransfer(h(), token, '/dl-forged');
    assert.equal(tr.state, 7);
    assert.match(tr.error, /a\.bin|sha256|hash/i);
    assert.ok(!existsSync(join(filesDir(h()), 'dl-forged', 'a.bin')), 'the mismatching file did not land');
  });

  test('malformed magnets, wrong tools and URLs to loopback/private addresses are refused before any task or tool', async () => {
    const bad = [
      'magnet:?dn=nothing',
      'magnet:?xt=urn:btih:1234',
      'magnet:?xt=urn:btih:zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz',
      'magnet:?xt=urn:sha1:' + 'a'.repeat(40),
      `magnet:?xt=urn:btih:${albumHash}&tr=file:///etc/passwd`,
      `magnet:?xt=urn:btih:${albumHash}&tr=%zz`,
      `magnet:xt=urn:btih:${albumHash}`,
    ];
    for (const m of bad) {
      const r = await add({ urls: [m], path: '/dl-bad', tool: 'aria2' });
      assert.equal(r.status, 400, m);
      assert.match(r.body.message, /urls\[0\]: malformed magnet link/, m);
    }
    for (const url of ['http://127.0.0.1:9/x.bin', 'http://10.1.2.3/x.bin', 'http://[::1]/x', 'http://169.254.169.254/latest/meta-data/', 'http://192.168.0.1/a']) {
      const r = await add({ urls: [url], path: '/dl-bad', tool: 'SimpleHttp' });
      assert.equal(r.status, 400, url);
      assert.match(r.body.message, /refused: .* (loopback|private|cloud metadata|link-local)/, `${url}: ${r.body.message}`);
    }
    assert.match((await add({ urls: ['http://example.invalid/x'], path: '/dl-bad', tool: 'aria2' })).body.message, /SimpleHttp/);
    assert.match((await add({ urls: [magnetOf(albumHash, 'a')], path: '/dl-bad', tool: 'SimpleHttp' })).body.message, /SimpleHttp fetches http\(s\) URLs only/);
    assert.equal((await add({ urls: [magnetOf(albumHash, 'a')], path: '/dl-bad', tool: 'qBittorrent' })).status, 400);
    assert.equal((await add({ urls: [magnetOf(albumHash, 'a')], path: '/dl-bad', tool: 'aria2', delete_policy: 'sometimes' })).status, 400);
    await putIndexed(h(), '/torrents/bomb.torrent', Buffer.from('d4:infod4:name1:x12:piece lengthi16384e6:pieces20:' + 'x'.repeat(20) + '6:lengthi999999999999eeee'));
    const bomb = await add({ urls: ['/torrents/bomb.torrent'], path: '/dl-bad', tool: 'aria2' });
    assert.equal(bomb.status, 400);
    assert.match(bomb.body.message, /not a usable torrent/);
    // the same bomb uploaded, and data: URLs that are not an uploaded .torrent
    const bombData = `data:application/x-bittorrent;base64,${readFileSync(join(filesDir(h()), 'torrents/bomb.torrent')).toString('base64')}`;
    const upBomb = await add({ urls: [bombData], path: '/dl-bad', tool: 'aria2' });
    assert.equal(upBomb.status, 400);
    assert.match(upBomb.body.message, /urls\[0\]: the uploaded \.torrent is not a usable torrent/);
    for (const [url, why] of [['data:text/html;base64,PHNjcmlwdD4=', /must be data:application\/x-bittorrent;base64/], ['data:application/x-bittorrent;base64,***', /not valid base64/], ['data:application/x-bittorrent,d4:infoe', /must be data:application\/x-bittorrent;base64/]] as const) {
      const bad = await add({ urls: [url], path: '/dl-bad', tool: 'aria2' });
      assert.equal(bad.status, 400, url);
      assert.match(bad.body.message, why, url);
    }
    const tasks = await h().get('/api/task/offline_download/undone', { token });
    assert.ok(!(tasks.body.data as { name: string }[]).some((x) => x.name.includes('/dl-bad')));
  });

  test('bit 2 is needed (403 before the body is read), and write access to the path', async () => {
    await h().createUser('nodl', 'nodl-pass-1', { permission: 1 << 3 });
    const tok = await h().login('nodl', 'nodl-pass-1');
    const r = await add({ urls: [magnetOf(albumHash, 'a')], path: '/x', tool: 'aria2' }, tok);
    assert.equal(r.status, 403);
    await h().createUser('noww', 'noww-pass-1', { permission: 1 << 2 });
    const tok2 = await h().login('noww', 'noww-pass-1');
    assert.equal((await add({ urls: [magnetOf(albumHash, 'a')], path: '/x', tool: 'aria2' }, tok2)).status, 403);
  });
});

forEachDialect('offline downloads with SimpleHttp', (h) => {
  let token: string;
  let source: Listener;
  before(async () => {
    token = await h().adminToken();
    source = await listen();
    source.routes.set('/files/report.pdf', { body: bytes(50_000, 5), headers: { 'content-type': 'application/pdf' } });
  });
  after(() => source.close());

  test('a trusted loopback host: the URL lands through the normal write path; untrusted it is refused and never contacted', async () => {
    const before = source.hits.length;
    const refused = await h().post('/api/fs/add_offline_download', { urls: [`${source.url}/files/report.pdf`], path: '/dl-http', tool: 'SimpleHttp' }, { token });
    assert.equal(refused.status, 400);
    assert.equal(source.hits.length, before, 'nothing was sent to it');
    await setSettings(h(), token, { seed_trusted_source_hosts: source.host });
    const r = await h().post('/api/fs/add_offline_download', { urls: [`${source.url}/files/report.pdf`], path: '/dl-http', tool: 'SimpleHttp' }, { token });
    assert.equal(r.status, 200, r.body.message);
    const done = await settledTask(h(), token, r.body.data.tasks[0].id);
    assert.equal(done.state, 2, done.error);
    assert.ok(readFileSync(join(filesDir(h()), 'dl-http', 'report.pdf')).equals(bytes(50_000, 5)));
    assert.deepEqual(readdirSync(join(filesDir(h()), 'dl-http')), ['report.pdf']);
    assert.equal(statSync(join(filesDir(h()), 'dl-http', 'report.pdf')).size, 50_000);
  });
});
