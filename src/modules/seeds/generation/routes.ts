/**
 * `POST /fs/seed/generate` (at `/api/fs/seed/generate`, `/fs/seed/generate`, and the legacy
 * `/api/fs/torrent/generate`, `/fs/torrent/generate`: same body, same behaviour),
 * `POST /api/fs/seed/capabilities`, and the `seed_generate` task handler.
 */
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../../app/context.js';
import { currentUser } from '../../../http/auth-hook.js';
import { ok } from '../../../http/envelope.js';
import type { HttpApp } from '../../../http/types.js';
import { badRequest } from '../../../lib/errors.js';
import { stripBasePath } from '../../../lib/path-safety.js';
import { presentTask } from '../../tasks/task.model.js';
import type { User } from '../../users/user.model.js';
import { seedCapabilities } from './capabilities.js';
import { SeedPlanFields, seedDestinationPlan } from '../operations/plan.js';
import { sourceContext } from '../operations/source-rules.js';
import { executeGeneration, prepareGeneration, type Prepared } from './generate.js';
import { GenerateBody, type GenerateBodyT } from './request.js';

export const GENERATE_URLS = ['/api/fs/seed/generate', '/fs/seed/generate', '/api/fs/torrent/generate', '/fs/torrent/generate'] as const;

const origin = (req: FastifyRequest) => `${req.protocol}://${req.host}`;

function taskName(user: User, p: Prepared): string {
  if (p.opts.paths.length === 1) return `generate seed for ${stripBasePath(user.basePath, p.opts.paths[0]!)}`;
  return `generate seed for ${p.files.length} files`;
}

/** Runs a stored generate request; the result (written paths, per-file modes) becomes the task's `result`. */
export function registerSeedGenerateTask(ctx: AppContext): void {
  ctx.tasks.register('seed_generate', async (payload, run) => {
    const user = await ctx.usersRepo.byId(Number(payload.user_id));
    if (!user || user.disabled) throw new Error('the user who queued this seed no longer exists or is disabled');
    run.status('checking sources');
    const p = await prepareGeneration(ctx, user, payload.body as GenerateBodyT);
    run.progress(0, p.downloadBytes);
    run.status('generating seed');
    const r = await executeGeneration(ctx, user, p, {
      signal: run.signal,
      origin: String(payload.origin ?? ''),
      taskId: run.taskId,
      onProgress: (done, total) => run.progress(done, total),
    });
    return { paths: r.paths, files: r.files, diagnostics: r.diagnostics };
  });
}

export function seedGenerationRoutes(app: HttpApp, ctx: AppContext): void {
  const auth = { config: { auth: 'guest' as const } };
  const tags = ['seeds'];

  for (const url of GENERATE_URLS) {
    app.post(url, {
      ...auth,
      schema: {
        tags,
        hide: url !== GENERATE_URLS[0],
        summary: 'Generate .oss / .torrent / .cas sidecars for files and folders',
        description:
          'Total size ≤ `seed_async_threshold`: synchronous, `data` = `{paths, artifacts, seed, files, diagnostics}`. ' +
          'Above it: a `seed_generate` task, `data` = `{async: true, task}` (`output_path` required).',
        body: GenerateBody,
      },
    }, async (req) => {
      const user = currentUser(req);
      const p = await prepareGeneration(ctx, user, req.body);
      const threshold = await ctx.settings.getNumber('seed_async_threshold');
      if (p.totalBytes > threshold) {
        if (!p.opts.outputDir) {
          throw badRequest(`output_path: required for asynchronous seed generation (${p.totalBytes} bytes is over the seed_async_threshold of ${threshold})`, { field: 'output_path' });
        }
        const task = await ctx.tasks.create('seed_generate', taskName(user, p), user.id, { user_id: user.id, body: req.body, origin: origin(req) }, p.downloadBytes);
        return ok({ async: true, task: presentTask(task, user.username, user.role) });
      }
      return ok(await executeGeneration(ctx, user, p, { origin: origin(req) }));
    });
  }

  for (const url of ['/api/fs/seed/capabilities', '/fs/seed/capabilities']) {
    app.post(url, {
      ...auth,
      schema: {
        tags,
        hide: url !== '/api/fs/seed/capabilities',
        summary: 'Seed wizard preflight (`paths`), or destination planning for a seed (`seed_data` + destination `path`)',
        body: Type.Object({ paths: Type.Optional(Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 100_000 })), ...SeedPlanFields }),
      },
    }, async (req) => {
      const { paths = [], ...plan } = req.body;
      if (paths.length === 0 && plan.seed_data !== undefined) return ok(await seedDestinationPlan(ctx, currentUser(req), plan, await sourceContext(ctx, req)));
      return ok(await seedCapabilities(ctx, currentUser(req), paths));
    });
  }
}
