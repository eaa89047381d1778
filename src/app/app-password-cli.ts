/** `ferry app-password …`: a user's app passwords (WebDAV and SFTP password logins) from the command line. */
import type { Command } from 'commander';
import pino from 'pino';
import { loadConfig } from '../config/config.js';
import type { User } from '../modules/users/user.model.js';
import { closeApp, openApp, type App } from './bootstrap.js';

async function withUser(username: string, fn: (ctx: App, user: User) => Promise<void>): Promise<void> {
  const ctx = await openApp(loadConfig(), { logger: pino({ level: 'warn' }), mountStorages: false });
  try {
    const user = await ctx.usersRepo.byUsername(username);
    if (!user) throw new Error(`no user named ${username}`);
    await fn(ctx, user);
  } finally {
    await closeApp(ctx);
  }
}

export function appPasswordCommands(program: Command): void {
  const cmd = program.command('app-password').description("a user's app passwords (for WebDAV and SFTP password logins, never the web login)");
  cmd
    .command('create')
    .argument('<username>')
    .argument('<name>', 'what it is for, e.g. "laptop rclone"')
    .description('create one and print it (shown this once)')
    .action((username: string, name: string) =>
      withUser(username, async (ctx, user) => {
        const p = await ctx.appPasswords.create(user, name);
        process.stdout.write(`id: ${p.id}\nname: ${p.name}\npassword: ${p.password}\n`);
      }),
    );
  cmd
    .command('list')
    .argument('<username>')
    .description('list them with their last use (never the passwords)')
    .action((username: string) =>
      withUser(username, async (ctx, user) => {
        const { content } = await ctx.appPasswords.list(user);
        for (const p of content) process.stdout.write(`${p.id}\t${p.name}\tcreated ${p.created_time}\tlast used ${p.last_used_time}\n`);
      }),
    );
  cmd
    .command('revoke')
    .argument('<username>')
    .argument('<id>', 'as `list` shows it')
    .description('revoke one (it stops working at once)')
    .action((username: string, id: string) =>
      withUser(username, async (ctx, user) => {
        if (!/^\d+$/.test(id)) throw new Error('id: a number, as `ferry app-password list` shows it');
        await ctx.appPasswords.delete(user, Number(id));
        process.stdout.write(`app password ${id} revoked\n`);
      }),
    );
}
