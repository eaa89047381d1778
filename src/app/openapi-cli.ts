/**
 * `ferry openapi [-o FILE]`: the OpenAPI document of every route, without a running server (the build turns
 * it into the web UI's types). Opens a throwaway SQLite data dir, mounts the routes and prints the document.
 */
import type { Command } from 'commander';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../config/config.js';
import { closeApp, openApp } from './bootstrap.js';
import { buildHttpServer } from './http.js';

export async function openApiDocument(): Promise<unknown> {
  const dir = mkdtempSync(join(tmpdir(), 'ferry-openapi-'));
  try {
    const app = await openApp(loadConfig({ FERRY_DATA_DIR: dir, FERRY_ADMIN_PASSWORD: 'openapi-only', FERRY_LOG_LEVEL: 'silent' }), {
      logger: pino({ level: 'silent' }),
      mountStorages: false,
      announce: () => {},
    });
    try {
      const http = await buildHttpServer(app);
      await http.ready();
      const doc = http.swagger();
      await http.close();
      return doc;
    } finally {
      await closeApp(app);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function openApiCommand(program: Command): void {
  program
    .command('openapi')
    .description('print the OpenAPI document of the HTTP API (no server is started)')
    .option('-o, --output <file>', 'write it to FILE instead of standard output')
    .action(async (opts: { output?: string }) => {
      const text = JSON.stringify(await openApiDocument(), null, 2) + '\n';
      if (opts.output) {
        mkdirSync(dirname(opts.output), { recursive: true });
        writeFileSync(opts.output, text);
      }
      else process.stdout.write(text);
    });
}
