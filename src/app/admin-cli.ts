/** `ferry admin …`: offline administration on the data dir / database of FERRY_* config. */
import type { Command } from 'commander';
import pino from 'pino';
import { loadConfig } from '../config/config.js';
import { Role } from '../modules/users/user.model.js';
import { closeApp, openApp, type App } from './bootstrap.js';

async function withAdmin(fn: (ctx: App, adminId: number) => Promise<void>): Promise<void> {
  const ctx = await openApp(loadConfig(), { logger: pino({ level: 'warn' }), mountStorages: false });
  try {
    const admin = await ctx.usersRepo.byRole(Role.ADMIN);
    if (!admin) throw new Error('no admin user');
    await fn(ctx, admin.id);
  } finally {
    await closeApp(ctx);
  }
}

export function adminCommands(program: Command): void {
  const admin = program.command('admin').description('administer the admin user');
  admin
    .command('show')
    .description('show the admin user')
    .action(() =>
      withAdmin(async (ctx, id) => {
        const u = await ctx.users.get(id);
        process.stdout.write(`username: ${u.username}\nbase_path: ${u.basePath}\n2fa: ${u.otpSecret ? 'on' : 'off'}\ndisabled: ${u.disabled}\n`);
      }),
    );
  admin
    .command('set-password')
    .argument('<password>', 'the new password')
    .description("set the admin's password (ends every session of the admin)")
    .action((password: string) =>
      withAdmin(async (ctx, id) => {
        await ctx.users.setPassword(id, password);
        process.stdout.write('admin password changed\n');
      }),
    );
  admin
    .command('cancel-2fa')
    .description("turn off the admin's two-factor authentication")
    .action(() =>
      withAdmin(async (ctx, id) => {
        await ctx.twoFactor.cancel(id);
        process.stdout.write('admin 2FA cancelled\n');
      }),
    );
  admin
    .command('token')
    .description('print the admin API token')
    .action(() =>
      withAdmin(async (ctx) => {
        process.stdout.write((await ctx.settings.get('token')) + '\n');
      }),
    );
}
