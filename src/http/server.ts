/** Builds the Fastify server: validation, error mapper, auth hook, OpenAPI, every module's routes. */
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import swagger from '@fastify/swagger';
import { sql } from 'kysely';
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

export async function buildHttpServer(ctx: AppContext): Promise<HttpApp> {
  const app = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    trustProxy: ctx.config.trustProxy,
    bodyLimit: JSON_BODY_LIMIT,
    logController: new LogController({ disableRequestLogging: ctx.config.logLevel !== 'debug' && ctx.config.logLevel !== 'trace' }),
    ajv: { customOptions: { coerceTypes: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  installErrorMapper(app, () => ctx.settings.getBool('api_errors_http_200'));
  installAuthHook(app, ctx.auth);

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
