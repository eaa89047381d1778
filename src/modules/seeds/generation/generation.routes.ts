/**
 * `POST /fs/seed/generate` (at `/api/fs/seed/generate`, `/fs/seed/generate`, and the legacy
 * `/api/fs/torrent/generate`, `/fs/torrent/generate`: same body, same behaviour).
 */
import { OkOf, ok } from '../../../http/envelope.js';
import { GenerateReplySchema } from '../seeds.schemas.js';
import { requestOrigin } from '../../../http/origin.js';
import { LARGE_JSON_BODY_LIMIT } from '../../../http/json-body.js';
import type { HttpApp } from '../../../http/types.js';
import { badRequest } from '../../../lib/errors.js';
import { stripBasePath } from '../../../lib/path-safety.js';
import { currentUser } from '../../auth/principal.js';
import type { User } from '../../users/user.model.js';
import type { SeedsDeps } from '../seeds.deps.js';
import { SEED_GENERATE_TASK, executeGeneration, prepareGeneration, type Prepared } from './generate.js';
import { GenerateBody } from './request.js';
import { presentTask } from '../../tasks/tasks.present.js';

export const GENERATE_URLS = ['/api/fs/seed/generate', '/fs/seed/generate', '/api/fs/torrent/generate', '/fs/torrent/generate'] as const;

function taskName(user: User, p: Prepared): string {
  if (p.opts.paths.length === 1) return `generate seed for ${stripBasePath(user.basePath, p.opts.paths[0]!)}`;
  return `generate seed for ${p.files.length} files`;
}

export function seedGenerationRoutes(app: HttpApp, deps: SeedsDeps): void {
  for (const url of GENERATE_URLS) {
    app.post(url, {
      config: { auth: 'guest' },
      bodyLimit: LARGE_JSON_BODY_LIMIT,
      schema: {
        tags: ['seeds'],
        hide: url !== GENERATE_URLS[0],
        summary: 'Generate .oss / .torrent / .cas sidecars for files and folders',
        description:
          'Total size ≤ `seed_async_threshold`: synchronous, `data` = `{paths, artifacts, seed, files, diagnostics}`. ' +
          'Above it: a `seed_generate` task, `data` = `{async: true, task}` (`output_path` required).',
        body: GenerateBody,
        response: { 200: OkOf(GenerateReplySchema) },
      },
    }, async (req) => {
      const user = currentUser(req);
      const p = await prepareGeneration(deps, user, req.body);
      const threshold = await deps.settings.getNumber('seed_async_threshold');
      if (p.totalBytes > threshold) {
        if (!p.opts.outputDir) {
          throw badRequest(`output_path: required for asynchronous seed generation (${p.totalBytes} bytes is over the seed_async_threshold of ${threshold})`, { field: 'output_path' });
        }
        const task = await deps.tasks.create(SEED_GENERATE_TASK, {
          name: taskName(user, p),
          creatorId: user.id,
          payload: { user_id: user.id, body: req.body, origin: requestOrigin(req) },
          totalBytes: p.downloadBytes,
        });
        return ok({ async: true, task: presentTask(task, user.username, user.role) });
      }
      return ok(await executeGeneration(deps, user, p, { origin: requestOrigin(req) }));
    });
  }
}
