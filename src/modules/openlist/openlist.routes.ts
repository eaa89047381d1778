/**
 * Public routes the official OpenList web UI needs before anything renders, with OpenList's shapes:
 * `archive_extensions` (Ferry browses no archives: always an array, never null) and the logo the
 * `logo`/`favicon` settings point at. (`offline_download_tools` is the offline module's.)
 */
import { Type } from 'typebox';
import { OkOf, ok } from '../../http/envelope.js';
import type { HttpApp } from '../../http/types.js';

/** Ferry's logo: a boat on two waves (drawn for Ferry). */
const LOGO_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#1f6feb"/><path d="M14 36h36l-5 9H19z" fill="#fff"/><path d="M24 34V20l14 14z" fill="#cfe3ff"/><path d="M8 51c4 0 4-3 8-3s4 3 8 3 4-3 8-3 4 3 8 3 4-3 8-3 4 3 8 3" fill="none" stroke="#cfe3ff" stroke-width="3" stroke-linecap="round"/></svg>`;

export function openListRoutes(app: HttpApp): void {
  const open = { config: { auth: 'none' as const } };

  app.get('/api/public/archive_extensions', {
    ...open,
    schema: { tags: ['settings'], summary: 'Archive extensions Ferry can browse (none)', response: { 200: OkOf(Type.Array(Type.String())) } },
  }, async () => ok([] as string[]));

  app.get('/api/public/logo.svg', { ...open, schema: { hide: true } }, async (_req, reply) =>
    reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(LOGO_SVG));
}
