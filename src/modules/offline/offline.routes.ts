/**
 * Offline downloads, OpenList-compatible routes:
 * - `POST /api/admin/setting/set_aria2 {uri, secret}`, `set_transmission {uri, seedtime}`, `set_qbit {url, seedtime}`:
 *   check the connection first; answer the tool's version, or a 400 saying why it cannot be used (nothing saved
 *   then). An empty URL turns the tool off.
 * - `GET /api/public/offline_download_tools`: the tools `add_offline_download` accepts now.
 * - `POST /api/fs/add_offline_download {urls[], path, tool, delete_policy}`: bit 2 (checked before the body is
 *   read) and write access to `path`; one `offline_download` task per entry → `{tasks: [TaskInfo…]}`.
 */
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { OkOf, ok } from '../../http/envelope.js';
import { requestOrigin } from '../../http/origin.js';
import type { HttpApp } from '../../http/types.js';
import { badRequest, isAppError } from '../../lib/errors.js';
import { stripBasePath } from '../../lib/path-safety.js';
import { currentUser } from '../auth/principal.js';
import { requirePerm, userPath } from '../fs/access.js';
import { presentTask } from '../tasks/tasks.present.js';
import { TaskInfoSchema } from '../tasks/tasks.schemas.js';
import { Perm } from '../users/user.model.js';
import { parseSource, type OfflineSource } from './inputs.js';
import type { OfflineDeps } from './offline.deps.js';
import { OFFLINE_TOOL_TASK } from './offline.tasks.js';
import { BT_TOOLS, DELETE_POLICIES, TOOLS, TOOL_SETTINGS, availableTools, checkToolInput, readStoredTorrent, readUploadedTorrent } from './tool-access.js';


const AddBody = Type.Object({
  urls: Type.Array(Type.String({ maxLength: 65536 }), { maxItems: 1000 }),
  path: Type.String({ maxLength: 4096 }),
  tool: Type.String({ maxLength: 64 }),
  delete_policy: Type.Optional(Type.String({ maxLength: 64 })),
});


export function offlineRoutes(app: HttpApp, deps: OfflineDeps): void {
  const tags = ['offline'];

  // set_aria2 {uri, secret}; set_transmission {uri, seedtime}; set_qbit {url, seedtime} (OpenList's bodies)
  for (const name of BT_TOOLS) {
    const ts = TOOL_SETTINGS[name];
    app.post(`/api/admin/setting/${ts.route}`, {
      config: { auth: 'admin' },
      schema: {
        tags,
        summary: `Configure ${name}; answers its version after checking the connection (an empty URL turns it off)`,
        body: Type.Object({
          uri: Type.Optional(Type.String({ maxLength: 4096 })),
          url: Type.Optional(Type.String({ maxLength: 4096 })),
          secret: Type.Optional(Type.String({ maxLength: 4096, description: 'aria2 only' })),
          seedtime: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.String({ maxLength: 16 })], { description: 'minutes of seeding after the download' })),
        }),
        response: { 200: OkOf(Type.String()) },
      },
    }, async (req) => {
      const url = (req.body.uri ?? req.body.url ?? '').trim();
      const secret = req.body.secret ?? '';
      const field = name === 'qBittorrent' ? 'url' : 'uri';
      const seedtime = req.body.seedtime === undefined || req.body.seedtime === '' ? undefined : Number(req.body.seedtime);
      if (seedtime !== undefined && (!Number.isInteger(seedtime) || seedtime < 0)) throw badRequest('seedtime: minutes, a whole number ≥ 0', { field: 'seedtime' });
      const extra = [...(name === 'aria2' ? [{ key: 'aria2_secret', value: url ? secret : '' }] : []), ...(seedtime !== undefined ? [{ key: ts.seedtime, value: String(seedtime) }] : [])];
      if (url === '') {
        await deps.settings.save([{ key: ts.url, value: '' }, ...extra]);
        return ok('');
      }
      let u: URL;
      try {
        u = new URL(url);
      } catch {
        throw badRequest(`${field}: not a URL`, { field });
      }
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw badRequest(`${field}: ${name} is reached over http(s)`, { field });
      let version: string;
      try {
        version = await ts.make(url, secret, 5_000).version();
      } catch (e) {
        throw badRequest(`failed to connect to ${name}: ${(e as Error).message}`, { field });
      }
      await deps.settings.save([{ key: ts.url, value: url }, ...extra]);
      return ok(version);
    });
  }

  app.get('/api/public/offline_download_tools', {
    config: { auth: 'none' },
    schema: { tags, summary: 'Offline download tools add_offline_download accepts', response: { 200: OkOf(Type.Array(Type.String())) } },
  }, async () => ok(await availableTools(deps)));

  app.post('/api/fs/add_offline_download', {
    config: { auth: 'user' },
    onRequest: async (req: FastifyRequest) => requirePerm(currentUser(req), Perm.OFFLINE_DOWNLOAD),
    schema: {
      tags,
      summary: 'Download URLs, magnet links or stored .torrent files into a folder (one offline_download task each)',
      description:
        'Tools: `SimpleHttp` (Ferry fetches http(s) itself, SSRF rules applied), `aria2`, `Transmission`, `qBittorrent` (magnets, torrents; the files land later through an ' +
        '`offline_download_transfer` task). URLs resolving to loopback/private/link-local/metadata addresses are refused before any tool sees them, and so are magnets and torrents naming such a tracker, web seed or peer (unless its host is in seed_trusted_source_hosts). ' +
        '`delete_policy`: what happens to the tool\'s copy after the transfer (`upload_download_stream`: SimpleHttp only, no copy — what SimpleHttp always does).',
      body: AddBody,
      response: { 200: OkOf(Type.Object({ tasks: Type.Array(TaskInfoSchema), warnings: Type.Optional(Type.Array(Type.String({ description: '`urls[i]: tracker …: cannot resolve …`: an address of a magnet or torrent left out of what the tool gets (its host does not resolve)' }))) })) },
    },
  }, async (req) => {
    const user = currentUser(req);
    requirePerm(user, Perm.WRITE);
    const b = req.body;
    const tool = TOOLS.find((t) => t.toLowerCase() === b.tool.trim().toLowerCase());
    if (!tool) throw badRequest(`tool: ${JSON.stringify(b.tool)} is not a tool of this server (${TOOLS.join(', ')})`, { field: 'tool' });
    const policy = b.delete_policy?.trim() || 'delete_on_upload_succeed';
    if (!(DELETE_POLICIES as readonly string[]).includes(policy)) throw badRequest(`delete_policy: must be one of ${DELETE_POLICIES.join(', ')}`, { field: 'delete_policy' });
    if (policy === 'upload_download_stream' && tool !== 'SimpleHttp') throw badRequest(`delete_policy: upload_download_stream is SimpleHttp's (a URL streamed straight into the folder); ${tool} keeps a copy: choose delete_on_upload_succeed, delete_on_upload_failed, delete_never or delete_always`, { field: 'delete_policy' });
    if (!(await availableTools(deps)).includes(tool)) throw badRequest(`tool: ${tool} is not configured`, { field: 'tool' });
    const target = userPath(user, b.path);
    await deps.folderAccess.requireChange(user, null, [target]);
    const dest = await deps.fs.stat(target).catch((e: unknown) => {
      if (isAppError(e) && e.code === 404) return null;
      throw e;
    });
    if (dest && !dest.isDir) throw badRequest(`path: ${stripBasePath(user.basePath, target)} is not a folder`, { field: 'path' });
    const origin = requestOrigin(req);
    const viaTool = await deps.settings.getBool('offline_http_via_tool');
    const sources: OfflineSource[] = [];
    const warnings: string[] = [];
    for (const [i, raw] of b.urls.entries()) {
      if (raw.trim() === '') continue;
      const field = `urls[${i}]`;
      const s = parseSource(user, raw, field);
      if (tool === 'SimpleHttp' && s.kind !== 'url') throw badRequest(`${field}: SimpleHttp fetches http(s) URLs only; use a BitTorrent tool for magnets and torrents`, { field });
      if (tool !== 'SimpleHttp' && s.kind === 'url' && !viaTool) throw badRequest(`${field}: plain http(s) URLs are fetched by SimpleHttp (offline_http_via_tool is off)`, { field });
      let checked;
      if (s.kind !== 'torrent') checked = await checkToolInput(deps, origin, { kind: s.kind, url: s.url! }, field);
      else {
        const t = s.data !== undefined ? await readUploadedTorrent(deps, s.data, field) : await readStoredTorrent(deps, user, s.path!, field);
        if (s.data !== undefined) s.info_hash = t.infoHash;
        checked = await checkToolInput(deps, origin, { kind: 'torrent', ...t }, field);
      }
      // the task checks again when it runs and hands the tool the magnet or torrent without these
      for (const d of checked.dropped) warnings.push(`${field}: left out, ${d}`);
      sources.push(s);
    }
    if (sources.length === 0) throw badRequest('urls: nothing to download', { field: 'urls' });
    const tasks = [];
    for (const source of sources) {
      const what = source.kind === 'url' || source.kind === 'magnet' ? source.url! : source.path ? stripBasePath(user.basePath, source.path) : `an uploaded .torrent (${source.info_hash})`;
      const row = await deps.tasks.create(OFFLINE_TOOL_TASK, {
        name: `download ${what} to (${stripBasePath(user.basePath, target)})`,
        creatorId: user.id,
        payload: { user_id: user.id, origin, tool, source, target, delete_policy: policy },
      });
      tasks.push(presentTask(row, user.username, user.role));
    }
    return ok({ tasks, ...(warnings.length ? { warnings } : {}) });
  });
}
