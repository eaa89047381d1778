/**
 * Opening a data dir: creates it (and files/, ssh/, tmp/), the JWT/HMAC secret (0600),
 * migrates the database, and on first start the admin, the disabled guest and the
 * local storage mounted at `/`; then mounts the storages and starts the start-up cleanup
 * (cleanup.ts). Safe for several instances starting at once on one database (or data dir).
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync, chmodSync, linkSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import type { Config } from '../config/config.js';
import { migrate, openDatabase } from '../db/database.js';
import { passwordFields, randomPassword } from '../modules/auth/password.js';
import { ALL_PERMISSIONS, Role } from '../modules/users/user.model.js';
import { StartupCleanup } from './cleanup.js';
import { buildServices, type Services } from './services.js';

export function ferryVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    return pkg.version;
  } catch {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    return pkg.version;
  }
}

function loadSecret(config: Config): Uint8Array {
  if (config.jwtSecret) return new TextEncoder().encode(config.jwtSecret);
  const file = join(config.dataDir, 'secret');
  if (!existsSync(file)) {
    // Instances starting together on one data dir: the key is written whole to a private name
    // and linked into place, so one wins and nobody ever reads a half-written key.
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
    writeFileSync(tmp, randomBytes(48).toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
    try {
      linkSync(tmp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      rmSync(tmp, { force: true });
    }
  }
  chmodSync(file, 0o600);
  return new TextEncoder().encode(readFileSync(file, 'utf8').trim());
}

export interface OpenOptions {
  /** Where the first admin password is announced (stdout by default). */
  announce?: (line: string) => void;
  logger?: Logger;
  /** Initialise storage drivers (default true; offline CLI commands skip it). */
  mountStorages?: boolean;
}

/** An opened data dir: every service, and the start-up cleanup running in the background. */
export interface App extends Services {
  cleanup: StartupCleanup;
}

/** Releases storages and the database pool. */
export async function closeApp(app: App): Promise<void> {
  await app.cleanup.stop();
  await app.tasks.stopAll();
  await app.storages.close();
  await app.database.close();
}

export async function openApp(config: Config, opts: OpenOptions = {}): Promise<App> {
  for (const d of ['', 'files', 'ssh', 'tmp']) mkdirSync(join(config.dataDir, d), { recursive: true });
  const secret = loadSecret(config);
  const logger = opts.logger ?? pino({ level: config.logLevel });
  const database = await openDatabase({ ...config, onPoolError: (e) => logger.warn({ err: e.message }, 'idle database connection lost') });
  try {
    await migrate(database);
    const services = buildServices({ config, database, logger, secret, version: ferryVersion() });
    const app: App = { ...services, cleanup: new StartupCleanup(services) };
    await app.settings.ensureDefaults();
    // a search index build a crash interrupted: its loaded rows become searchable (see SearchRepo.beginLoad)
    await app.search.finishLoad();
    await seedFirstStart(app, opts.announce ?? ((l) => process.stdout.write(l + '\n')));
    if (opts.mountStorages !== false) {
      await app.storages.loadAll();
      // write sets a crash interrupted are settled before any request can touch their files
      const settled = await app.writeSets.recover();
      if (settled > 0) logger.info({ settled }, 'startup: settled write sets interrupted between commits');
      app.cleanup.start();
    }
    return app;
  } catch (e) {
    await database.close();
    throw e;
  }
}

/**
 * Inserts a first-start user unless another instance starting at the same moment already did
 * (the unique username decides); true when this call created it.
 */
async function insertFirstUser(ctx: Services, role: number, insert: () => Promise<unknown>): Promise<boolean> {
  try {
    await insert();
    return true;
  } catch (e) {
    if (await ctx.usersRepo.byRole(role)) return false;
    throw e;
  }
}

async function seedFirstStart(ctx: Services, announce: (line: string) => void): Promise<void> {
  const { db } = ctx.database;
  if (!(await ctx.usersRepo.byRole(Role.ADMIN))) {
    const password = ctx.config.adminPassword ?? randomPassword(12);
    const created = await insertFirstUser(ctx, Role.ADMIN, async () => ctx.usersRepo.insert({
      username: 'admin',
      ...(await passwordFields(password)),
      pwdTs: Date.now(),
      basePath: '/',
      role: Role.ADMIN,
      disabled: false,
      permission: ALL_PERMISSIONS,
      otpSecret: '',
      ssoId: '',
    }));
    if (created && !ctx.config.adminPassword) announce(`Created user admin with the initial password: ${password}`);
  }
  if (!(await ctx.usersRepo.byRole(Role.GUEST))) {
    await insertFirstUser(ctx, Role.GUEST, async () => ctx.usersRepo.insert({
      username: 'guest',
      ...(await passwordFields(randomPassword(24))),
      pwdTs: Date.now(),
      basePath: '/',
      role: Role.GUEST,
      disabled: true,
      permission: 0,
      otpSecret: '',
      ssoId: '',
    }));
  }
  const anyStorage = await db.selectFrom('storages').select('id').executeTakeFirst();
  if (!anyStorage) {
    await db
      .insertInto('storages')
      .values({
        mount_path: '/',
        driver: 'local',
        order: 0,
        remark: 'Created on first start',
        disabled: 0,
        seed_policy: 'inherit',
        proxy: 1,
        addition: JSON.stringify({ root_folder_path: join(ctx.config.dataDir, 'files') }),
        modified: Date.now(),
      })
      .onConflict((oc) => oc.column('mount_path').doNothing())
      .execute();
  }
}
