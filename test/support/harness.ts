/**
 * An in-process Ferry on a temp data dir and a fresh database, driven through
 * Fastify's inject (real HTTP parsing, no socket). One harness per suite.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe } from 'node:test';
import pino from 'pino';
import { closeApp, openApp, type App } from '../../src/app/bootstrap.js';
import { buildHttpServer } from '../../src/app/http.js';
import { startSftp } from '../../src/app/serve.js';
import { registerTasks } from '../../src/app/tasks.js';
import { loadConfig } from '../../src/config/config.js';
import type { HttpApp } from '../../src/http/types.js';
import type { SftpServer } from '../../src/modules/sftp/sftp.server.js';
import { createTestDatabase, DIALECTS, type DialectName, type TestDatabase } from './databases.js';

export const ADMIN_PASSWORD = 'admin-pass-1';

export interface ApiReply<T = any> {
  status: number;
  body: { code: number; message: string; data: T };
  headers: Record<string, unknown>;
}

export interface CallOptions {
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
  remoteAddress?: string;
}

export class Harness {
  ctx!: App;
  app!: HttpApp;
  dataDir!: string;
  /** The SFTP server, when the env sets FERRY_SFTP_LISTEN (port 0 = any free port). */
  sftp: SftpServer | null = null;
  private db!: TestDatabase;

  constructor(readonly dialect: DialectName, readonly env: Record<string, string> = {}) {}

  async start(): Promise<this> {
    this.dataDir = mkdtempSync(join(tmpdir(), 'ferry-test-'));
    this.db = await createTestDatabase(this.dialect);
    await this.open();
    return this;
  }

  /** A second instance on `other`'s database (its own data dir; `other` drops the database). */
  async startBeside(other: Harness): Promise<this> {
    this.dataDir = mkdtempSync(join(tmpdir(), 'ferry-test-'));
    this.db = { url: other.db.url, drop: async () => {} };
    await this.open();
    return this;
  }

  /** (Re)opens the app on the same data dir and database, as a restart would. */
  async open(): Promise<void> {
    const config = loadConfig({
      FERRY_DATA_DIR: this.dataDir,
      FERRY_ADMIN_PASSWORD: ADMIN_PASSWORD,
      FERRY_LOG_LEVEL: 'silent',
      ...(this.db.url ? { FERRY_DATABASE_URL: this.db.url } : {}),
      ...this.env,
    });
    this.ctx = await openApp(config, { logger: pino({ level: process.env.FERRY_TEST_LOG ?? 'silent' }), announce: () => {} });
    registerTasks(this.ctx);
    this.ctx.tasks.start();
    this.app = await buildHttpServer(this.ctx);
    await this.app.ready();
    if (config.sftpListen) this.sftp = await startSftp(this.ctx, config.sftpListen);
  }

  async close(): Promise<void> {
    await this.sftp?.close();
    this.sftp = null;
    await this.app.close();
    await closeApp(this.ctx);
  }

  async stop(): Promise<void> {
    await this.close();
    await this.db.drop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }

  async call<T = any>(method: string, url: string, o: CallOptions = {}): Promise<ApiReply<T>> {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token !== undefined) headers.authorization = o.token;
    const res = await this.app.inject({
      method: method as 'GET',
      url,
      headers,
      remoteAddress: o.remoteAddress ?? '127.0.0.1',
      ...(o.body !== undefined ? { payload: o.body as object } : {}),
    });
    let body: ApiReply<T>['body'];
    try {
      body = res.json();
    } catch {
      body = { code: -1, message: res.body, data: null as T };
    }
    return { status: res.statusCode, body, headers: res.headers };
  }

  get = <T = any>(url: string, o?: CallOptions) => this.call<T>('GET', url, o);
  post = <T = any>(url: string, body?: unknown, o: CallOptions = {}) => this.call<T>('POST', url, { ...o, body });

  /** Logs in (plain password) and returns the token; fails the test on any error. */
  async login(username: string, password: string, extra: Record<string, string> = {}): Promise<string> {
    const r = await this.post('/api/auth/login', { username, password, ...extra });
    if (r.status !== 200) throw new Error(`login ${username} failed: ${r.status} ${r.body.message}`);
    return r.body.data.token as string;
  }

  adminToken(): Promise<string> {
    return this.login('admin', ADMIN_PASSWORD);
  }

  /** Creates a general user and returns its id. */
  async createUser(username: string, password: string, extra: Record<string, unknown> = {}): Promise<number> {
    const r = await this.post('/api/admin/user/create', { username, password, ...extra }, { token: await this.adminToken() });
    if (r.status !== 200) throw new Error(`create ${username} failed: ${r.status} ${r.body.message}`);
    return r.body.data.id as number;
  }
}

/**
 * Declares `body` once per dialect, each in its own describe with a started harness.
 * `h()` returns that dialect's harness.
 */
export function forEachDialect(title: string, body: (h: () => Harness) => void, env: Record<string, string> = {}): void {
  for (const dialect of DIALECTS) {
    describe(`${title} [${dialect}]`, () => {
      const harness = new Harness(dialect, env);
      before(() => harness.start());
      after(() => harness.stop());
      body(() => harness);
    });
  }
}

/** Fails with the install hint when a command-line peer is missing. */
export { requireCommand } from './commands.js';
