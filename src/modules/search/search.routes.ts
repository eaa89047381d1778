/** `POST /api/fs/search` and the index administration `/api/admin/index/*` (OpenList-compatible). */
import { OkNull, OkOf, ok } from '../../http/envelope.js';
import type { FastifyRequest } from 'fastify';
import type { HttpApp } from '../../http/types.js';
import { conflict } from '../../lib/errors.js';
import { cleanPath } from '../../lib/path-safety.js';
import { isoTime } from '../../lib/time.js';
import { currentUser } from '../auth/principal.js';
import type { SettingsReader } from '../settings/settings.service.js';
import { TaskState, type TaskRow } from '../tasks/task.model.js';
import { presentTask } from '../tasks/tasks.present.js';
import { TaskInfoSchema } from '../tasks/tasks.schemas.js';
import type { TasksService } from '../tasks/tasks.service.js';
import { IndexBody, IndexProgressSchema, ScanBody, ScanProgressSchema, SearchBody, SearchResultSchema } from './search.schemas.js';
import type { SearchService } from './search.service.js';
import { INDEX_BUILD_TASK, INDEX_SCAN_TASK, INDEX_TASK_TYPES, INDEX_UPDATE_TASK } from './search.task.js';

export interface SearchRouteDeps {
  search: SearchService;
  tasks: Pick<TasksService, 'create' | 'list' | 'cancel'>;
  settings: SettingsReader;
}

export function searchRoutes(app: HttpApp, { search, tasks, settings }: SearchRouteDeps): void {
  app.post('/api/fs/search', {
    config: { auth: 'guest' as const },
    schema: {
      tags: ['fs'],
      summary: 'Find objects by name below a folder (all words, substrings, any case), only what the user may see',
      body: SearchBody,
      response: { 200: OkOf(SearchResultSchema) },
    },
  }, async (req) => {
    const b = req.body;
    return ok(await search.search(currentUser(req), { parent: b.parent ?? '/', keywords: b.keywords, scope: b.scope ?? 0, page: b.page ?? 1, per_page: b.per_page ?? 100 }));
  });

  const admin = { config: { auth: 'admin' as const } };
  const tags = ['admin'];

  const undone = async (): Promise<TaskRow[]> => (await Promise.all(INDEX_TASK_TYPES.map((t) => tasks.list(t, false, null)))).flat();
  const finished = async (): Promise<TaskRow[]> => (await Promise.all(INDEX_TASK_TYPES.map((t) => tasks.list(t, true, null)))).flat();

  /** Starts one index task (one at a time: a second answers 409). */
  const start = async (req: FastifyRequest, kind: typeof INDEX_BUILD_TASK, paths: string[], maxDepth: number | undefined, listRate?: number) => {
    await search.requireEnabled();
    if ((await undone()).some((t) => t.state !== TaskState.ERRORED)) throw conflict('an index build, update or scan is already running: stop it first');
    const max = maxDepth && maxDepth >= 1 ? maxDepth : await settings.getNumber('max_index_depth');
    const user = currentUser(req);
    const verb = kind.type.replace('index_', '');
    const row = await tasks.create(kind, {
      name: `index ${verb} ${paths.join(', ')}`,
      creatorId: user.id,
      payload: { paths, max_depth: Math.max(1, max), ...(listRate ? { list_rate: listRate } : {}) },
    });
    return presentTask(row, user.username, user.role);
  };

  for (const kind of [INDEX_BUILD_TASK, INDEX_UPDATE_TASK]) {
    const verb = kind === INDEX_BUILD_TASK ? 'build' : 'update';
    app.post(`/api/admin/index/${verb}`, {
      ...admin,
      schema: {
        tags,
        summary: verb === 'build' ? 'Rebuild the index below paths (their rows are dropped, then walked again), as a task' : 'Reconcile the index with the storages below paths, as a task',
        body: IndexBody,
        response: { 200: OkOf(TaskInfoSchema) },
      },
    }, async (req) => {
      const paths = [...new Set((req.body?.paths?.length ? req.body.paths : ['/']).map(cleanPath))];
      return ok(await start(req, kind, paths, req.body?.max_depth));
    });
  }

  // OpenList's scan (its indexes page): reconcile one path with the storages, at most `limit` folder listings a second
  app.post('/api/admin/scan/start', {
    ...admin,
    schema: { tags, summary: 'Scan a path into the index (an update of that path), paced to `limit` folder listings a second (0: no limit)', body: ScanBody, response: { 200: OkOf(TaskInfoSchema) } },
  }, async (req) => ok(await start(req, INDEX_SCAN_TASK, [cleanPath(req.body.path || '/')], undefined, req.body.limit ?? 0)));

  app.post('/api/admin/scan/stop', { ...admin, schema: { tags, summary: 'Cancel a running scan (like index/stop)', response: { 200: OkNull } } }, async () => {
    await stop();
    return ok();
  });

  app.get('/api/admin/scan/progress', { ...admin, schema: { tags, summary: 'Objects the running (or last) scan has walked', response: { 200: OkOf(ScanProgressSchema) } } }, async () => {
    const scans = (await Promise.all([false, true].map((done) => tasks.list(INDEX_SCAN_TASK.type, done, null)))).flat();
    const running = scans.find((t) => t.state === TaskState.PENDING || t.state === TaskState.RUNNING);
    const last = running ?? scans.sort((a, b) => Number(b.end_time ?? 0) - Number(a.end_time ?? 0))[0];
    // a running scan reports what it walked so far; a finished one, its result
    const walked = (t: TaskRow) => (t === running ? Number(t.done_bytes) : Number((JSON.parse(t.result ?? 'null') as { obj_count?: number } | null)?.obj_count ?? t.done_bytes));
    return ok({ obj_count: last ? walked(last) : 0, is_done: !running });
  });

  async function stop(): Promise<void> {
    for (const t of await undone()) await tasks.cancel(t.id).catch(() => undefined);
  }

  app.post('/api/admin/index/stop', { ...admin, schema: { tags, summary: 'Cancel a running build or update', response: { 200: OkNull } } }, async () => {
    await stop();
    return ok();
  });

  app.post('/api/admin/index/clear', { ...admin, schema: { tags, summary: 'Stop any build or update and empty the index', response: { 200: OkNull } } }, async () => {
    await stop();
    await search.clear();
    return ok();
  });

  app.get('/api/admin/index/progress', { ...admin, schema: { tags, summary: 'Index size and the state of the last build or update', response: { 200: OkOf(IndexProgressSchema) } } }, async () => {
    const running = await undone();
    const last = (await finished()).sort((a, b) => Number(b.end_time ?? 0) - Number(a.end_time ?? 0))[0];
    return ok({
      obj_count: await search.count(),
      is_done: running.length === 0,
      last_done_time: last?.end_time ? isoTime(Number(last.end_time)) : null,
      error: last?.error ?? '',
    });
  });
}
