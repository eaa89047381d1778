/** `/api/fs/*` (OpenList request and response shapes, contract §8). */
import { Type } from 'typebox';
import { OkNull, OkOf, ok, paging } from '../../http/envelope.js';
import { DirSchema, DirsBody, FsGetSchema, FsListSchema, ListBody, MkdirBody, PathBody, RemoveBody, RenameBody, TransferBody, TransferResultSchema } from './fs.schemas.js';
import type { HttpApp } from '../../http/types.js';
import { badRequest, forbidden } from '../../lib/errors.js';
import { assertSafeName, stripBasePath } from '../../lib/path-safety.js';
import { isoTime } from '../../lib/time.js';
import { compareNames } from '../../lib/name-order.js';
import { can, isAdmin, Perm } from '../users/user.model.js';
import { encodePath, isoTimes, objJson, presentObj, sniffedType } from './fs.present.js';
import { sendJsonPieces } from '../../http/json-pieces.js';
import type { Entry } from '../storages/drivers/index.js';
import { sniffFile } from './sniff.js';
import type { ThumbnailPort } from './fs.ports.js';
import type { FsService } from './fs.service.js';
import { COPY_TASK, MOVE_TASK } from './fs.task.js';
import type { Links } from './links.js';
import { requestOrigin } from '../../http/origin.js';
import type { TaskQueue } from '../tasks/tasks.service.js';

export interface FsRouteDeps {
  fs: FsService;
  links: Pick<Links, 'sign' | 'signer' | 'direct' | 'site'>;
  thumbs: Pick<ThumbnailPort, 'has' | 'version'>;
  tasks: TaskQueue;
  /** Folder rules (metas): hidden names, folder passwords, write bypass, readme and header. */
  folderAccess: FolderAccess;
}
import { baseName, joinPath, parentOf } from '../../lib/paths.js';
import { currentUser } from '../auth/principal.js';
import { requirePerm, userPath, type FolderAccess } from './access.js';
import { presentTask } from '../tasks/tasks.present.js';

/** Entries per piece of a listing's reply (see sendJsonPieces): ~60 KB of text, under V8's large-object size. */
export const LIST_PIECE = 256;

/** Cross-storage transfers above this many bytes run as a task. */
export const TRANSFER_TASK_THRESHOLD = 16 * 1024 * 1024;


export function fsRoutes(app: HttpApp, { fs, links, thumbs, tasks: queue, folderAccess: access }: FsRouteDeps): void {
  const guestOk = { config: { auth: 'guest' as const } };

  app.post('/api/fs/list', {
    ...guestOk,
    schema: {
      tags: ['fs'],
      summary: 'List a directory (storage entries plus mount points below it)',
      body: ListBody,
      response: { 200: OkOf(FsListSchema) },
    },
  }, async (req, reply) => {
    const user = currentUser(req);
    const full = userPath(user, req.body.path);
    await access.requireAccess(user, full, true, req.body.password, req.ip, user.basePath);
    const dir = await fs.stat(full);
    if (!dir.isDir) throw badRequest('not a folder');
    const { cols, rows } = await fs.listed(full, await access.visibleIn(user, full));
    const { offset, limit } = paging(req.body);
    const page = limit === null ? rows : rows.slice(offset, offset + limit);
    // one settings read per listing, then plain calls: no promise or query per entry
    const sign = await links.signer(await access.dirNeedsSign(full), page.length);
    const prefix = full === '/' ? '/' : `${full}/`;
    const thumbBase = `${await links.site(requestOrigin(req))}/d${encodePath(prefix)}`;
    const texts = await access.folderTexts(full);
    const write = await access.canWriteIn(user, full);
    const tail = `],"total":${rows.length},"readme":${JSON.stringify(texts.readme)},"header":${JSON.stringify(texts.header)},"write":${write},"provider":${JSON.stringify(dir.storage?.record.driver ?? 'unknown')}}}`;
    // the reply of `ok({content, total, readme, header, write, provider})` (FsListSchema), written in pieces of
    // LIST_PIECE rows: only the page is signed and presented, a piece at a time, the loop free in between
    const time = isoTimes();
    const present = (i: number) => {
      if (cols.dirs[i] === 1) return objJson(cols, i, '', '', time);
      const name = cols.names[i]!;
      const s = sign(prefix + name);
      const thumb = thumbs.has(name) ? `${thumbBase}${encodeURIComponent(name)}?type=thumb&v=${thumbs.version(cols.sizes[i]!, cols.mtimes[i]!)}${s ? `&sign=${encodeURIComponent(s)}` : ''}` : '';
      return objJson(cols, i, s, thumb, time);
    };
    function* pieces(): Generator<string> {
      let head = '{"code":200,"message":"success","data":{"content":[';
      for (let i = 0; i < page.length; i += LIST_PIECE) {
        yield head + page.slice(i, i + LIST_PIECE).map(present).join(',');
        head = ',';
      }
      yield page.length ? tail : head + tail;
    }
    return sendJsonPieces(reply, pieces());
  });

  app.post('/api/fs/get', {
    ...guestOk,
    schema: { tags: ['fs'], summary: 'One object, with raw_url for files', body: PathBody, response: { 200: OkOf(FsGetSchema) } },
  }, async (req) => {
    const user = currentUser(req);
    const full = userPath(user, req.body.path);
    const e = await fs.stat(full);
    await access.requireAccess(user, full, e.isDir, req.body.password, req.ip, user.basePath);
    const always = !e.isDir && (await access.needsSign(full));
    const obj = presentObj({ ...e, name: full === user.basePath && full !== '/' ? baseName(full) : e.name }, e.isDir ? '' : (await links.signer(always))(full));
    const loc = e.isDir ? null : await fs.locate(full);
    return ok({
      ...obj,
      ...(loc ? sniffedType(obj.name, await sniffFile(loc.driver, loc.inner, e.size)) : { content_type: '' }),
      raw_url: e.isDir ? '' : await links.direct(requestOrigin(req), full, always),
      ...(await access.folderTexts(e.isDir ? full : parentOf(full))),
      provider: e.storage?.record.driver ?? 'unknown',
      related: null,
    });
  });

  app.post('/api/fs/dirs', {
    ...guestOk,
    schema: { tags: ['fs'], summary: 'Folders only (for pickers)', body: DirsBody, response: { 200: OkOf(Type.Array(DirSchema)) } },
  }, async (req) => {
    const user = currentUser(req);
    if (req.body.force_root && !isAdmin(user)) throw forbidden('Permission denied');
    const full = req.body.force_root ? userPath({ ...user, basePath: '/' }, req.body.path) : userPath(user, req.body.path);
    await access.requireAccess(user, full, true, req.body.password, req.ip, req.body.force_root ? '/' : user.basePath);
    const visible = await access.visibleIn(user, full);
    const dirs = (await fs.list(full)).filter((e) => e.isDir && visible(e.name)).sort((a, b) => compareNames(a.name, b.name));
    return ok(dirs.map((d) => ({ name: d.name, modified: isoTime(d.modified) })));
  });

  app.post('/api/fs/mkdir', {
    ...guestOk,
    schema: { tags: ['fs'], body: MkdirBody, response: { 200: OkNull } },
  }, async (req) => {
    const user = currentUser(req);
    const full = userPath(user, req.body.path);
    await access.requireWriteIn(user, parentOf(full));
    await access.requireChange(user, null, [full]);
    await fs.mkdir(full);
    return ok();
  });

  app.post('/api/fs/rename', {
    ...guestOk,
    schema: { tags: ['fs'], body: RenameBody, response: { 200: OkNull } },
  }, async (req) => {
    const user = currentUser(req);
    const full = userPath(user, req.body.path);
    const name = assertSafeName(req.body.name);
    await access.requireChange(user, Perm.RENAME, await fs.changeSet([[full, joinPath(parentOf(full), name)]]));
    await fs.rename(full, name, req.body.overwrite ?? false);
    return ok();
  });

  for (const kind of ['move', 'copy'] as const) {
    app.post(`/api/fs/${kind}`, {
      ...guestOk,
      schema: { tags: ['fs'], summary: `${kind} entries of src_dir into dst_dir (across storages: streamed, as a task when large)`, body: TransferBody, response: { 200: OkOf(TransferResultSchema) } },
    }, async (req) => {
      const user = currentUser(req);
      const bit = kind === 'move' ? Perm.MOVE : Perm.COPY;
      requirePerm(user, bit);
      const { names, overwrite = false, skip_existing = false } = req.body;
      if (names.length === 0 || names.some((n) => n === '')) throw badRequest('Empty file names');
      const srcDir = userPath(user, req.body.src_dir);
      const dstDir = userPath(user, req.body.dst_dir);
      const safe = names.map(assertSafeName);
      // every source and target (and what following sidecars would replace) first: a hidden one refuses the whole
      // request before anything moves
      await access.requireChange(user, bit, await fs.changeSet(safe.map((n) => [joinPath(srcDir, n), joinPath(dstDir, n)] as const)));
      const dst = await fs.stat(dstDir);
      if (!dst.isDir) throw badRequest('dst_dir is not a folder');
      const tasks = [];
      // Sidecars that already followed their file (seed_follow) are not handled a second time.
      const followed = new Set<string>();
      for (const name of safe) {
        const src = joinPath(srcDir, name);
        const target = joinPath(dstDir, name);
        if (followed.has(src)) continue;
        await fs.stat(src);
        if (!overwrite) {
          const exists = await fs.stat(target).then(() => true, () => false);
          if (exists && skip_existing) continue;
          if (exists) throw forbidden(`file [${name}] exists`);
        }
        const same = await fs.sameStorage(src, dstDir);
        const size = same ? 0 : await fs.totalSize(src);
        if (same || size <= TRANSFER_TASK_THRESHOLD) {
          for (const f of await fs.transfer(kind, src, target, { overwrite })) followed.add(f);
          continue;
        }
        const task = await queue.create(kind === 'copy' ? COPY_TASK : MOVE_TASK, {
          name: `${kind} ${stripBasePath(user.basePath, src)} to ${stripBasePath(user.basePath, dstDir)}`,
          creatorId: user.id,
          payload: { src, dst: target, overwrite },
          totalBytes: size,
        });
        tasks.push(presentTask(task, user.username));
      }
      const verb = kind === 'move' ? 'Move' : 'Copy';
      return ok(tasks.length ? { message: `Successfully created ${tasks.length} ${kind} task(s)`, tasks } : { message: `${verb} operations completed immediately` });
    });
  }

  app.post('/api/fs/remove', {
    ...guestOk,
    schema: { tags: ['fs'], body: RemoveBody, response: { 200: OkNull } },
  }, async (req) => {
    const user = currentUser(req);
    requirePerm(user, Perm.REMOVE);
    if (req.body.names.length === 0 || req.body.names.some((n) => n === '')) throw badRequest('Empty file names');
    const dir = userPath(user, req.body.dir);
    const targets = req.body.names.map((n) => joinPath(dir, assertSafeName(n)));
    await access.requireChange(user, Perm.REMOVE, targets);
    for (const t of targets) await fs.stat(t);
    const followed = new Set<string>();
    for (const t of targets) if (!followed.has(t)) for (const f of await fs.remove(t)) followed.add(f);
    return ok();
  });
}
