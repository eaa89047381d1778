/**
 * `/api/task/<type>/…` (logged-in non-guests; admins see every task, others only their own —
 * another user's task answers 404 `task not found`, like a missing one) and the same routes
 * under `/api/admin/task/<type>/…` (admin only), fs-api.md §6. `<type>` is a task type this
 * instance knows (TASK_TYPES, and any other registered); anything else is a 404.
 */
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { OkNull, OkOf, ok } from '../../http/envelope.js';
import { TaskInfoSchema } from './tasks.schemas.js';
import type { HttpApp } from '../../http/types.js';
import { badRequest, isAppError, notFound } from '../../lib/errors.js';
import { currentUser } from '../auth/principal.js';
import { isAdmin, type User } from '../users/user.model.js';
import type { UsersRepo } from '../users/users.repo.js';
import { TASK_TYPES, TaskState, type TaskRow } from './task.model.js';
import type { TasksService } from './tasks.service.js';
import { presentTask } from './tasks.present.js';

export interface TasksRouteDeps {
  tasks: TasksService;
  users: Pick<UsersRepo, 'byId'>;
}

/** OpenList's task types Ferry never runs (it extracts no archives): their lists are empty, so its UI's pages render. */
const IDLE_OPENLIST_TYPES = new Set(['decompress', 'decompress_upload']);

const TypeParams = Type.Object({ type: Type.String({ description: `a task type: ${TASK_TYPES.join(', ')}` }) });
const TidQuery = Type.Object({ tid: Type.String({ minLength: 1 }) });

export function tasksRoutes(app: HttpApp, { tasks, users }: TasksRouteDeps): void {
  const present = async (r: TaskRow) => {
    const u = await users.byId(Number(r.creator_id));
    return presentTask(r, u?.username ?? '', u ? u.role : -1);
  };
  const scope = (u: User) => (isAdmin(u) ? null : u.id);
  const own = async (u: User, tid: string) => {
    const r = await tasks.get(tid);
    if (!isAdmin(u) && Number(r.creator_id) !== u.id) throw notFound('task not found');
    return r;
  };
  const actions = {
    cancel: (tid: string) => tasks.cancel(tid),
    delete: (tid: string) => tasks.delete(tid),
    retry: (tid: string) => tasks.retry(tid),
  } as const;
  const typeOf = (req: FastifyRequest): string => {
    const { type } = req.params as { type: string };
    if (!tasks.knows(type)) throw notFound(`no task type ${type}`);
    return type;
  };
  const tidList = (req: FastifyRequest): string[] => {
    const b = req.body;
    if (!Array.isArray(b) || b.some((x) => typeof x !== 'string')) throw badRequest('invalid request format');
    return b as string[];
  };

  for (const [prefix, level] of [['/api/task', 'user'], ['/api/admin/task', 'admin']] as const) {
    const auth = { config: { auth: level } };
    const base = `${prefix}/:type`;
    const tags = ['tasks'];
    const hide = prefix === '/api/admin/task';
    const list = (done: boolean) => async (req: FastifyRequest) => {
      const { type } = req.params as { type: string };
      if (IDLE_OPENLIST_TYPES.has(type) && !tasks.knows(type)) return ok([]);
      return ok(await Promise.all((await tasks.list(typeOf(req), done, scope(currentUser(req)))).map(present)));
    };
    app.get(`${base}/undone`, { ...auth, schema: { tags, hide, params: TypeParams, summary: 'Tasks in states 0, 1, 3, 5', response: { 200: OkOf(Type.Array(TaskInfoSchema)) } } }, list(false));
    app.get(`${base}/done`, { ...auth, schema: { tags, hide, params: TypeParams, summary: 'Tasks in states 2, 4, 7', response: { 200: OkOf(Type.Array(TaskInfoSchema)) } } }, list(true));
    app.route({
      ...auth,
      method: ['GET', 'POST'],
      url: `${base}/info`,
      schema: { tags, hide, params: TypeParams, querystring: TidQuery, response: { 200: OkOf(TaskInfoSchema) } },
      handler: async (req) => {
        typeOf(req);
        return ok(await present(await own(currentUser(req), (req.query as { tid: string }).tid)));
      },
    });
    for (const [verb, fn] of Object.entries(actions)) {
      app.post(`${base}/${verb}`, { ...auth, schema: { tags, hide, params: TypeParams, querystring: TidQuery, response: { 200: OkNull } } }, async (req) => {
        typeOf(req);
        await own(currentUser(req), req.query.tid);
        await fn(req.query.tid);
        return ok();
      });
      app.post(`${base}/${verb}_some`, { ...auth, schema: { tags, hide, params: TypeParams, summary: `${verb} several tasks: body is a JSON array of tids; data lists the failures`, response: { 200: OkOf(Type.Record(Type.String(), Type.String())) } } }, async (req) => {
        typeOf(req);
        const failed: Record<string, string> = {};
        for (const tid of tidList(req)) {
          try {
            await own(currentUser(req), tid);
            await fn(tid);
          } catch (e) {
            failed[tid] = isAppError(e) ? e.message : String(e);
          }
        }
        return ok(failed);
      });
    }
    for (const [verb, states] of [['clear_done', undefined], ['clear_succeeded', [TaskState.SUCCEEDED]]] as const) {
      app.post(`${base}/${verb}`, { ...auth, schema: { tags, hide, params: TypeParams, response: { 200: OkNull } } }, async (req) => {
        await tasks.clearDone(typeOf(req), scope(currentUser(req)), states);
        return ok();
      });
    }
    app.post(`${base}/retry_failed`, { ...auth, schema: { tags, hide, params: TypeParams, response: { 200: OkNull } } }, async (req) => {
      for (const t of await tasks.list(typeOf(req), true, scope(currentUser(req)))) if (t.state === TaskState.FAILED) await tasks.retry(t.id);
      return ok();
    });
  }
}
