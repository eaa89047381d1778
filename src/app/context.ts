/**
 * The composition root: builds every service by hand from config and database.
 * HTTP, the CLI and (later) SFTP and the task runner all take this context.
 */
import type { Logger } from 'pino';
import type { Config } from '../config/config.js';
import type { Database } from '../db/database.js';
import { AuthService } from '../modules/auth/auth.service.js';
import { Lockout } from '../modules/auth/lockout.js';
import { Tokens } from '../modules/auth/tokens.js';
import { StorageRegistry } from '../modules/storages/storages.service.js';
import { StoragesRepo } from '../modules/storages/storages.repo.js';
import { FsService } from '../modules/fs/fs.service.js';
import { TasksService } from '../modules/tasks/tasks.service.js';
import { SettingsRepo } from '../modules/settings/settings.repo.js';
import { SettingsService } from '../modules/settings/settings.service.js';
import { SshKeysRepo } from '../modules/ssh-keys/ssh-keys.repo.js';
import { SshKeysService } from '../modules/ssh-keys/ssh-keys.service.js';
import { TwoFactorService } from '../modules/two-factor/two-factor.service.js';
import { UsersRepo } from '../modules/users/users.repo.js';
import { UsersService } from '../modules/users/users.service.js';

export interface AppContext {
  config: Config;
  database: Database;
  logger: Logger;
  version: string;
  settings: SettingsService;
  usersRepo: UsersRepo;
  users: UsersService;
  auth: AuthService;
  twoFactor: TwoFactorService;
  sshKeys: SshKeysService;
  storages: StorageRegistry;
  fs: FsService;
  tasks: TasksService;
}

export function buildContext(opts: { config: Config; database: Database; logger: Logger; secret: Uint8Array; version: string }): AppContext {
  const { db } = opts.database;
  const settings = new SettingsService(new SettingsRepo(db));
  const usersRepo = new UsersRepo(db);
  const storages = new StorageRegistry(new StoragesRepo(db), db, opts.logger);
  const twoFactor = new TwoFactorService(db, usersRepo, settings);
  const auth = new AuthService(usersRepo, settings, new Lockout(db), new Tokens(db, opts.secret), twoFactor);
  return {
    ...opts,
    settings,
    usersRepo,
    users: new UsersService(usersRepo),
    auth,
    twoFactor,
    sshKeys: new SshKeysService(new SshKeysRepo(db)),
    storages,
    fs: new FsService(storages, () => settings.getBool('seed_follow')),
    tasks: new TasksService(db, opts.logger),
  };
}
