/**
 * Issue #22, "a mismatch lands nothing and says which file and piece", for a seed operation through a real swarm:
 * the seed is a `.torrent` (no http source) whose SHA-1 of piece 0 is wrong on purpose; a seeder (aria2c, serving
 * its data unverified) holds the right bytes for it behind its own opentracker. aria2, driven by Ferry, throws
 * piece 0 away every time it arrives, so the download never completes; the `offline_download` task fails naming
 * piece 0 and the file it lies in, nothing lands in the target, the tool's folder is gone and aria2 holds nothing.
 * (Ferry's own piece check of a tool's finished copy against the torrent is torrent-check.test.ts.)
 */
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { forEachDialect } from '../support/harness.js';
import { filesDir, setSettings } from '../seeds-generate/helpers.js';
import { settledTask } from '../seeds-ops/transfer-helpers.js';
import { decodeBencode, decodeTorrent, encodeBencode, isBencodeDict } from '../../src/modules/seeds/formats/index.js';
import { swarmWithAria2 } from './swarm-aria2.js';
import { freePort, opentracker, seeder, until, type Proc } from './swarm.js';

const SECRET = 'seed-mismatch-secret';
const { swarm, aria2 } = swarmWithAria2(SECRET);
/**
 * The first piece: aria2 drops a peer that sent a piece failing its hash, so with one seeder it may have received
 * any number of the other pieces before that; the first piece it lacks, which the error names, is then always 0.
 */
const BAD_PIECE = 0;

forEachDialect('a seed whose piece hash is wrong, through aria2', (h) => {
  let token: string;
  let torrent: Buffer;
  let infoHash: string;
  let trackerHost: string;

  before(async () => {
    token = await h().adminToken();
    // `odd` (400 KiB, 16 KiB pieces) with piece 0's SHA-1 flipped and its own tracker: another info hash
    const trackerPort = await freePort();
    trackerHost = `127.0.0.1:${trackerPort}`;
    const root = decodeBencode(swarm().odd.torrent).value;
    assert.ok(isBencodeDict(root));
    const info = root.get('info');
    assert.ok(isBencodeDict(info));
    const pieces = Buffer.from(info.get('pieces') as Buffer);
    pieces[BAD_PIECE * 20] = pieces[BAD_PIECE * 20]! ^ 0xff;
    // a plain torrent: no announce-list, web seeds, or Ferry's x-openlist extension (its SHA-1 pieces would disagree)
    const rest = [...root].filter(([k]) => !['announce-list', 'url-list', 'x-openlist'].includes(k));
    torrent = encodeBencode(new Map([...rest, ['announce', Buffer.from(`http://${trackerHost}/announce`)], ['info', new Map([...info, ['pieces', pieces]])]]));
    infoHash = decodeTorrent(torrent).info_hash;
    assert.notEqual(infoHash, swarm().odd.hash);
    await setSettings(h(), token, { seed_trusted_source_hosts: `${swarm().trustedHosts}${trackerHost}\n`, offline_stall_timeout: '30' });
    const ok = await h().post('/api/admin/setting/set_aria2', { uri: aria2().uri, secret: SECRET }, { token });
    assert.equal(ok.status, 200, ok.body.message);
  });

  test('the task fails naming the piece and its file; nothing lands; aria2 drops it', async (t) => {
    const procs: Proc[] = [];
    t.after(async () => {
      for (const p of procs) await p.stop();
    });
    const dir = join(h().dataDir, 'mismatch-swarm');
    procs.push(opentracker(join(dir, 'tracker'), Number(trackerHost.split(':')[1]), [infoHash]));
    const path = join(dir, 'bad.torrent');
    writeFileSync(path, torrent);
    // the right bytes (the swarm's odd/odd.bin), seeded without checking them against this torrent's pieces
    procs.push(seeder([path], swarm().dataDir, await freePort(), '0', true));
    // the seeder is known to the tracker before the download starts (so the stall timeout only meets the bad piece)
    const hashParam = Buffer.from(infoHash, 'hex').toString('latin1').split('').map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');
    await until(async () => {
      const res = await fetch(`http://${trackerHost}/scrape?info_hash=${hashParam}`).catch(() => null);
      if (!res || res.status !== 200) return null;
      const files = (decodeBencode(Buffer.from(await res.arrayBuffer())).value as Map<string, any>).get('files') as Map<string, Map<string, bigint>> | undefined;
      const entry = files ? [...files.values()][0] : undefined;
      return entry && Number(entry.get('complete') ?? 0n) >= 1;
    }, 60_000, 'the seeder to announce itself to its tracker');

    assert.equal((await h().post('/api/fs/mkdir', { path: '/dl-mismatch' }, { token })).status, 200);
    const r = await h().post('/api/fs/seed/offline_download', { seed_data: torrent.toString('base64'), path: '/dl-mismatch' }, { token });
    assert.equal(r.status, 200, r.body.message);
    const results = r.body.data.results as { path: string; method: string; task?: { id: string }; error?: string }[];
    assert.equal(results.length, 1);
    assert.equal(results[0]!.method, 'offline_download', results[0]!.error);
    const tid = results[0]!.task!.id;
    const end = await settledTask(h(), token, tid, 'offline_download', 180_000);
    assert.equal(end.state, 7, `failed, not ${end.state}: ${end.status}`);
    assert.match(end.error, new RegExp(`piece ${BAD_PIECE} of 25 \\(in odd/odd\\.bin\\) never arrived intact`));
    assert.match(end.error, /nothing landed/);
    assert.ok(!existsSync(join(filesDir(h()), 'dl-mismatch', 'odd')), 'nothing landed');
    assert.ok(!existsSync(join(h().dataDir, 'offline', tid)), "the tool's folder is gone");
    const held = await aria2().client.call<{ infoHash?: string }[]>('aria2.tellActive', [['infoHash']]);
    assert.ok(!held.some((d) => d.infoHash === infoHash), 'aria2 no longer downloads it');
  });
});
