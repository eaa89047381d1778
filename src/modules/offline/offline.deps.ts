/** What the offline-download module uses of the rest of Ferry (the composition root passes one object). */
import type { FolderAccess } from '../fs/access.js';
import type { FsService } from '../fs/fs.service.js';
import type { SeedsDeps } from '../seeds/seeds.deps.js';
import type { UploadService } from '../fs/upload.service.js';
import type { SettingsReader, SettingsService } from '../settings/settings.service.js';
import type { TaskQueue, TasksService } from '../tasks/tasks.service.js';
import type { UsersRepo } from '../users/users.repo.js';

export interface OfflineDeps {
  settings: SettingsReader & Pick<SettingsService, 'save' | 'refresh'>;
  /** Stat and read destinations and stored torrents. */
  fs: Pick<FsService, 'stat' | 'locate'>;
  /** The normal write path: all or nothing per file, hash index, sidecars per the storage's policy. */
  uploads: Pick<UploadService, 'store'>;
  /** The site (SSRF rules: the site and `seed_trusted_source_hosts`). */
  links: SeedsDeps['links'];
  /** Queue tasks; list them (start-up: which download folders are orphaned). */
  tasks: TaskQueue & Pick<TasksService, 'list' | 'find'>;
  users: Pick<UsersRepo, 'byId'>;
  /** Metas: destinations, stored torrents and downloaded names hidden from the user are refused or skipped. */
  folderAccess: Pick<FolderAccess, 'requireChange' | 'isVisible'>;
  /** `<data dir>/offline`: one folder per download, where tools write before the transfer. */
  workDir: string;
  version: string;
}
