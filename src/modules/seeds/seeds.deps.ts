/**
 * What the seeds module uses of the rest of Ferry. The composition root passes one object with all of it;
 * every function names the part it needs in its signature (`Pick<SeedsDeps, 'fs' | 'settings'>`).
 */
import type { FsService } from '../fs/fs.service.js';
import type { Links } from '../fs/links.js';
import type { WriteSets } from '../fs/write-set.js';
import type { HashIndexService } from '../hash-index/hash-index.service.js';
import type { SettingsReader } from '../settings/settings.service.js';
import type { SharesService } from '../shares/shares.service.js';
import type { StorageRegistry } from '../storages/storages.service.js';
import type { TaskQueue } from '../tasks/tasks.service.js';
import type { UsersRepo } from '../users/users.repo.js';
import type { User } from '../users/user.model.js';
import type { Hashes } from '../storages/drivers/index.js';
import type { TaskInfo } from '../tasks/tasks.schemas.js';
import type { SeedFolderAccess } from './common/access.js';

/** One file of a torrent handed to a BitTorrent tool: where the tool puts it, where it lands, what it must hash to. */
export interface HandedFile {
  /** Path below the tool's download folder (`<info name>/<path>`, or `<info name>` for a single-file torrent). */
  rel: string;
  /** Full virtual path it lands at. */
  to: string;
  size: number;
  /** Whole-file digests the landed file must have (checked by the write; a mismatch lands nothing). */
  expected: Hashes;
}

/** The offline-download module's BitTorrent tools, for seed operations (wired by the composition root). */
export interface TorrentHandOff {
  /** The configured BitTorrent tool used for seeds, or null when none is. */
  tool(): Promise<string | null>;
  /** Queues one `offline_download` task that downloads the torrent and then lands `files`. */
  queue(user: User, job: { origin: string; torrent: Buffer; infoHash: string; overwrite: boolean; files: HandedFile[] }): Promise<TaskInfo>;
}

export interface SeedsDeps {
  /** The virtual tree: locate, stat, list, mkdir, and tracking writes for shutdown. */
  fs: FsService;
  /** The mounted storages (content lookup across them). */
  mounts: Pick<StorageRegistry, 'list' | 'owner'>;
  settings: SettingsReader;
  /** The public site origin and signed direct links recorded in seeds; checking recorded links of this site. */
  links: Pick<Links, 'site' | 'recordedDirect' | 'verifier' | 'webSeedRoot'>;
  /** All-or-nothing writes of sidecars and seed files, restored on failure and after a crash. */
  writeSets: Pick<WriteSets, 'write'>;
  tasks: TaskQueue;
  /** Shares for `openlist-share` sources. */
  shares: Pick<SharesService, 'createShare' | 'deleteShare' | 'isServableId'>;
  users: Pick<UsersRepo, 'byId'>;
  /** Digests Ferry knows: content lookup for rapid upload, recording what was verified. */
  hashes: Pick<HashIndexService, 'find' | 'record' | 'forget'>;
  /** Ferry's version (`created by`, user agents). */
  version: string;
  /**
   * Folder rules (metas): hidden names and folder passwords on what seed operations read, hidden names on what
   * they write (common/access.ts says which calls).
   */
  folderAccess: SeedFolderAccess;
  /** BitTorrent tools for torrent-only seeds (absent: none in this process). */
  torrents?: TorrentHandOff;
}
