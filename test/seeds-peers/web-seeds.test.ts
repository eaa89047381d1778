/**
 * Web seeds (BEP 19) in the torrents Ferry writes: `url-list` outside `info` (the info hash does not
 * change), the file's own link for a single-file torrent, a signed root `<site>/ws/<token>/` for a
 * folder's torrent; real clients — aria2c (no tracker, DHT off) and libtorrent — download from the
 * web seed alone and verify every piece. The setting and the generate option turn it off.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { AddressInfo } from 'node:net';
import { forEachDialect, requireCommand } from '../support/harness.js';
import { ALL_SIX, bytes, generated, putIndexed, setSettings } from '../seeds-generate/helpers.js';
import { decodeBencode, decodeTorrent, isBencodeDict } from '../../src/modules/seeds/formats/index.js';

const LTFETCH = new URL('../support/ltfetch.py', import.meta.url).pathname;

/** Runs a peer without blocking the event loop (the server under test lives in this process). */
function peer(cmd: string, args: string[], timeoutMs = 120_000): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: timeoutMs, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : -1) : 0;
      resolve({ code, out: `${stdout}${stderr}` });
    });
  });
}

/** aria2c with no tracker, no DHT/LPD/PEX, leaving once done: the web seed is the only source. */
function aria2(torrent: string, dir: string) {
  return peer('aria2c', [
    '--enable-dht=false', '--enable-dht6=false', '--bt-enable-lpd=false', '--enable-peer-exchange=false', '--bt-tracker-connect-timeout=1',
    '--seed-time=0', '--check-integrity=true', '--bt-hash-check-seed=true', '--console-log-level=warn', '--summary-interval=0',
    '--no-conf=true', '--listen-port=46881-46999', `--dir=${dir}`, torrent,
  ]);
}

const urlList = (torrent: Buffer): string[] => {
  const root = decodeBencode(torrent).value;
  assert.ok(isBencodeDict(root));
  const v = root.get('url-list');
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map((x) => Buffer.from(x as Uint8Array).toString('utf8'));
};

forEachDialect('web seeds (BEP 19)', (h) => {
  let token: string;
  let site: string;
  let work: string;
  const single = bytes(300_000, 7);
  const pack: Record<string, Buffer> = { 'a b.bin': bytes(200_000, 8), 'sub/deep/c.bin': bytes(70_000, 9), 'sub/empty.txt': Buffer.alloc(0), 'z.txt': Buffer.from('last file\n') };

  before(async () => {
    requireCommand('aria2c', 'aria2');
    await h().app.listen({ port: 0, host: '127.0.0.1' });
    site = `http://127.0.0.1:${(h().app.server.address() as AddressInfo).port}`;
    token = await h().adminToken();
    await setSettings(h(), token, { seed_site_url: site });
    await putIndexed(h(), '/web/movie.bin', single);
    for (const [p, data] of Object.entries(pack)) await putIndexed(h(), `/web/pack/${p}`, data);
    work = mkdtempSync(join(tmpdir(), 'ferry-webseed-'));
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  const torrentOf = (d: { artifacts: { format: string; seed_data: string }[] }) => Buffer.from(d.artifacts.find((a) => a.format === 'torrent')!.seed_data, 'base64');

  test('single file: url-list is the recorded direct link; the info hash is the one without it; aria2c downloads it from the web seed alone', async () => {
    const d = await generated(h(), token, { paths: ['/web/movie.bin'], formats: ['torrent'], piece_size: 65536, direct_files: ['/web/movie.bin'], output_path: '/out1' });
    const t = torrentOf(d);
    const direct = d.seed.files[0].sources[0].url as string;
    assert.deepEqual(urlList(t), [direct]);
    const plain = torrentOf(await generated(h(), token, { paths: ['/web/movie.bin'], formats: ['torrent'], piece_size: 65536, direct_files: ['/web/movie.bin'], output_path: '/out1b', web_seeds: false }));
    assert.deepEqual(urlList(plain), []);
    assert.equal(decodeTorrent(t).info_hash, decodeTorrent(plain).info_hash);
    assert.deepEqual(decodeTorrent(t).web_seeds, [direct]);

    const file = join(work, 'single.torrent');
    writeFileSync(file, t);
    const dir = join(work, 'aria-single');
    const r = await aria2(file, dir);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /\|OK\s*\|/, r.out);
    assert.ok(readFileSync(join(dir, 'movie.bin')).equals(single));
  });

  test('single file with a share source: url-list is the share URL, and libtorrent downloads and verifies it', async () => {
    requireCommand('/usr/bin/python3', 'python3');
    const d = await generated(h(), token, { paths: ['/web/movie.bin'], formats: ['torrent', 'oss'], piece_size: 32768, share_files: ['/web/movie.bin'], output_path: '/out2' });
    const t = torrentOf(d);
    assert.deepEqual(urlList(t), [`${site}/sd/${d.seed.files[0].sources[0].share_id}`]);
    const file = join(work, 'share.torrent');
    writeFileSync(file, t);
    const dir = join(work, 'lt-single');
    const r = await peer('/usr/bin/python3', [LTFETCH, file, dir]);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /fetched (\d+) \/ \1 OK web_seeds=1/, r.out);
    assert.ok(readFileSync(join(dir, 'movie.bin')).equals(single));
  });

  test('folder: url-list is a signed root <site>/ws/<token>/; aria2c and libtorrent fetch the nested files and the empty one', async () => {
    const d = await generated(h(), token, { paths: ['/web/pack'], formats: ['torrent'], piece_size: 16384, include_share: true, output_path: '/out3' });
    const t = torrentOf(d);
    const list = urlList(t);
    assert.equal(list.length, 1);
    assert.match(list[0]!, new RegExp(`^${site}/ws/[A-Za-z0-9_-]+\\.[A-Za-z0-9_=-]+/$`));
    const file = join(work, 'pack.torrent');
    writeFileSync(file, t);

    const dir = join(work, 'aria-pack');
    const r = await aria2(file, dir);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /\|OK\s*\|/, r.out);
    for (const [p, data] of Object.entries(pack)) {
      if (data.length === 0) assert.equal(statSync(join(dir, 'pack', p)).size, 0, p);
      else assert.ok(readFileSync(join(dir, 'pack', p)).equals(data), p);
    }

    const ltDir = join(work, 'lt-pack');
    const l = await peer('/usr/bin/python3', [LTFETCH, file, ltDir]);
    assert.match(l.out, /fetched (\d+) \/ \1 OK web_seeds=1/, l.out);
    for (const [p, data] of Object.entries(pack)) if (data.length > 0) assert.ok(readFileSync(join(ltDir, 'pack', p)).equals(data), p);
  });

  test('the root answers ranges, only below its folder and under its torrent name; a forged token is 401', async () => {
    const d = await generated(h(), token, { paths: ['/web/pack'], formats: ['torrent'], piece_size: 16384, include_direct_source: true, output_path: '/out4' });
    const root = new URL(urlList(torrentOf(d))[0]!);
    const get = (path: string, headers: Record<string, string> = {}) => h().call('GET', root.pathname + path, { headers });
    const part = await get('pack/a%20b.bin', { range: 'bytes=100-199' });
    assert.equal(part.status, 206);
    assert.equal(part.headers['content-range'], `bytes 100-199/${pack['a b.bin']!.length}`);
    const raw = await h().app.inject({ method: 'GET', url: root.pathname + 'pack/a%20b.bin', headers: { range: 'bytes=100-199' } });
    assert.ok(raw.rawPayload.equals(pack['a b.bin']!.subarray(100, 200)));
    assert.equal((await get('pack/sub/deep/c.bin')).status, 200);
    assert.equal((await get('other/z.txt')).status, 404, 'another torrent name');
    assert.equal((await get('pack/sub')).status, 404, 'a folder');
    for (const climb of ['pack/..%2F..%2Fmovie.bin', 'pack/%2e%2e/movie.bin', 'pack/sub/..%2F..%2F..%2Fmovie.bin']) {
      const r = await get(climb);
      assert.ok(r.status === 403 || r.status === 404, `${climb}: ${r.status}`);
    }
    const [tok] = root.pathname.split('/').slice(2);
    const [payload, mac] = tok!.split('.');
    const forged = `${Buffer.from('/web\0pack').toString('base64url')}.${mac}`;
    assert.equal((await h().get(`/ws/${forged}/pack/movie.bin`)).status, 401);
    assert.equal((await h().get(`/ws/${payload}.AAAA/pack/z.txt`)).status, 401);
    // a /d/ signature of the folder is no root, and a root token is no /d/ signature
    assert.equal((await h().get(`/d/web/pack/z.txt?sign=${encodeURIComponent(mac + ':0')}`)).status, 401);
    const sd = await h().call('GET', new URL(d.seed.files[0].sources[0].url).pathname + new URL(d.seed.files[0].sources[0].url).search, { headers: { range: 'bytes=0-9' } });
    assert.equal(sd.status, 206);
  });

  test('no root when a file has no source, when the setting is off, or for files picked from several places', async () => {
    const some = await generated(h(), token, { paths: ['/web/pack'], formats: ['torrent'], piece_size: 16384, share_files: ['/web/pack/z.txt'], output_path: '/out5' });
    assert.deepEqual(urlList(torrentOf(some)), []);
    const picked = await generated(h(), token, { paths: ['/web/pack/z.txt', '/web/movie.bin'], formats: ['torrent'], piece_size: 16384, include_direct_source: true, output_path: '/out6' });
    assert.deepEqual(urlList(torrentOf(picked)), []);
    await setSettings(h(), token, { seed_web_seeds: 'false' });
    try {
      const off = await generated(h(), token, { paths: ['/web/pack'], formats: ['torrent'], piece_size: 16384, include_share: true, output_path: '/out7' });
      assert.deepEqual(urlList(torrentOf(off)), []);
      const on = await generated(h(), token, { paths: ['/web/pack'], formats: ['torrent'], piece_size: 16384, include_share: true, output_path: '/out8', web_seeds: true });
      assert.equal(urlList(torrentOf(on)).length, 1, 'the request option beats the setting');
    } finally {
      await setSettings(h(), token, { seed_web_seeds: 'true' });
    }
  });

  test('converting a single-file .oss with a direct source to .torrent writes its url-list', async () => {
    const d = await generated(h(), token, { paths: ['/web/movie.bin'], formats: ['oss'], hash_matrix: ALL_SIX, piece_size: 65536, direct_files: ['/web/movie.bin'], output_path: '/out9' });
    const oss = d.artifacts.find((a: { format: string }) => a.format === 'oss').seed_data as string;
    const r = await h().post('/api/fs/seed/convert', { seed_data: oss, target_format: 'torrent' }, { token });
    assert.equal(r.status, 200, r.body.message);
    assert.deepEqual(urlList(Buffer.from(r.body.data.seed_data, 'base64')), [d.seed.files[0].sources[0].url]);
  });
});
