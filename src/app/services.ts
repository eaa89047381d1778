/**
 * The composition root: every service built by hand from config and database, in dependency order. This is
 * the only place (with the rest of src/app/) that knows every module; modules receive the narrow
 * dependencies they declare.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import { AuthService } from '../modules/auth/auth.service.js';
import { Lockout } from '../modules/auth/lockout.js';
import { Tokens } from '../modules/auth/tokens.js';
import { FsService } from '../modules/fs/fs.service.js';
import { Links } from '../modules/fs/links.js';
import type { OfflineDeps } from '../modules/offline/offline.deps.js';
import { torrentHandOff } from '../modules/offline/seed-handoff.js';
import { UploadService } from '../modules/fs/upload.service.js';
import { journalDirOf, WriteSets } from '../modules/fs/write-set.js';
import { HashIndexRepo } from '../modules/hash-index/hash-index.repo.js';
import { HashIndexService } from '../modules/hash-index/hash-index.service.js';
import { wholeFileDigests } from '../modules/seeds/hashing/index.js';
import type { SeedsDeps } from '../modules/seeds/seeds.deps.js';
import { SearchRepo } from '../modules/search/search.repo.js';
import { SearchService } from '../modules/search/search.service.js';
import { sidecarCompanions, sidecarUploads } from '../modules/seeds/sidecars/sidecar-writer.js';
import { FolderAccess } from '../modules/fs/access.js';
import { MetasRepo } from '../modules/metas/metas.repo.js';
import { MetasService } from '../modules/metas/metas.service.js';
import { SettingsRepo } from '../modules/settings/settings.repo.js';
import { SettingsService } from '../modules/settings/settings.service.js';
import { SharesRepo } from '../modules/shares/shares.repo.js';
import { SharesService } from '../modules/shares/shares.service.js';
import { SshKeysRepo } from '../modules/ssh-keys/ssh-keys.repo.js';
import { SshKeysService } from '../modules/ssh-keys/ssh-keys.service.js';
import { StoragesRepo } from '../modules/storages/storages.repo.js';
import { StorageRegistry } from '../modules/storages/storages.service.js';
import { TasksService } from '../modules/tasks/tasks.service.js';
import { Thumbnails } from '../modules/thumbs/thumbs.service.js';
import { TwoFactorService } from '../modules/two-factor/two-factor.service.js';
import { UsersRepo } from '../modules/users/users.repo.js';
import { UsersService } from '../modules/users/users.service.js';
import { DavStore } from '../modules/webdav/webdav.store.js';
import { AppPasswordsRepo } from '../modules/app-passwords/app-passwords.repo.js';
import { AppPasswordsService } from '../modules/app-passwords/app-passwords.service.js';

export interface Services {
  config: Config;
  database: Database;
  logger: Logger;
  version: string;
  settings: SettingsService;
  usersRepo: UsersRepo;
  users: UsersService;
  auth: AuthService;
  twoFactor: TwoFactorService;
  sshKeysRepo: SshKeysRepo;
  sshKeys: SshKeysService;
  hashes: HashIndexService;
  storages: StorageRegistry;
  fs: FsService;
  links: Links;
  writeSets: WriteSets;
  uploads: UploadService;
  shares: SharesService;
  tasks: TasksService;
  thumbs: Thumbnails;
  /** The name index (observes every change Ferry makes to the tree). */
  search: SearchService;
  /** Everything the seeds module uses. */
  seeds: SeedsDeps;
  /** WebDAV dead properties and locks. */
  davStore: DavStore;
  /** App passwords (WebDAV and SFTP password logins). */
  appPasswords: AppPasswordsService;
  /** Per-folder rules (OpenList metas): stored and administered here, enforced through `folderAccess`. */
  metas: MetasService;
  /**
   * The one place folder rules are enforced for every protocol: hidden names (`visibleIn`, `isVisible`), folder
   * passwords, write bypass, readme/header.
   */
  folderAccess: FolderAccess;
  /** Everything the offline-download module uses. */
  offline: OfflineDeps;
}

export function buildServices(o: { config: Config; database: Database; logger: Logger; secret: Uint8Array; version: string }): Services {
  const { config, database, logger, version } = o;
  const { db } = database;
  // the small cached tables reload on a connection of their own (PostgreSQL), never queued behind requests
  const cacheReads = database.cacheDb ?? db;
  const settings = new SettingsService(new SettingsRepo(db, cacheReads));
  const usersRepo = new UsersRepo(db);
  const lockout = new Lockout(db);
  const twoFactor = new TwoFactorService(db, usersRepo, settings, lockout);
  const auth = new AuthService(usersRepo, settings, lockout, new Tokens(db, o.secret), twoFactor);
  const sshKeysRepo = new SshKeysRepo(db);
  const hashes = new HashIndexService(new HashIndexRepo(db), logger);
  // the digests of every write (hash index) are computed on the seeds' worker pool, off the event loop
  const storages = new StorageRegistry(new StoragesRepo(db, cacheReads), hashes, logger, (names, size) => wholeFileDigests(names, size));
  const metas = new MetasService(new MetasRepo(db, cacheReads));
  const folderAccess = new FolderAccess(metas, lockout);
  const fs = new FsService(storages, sidecarCompanions({ settings }));
  const search = new SearchService({ repo: new SearchRepo(db, database.dialect, database.sqlite, database.searchDb), access: folderAccess, storages, settings, logger });
  fs.observe(search);
  const links = new Links(settings, config.siteUrl);
  const writeSets = new WriteSets({ fs, driverOf: (id) => storages.driverOf(id), journalDir: journalDirOf(config.dataDir), logger });
  const tasks = new TasksService(db, logger, usersRepo);
  const uploads = new UploadService({ fs, companions: sidecarUploads({ settings, writeSets, version }), tasks, spoolDir: join(config.dataDir, 'tmp') });
  const shares = new SharesService({ users: usersRepo, fs, lockout, folderAccess }, new SharesRepo(db));
  const seeds: SeedsDeps = { fs, mounts: storages, settings, links, writeSets, tasks, shares, users: usersRepo, hashes, folderAccess, version };
  const offline: OfflineDeps = { settings, fs, uploads, links, tasks, users: usersRepo, folderAccess, workDir: join(config.dataDir, 'offline'), version };
  seeds.torrents = torrentHandOff(offline);
  return {
    config,
    database,
    logger,
    version,
    settings,
    usersRepo,
    users: new UsersService(usersRepo),
    auth,
    twoFactor,
    sshKeysRepo,
    sshKeys: new SshKeysService(sshKeysRepo),
    hashes,
    storages,
    fs,
    links,
    writeSets,
    uploads,
    shares,
    tasks,
    thumbs: new Thumbnails({ cacheDir: join(config.dataDir, 'thumbs'), logger }),
    search,
    seeds,
    davStore: new DavStore(db),
    appPasswords: new AppPasswordsService(new AppPasswordsRepo(db), usersRepo, lockout),
    metas,
    folderAccess,
    offline,
  };
}
