/** Builds the Fastify server: validation, error mapper, auth hook, OpenAPI, every module's routes. */
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import swagger from '@fastify/swagger';
import { sql } from 'kysely';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppContext } from '../app/context.js';
import { authRoutes } from '../modules/auth/auth.routes.js';
import { settingsRoutes } from '../modules/settings/settings.routes.js';
import { sshKeysRoutes } from '../modules/ssh-keys/ssh-keys.routes.js';
import { usersRoutes } from '../modules/users/users.routes.js';
import { storagesRoutes } from '../modules/storages/storages.routes.js';
import { fsRoutes } from '../modules/fs/fs.routes.js';
import { uploadRoutes } from '../modules/fs/upload.routes.js';
import { downloadRoutes } from '../modules/fs/download.routes.js';
import { sharesRoutes } from '../modules/shares/shares.routes.js';
import { tasksRoutes } from '../modules/tasks/tasks.routes.js';
import { seedGenerationRoutes } from '../modules/seeds/generation/index.js';
import { seedPreviewRoutes } from '../modules/seeds/operations/preview.routes.js';
import { seedTransferRoutes } from '../modules/seeds/operations/transfer.routes.js';
import { registerTaskHandlers } from '../app/task-handlers.js';
import { installAuthHook } from './auth-hook.js';
import { installErrorMapper } from './error-mapper.js';
import { staticUiRoutes } from './static-ui.js';
import type { HttpApp } from './types.js';
import { validatorCompiler } from './validation.js';

/** Largest JSON body accepted (uploads stream separately and are not bound by this). */
export const JSON_BODY_LIMIT = 16 * 1024 * 1024;

/**
 * Slow bodies (slowloris): while a request body is arriving, its connection is cut after
 * `ms` without a byte (the upload aborts and cleans up). Only inactivity counts: a 1 GiB
 * upload may take as long as it needs. The socket's own timeout is restored at the body's end.
 */
function installBodyIdleTimeout(app: HttpApp, ms: number): void {
  if (ms <= 0) return;
  app.addHook('onRequest', async (req) => {
    const raw = req.raw;
    const hasBody = raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length'] ?? 0) > 0;
    if (!hasBody || raw.complete) return;
    const socket = raw.socket;
    // light-my-request's fake socket (app.inject) has no timeouts: nothing to guard there
    if (typeof socket?.setTimeout !== 'function') return;
    socket.setTimeout(ms); // on expiry, with no 'timeout' listener, node:http destroys the socket
    // Only the client's silence counts: while the server itself holds the body back (a slow
    // storage applying back-pressure pauses the request stream) the timer is off.
    const paused = () => {
      if (!socket.destroyed && !raw.complete) socket.setTimeout(0);
    };
    const resumed = () => {
      if (!socket.destroyed && !raw.complete) socket.setTimeout(ms);
    };
    raw.on('pause', paused);
    raw.on('resume', resumed);
    const restore = () => {
      raw.off('pause', paused);
      raw.off('resume', resumed);
      if (!socket.destroyed) socket.setTimeout(app.server.timeout);
    };
    raw.once('end', restore);
    raw.once('close', restore);
  });
}

/**
 * An error sent before a chunked or over-limit body was read closes the connection: keeping it
 * open would make node:http read (and discard) the rest of that body, whatever its size.
 */
function installCloseOnUnreadBody(app: HttpApp): void {
  app.addHook('onSend', async (req, reply, payload) => {
    const raw = req.raw;
    if (reply.statusCode < 400 || raw.complete) return payload;
    if (raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length'] ?? 0) > JSON_BODY_LIMIT) reply.header('connection', 'close');
    return payload;
  });
}

/**
 * FERRY_EVENT_LOOP_STATS: event-loop delay percentiles (ms) logged when the server closes.
 * The histogram records the time between 10 ms samples; the sampling interval is taken off.
 */
function installEventLoopStats(app: HttpApp, logger: AppContext['logger']): void {
  const RESOLUTION_MS = 10;
  const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  h.enable();
  app.addHook('onClose', async () => {
    h.disable();
    const ms = (ns: number) => Math.max(0, Math.round(ns / 1e4 - RESOLUTION_MS * 100) / 100);
    logger.info(
      { event_loop_delay_ms: { min: ms(h.min), mean: ms(h.mean), p50: ms(h.percentile(50)), p90: ms(h.percentile(90)), p99: ms(h.percentile(99)), max: ms(h.max) }, samples: h.count },
      'event loop delay',
    );
  });
}

export async function buildHttpServer(ctx: AppContext): Promise<HttpApp> {
  const app = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    trustProxy: ctx.config.trustProxy,
    bodyLimit: JSON_BODY_LIMIT,
    // No total request time limit (large uploads); slow headers time out, slow bodies idle out.
    requestTimeout: 0,
    http: { headersTimeout: ctx.config.headersTimeoutMs, connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(ctx.config.headersTimeoutMs / 4))) },
    logController: new LogController({ disableRequestLogging: ctx.config.logLevel !== 'debug' && ctx.config.logLevel !== 'trace' }),
    ajv: { customOptions: { coerceTypes: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  installErrorMapper(app, () => ctx.settings.getBool('api_errors_http_200'));
  installAuthHook(app, ctx.auth);
  installBodyIdleTimeout(app, ctx.config.bodyIdleTimeoutMs);
  installCloseOnUnreadBody(app);
  if (ctx.config.eventLoopStats) installEventLoopStats(app, ctx.logger);

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Ferry', version: ctx.version, description: 'Self-hosted file manager with transfer seeds. Every JSON reply is `{code, message, data}`.' },
      components: { securitySchemes: { token: { type: 'apiKey', in: 'header', name: 'Authorization' } } },
      security: [{ token: [] }],
    },
  });

  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/ping', { schema: { hide: true } }, async (_req, reply) => reply.type('text/plain').send('pong'));
  app.get('/healthz', { schema: { tags: ['system'], summary: 'Database and storages' } }, async (_req, reply) => {
    const started = Date.now();
    let database: { ok: boolean; dialect: string; latency_ms: number; error?: string };
    try {
      await sql`select 1`.execute(ctx.database.db);
      database = { ok: true, dialect: ctx.database.dialect, latency_ms: Date.now() - started };
    } catch (e) {
      database = { ok: false, dialect: ctx.database.dialect, latency_ms: Date.now() - started, error: String(e) };
    }
    if (database.ok) await ctx.storages.refresh().catch(() => {});
    const storages = ctx.storages.list().map((m) => ({ id: m.record.id, mount_path: m.record.mountPath, driver: m.record.driver, status: m.status }));
    const status = database.ok ? 200 : 500;
    return reply.status(status).send({ code: status, message: database.ok ? 'success' : 'database unavailable', data: { database, storages } });
  });

  registerTaskHandlers(ctx);
  authRoutes(app, ctx);
  usersRoutes(app, ctx);
  sshKeysRoutes(app, ctx);
  settingsRoutes(app, ctx);
  storagesRoutes(app, ctx);
  fsRoutes(app, ctx);
  uploadRoutes(app, ctx);
  downloadRoutes(app, ctx);
  sharesRoutes(app, ctx);
  tasksRoutes(app, ctx);
  seedGenerationRoutes(app, ctx);
  seedPreviewRoutes(app, ctx);
  seedTransferRoutes(app, ctx);
  await staticUiRoutes(app);
  return app;
}
