/**
 * Offline downloads through aria2 in the local swarm, the parts of #22 the other suites leave out: a tool that is
 * down (a clear task error, nothing lands; retry once it is back lands the files; delete removes the task),
 * `delete_on_upload_failed` and the default policy when the transfer fails, plain http(s) through a tool
 * (`offline_http_via_tool`: loopback/private URLs still refused before the tool sees them), and `.torrent` bombs
 * refused by the hardened parser before any tool sees them; an `.oss` seed with the torrent's SHA-1 pieces handed to
 * the tool as that torrent; sidecars written by the transfer when the storage's seed policy says so.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { forEachDialect } from '../support/harness.js';
import { bytes, filesDir, putIndexed, setSettings } from '../seeds-generate/helpers.js';
import { listen, settledTask, type Listener } from '../seeds-ops/transfer-helpers.js';
import { seedOk } from '../seeds-peers/peers.js';
import { encodeBencode } from '../../src/modules/seeds/formats/bencode.js';
import { MAX_SEED_DOC_BYTES, decodeAny } from '../../src/modules/seeds/formats/index.js';
import { assertFilesAt, offlineDownloadDone, settledTransfer } from './offline-helpers.js';
import { aria2Rpc, freePort, startAria2, startSwarm, until, type Proc, type Swarm } from './swarm.js';
import type { Aria2 } from '../../src/modules/offline/tools/aria2.js';

const SECRET = 'tasks-secret';

let swarm: Swarm;
before(async () => {
  swarm = await startSwarm(bytes, seedOk);
});
after(() => swarm.stop());

forEachDialect('offline download tasks through aria2', (h) => {
  let token: string;
  let aria2: { proc: Proc; uri: string; client: Aria2 };
  const add = (body: Record<string, unknown>) => h().post('/api/fs/add_offline_download', body, { token });
  const work = (tid: string) => join(h().dataDir, 'offline', tid);
  /** Every download aria2 knows (any state), by folder. */
  const aria2Dirs = async () => {
    const lists = await Promise.all([
      aria2.client.call<{ dir: string }[]>('aria2.tellActive', [['dir']]),
      aria2.client.call<{ dir: string }[]>('aria2.tellWaiting', [0, 1000, ['dir']]),
      aria2.client.call<{ dir: string }[]>('aria2.tellStopped', [0, 1000, ['dir']]),
    ]);
    return lists.flat().map((d) => d.dir);
  };

  before(async () => {
    token = await h().adminToken();
    await setSettings(h(), token, { seed_trusted_source_hosts: swarm.trustedHosts });
    aria2 = await startAria2(swarm, SECRET);
    const r = await h().post('/api/admin/setting/set_aria2', { uri: aria2.uri, secret: SECRET }, { token });
    assert.equal(r.status, 200, r.body.message);
  });
  after(() => aria2.proc.stop());

  test('aria2 down: the task fails saying aria2 cannot be reached, nothing lands; back up, retry lands the album; delete removes the task', async () => {
    await aria2.proc.stop();
    const r = await add({ urls: [swarm.magnet(swarm.album.hash, 'album')], path: '/dl-down', tool: 'aria2' });
    assert.equal(r.status, 200, r.body.message);
    const tid = r.body.data.tasks[0].id as string;
    const failed = await settledTask(h(), token, tid, 'offline_download', 60_000);
    assert.equal(failed.state, 7, `failed, not ${failed.state}`);
    assert.match(failed.error, /aria2 at http:\/\/127\.0\.0\.1:\d+\/jsonrpc cannot be reached/);
    assert.ok(!existsSync(join(filesDir(h()), 'dl-down', 'album')), 'nothing landed');
    assert.ok(!existsSync(work(tid)), 'no folder of the failed attempt');

    const port = Number(new URL(aria2.uri).port);
    aria2.proc = aria2Rpc(port, SECRET, await freePort(), join(swarm.root, 'aria2-default'));
    await until(() => aria2.client.version().catch(() => null), 15_000, 'aria2 back up');
    assert.equal((await h().post(`/api/task/offline_download/retry?tid=${tid}`, undefined, { token })).status, 200);
    const done = await settledTask(h(), token, tid, 'offline_download', 90_000);
    assert.equal(done.state, 2, done.error);
    const tr = await settledTransfer(h(), token, '/dl-down');
    assert.equal(tr.state, 2, tr.error);
    assertFilesAt(h(), 'dl-down/album', swarm.album.files);

    assert.equal((await h().post(`/api/task/offline_download/delete?tid=${tid}`, undefined, { token })).status, 200);
    const listed = [...(await h().get('/api/task/offline_download/done', { token })).body.data, ...(await h().get('/api/task/offline_download/undone', { token })).body.data] as { id: string }[];
    assert.ok(!listed.some((t) => t.id === tid), 'the deleted task is gone');
    assert.equal((await h().get(`/api/task/offline_download/info?tid=${tid}`, { token })).status, 404);
  });

  test('a transfer that fails (a file stands where the album folder goes): nothing of the album lands; delete_on_upload_failed deletes aria2\'s copy, the default keeps it', async () => {
    for (const [dir, policy, kept] of [['/dl-fail-del', 'delete_on_upload_failed', false], ['/dl-fail-keep', undefined, true]] as const) {
      await putIndexed(h(), `${dir}/album`, Buffer.from('in the way\n'));
      const r = await add({ urls: [swarm.magnet(swarm.album.hash, 'album')], path: dir, tool: 'aria2', ...(policy ? { delete_policy: policy } : {}) });
      assert.equal(r.status, 200, r.body.message);
      const tid = r.body.data.tasks[0].id as string;
      assert.equal((await settledTask(h(), token, tid, 'offline_download', 90_000)).state, 2);
      const tr = await settledTransfer(h(), token, dir);
      assert.equal(tr.state, 7, `the transfer fails (${tr.state})`);
      assert.match(tr.error, /album/);
      const inTheWay = join(filesDir(h()), dir.slice(1), 'album');
      assert.ok(statSync(inTheWay).isFile() && readFileSync(inTheWay, 'utf8') === 'in the way\n', 'what stood there is untouched');
      assert.equal(existsSync(join(work(tid), 'album', 'a.bin')), kept, `${policy ?? 'the default policy'}: aria2's copy ${kept ? 'kept' : 'deleted'}`);
    }
  });

  test('plain http(s) goes to aria2 only when offline_http_via_tool is on; loopback/private URLs are refused before aria2 sees them; a trusted host lands', async () => {
    let source: Listener | undefined;
    try {
      source = await listen();
      source.routes.set('/files/notes.bin', { body: bytes(70_000, 9) });
      const url = `${source.url}/files/notes.bin`;
      const off = await add({ urls: [url], path: '/dl-http', tool: 'aria2' });
      assert.equal(off.status, 400);
      assert.match(off.body.message, /urls\[0\]: plain http\(s\) URLs are fetched by SimpleHttp/);
      await setSettings(h(), token, { offline_http_via_tool: 'true' });
      const known = (await aria2Dirs()).length;
      for (const u of [url, 'http://10.1.2.3/x.bin', 'http://[::1]/x', 'http://169.254.169.254/latest/meta-data/', 'http://192.168.0.1/a']) {
        const r = await add({ urls: [u], path: '/dl-http', tool: 'aria2' });
        assert.equal(r.status, 400, u);
        assert.match(r.body.message, /^urls\[0\]: refused: .*(loopback|private|cloud metadata|link-local)/, `${u}: ${r.body.message}`);
      }
      assert.equal(source.hits.length, 0, 'nothing was sent to the loopback source');
      assert.equal((await aria2Dirs()).length, known, 'aria2 was handed nothing');
      const undone = (await h().get('/api/task/offline_download/undone', { token })).body.data as { name: string }[];
      assert.ok(!undone.some((t) => t.name.includes('/dl-http')), 'no task');

      await setSettings(h(), token, { seed_trusted_source_hosts: `${swarm.trustedHosts}${source.host}` });
      await offlineDownloadDone(h(), token, { urls: [url], path: '/dl-http', tool: 'aria2' }, 60_000);
      assertFilesAt(h(), 'dl-http', { 'notes.bin': bytes(70_000, 9) });
      assert.ok(source.hits.some((x) => x.path === '/files/notes.bin'), 'aria2 fetched it');
    } finally {
      await setSettings(h(), token, { offline_http_via_tool: 'false', seed_trusted_source_hosts: swarm.trustedHosts });
      await source?.close();
    }
  });

  test('an .oss of a piece-aligned torrent (its SHA-1 pieces, no http source) is handed to aria2 as that torrent: the file lands, checked against the seed', async () => {
    // `odd` holds one 400 KiB file: its pieces are the file's own (the album's files are not piece-aligned: an .oss cannot carry its pieces)
    const conv = await h().post('/api/fs/seed/convert', { seed_data: swarm.odd.torrent.toString('base64'), target_format: 'oss' }, { token });
    assert.equal(conv.status, 200, conv.body.message);
    const oss = conv.body.data.seed_data as string;
    assert.ok(!Buffer.from(oss, 'base64').subarray(0, 1).equals(Buffer.from('d')), 'an .oss, not a torrent');
    assert.equal((await h().post('/api/fs/mkdir', { path: '/dl-oss' }, { token })).status, 200);
    const r = await h().post('/api/fs/seed/offline_download', { seed_data: oss, path: '/dl-oss' }, { token });
    assert.equal(r.status, 200, r.body.message);
    const results = r.body.data.results as { path: string; method: string; task?: { id: string; name: string }; error?: string }[];
    assert.equal(results.length, 1);
    assert.equal(results[0]!.method, 'offline_download', results[0]!.error);
    assert.match(results[0]!.task!.name, new RegExp(`btih:${swarm.odd.hash}`), 'the swarm of the original torrent');
    const done = await settledTask(h(), token, results[0]!.task!.id, 'offline_download', 90_000);
    assert.equal(done.state, 2, done.error);
    const tr = await settledTransfer(h(), token, '/dl-oss');
    assert.equal(tr.state, 2, tr.error);
    assertFilesAt(h(), 'dl-oss', { 'odd.bin': swarm.odd.data });
  });

  test('the transfer writes sidecars beside the landed files when the storage\'s seed policy says so', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ferry-offline-sidecars-'));
    try {
      const m = await h().post('/api/admin/storage/create', { mount_path: '/sc', driver: 'local', seed_policy: 'on', addition: { root_folder_path: root } }, { token });
      assert.equal(m.status, 200, m.body.message);
      await setSettings(h(), token, { seed_format_policies: JSON.stringify({ oss: 'on', torrent: 'off', cas: 'off' }) });
      await offlineDownloadDone(h(), token, { urls: [swarm.magnet(swarm.album.hash, 'album')], path: '/sc/dl', tool: 'aria2' });
      for (const [p, data] of Object.entries(swarm.album.files)) {
        const abs = join(root, 'dl', 'album', ...p.split('/'));
        assert.ok(readFileSync(abs).equals(data), `${p} landed`);
        if (data.length === 0) continue;
        const side = decodeAny(readFileSync(`${abs}.oss`), { format: 'oss' }).seed;
        assert.equal(side.files[0]!.size, data.length, `${p}.oss describes it`);
        assert.ok(!existsSync(`${abs}.torrent`) && !existsSync(`${abs}.cas`), 'only the formats the policy turns on');
      }
    } finally {
      await setSettings(h(), token, { seed_format_policies: JSON.stringify({ oss: 'off', torrent: 'off', cas: 'off' }) });
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('.torrent bombs and oversized or malformed torrents are refused by the hardened parser before any task or tool', async () => {
    const piece = Buffer.alloc(20, 1);
    const single = (info: Record<string, unknown>) => encodeBencode({ announce: swarm.trackerUrl, info: { name: 'x', 'piece length': 16384, pieces: piece, length: 10, ...info } as never });
    const bombs: Record<string, Buffer> = {
      'not-bencode': Buffer.from('this is not a torrent at all'),
      nested: Buffer.from(`d4:info${'l'.repeat(200_000)}${'e'.repeat(200_000)}e`),
      traversal: encodeBencode({ info: { name: 'x', 'piece length': 16384, pieces: piece, files: [{ length: 10, path: ['..', '..', 'etc', 'passwd'] }] } as never }),
      'short-pieces': single({ pieces: Buffer.alloc(19, 1) }),
      'pieces-mismatch': single({ length: 16384 * 5 }),
      negative: single({ length: -5 }),
      'huge-length': single({ length: 999_999_999_999 }),
      'no-info': encodeBencode({ announce: swarm.trackerUrl }),
    };
    const known = (await aria2Dirs()).length;
    for (const [name, data] of Object.entries(bombs)) {
      await putIndexed(h(), `/bombs/${name}.torrent`, data);
      const r = await add({ urls: [`/bombs/${name}.torrent`], path: '/dl-bombs', tool: 'aria2' });
      assert.equal(r.status, 400, `${name}: ${r.body.message}`);
      assert.match(r.body.message, new RegExp(`^urls\\[0\\]: /bombs/${name}\\.torrent is not a usable torrent: .+`), name);
    }
    await putIndexed(h(), '/bombs/large.torrent', Buffer.concat([swarm.album.torrent, Buffer.alloc(MAX_SEED_DOC_BYTES)]));
    const large = await add({ urls: ['/bombs/large.torrent'], path: '/dl-bombs', tool: 'aria2' });
    assert.equal(large.status, 400);
    assert.match(large.body.message, /is larger than \d+ bytes/);
    await putIndexed(h(), '/bombs/album.torrent', swarm.album.torrent);
    await setSettings(h(), token, { seed_max_files: '2' });
    try {
      const many = await add({ urls: ['/bombs/album.torrent'], path: '/dl-bombs', tool: 'aria2' });
      assert.equal(many.status, 400);
      assert.match(many.body.message, /not a usable torrent: .*(files|2)/);
    } finally {
      await setSettings(h(), token, { seed_max_files: '100000' });
    }
    assert.equal((await aria2Dirs()).length, known, 'aria2 was handed nothing');
    const undone = (await h().get('/api/task/offline_download/undone', { token })).body.data as { name: string }[];
    assert.ok(!undone.some((t) => t.name.includes('/dl-bombs')), 'no task');
    assert.ok(!existsSync(join(filesDir(h()), 'dl-bombs')), 'nothing landed');
  });
});
