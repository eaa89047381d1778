/**
 * Every route of the seeds module: generation, the wizard's capabilities, previews and operations, and
 * saving a seed's files. The composition root mounts them with one `SeedsDeps`.
 */
import { Type } from 'typebox';
import { OkOf, ok } from '../../http/envelope.js';
import { CapabilitiesSchema, DestinationPlanSchema } from './seeds.schemas.js';
import { LARGE_JSON_BODY_LIMIT } from '../../http/json-body.js';
import type { HttpApp } from '../../http/types.js';
import { currentUser } from '../auth/principal.js';
import { seedCapabilities } from './generation/capabilities.js';
import { seedGenerationRoutes } from './generation/generation.routes.js';
import { SeedPlanFields, seedDestinationPlan } from './operations/destination-plan.js';
import { seedPreviewRoutes } from './operations/preview.routes.js';
import { sourceContext } from './operations/source-rules.js';
import { seedTransferRoutes } from './operations/transfer.routes.js';
import type { SeedsDeps } from './seeds.deps.js';

export function seedsRoutes(app: HttpApp, deps: SeedsDeps): void {
  seedGenerationRoutes(app, deps);
  capabilitiesRoutes(app, deps);
  seedPreviewRoutes(app, deps);
  seedTransferRoutes(app, deps);
}

/** `POST /api/fs/seed/capabilities`: the wizard's preflight (`paths`), or destination planning for a seed (`seed_data`). */
function capabilitiesRoutes(app: HttpApp, deps: SeedsDeps): void {
  for (const url of ['/api/fs/seed/capabilities', '/fs/seed/capabilities']) {
    app.post(url, {
      config: { auth: 'guest' },
      bodyLimit: LARGE_JSON_BODY_LIMIT,
      schema: {
        tags: ['seeds'],
        hide: url !== '/api/fs/seed/capabilities',
        summary: 'Seed wizard preflight (`paths`), or destination planning for a seed (`seed_data` + destination `path`)',
        body: Type.Object({ paths: Type.Optional(Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 100_000 })), ...SeedPlanFields }),
        response: { 200: OkOf(Type.Union([CapabilitiesSchema, DestinationPlanSchema])) },
      },
    }, async (req) => {
      const { paths = [], ...plan } = req.body;
      if (paths.length === 0 && plan.seed_data !== undefined) return ok(await seedDestinationPlan(deps, currentUser(req), plan, await sourceContext(deps, req)));
      return ok(await seedCapabilities(deps, currentUser(req), paths));
    });
  }
}
