/**
 * Issue #22: the SSRF rules (contract §10.5) hold for the URLs INSIDE a magnet or a `.torrent`, not only for plain
 * http(s) sources. Trackers (http, https, udp, ws), web seeds, metainfo sources and peers (`x.pe`, DHT `nodes`)
 * that are or resolve to loopback, private, link-local or metadata addresses answer a 400 naming the entry and the
 * URL, before any task exists and before aria2 is handed anything — for magnets, uploaded torrents (data: URLs),
 * stored torrents and the torrents seed operations hand to the tool. An entry whose host does not resolve is left
 * out of what aria2 gets (the response's `warnings` and the task's status say so; a torrent keeps its info hash),
 * and a magnet or torrent left with nothing is refused. The swarm's loopback tracker, once trusted (`seed_trusted_source_hosts`), is
 * accepted and the album lands; a canceled download retried after the admin removed the trust fails at its run,
 * refused, and aria2 never gets it.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { forEachDialect } from '../support/harness.js';
import { filesDir, putIndexed, setSettings } from '../seeds-generate/helpers.js';
import { settledTask } from '../seeds-ops/transfer-helpers.js';
import { decodeBencode, encodeBencode, isBencodeDict, type BencodeInput } from '../../src/modules/seeds/formats/index.js';
import { assertFilesAt, offlineDownloadDone } from './offline-helpers.js';
import { swarmWithAria2 } from './swarm-aria2.js';
import { until } from './swarm.js';

const SECRET = 'ssrf-inner-secret';
const { swarm, aria2 } = swarmWithAria2(SECRET);

/** The album's torrent with its root keys (outside `info`) replaced by `root` (undefined: key removed). */
function albumWith(root: Record<string, BencodeInput | undefined>, base = swarm().album.torrent): Buffer {
  const value = decodeBencode(base).value;
  assert.ok(isBencodeDict(value));
  const out = new Map<string, BencodeInput | undefined>(value);
  for (const [k, v] of Object.entries(root)) out.set(k, v);
  return encodeBencode(out);
}

const bigWith = (root: Record<string, BencodeInput | undefined>) => albumWith(root, swarm().big.torrent);
const dataUrl = (t: Buffer) => `data:application/x-bittorrent;base64,${t.toString('base64')}`;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

forEachDialect('SSRF rules for the URLs inside magnets and torrents', (h) => {
  let token: string;
  const add = (urls: string[], path: string) => h().post('/api/fs/add_offline_download', { urls, path, tool: 'aria2' }, { token });
  /** Every download aria2 knows, in any state. */
  const aria2Holds = async () => {
    const c = aria2().client;
    const lists = await Promise.all([c.call<{ dir: string }[]>('aria2.tellActive', [['dir']]), c.call<{ dir: string }[]>('aria2.tellWaiting', [0, 1000, ['dir']]), c.call<{ dir: string }[]>('aria2.tellStopped', [0, 1000, ['dir']])]);
    return lists.flat().map((d) => d.dir);
  };
  const tasksTo = async (dir: string) => {
    const all = [...(await h().get('/api/task/offline_download/undone', { token })).body.data, ...(await h().get('/api/task/offline_download/done', { token })).body.data] as { name: string }[];
    return all.filter((t) => t.name.endsWith(`to (${dir})`));
  };
  /** Each entry answers 400 with a message matching its pattern; no task to `dir`, aria2 is handed nothing. */
  const refusedAll = async (cases: [string, RegExp][], dir: string) => {
    const held = (await aria2Holds()).length;
    for (const [url, why] of cases) {
      const r = await add(['', url], dir);
      assert.equal(r.status, 400, `${url.slice(0, 120)}: ${r.body.message}`);
      assert.match(r.body.message, why, url.slice(0, 120));
    }
    assert.deepEqual(await tasksTo(dir), [], 'no task');
    assert.equal((await aria2Holds()).length, held, 'aria2 was handed nothing');
  };

  before(async () => {
    token = await h().adminToken();
    await setSettings(h(), token, { seed_trusted_source_hosts: '' });
    const r = await h().post('/api/admin/setting/set_aria2', { uri: aria2().uri, secret: SECRET }, { token });
    assert.equal(r.status, 200, r.body.message);
  });

  test('magnets: private, loopback, link-local and metadata trackers, web seeds, sources and peers are refused naming the entry', async () => {
    const hash = swarm().album.hash;
    const m = (extra: string) => `magnet:?xt=urn:btih:${hash}&dn=album&${extra}`;
    const tracker = swarm().trackerUrl;
    await refusedAll([
      [m(`tr=${encodeURIComponent(tracker)}`), new RegExp(`^urls\\[1\\]: tracker ${escape(tracker)}: refused: 127\\.0\\.0\\.1:\\d+ resolves to a loopback address .*seed_trusted_source_hosts`)],
      [m('tr=udp%3A%2F%2F%5B%3A%3A1%5D%3A6969%2Fannounce'), /^urls\[1\]: tracker udp:\/\/\[::1\]:6969\/announce: refused: .*loopback address \(::1\)/],
      [m('tr=ws://192.168.7.7:8000/announce'), /^urls\[1\]: tracker ws:\/\/192\.168\.7\.7:8000\/announce: refused: .*private address/],
      [m('tr=http://[::ffff:127.0.0.1]:6969/announce'), /^urls\[1\]: tracker .*: refused: .*loopback address/],
      [m('tr.1=http://2130706433:6969/announce'), /^urls\[1\]: tracker .*: refused: .*loopback address \(127\.0\.0\.1\)/],
      [m('ws=http://169.254.169.254/latest/meta-data/'), /^urls\[1\]: web seed http:\/\/169\.254\.169\.254\/latest\/meta-data\/: refused: .*cloud metadata address/],
      [m('xs=http://10.0.0.1/album.torrent'), /^urls\[1\]: metainfo source http:\/\/10\.0\.0\.1\/album\.torrent: refused: .*private address/],
      [m('as=https://[fe80::1]/album.torrent'), /^urls\[1\]: metainfo source https:\/\/\[fe80::1\]\/album\.torrent: refused: .*link-local address/],
      [m('x.pe=10.0.0.1:6881'), /^urls\[1\]: peer 10\.0\.0\.1:6881: refused: 10\.0\.0\.1:6881 resolves to a private address/],
      [m('x.pe=[::1]:6881'), /^urls\[1\]: peer \[::1\]:6881: refused: .*loopback address/],
      [m('x.pe=10.0.0.1'), /^urls\[1\]: peer 10\.0\.0\.1: is not host:port/],
      [m('tr=http://user@93.184.216.34/announce'), /^urls\[1\]: tracker .*: carries credentials/],
      // a public tracker first does not hide a private one after it
      [m('tr=http://93.184.216.34/announce&tr=udp://10.9.8.7:80'), /^urls\[1\]: tracker udp:\/\/10\.9\.8\.7:80: refused: .*private address/],
      // more than 200 distinct addresses: refused before any is resolved
      [m(Array.from({ length: 201 }, (_, i) => `tr=http://t${i}.ferry-test.invalid/a`).join('&')), /^urls\[1\]: names 201 trackers, web seeds and peers \(at most 200\)/],
    ], '/dl-magnet-refused');
  });

  test('uploaded and stored .torrent files: a private announce, a private entry in announce-list only, private url-list, httpseeds or DHT nodes are refused', async () => {
    await setSettings(h(), token, { seed_trusted_source_hosts: swarm().trustedHosts });
    const tracker = swarm().trackerUrl;
    const variants: [string, Buffer, RegExp][] = [
      ['announce', albumWith({ announce: 'http://10.1.1.1:6969/announce', 'announce-list': undefined }), /tracker http:\/\/10\.1\.1\.1:6969\/announce: refused: .*private address/],
      ['announce-list', albumWith({ announce: tracker, 'announce-list': [[tracker], ['udp://192.168.1.10:6969/announce']] }), /tracker udp:\/\/192\.168\.1\.10:6969\/announce: refused: .*private address/],
      ['url-list', albumWith({ 'url-list': ['http://[fd00::1]/seed/'] }), /web seed http:\/\/\[fd00::1\]\/seed\/: refused: .*private \(unique local\) address/],
      ['url-list (one string)', albumWith({ 'url-list': 'http://127.0.0.1:9/seed/' }), /web seed http:\/\/127\.0\.0\.1:9\/seed\/: refused: .*loopback address/],
      ['httpseeds', albumWith({ httpseeds: ['http://169.254.169.254/seed'] }), /web seed http:\/\/169\.254\.169\.254\/seed: refused: .*cloud metadata address/],
      ['nodes', albumWith({ nodes: [['127.0.0.1', 6881]] }), /DHT node 127\.0\.0\.1:6881: refused: .*loopback address/],
    ];
    const cases: [string, RegExp][] = [];
    for (const [name, t, why] of variants) {
      cases.push([dataUrl(t), new RegExp(`^urls\\[1\\]: ${why.source}`)]);
      await putIndexed(h(), `/torrents/${name.replace(/\W+/g, '-')}.torrent`, t);
      cases.push([`/torrents/${name.replace(/\W+/g, '-')}.torrent`, new RegExp(`^urls\\[1\\]: ${why.source}`)]);
    }
    await refusedAll(cases, '/dl-torrent-refused');
  });

  test('a seed operation handing a torrent with a private tracker to the tool: unavailable with the reason, no task', async () => {
    await setSettings(h(), token, { seed_trusted_source_hosts: swarm().trustedHosts });
    const held = (await aria2Holds()).length;
    assert.equal((await h().post('/api/fs/mkdir', { path: '/dl-seed-refused' }, { token })).status, 200);
    const t = albumWith({ 'announce-list': [[swarm().trackerUrl], ['http://10.2.3.4/announce']] });
    const r = await h().post('/api/fs/seed/offline_download', { seed_data: t.toString('base64'), path: '/dl-seed-refused' }, { token });
    assert.equal(r.status, 200, r.body.message);
    const results = r.body.data.results as { method: string; task?: unknown; error?: string }[];
    assert.ok(results.length > 0);
    for (const x of results) {
      assert.equal(x.method, 'unavailable', JSON.stringify(x));
      assert.equal(x.task, undefined);
      assert.match(x.error ?? '', /BitTorrent: torrent: tracker http:\/\/10\.2\.3\.4\/announce: refused: .*private address/);
    }
    assert.deepEqual(await tasksTo('/dl-seed-refused'), [], 'no task');
    assert.equal((await aria2Holds()).length, held, 'aria2 was handed nothing');
  });

  test('trackers, web seeds and peers whose hosts do not resolve are left out of what aria2 gets, and the API and the task say so; a torrent keeps its info hash; when nothing else is left: refused', async () => {
    await setSettings(h(), token, { seed_trusted_source_hosts: swarm().trustedHosts });
    const gone = 'http://tracker.ferry-test.invalid/announce';
    const goneSeed = 'http://seed.ferry-test.invalid/x/';
    const enc = encodeURIComponent;
    // everything it names is unreachable: refused, no task
    await refusedAll([
      [`magnet:?xt=urn:btih:${swarm().album.hash}&tr=${enc(gone)}`, /^urls\[1\]: none of the trackers, web seeds and peers it names can be reached \(tracker http:\/\/tracker\.ferry-test\.invalid\/announce: cannot resolve tracker\.ferry-test\.invalid.*\); nothing to download from$/],
      [dataUrl(albumWith({ announce: gone, 'announce-list': undefined, 'url-list': [goneSeed] })), /^urls\[1\]: none of .*tracker http:\/\/tracker\.ferry-test\.invalid\/announce: cannot resolve.*; web seed http:\/\/seed\.ferry-test\.invalid\/x\/: cannot resolve/],
    ], '/dl-unresolvable');

    /** Queues `url` (a slow `big` download), checks what aria2 was handed, cancels it. */
    const handed = async (url: string, dir: string) => {
      const r = await add([url], dir);
      assert.equal(r.status, 200, r.body.message);
      assert.equal(r.body.data.tasks.length, 1);
      const warnings = r.body.data.warnings as string[];
      const tid = r.body.data.tasks[0].id as string;
      const work = join(h().dataDir, 'offline', tid);
      const got = await until(async () => {
        const i = (await h().get(`/api/task/offline_download/info?tid=${tid}`, { token })).body.data as { state: number; status: string; error: string };
        assert.ok(i.state < 2, `the download ended: ${i.state} ${i.error}`);
        const all = (await aria2().client.call<{ dir: string; infoHash?: string; bittorrent?: { announceList?: string[][] } }[]>('aria2.tellActive', [['dir', 'infoHash', 'bittorrent']])).filter((d) => d.dir === work);
        return all.length > 0 ? all : null;
      }, 30_000, 'aria2 to hold the download');
      const info = (await h().get(`/api/task/offline_download/info?tid=${tid}`, { token })).body.data as { status: string };
      assert.equal((await h().post(`/api/task/offline_download/cancel?tid=${tid}`, undefined, { token })).status, 200);
      assert.equal((await settledTask(h(), token, tid)).state, 4);
      return { warnings, got, status: info.status };
    };
    const magnet = `${swarm().magnet(swarm().big.hash, 'big')}&tr=${enc(gone)}&ws=${enc(goneSeed)}&x.pe=peer.ferry-test.invalid:6881`;
    const m = await handed(magnet, '/dl-dropped-magnet');
    assert.deepEqual(m.warnings.map((w) => w.replace(/: cannot resolve .*/, '')), [`urls[0]: left out, tracker ${gone}`, `urls[0]: left out, web seed ${goneSeed}`, 'urls[0]: left out, peer peer.ferry-test.invalid:6881']);
    assert.match(m.status, /3 unreachable tracker\(s\)\/web seed\(s\)\/peer\(s\) left out \(their hosts do not resolve\): tracker http:\/\/tracker\.ferry-test\.invalid\/announce: cannot resolve/);
    for (const d of m.got) {
      assert.equal(d.infoHash, swarm().big.hash);
      assert.deepEqual(d.bittorrent?.announceList, [[swarm().trackerUrl]], 'aria2 got the swarm\'s tracker only');
    }

    const torrent = bigWith({ 'announce-list': [[swarm().trackerUrl], [gone]], 'url-list': [goneSeed] });
    const t = await handed(dataUrl(torrent), '/dl-dropped-torrent');
    assert.equal(t.warnings.length, 2, t.warnings.join('\n'));
    assert.match(t.status, /2 unreachable .* left out/);
    assert.equal(t.got.length, 1);
    assert.equal(t.got[0]!.infoHash, swarm().big.hash, 'the info hash is unchanged');
    assert.deepEqual(t.got[0]!.bittorrent?.announceList, [[swarm().trackerUrl]], 'announce-list without the unreachable tier');

    // and a download with an unreachable tracker beside the good one lands
    await offlineDownloadDone(h(), token, { urls: [`${swarm().magnet(swarm().album.hash, 'album')}&tr=${enc(gone)}`], path: '/dl-dropped-lands', tool: 'aria2' });
    assertFilesAt(h(), 'dl-dropped-lands/album', swarm().album.files);
  });

  test('the same magnet with the tracker host trusted is accepted and lands; an uploaded torrent too', async () => {
    await setSettings(h(), token, { seed_trusted_source_hosts: '' });
    const magnet = swarm().magnet(swarm().album.hash, 'album');
    await refusedAll([[magnet, /^urls\[1\]: tracker .*: refused: .*loopback/]], '/dl-trusted');
    await setSettings(h(), token, { seed_trusted_source_hosts: swarm().trustedHosts });
    await offlineDownloadDone(h(), token, { urls: [magnet], path: '/dl-trusted', tool: 'aria2' });
    assertFilesAt(h(), 'dl-trusted/album', swarm().album.files);
    await offlineDownloadDone(h(), token, { urls: [dataUrl(swarm().album.torrent)], path: '/dl-trusted-up', tool: 'aria2' });
    assertFilesAt(h(), 'dl-trusted-up/album', swarm().album.files);
  });

  test('a canceled download retried after the admin removed the trusted host fails at its run, refused; aria2 never gets it again', async () => {
    await setSettings(h(), token, { seed_trusted_source_hosts: swarm().trustedHosts });
    const r = await add([swarm().magnet(swarm().big.hash, 'big')], '/dl-retry');
    assert.equal(r.status, 200, r.body.message);
    const tid = r.body.data.tasks[0].id as string;
    assert.equal((await h().post(`/api/task/offline_download/cancel?tid=${tid}`, undefined, { token })).status, 200);
    assert.equal((await settledTask(h(), token, tid)).state, 4);
    const work = join(h().dataDir, 'offline', tid);
    await until(async () => !(await aria2Holds()).some((d) => d.startsWith(work)), 30_000, 'aria2 to forget the canceled download');

    await setSettings(h(), token, { seed_trusted_source_hosts: '' });
    assert.equal((await h().post(`/api/task/offline_download/retry?tid=${tid}`, undefined, { token })).status, 200);
    const failed = await settledTask(h(), token, tid);
    assert.equal(failed.state, 7, `failed, not ${failed.state}`);
    assert.match(failed.error, new RegExp(`magnet: tracker ${escape(swarm().trackerUrl)}: refused: .*loopback address`));
    assert.ok(!(await aria2Holds()).some((d) => d.startsWith(work)), 'aria2 was not handed the retried download');
    assert.ok(!existsSync(join(filesDir(h()), 'dl-retry', 'big')), 'nothing landed');
  });
});
