/**
 * Seed operations (`offline_download` / `quick_save`) hand torrent-only seeds to the configured BitTorrent tool:
 * one `offline_download` task downloads the whole torrent and checks every piece of the tool's copy against it
 * (torrent-check.ts: a mismatch names the file and the piece), then its transfer lands the chosen files, each at
 * its own path and checked against the seed's whole-file digests by the write (a mismatch lands nothing).
 */
import { stripBasePath } from '../../lib/path-safety.js';
import { parentOf } from '../../lib/paths.js';
import type { TorrentHandOff } from '../seeds/seeds.deps.js';
import { presentTask } from '../tasks/tasks.present.js';
import type { OfflineDeps } from './offline.deps.js';
import { OFFLINE_TOOL_TASK } from './offline.tasks.js';
import { availableTools, checkToolInput } from './tool-access.js';

/** Which configured tool takes seeds: the first of aria2, Transmission, qBittorrent. */
async function seedTool(deps: Pick<OfflineDeps, 'settings'>): Promise<'aria2' | 'Transmission' | 'qBittorrent' | null> {
  const t = (await availableTools(deps)).find((x) => x !== 'SimpleHttp');
  return (t as 'aria2' | 'Transmission' | 'qBittorrent' | undefined) ?? null;
}

export function torrentHandOff(deps: OfflineDeps): TorrentHandOff {
  return {
    tool: () => seedTool(deps),
    async queue(user, job) {
      const tool = await seedTool(deps);
      if (!tool) throw new Error('no BitTorrent tool is configured');
      // the common folder of every landing file: what the task's rights are checked against
      const target = job.files.map((f) => parentOf(f.to)).reduce((a, b) => {
        while (!(b === a || b.startsWith(a === '/' ? '/' : a + '/'))) a = parentOf(a);
        return a;
      });
      // its trackers and web seeds obey the SSRF rules like a user's torrent's (a 400 naming the one refused)
      await checkToolInput(deps, job.origin, { kind: 'torrent', bytes: job.torrent, infoHash: job.infoHash }, 'torrent');
      const row = await deps.tasks.create(OFFLINE_TOOL_TASK, {
        name: `download magnet:?xt=urn:btih:${job.infoHash} to (${stripBasePath(user.basePath, target)})`,
        creatorId: user.id,
        payload: {
          user_id: user.id,
          origin: job.origin,
          tool,
          source: { kind: 'torrent', data: job.torrent.toString('base64'), info_hash: job.infoHash },
          target,
          delete_policy: 'delete_on_upload_succeed',
          select: job.files,
          overwrite: job.overwrite,
        },
        totalBytes: job.files.reduce((n, f) => n + f.size, 0),
      });
      return presentTask(row, user.username, user.role);
    },
  };
}
