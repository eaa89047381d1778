/** `GET /healthz`: the database and every storage, for load balancers and monitoring. */
import type { HttpApp } from '../../http/types.js';
import type { DatabaseHealth } from '../../db/database.js';
import type { StorageRegistry } from '../storages/storages.service.js';

export interface HealthRouteDeps {
  pingDatabase(): Promise<DatabaseHealth>;
  storages: Pick<StorageRegistry, 'refresh' | 'list'>;
}

export function healthRoutes(app: HttpApp, { pingDatabase, storages }: HealthRouteDeps): void {
  app.get('/healthz', { schema: { tags: ['system'], summary: 'Database and storages' } }, async (_req, reply) => {
    const database = await pingDatabase();
    if (database.ok) await storages.refresh().catch(() => {});
    const list = storages.list().map((m) => ({ id: m.record.id, mount_path: m.record.mountPath, driver: m.record.driver, status: m.status }));
    const status = database.ok ? 200 : 500;
    return reply.status(status).send({ code: status, message: database.ok ? 'success' : 'database unavailable', data: { database, storages: list } });
  });
}
