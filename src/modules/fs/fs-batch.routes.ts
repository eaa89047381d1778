/**
 * OpenList's batch file routes: `batch_rename`, `regex_rename`, `recursive_move`, `remove_empty_directory` and
 * `other`. Everything goes through FsService (sidecars follow, observers are told) with the permission of the
 * single operation: rename (bit 4), move (bit 5), remove (bit 7). Names hidden from the user (metas) are not
 * touched: the user works on what they can see; naming a hidden source or target is refused (403) before anything
 * changes (FolderAccess.requireChange, the check every write path makes).
 */
import { Type } from 'typebox';
import type { HttpApp } from '../../http/types.js';
import { OkNull, ok } from '../../http/envelope.js';
import { badRequest, forbidden } from '../../lib/errors.js';
import { assertSafeName } from '../../lib/path-safety.js';
import { joinPath, parentOf } from '../../lib/paths.js';
import { compileSafeRegex } from '../../lib/safe-regex.js';
import { currentUser } from '../auth/principal.js';
import { Perm, type User } from '../users/user.model.js';
import { userPath, type FolderAccess } from './access.js';
import type { FsService } from './fs.service.js';

export interface FsBatchRouteDeps {
  fs: FsService;
  folderAccess: Pick<FolderAccess, 'visibleIn' | 'requireAccess' | 'requireChange'>;
}

/** Most entries one request may rename or move (a bound on the work one request causes). */
const MAX_BATCH = 10_000;

const BatchRenameBody = Type.Object({
  src_dir: Type.String(),
  rename_objects: Type.Array(Type.Object({ src_name: Type.String(), new_name: Type.String() }), { maxItems: MAX_BATCH }),
});
const RegexRenameBody = Type.Object({ src_dir: Type.String(), src_name_regex: Type.String({ minLength: 1 }), new_name_regex: Type.String() });
const RecursiveMoveBody = Type.Object({
  src_dir: Type.String(),
  dst_dir: Type.String(),
  conflict_policy: Type.Optional(Type.Union([Type.Literal('cancel'), Type.Literal('overwrite'), Type.Literal('skip')])),
});
const SrcDirBody = Type.Object({ src_dir: Type.String() });
const OtherBody = Type.Object({ path: Type.String(), method: Type.Optional(Type.String()), password: Type.Optional(Type.String()) }, { additionalProperties: true });

export function fsBatchRoutes(app: HttpApp, { fs, folderAccess: access }: FsBatchRouteDeps): void {
  const guestOk = { config: { auth: 'guest' as const } };

  /** The entries of folder `dir` this user may see. */
  const visibleEntries = async (user: User, dir: string) => {
    const visible = await access.visibleIn(user, dir);
    return (await fs.list(dir)).filter((e) => visible(e.name));
  };

  app.post('/api/fs/batch_rename', {
    ...guestOk,
    schema: { tags: ['fs'], summary: 'Rename several entries of one folder, in order (the first failure stops the batch)', body: BatchRenameBody, response: { 200: OkNull } },
  }, async (req) => {
    const user = currentUser(req);
    const dir = userPath(user, req.body.src_dir);
    const pairs = req.body.rename_objects.filter((o) => o.src_name !== '' && o.new_name !== '');
    for (const o of pairs) {
      assertSafeName(o.src_name);
      assertSafeName(o.new_name);
    }
    await access.requireChange(user, Perm.RENAME, [dir, ...(await fs.changeSet(pairs.map((o) => [joinPath(dir, o.src_name), joinPath(dir, o.new_name)] as const)))]);
    // sidecars that already followed their file (seed_follow) are not renamed a second time
    const followed = new Set<string>();
    for (const o of pairs) {
      const from = joinPath(dir, o.src_name);
      if (followed.has(from)) continue;
      for (const f of await fs.rename(from, o.new_name, false)) followed.add(f);
    }
    return ok();
  });

  app.post('/api/fs/regex_rename', {
    ...guestOk,
    schema: {
      tags: ['fs'],
      summary: 'Rename every entry of a folder whose name matches an RE2 pattern (Go replacement syntax: $1, ${name})',
      body: RegexRenameBody,
      response: { 200: OkNull },
    },
  }, async (req) => {
    const user = currentUser(req);
    const dir = userPath(user, req.body.src_dir);
    await access.requireChange(user, Perm.RENAME, [dir]);
    const re = compileSafeRegex(req.body.src_name_regex, 'src_name_regex');
    const plan: [string, string][] = [];
    for (const e of await visibleEntries(user, dir)) {
      if (!re.test(e.name)) continue;
      const to = re.replaceAll(e.name, req.body.new_name_regex);
      if (to === e.name) continue;
      plan.push([e.name, assertSafeName(to)]);
    }
    // a new name the user could not see (it would vanish, or replace a hidden entry) refuses the whole plan
    await access.requireChange(user, null, await fs.changeSet(plan.map(([from, to]) => [joinPath(dir, from), joinPath(dir, to)] as const)));
    const followed = new Set<string>();
    for (const [from, to] of plan) {
      const full = joinPath(dir, from);
      if (followed.has(full)) continue;
      for (const f of await fs.rename(full, to, false)) followed.add(f);
    }
    return ok();
  });

  app.post('/api/fs/recursive_move', {
    ...guestOk,
    schema: {
      tags: ['fs'],
      summary: 'Move every file below src_dir flat into dst_dir (folders stay, empty); conflict_policy cancel (default), overwrite or skip',
      body: RecursiveMoveBody,
      response: { 200: OkNull },
    },
  }, async (req, reply) => {
    const user = currentUser(req);
    const src = userPath(user, req.body.src_dir);
    const dst = userPath(user, req.body.dst_dir);
    await access.requireChange(user, Perm.MOVE, [src, dst]);
    const policy = req.body.conflict_policy ?? 'cancel';
    if (!(await fs.stat(src)).isDir) throw badRequest('src_dir is not a folder');
    if (!(await fs.stat(dst)).isDir) throw badRequest('dst_dir is not a folder');
    const taken = new Set((await fs.list(dst)).map((e) => e.name));
    const visibleInDst = await access.visibleIn(user, dst);
    // breadth first, as OpenList; files already directly in dst_dir stay
    const files: string[] = [];
    for (let queue = [src]; queue.length > 0; ) {
      const dir = queue.shift()!;
      for (const e of await visibleEntries(user, dir)) {
        const full = joinPath(dir, e.name);
        if (e.isDir) {
          if (full !== dst) queue.push(full);
        } else if (parentOf(full) !== dst) files.push(full);
        if (files.length > MAX_BATCH) throw badRequest(`src_dir holds more than ${MAX_BATCH} files; move them in parts`);
      }
    }
    const moves: string[] = [];
    for (const f of files) {
      const name = f.slice(f.lastIndexOf('/') + 1);
      // a name hidden in dst_dir is never written there (skip leaves the file; otherwise 403, nothing moved)
      if (!visibleInDst(name)) {
        if (policy === 'skip') continue;
        throw forbidden('permission denied');
      }
      if (taken.has(name)) {
        if (policy === 'cancel') throw forbidden(`file [${name}] exists`);
        if (policy === 'skip') continue;
      }
      taken.add(name);
      moves.push(f);
    }
    // what following sidecars would replace in dst_dir must be changeable too (hidden entries were skipped above)
    await access.requireChange(user, null, await fs.changeSet(moves.map((f) => [f, joinPath(dst, f.slice(f.lastIndexOf('/') + 1))] as const)));
    const followed = new Set<string>();
    for (const f of moves) {
      if (followed.has(f)) continue;
      for (const x of await fs.transfer('move', f, joinPath(dst, f.slice(f.lastIndexOf('/') + 1)), { overwrite: policy === 'overwrite' })) followed.add(x);
    }
    return reply.send({ code: 200, message: `Successfully moved ${moves.length} file${moves.length === 1 ? '' : 's'}`, data: null });
  });

  app.post('/api/fs/remove_empty_directory', {
    ...guestOk,
    schema: { tags: ['fs'], summary: 'Remove every empty folder below src_dir (src_dir itself stays)', body: SrcDirBody, response: { 200: OkNull } },
  }, async (req) => {
    const user = currentUser(req);
    const root = userPath(user, req.body.src_dir);
    await access.requireChange(user, Perm.REMOVE, [root]);
    if (!(await fs.stat(root)).isDir) throw badRequest('src_dir is not a folder');
    /**
     * Removes the empty folders below `dir`; true when `dir` is empty afterwards. Hidden entries count as content
     * and a hidden folder is never entered nor removed.
     */
    const sweep = async (dir: string): Promise<boolean> => {
      let left = 0;
      const visible = await access.visibleIn(user, dir);
      for (const e of await fs.list(dir)) {
        const full = joinPath(dir, e.name);
        if (e.isDir && visible(e.name) && (await sweep(full))) await fs.remove(full);
        else left++;
      }
      return left === 0;
    };
    await sweep(root);
    return ok();
  });

  app.post('/api/fs/other', {
    ...guestOk,
    schema: { tags: ['fs'], summary: "A driver's extra method (OpenList); Ferry's drivers have none", body: OtherBody, response: { 200: OkNull } },
  }, async (req) => {
    const user = currentUser(req);
    const full = userPath(user, req.body.path);
    const e = await fs.stat(full);
    await access.requireAccess(user, full, e.isDir, req.body.password, req.ip, user.basePath);
    throw badRequest(`method ${JSON.stringify(req.body.method ?? '')} is not supported: the storage's driver has no extra methods`);
  });
}
