import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { currentUser } from '../../http/auth-hook.js';
import { OkNull, ok } from '../../http/envelope.js';
import type { HttpApp } from '../../http/types.js';
import { forbidden } from '../../lib/errors.js';
import { isAdmin, type User } from '../users/user.model.js';
import { presentTask, TASK_TYPES, type TaskRow } from './task.model.js';

const TidQuery = Type.Object({ tid: Type.String({ minLength: 1 }) });

export function tasksRoutes(app: HttpApp, ctx: AppContext): void {
  const names = new Map<number, string>();
  const creatorName = async (id: number) => {
    if (!names.has(id)) names.set(id, (await ctx.usersRepo.byId(id))?.username ?? '');
    return names.get(id)!;
  };
  const present = async (r: TaskRow) => presentTask(r, await creatorName(Number(r.creator_id)));
  const scope = (u: User) => (isAdmin(u) ? null : u.id);
  const own = async (u: User, tid: string) => {
    const r = await ctx.tasks.get(tid);
    if (!isAdmin(u) && Number(r.creator_id) !== u.id) throw forbidden('not your task');
    return r;
  };
  const auth = { config: { auth: 'user' as const } };

  for (const type of TASK_TYPES) {
    const base = `/api/task/${type}`;
    const tags = ['tasks'];
    app.get(`${base}/undone`, { ...auth, schema: { tags } }, async (req) => ok(await Promise.all((await ctx.tasks.list(type, false, scope(currentUser(req)))).map(present))));
    app.get(`${base}/done`, { ...auth, schema: { tags } }, async (req) => ok(await Promise.all((await ctx.tasks.list(type, true, scope(currentUser(req)))).map(present))));
    app.get(`${base}/info`, { ...auth, schema: { tags, querystring: TidQuery } }, async (req) => ok(await present(await own(currentUser(req), req.query.tid))));
    for (const [verb, fn] of [
      ['cancel', (tid: string) => ctx.tasks.cancel(tid)],
      ['delete', (tid: string) => ctx.tasks.delete(tid)],
      ['retry', (tid: string) => ctx.tasks.retry(tid)],
    ] as const) {
      app.post(`${base}/${verb}`, { ...auth, schema: { tags, querystring: TidQuery, response: { 200: OkNull } } }, async (req) => {
        await own(currentUser(req), req.query.tid);
        await fn(req.query.tid);
        return ok();
      });
    }
    app.post(`${base}/clear_done`, { ...auth, schema: { tags, response: { 200: OkNull } } }, async (req) => {
      await ctx.tasks.clearDone(type, scope(currentUser(req)));
      return ok();
    });
  }
}
