#!/usr/bin/env node
/** The `ferry` command line: serve, admin …, seed … */
import { Command } from 'commander';
import { ConfigError, loadConfig } from '../config/config.js';
import { registerSeedCommands } from '../modules/seeds/cli/index.js';
import { adminCommands } from './admin-cli.js';
import { appPasswordCommands } from './app-password-cli.js';
import { openApiCommand } from './openapi-cli.js';
import { ferryVersion } from './bootstrap.js';
import { serve } from './serve.js';
import { worker } from './worker.js';

const program = new Command('ferry').description('Ferry: a self-hosted file manager with transfer seeds').version(ferryVersion());

program
  .command('serve', { isDefault: true })
  .description('start the HTTP server (configuration from FERRY_* environment variables)')
  .action(async () => serve(loadConfig()));

program
  .command('worker')
  .description('run background tasks only (no HTTP or SFTP listener), beside serving instances on the same database')
  .action(async () => worker(loadConfig()));

adminCommands(program);
appPasswordCommands(program);

openApiCommand(program);

registerSeedCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof ConfigError) {
    process.stderr.write(`${e.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`ferry: ${(e as Error).message}\n`);
  process.exit(1);
}
