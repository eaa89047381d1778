/**
 * The web UI: the Vite build in `dist/web` served at `/` with an SPA fallback (contract §2).
 * A GET that is not a server path (`/api/`, `/d/`, `/p/`, `/sd/`, `/fs/`, `/ping`, `/healthz`)
 * and does not name a built file gets `index.html` when the client accepts HTML. Hashed assets
 * are cached for a year; `index.html` is never cached. Without a build the server still runs
 * and `/` says so.
 */
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { HttpApp } from './types.js';

/** Path prefixes that belong to the server; the UI never answers for them. */
const SERVER_PREFIXES = ['/api/', '/d/', '/p/', '/sd/', '/fs/'];
const SERVER_PATHS = new Set(['/api', '/d', '/p', '/sd', '/fs', '/ping', '/healthz']);
const IMMUTABLE = 'public, max-age=31536000, immutable';
/**
 * The UI's own policy: only its own scripts run (no inline script, no eval), it talks only to its own
 * origin, and no other site may frame it. Users' files are framed or shown from `/d/` `/p/` `/sd/`, which
 * carry their own sandboxing policy (fs/serve-file.ts).
 */
export const UI_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
const NO_CACHE = 'no-cache';

/** `dist/web` of the package this file belongs to (works from `src/` under tsx and from `dist/src/`). */
export function defaultUiRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'dist', 'web');
    dir = dirname(dir);
  }
  return join(process.cwd(), 'dist', 'web');
}

export function isServerPath(pathname: string): boolean {
  return SERVER_PATHS.has(pathname) || SERVER_PREFIXES.some((p) => pathname.startsWith(p));
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Ferry</title></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem">
<h1>Ferry</h1><p>The web UI was not built. Run <code>npm run build</code> (it builds <code>dist/web</code>) and restart the server.
The API is available under <code>/api/</code>.</p></body></html>`;

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

export async function staticUiRoutes(app: HttpApp, opts: { root?: string } = {}): Promise<void> {
  const root = opts.root ?? defaultUiRoot();
  const built = isFile(join(root, 'index.html'));

  if (built) {
    // `serve: false`: only `reply.sendFile` (safe path resolution, ranges, ETags); routing is ours.
    await app.register(fastifyStatic, { root, serve: false, cacheControl: false, index: false });
  }

  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    reply.header('Content-Security-Policy', UI_CSP).header('Referrer-Policy', 'same-origin');
    const pathname = decodeURIComponentSafe(req.url.split('?')[0] ?? '/');
    if (pathname === null || isServerPath(pathname)) return reply.callNotFound();
    if (!built) {
      if (!acceptsHtml(req)) return reply.callNotFound();
      return reply.status(503).header('cache-control', NO_CACHE).type('text/html; charset=utf-8').send(NOT_BUILT);
    }
    const rel = pathname.replace(/^\/+/, '');
    if (rel !== '' && !rel.split('/').some((s) => s === '..' || s.startsWith('.')) && isFile(join(root, rel))) {
      const hashed = rel.startsWith('assets/');
      return reply.header('cache-control', hashed ? IMMUTABLE : NO_CACHE).sendFile(rel);
    }
    // A missing hashed asset is a 404, never the page (a stale page would load HTML as a script).
    if (rel.startsWith('assets/') || !acceptsHtml(req)) return reply.callNotFound();
    return reply.header('cache-control', NO_CACHE).type('text/html; charset=utf-8').sendFile('index.html');
  };

  app.get('/', { schema: { hide: true } }, handler);
  app.get('/*', { schema: { hide: true } }, handler);
}

function acceptsHtml(req: FastifyRequest): boolean {
  const accept = req.headers.accept ?? '';
  return accept === '' || accept.includes('text/html') || accept.includes('*/*');
}

function decodeURIComponentSafe(s: string): string | null {
  try {
    const d = decodeURIComponent(s);
    return d.includes('\0') ? null : d;
  } catch {
    return null;
  }
}
