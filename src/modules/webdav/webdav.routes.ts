/**
 * The WebDAV server at `/dav` and `/dav/…` (class 1 and 2), on the same Fastify server as the API. The
 * WebDAV methods are registered with Fastify (`addHttpMethod`); request bodies are never parsed by Fastify
 * here (PUT streams the raw request into the upload service, XML bodies are read by the handlers after
 * authentication). Errors are WebDAV replies (a status, `WWW-Authenticate` on 401, a DAV:error body for
 * preconditions), never the JSON envelope and never HTTP 200.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hideBasePath, hideHostPaths, toErrorReply } from '../../http/error-mapper.js';
import type { HttpApp } from '../../http/types.js';
import { cleanPath } from '../../lib/path-safety.js';
import '../auth/principal.js';
import { WebdavAuth } from './webdav.auth.js';
import { DavContext, DavError } from './webdav.context.js';
import type { WebdavDeps } from './webdav.deps.js';
import { copyMove, createEmpty, get, mkcol, put, remove } from './webdav.files.js';
import { lock, unlock } from './webdav.locks.js';
import { propfind, proppatch } from './webdav.props.js';

export const DAV_METHODS = ['PROPFIND', 'PROPPATCH', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK'] as const;
const ALL_METHODS = ['OPTIONS', 'GET', 'HEAD', 'PUT', 'DELETE', ...DAV_METHODS];
const ALLOW = ALL_METHODS.join(', ');

export interface WebdavRouteDeps extends WebdavDeps {
  /** Sets a file's modification time where the storage can. */
  setModified: (full: string, mtime: Date) => Promise<unknown>;
}

function options(reply: FastifyReply) {
  return reply.status(200).header('DAV', '1, 2').header('MS-Author-Via', 'DAV').header('Allow', ALLOW).header('Content-Length', '0').send();
}

export function webdavRoutes(app: HttpApp, deps: WebdavRouteDeps): void {
  for (const m of DAV_METHODS) if (!app.supportedMethods.includes(m)) app.addHttpMethod(m, { hasBody: true });
  const auth = new WebdavAuth(deps);

  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    if (req.method === 'OPTIONS') return options(reply);
    const user = await auth.authenticate(req);
    req.principal = { user, claims: null };
    const ctx = new DavContext(deps, req, reply, user);
    await ctx.requireAccess(ctx.full);
    switch (req.method) {
      case 'GET':
      case 'HEAD':
        return get(ctx);
      case 'PUT':
        return put(ctx);
      case 'DELETE':
        return remove(ctx);
      case 'MKCOL':
        return mkcol(ctx);
      case 'COPY':
        return copyMove(ctx, 'copy');
      case 'MOVE':
        return copyMove(ctx, 'move');
      case 'PROPFIND':
        return propfind(ctx);
      case 'PROPPATCH':
        return proppatch(ctx, (full, mtime) => deps.setModified(full, mtime).then(() => undefined));
      case 'LOCK':
        return lock(ctx, (full) => createEmpty(ctx, full));
      case 'UNLOCK':
        return unlock(ctx);
      default:
        return reply.status(405).header('Allow', ALLOW).send();
    }
  };

  void app.register(async (scope) => {
    // Bodies stay unread until a handler asks (PUT streams them; XML bodies are read after auth).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null));
    scope.setErrorHandler(async (err: unknown, req: FastifyRequest, reply: FastifyReply) => {
      let base: string | undefined;
      try {
        base = req.principal ? cleanPath(req.principal.user.basePath) : undefined;
      } catch {
        base = undefined;
      }
      const body = hideHostPaths(hideBasePath(toErrorReply(err), base), deps.hiddenPathsOf(req));
      if (body.code >= 500) req.log.error({ err }, 'webdav request failed');
      reply.status(body.code);
      if (body.code === 401) reply.header('WWW-Authenticate', 'Basic realm="Ferry", charset="UTF-8"');
      if (body.code === 405) reply.header('Allow', ALLOW);
      if (err instanceof DavError && err.xml) return reply.header('Content-Type', 'application/xml; charset=utf-8').send(err.xml);
      return reply.header('Content-Type', 'text/plain; charset=utf-8').send(body.message + '\n');
    });
    for (const url of ['/dav', '/dav/*']) {
      scope.route({ method: ALL_METHODS, url, config: { auth: 'none' }, schema: { hide: true }, handler });
    }
  });
}
