/** `/api/fs/*` (OpenList request and response shapes, contract §8). */
import { Type } from 'typebox';
import type { AppContext } from '../../app/context.js';
import { currentUser } from '../../http/auth-hook.js';
import { OkNull, ok } from '../../http/envelope.js';
import type { HttpApp } from '../../http/types.js';
import { badRequest, forbidden } from '../../lib/errors.js';
import { assertSafeName, stripBasePath } from '../../lib/path-safety.js';
import { isoTime } from '../../lib/time.js';
import { presentTask } from '../tasks/task.model.js';
import { can, isAdmin, Perm } from '../users/user.model.js';
import { baseName, joinPath } from './fs.service.js';
import { directUrl, requirePerm, signFor, userPath } from './fs.context.js';
import { presentObj } from './obj.present.js';

/** Cross-storage transfers above this many bytes run as a task. */
export const TRANSFER_TASK_THRESHOLD = 16 * 1024 * 1024;

const PathBody = Type.Object({ path: Type.String(), password: Type.Optional(Type.String()) });
const Names = Type.Array(Type.String(), { maxItems: 10000 });

export function fsRoutes(app: HttpApp, ctx: AppContext): void {
  const guestOk = { config: { auth: 'guest' as const } };

  app.post('/api/fs/list', {
    ...guestOk,
    schema: {
      tags: ['fs'],
      summary: 'List a directory (storage entries plus mount points below it)',
      body: Type.Object({
        path: Type.String(),
        password: Type.Optional(Type.String()),
        page: Type.Optional(Type.Integer()),
        per_page: Type.Optional(Type.Integer()),
        refresh: Type.Optional(Type.Boolean()),
      }),
    },
  }, async (req) => {
    const user = currentUser(req);
    const full = userPath(user, req.body.path);
    const dir = await ctx.fs.stat(full);
    if (!dir.isDir) throw badRequest('not a folder');
    const entries = (await ctx.fs.list(full)).sort((a, b) => Number(b.isDir) - Number(a.isDir) || a.name.localeCompare(b.name));
    const perPage = req.body.per_page ?? 0;
    const page = Math.max(1, req.body.page ?? 1);
    const slice = perPage > 0 ? entries.slice((page - 1) * perPage, page * perPage) : entries;
    const content = await Promise.all(slice.map(async (e) => presentObj(e, e.isDir ? '' : await signFor(ctx, joinPath(full, e.name)))));
    return ok({ content, total: entries.length, readme: '', header: '', write: can(user, Perm.WRITE), provider: dir.storage?.record.driver ?? 'unknown' });
  });

  app.post('/api/fs/get', {
    ...guestOk,
    schema: { tags: ['fs'], summary: 'One object, with raw_url for files', body: PathBody },
  }, async (req) => {
    const user = currentUser(req);
    const full = userPath(user, req.body.path);
    const e = await ctx.fs.stat(full);
    const obj = presentObj({ ...e, name: full === user.basePath && full !== '/' ? baseName(full) : e.name }, e.isDir ? '' : await signFor(ctx, full));
    return ok({
      ...obj,
      raw_url: e.isDir ? '' : await directUrl(ctx, req, full),
      readme: '',
      header: '',
      provider: e.storage?.record.driver ?? 'unknown',
      related: null,
    });
  });

  app.post('/api/fs/dirs', {
    ...guestOk,
    schema: { tags: ['fs'], summary: 'Folders only (for pickers)', body: Type.Object({ path: Type.String(), password: Type.Optional(Type.String()), force_root: Type.Optional(Type.Boolean()) }) },
  }, async (req) => {
    const user = currentUser(req);
    if (req.body.force_root && !isAdmin(user)) throw forbidden('Permission denied');
    const full = req.body.force_root ? userPath({ ...user, basePath: '/' }, req.body.path) : userPath(user, req.body.path);
    const dirs = (await ctx.fs.list(full)).filter((e) => e.isDir).sort((a, b) => a.name.localeCompare(b.name));
    return ok(dirs.map((d) => ({ name: d.name, modified: isoTime(d.modified) })));
  });

  app.post('/api/fs/mkdir', {
    ...guestOk,
    schema: { tags: ['fs'], body: Type.Object({ path: Type.String({ minLength: 1 }) }), response: { 200: OkNull } },
  }, async (req) => {
    const user = currentUser(req);
    requirePerm(user, Perm.WRITE);
    await ctx.fs.mkdir(userPath(user, req.body.path));
    return ok();
  });

  app.post('/api/fs/rename', {
    ...guestOk,
    schema: { tags: ['fs'], body: Type.Object({ path: Type.String({ minLength: 1 }), name: Type.String(), overwrite: Type.Optional(Type.Boolean()) }), response: { 200: OkNull } },
  }, async (req) => {
    const user = currentUser(req);
    requirePerm(user, Perm.RENAME);
    await ctx.fs.rename(userPath(user, req.body.path), assertSafeName(req.body.name), req.body.overwrite ?? false);
    return ok();
  });

  const TransferBody = Type.Object({
    src_dir: Type.String(),
    dst_dir: Type.String(),
    names: Names,
    overwrite: Type.Optional(Type.Boolean()),
    skip_existing: Type.Optional(Type.Boolean()),
  });

  for (const kind of ['move', 'copy'] as const) {
    app.post(`/api/fs/${kind}`, {
      ...guestOk,
      schema: { tags: ['fs'], summary: `${kind} entries of src_dir into dst_dir (across storages: streamed, as a task when large)`, body: TransferBody },
    }, async (req) => {
      const user = currentUser(req);
      requirePerm(user, kind === 'move' ? Perm.MOVE : Perm.COPY);
      const { names, overwrite = false, skip_existing = false } = req.body;
      if (names.length === 0 || names.some((n) => n === '')) throw badRequest('Empty file names');
      const srcDir = userPath(user, req.body.src_dir);
      const dstDir = userPath(user, req.body.dst_dir);
      const dst = await ctx.fs.stat(dstDir);
      if (!dst.isDir) throw badRequest('dst_dir is not a folder');
      const tasks = [];
      // Sidecars that already followed their file (seed_follow) are not handled a second time.
      const followed = new Set<string>();
      for (const name of names.map(assertSafeName)) {
        const src = joinPath(srcDir, name);
        const target = joinPath(dstDir, name);
        if (followed.has(src)) continue;
        await ctx.fs.stat(src);
        if (!overwrite) {
          const exists = await ctx.fs.stat(target).then(() => true, () => false);
          if (exists && skip_existing) continue;
          if (exists) throw forbidden(`file [${name}] exists`);
        }
        const same = await ctx.fs.sameStorage(src, dstDir);
        const size = same ? 0 : await ctx.fs.totalSize(src);
        if (same || size <= TRANSFER_TASK_THRESHOLD) {
          for (const f of await ctx.fs.transfer(kind, src, target, { overwrite })) followed.add(f);
          continue;
        }
        const task = await ctx.tasks.create(
          kind,
          `${kind} ${stripBasePath(user.basePath, src)} to ${stripBasePath(user.basePath, dstDir)}`,
          user.id,
          { src, dst: target, overwrite },
          size,
        );
        tasks.push(presentTask(task, user.username));
      }
      const verb = kind === 'move' ? 'Move' : 'Copy';
      return ok(tasks.length ? { message: `Successfully created ${tasks.length} ${kind} task(s)`, tasks } : { message: `${verb} operations completed immediately` });
    });
  }

  app.post('/api/fs/remove', {
    ...guestOk,
    schema: { tags: ['fs'], body: Type.Object({ dir: Type.String(), names: Names }), response: { 200: OkNull } },
  }, async (req) => {
    const user = currentUser(req);
    requirePerm(user, Perm.REMOVE);
    if (req.body.names.length === 0 || req.body.names.some((n) => n === '')) throw badRequest('Empty file names');
    const dir = userPath(user, req.body.dir);
    const targets = req.body.names.map((n) => joinPath(dir, assertSafeName(n)));
    for (const t of targets) await ctx.fs.stat(t);
    const followed = new Set<string>();
    for (const t of targets) if (!followed.has(t)) for (const f of await ctx.fs.remove(t)) followed.add(f);
    return ok();
  });
}

/** Cross-storage move/copy tasks queued by `/api/fs/move|copy` (registered by the composition root). */
export function registerTransferTasks(ctx: AppContext): void {
  for (const kind of ['move', 'copy'] as const) {
    ctx.tasks.register(kind, async (payload, run) => {
      let done = 0;
      await ctx.fs.transfer(kind, String(payload.src), String(payload.dst), {
        overwrite: Boolean(payload.overwrite),
        signal: run.signal,
        progress: (n) => run.progress((done += n)),
      });
    });
  }
}
