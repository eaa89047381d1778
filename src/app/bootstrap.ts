/**
 * Opening a data dir: creates it (and files/, ssh/, tmp/), the JWT/HMAC secret (0600),
 * migrates the database, and on first start the admin, the disabled guest and the
 * local storage mounted at `/`.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync, chmodSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import type { Config } from '../config/config.js';
import { migrate, openDatabase } from '../db/database.js';
import { passwordFields, randomPassword } from '../modules/auth/password.js';
import { ALL_PERMISSIONS, Role } from '../modules/users/user.model.js';
import { buildContext, type AppContext } from './context.js';

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
  if (!existsSync(file)) writeFileSync(file, randomBytes(48).toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
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

/** Releases storages and the database pool. */
export async function closeApp(ctx: AppContext): Promise<void> {
  await ctx.tasks.stopAll();
  await ctx.storages.close();
  await ctx.database.close();
}

export async function openApp(config: Config, opts: OpenOptions = {}): Promise<AppContext> {
  for (const d of ['', 'files', 'ssh', 'tmp']) mkdirSync(join(config.dataDir, d), { recursive: true });
  const secret = loadSecret(config);
  const logger = opts.logger ?? pino({ level: config.logLevel });
  const database = await openDatabase({ ...config, onPoolError: (e) => logger.warn({ err: e.message }, 'idle database connection lost') });
  try {
    await migrate(database);
    const ctx = buildContext({ config, database, logger, secret, version: ferryVersion() });
    await ctx.settings.ensureDefaults();
    await seedFirstStart(ctx, opts.announce ?? ((l) => process.stdout.write(l + '\n')));
    if (opts.mountStorages !== false) await ctx.storages.loadAll();
    return ctx;
  } catch (e) {
    await database.close();
    throw e;
  }
}

async function seedFirstStart(ctx: AppContext, announce: (line: string) => void): Promise<void> {
  const { db } = ctx.database;
  if (!(await ctx.usersRepo.byRole(Role.ADMIN))) {
    const password = ctx.config.adminPassword ?? randomPassword(12);
    await ctx.usersRepo.insert({
      username: 'admin',
      ...(await passwordFields(password)),
      pwdTs: Date.now(),
      basePath: '/',
      role: Role.ADMIN,
      disabled: false,
      permission: ALL_PERMISSIONS,
      otpSecret: '',
      ssoId: '',
    });
    if (!ctx.config.adminPassword) announce(`Created user admin with the initial password: ${password}`);
  }
  if (!(await ctx.usersRepo.byRole(Role.GUEST))) {
    await ctx.usersRepo.insert({
      username: 'guest',
      ...(await passwordFields(randomPassword(24))),
      pwdTs: Date.now(),
      basePath: '/',
      role: Role.GUEST,
      disabled: true,
      permission: 0,
      otpSecret: '',
      ssoId: '',
    });
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
