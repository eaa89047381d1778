/**
 * Steps the offline-download suites share (aria2, Transmission, qBittorrent): waiting for the transfer task,
 * checking what landed, and whole scenarios run the same way against every tool.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness } from '../support/harness.js';
import { filesDir } from '../seeds-generate/helpers.js';
import { settledTask } from '../seeds-ops/transfer-helpers.js';
import { decodeTorrent } from '../../src/modules/seeds/formats/index.js';
import { until, type Proc, type Swarm } from './swarm.js';

/** The transfer task queued for `target` (user path), once it is settled. */
export async function settledTransfer(h: Harness, token: string, target: string): Promise<any> {
  const t = await until(async () => {
    for (const kind of ['done', 'undone']) {
      const r = await h.get(`/api/task/offline_download_transfer/${kind}`, { token });
      const hit = (r.body.data as { id: string; name: string }[]).find((x) => x.name.endsWith(`to [](${target})`));
      if (hit) return hit;
    }
    return null;
  }, 60_000, `a transfer task to ${target}`);
  return settledTask(h, token, t.id, 'offline_download_transfer');
}

/**
 * POST add_offline_download `body`; waits until its download and then its transfer into `body.path` are done;
 * answers the download task's id.
 */
export async function offlineDownloadDone(h: Harness, token: string, body: { urls: string[]; path: string; tool: string; delete_policy?: string }, ms = 120_000): Promise<string> {
  const r = await h.post('/api/fs/add_offline_download', body, { token });
  assert.equal(r.status, 200, r.body.message);
  const tid = r.body.data.tasks[0].id as string;
  const done = await settledTask(h, token, tid, 'offline_download', ms);
  assert.equal(done.state, 2, done.error);
  const tr = await settledTransfer(h, token, body.path);
  assert.equal(tr.state, 2, tr.error);
  return tid;
}

/** Every file of `files` is below `<files>/<dir>` with exactly these bytes. */
export function assertFilesAt(h: Harness, dir: string, files: Record<string, Buffer>): void {
  for (const [p, data] of Object.entries(files)) {
    const abs = join(filesDir(h), dir, p);
    assert.ok(existsSync(abs), `${p} landed`);
    assert.ok(readFileSync(abs).equals(data), `${p} has the seeder's bytes`);
  }
}

/**
 * `offline_download` of the album's `.torrent` as a seed (no http source): one `offline_download` task through
 * the configured BitTorrent tool for every file; every file lands at `<dir>/<seed path>` (checked against the
 * seed's digests by the transfer).
 */
export async function seedDownloadLands(h: Harness, token: string, swarm: Swarm, dir: string): Promise<void> {
  const decoded = decodeTorrent(swarm.album.torrent);
  assert.ok(decoded.seed.files.every((f) => !f.sources?.length), 'no http source');
  assert.equal((await h.post('/api/fs/mkdir', { path: dir }, { token })).status, 200);
  const r = await h.post('/api/fs/seed/offline_download', { seed_data: swarm.album.torrent.toString('base64'), path: dir }, { token });
  assert.equal(r.status, 200, r.body.message);
  const results = r.body.data.results as { path: string; method: string; task?: { id: string }; error?: string }[];
  assert.equal(results.length, Object.keys(swarm.album.files).length);
  for (const x of results) assert.equal(x.method, 'offline_download', `${x.path}: ${x.error}`);
  const tid = results[0]!.task!.id;
  assert.ok(results.every((x) => x.task!.id === tid), 'one download for the whole torrent');
  const done = await settledTask(h, token, tid, 'offline_download', 120_000);
  assert.equal(done.state, 2, done.error);
  const tr = await settledTransfer(h, token, dir);
  assert.equal(tr.state, 2, tr.error);
  assertFilesAt(h, dir.slice(1), swarm.album.files);
}

/**
 * A magnet of `odd` (a fast seeder serving every other piece corrupted, a slow good one) through `tool`: the tool
 * throws the bad pieces away and fetches them again, so the file lands with the good bytes — or (the other
 * allowed outcome) the tool reports a copy with a bad piece, and the task fails naming that piece and its file with
 * nothing landed (Ferry checks every piece before the transfer).
 * `goodPeerLater` (Transmission, which keeps one peer per address): the torrent is `lone`, which on 127.0.0.1 only
 * the corrupt seeder has; once the task shows discarded corrupt data (and nothing has landed), the good seeder is
 * started as a distinct peer ([::1]) and the tool must fetch the discarded pieces again from it.
 */
export async function corruptedSeederRefetched(h: Harness, token: string, swarm: Swarm, tool: string, dir: string, goodPeerLater?: () => Promise<Proc>): Promise<void> {
  const which = goodPeerLater ? swarm.lone : swarm.odd;
  const name = goodPeerLater ? 'lone' : 'odd';
  const r = await h.post('/api/fs/add_offline_download', { urls: [swarm.magnet(which.hash, name)], path: dir, tool }, { token });
  assert.equal(r.status, 200, r.body.message);
  const tid = r.body.data.tasks[0].id as string;
  const info = async () => (await h.get(`/api/task/offline_download/info?tid=${tid}`, { token })).body.data as { state: number; status: string; error: string };
  let good: Proc | undefined;
  try {
    if (goodPeerLater) {
      const seen = await until(async () => {
        const i = await info();
        assert.ok(i.state < 2, `ended before any corrupt data was discarded: ${i.state} ${i.error}`);
        return /corrupt pieces discarded/.test(i.status) ? i : null;
      }, 90_000, `${tool} discarding the corrupt seeder's pieces`);
      assert.ok(!existsSync(join(filesDir(h), dir.slice(1))), `nothing landed while ${tool} holds corrupt data (${seen.status})`);
      good = await goodPeerLater();
    }
    const done = await settledTask(h, token, tid, 'offline_download', 120_000);
    if (done.state !== 2) {
      // the other outcome: the tool called it complete but a piece of its copy is wrong (seen with
      // qBittorrent); Ferry's piece check fails the task naming the piece and the file, and nothing lands
      assert.match(done.error ?? '', new RegExp(`piece \\d+ of \\d+ \\(bytes [^)]*, in ${name}/${name}\\.bin\\) does not match the torrent's SHA-1.*nothing landed`), `state ${done.state}`);
      assert.ok(!existsSync(join(filesDir(h), dir.slice(1), name)), 'nothing landed');
      return;
    }
    const tr = await settledTransfer(h, token, dir);
    assert.equal(tr.state, 2, tr.error);
    assertFilesAt(h, dir.slice(1), { [`${name}/${name}.bin`]: which.data });
  } finally {
    await good?.stop();
  }
}
