/**
 * `/api/task/<type>/…` (logged-in non-guests; admins see every task, others only their own —
 * another user's task answers 404 `task not found`, like a missing one) and the same routes
 * under `/api/admin/task/<type>/…` (admin only), fs-api.md §6.
 */
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { currentUser } from '../../http/auth-hook.js';
import { OkNull, ok } from '../../http/envelope.js';
import type { HttpApp } from '../../http/types.js';
import { badRequest, isAppError, notFound } from '../../lib/errors.js';
import { isAdmin, type User } from '../users/user.model.js';
import { presentTask, TASK_TYPES, TaskState, type TaskRow } from './task.model.js';

const TidQuery = Type.Object({ tid: Type.String({ minLength: 1 }) });

export function tasksRoutes(app: HttpApp, ctx: AppContext): void {
  const present = async (r: TaskRow) => {
    const u = await ctx.usersRepo.byId(Number(r.creator_id));
    return presentTask(r, u?.username ?? '', u ? u.role : -1);
  };
  const scope = (u: User) => (isAdmin(u) ? null : u.id);
  const own = async (u: User, tid: string) => {
    const r = await ctx.tasks.get(tid);
    if (!isAdmin(u) && Number(r.creator_id) !== u.id) throw notFound('task not found');
    return r;
  };
  const actions = {
    cancel: (tid: string) => ctx.tasks.cancel(tid),
    delete: (tid: string) => ctx.tasks.delete(tid),
    retry: (tid: string) => ctx.tasks.retry(tid),
  } as const;
  const tidList = (req: FastifyRequest): string[] => {
    const b = req.body;
    if (!Array.isArray(b) || b.some((x) => typeof x !== 'string')) throw badRequest('invalid request format');
    return b as string[];
  };

  for (const [prefix, level] of [['/api/task', 'user'], ['/api/admin/task', 'admin']] as const) {
    const auth = { config: { auth: level } };
    for (const type of TASK_TYPES) {
      const base = `${prefix}/${type}`;
      const tags = ['tasks'];
      const hide = prefix === '/api/admin/task';
      const list = (done: boolean) => async (req: FastifyRequest) =>
        ok(await Promise.all((await ctx.tasks.list(type, done, scope(currentUser(req)))).map(present)));
      app.get(`${base}/undone`, { ...auth, schema: { tags, hide, summary: 'Tasks in states 0, 1, 3, 5' } }, list(false));
      app.get(`${base}/done`, { ...auth, schema: { tags, hide, summary: 'Tasks in states 2, 4, 7' } }, list(true));
      app.route({
        ...auth,
        method: ['GET', 'POST'],
        url: `${base}/info`,
        schema: { tags, hide, querystring: TidQuery },
        handler: async (req) => ok(await present(await own(currentUser(req), (req.query as { tid: string }).tid))),
      });
      for (const [verb, fn] of Object.entries(actions)) {
        app.post(`${base}/${verb}`, { ...auth, schema: { tags, hide, querystring: TidQuery, response: { 200: OkNull } } }, async (req) => {
          await own(currentUser(req), req.query.tid);
          await fn(req.query.tid);
          return ok();
        });
        app.post(`${base}/${verb}_some`, { ...auth, schema: { tags, hide, summary: `${verb} several tasks: body is a JSON array of tids; data lists the failures` } }, async (req) => {
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
        app.post(`${base}/${verb}`, { ...auth, schema: { tags, hide, response: { 200: OkNull } } }, async (req) => {
          await ctx.tasks.clearDone(type, scope(currentUser(req)), states);
          return ok();
        });
      }
      app.post(`${base}/retry_failed`, { ...auth, schema: { tags, hide, response: { 200: OkNull } } }, async (req) => {
        for (const t of await ctx.tasks.list(type, true, scope(currentUser(req)))) if (t.state === TaskState.FAILED) await ctx.tasks.retry(t.id);
        return ok();
      });
    }
  }
}
