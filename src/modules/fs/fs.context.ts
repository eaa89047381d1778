/** Per-request helpers shared by the fs, upload, download and share routes. */
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { forbidden } from '../../lib/errors.js';
import { joinBasePath } from '../../lib/path-safety.js';
import { can, type User } from '../users/user.model.js';
import { encodePath } from './obj.present.js';
import { expireFor, signPath } from './sign.js';

export function requirePerm(user: User, bit: number): void {
  if (!can(user, bit)) throw forbidden('permission denied');
}

/** A user-supplied path resolved inside the user's base path (the one path-safety module). */
export function userPath(user: User, p: string): string {
  return joinBasePath(user.basePath, p);
}

/**
 * The public origin for links: the `seed_site_url` setting, else FERRY_SITE_URL, else
 * the origin the request came in on.
 */
export function siteUrl(ctx: AppContext, req: FastifyRequest): Promise<string> {
  return siteUrlFor(ctx, `${req.protocol}://${req.host}`);
}

/** Like `siteUrl`, for work that outlives its request (tasks keep the request's origin). */
export async function siteUrlFor(ctx: AppContext, origin: string): Promise<string> {
  const setting = (await ctx.settings.get('seed_site_url')).trim();
  if (setting) return setting.replace(/\/+$/, '');
  return ctx.config.siteUrl ?? origin.replace(/\/+$/, '');
}

/** The `sign` of a full path when `sign_all` is on, else `''`. */
export async function signFor(ctx: AppContext, full: string): Promise<string> {
  if (!(await ctx.settings.getBool('sign_all'))) return '';
  return signPath(await ctx.settings.get('token'), full, expireFor(await ctx.settings.getNumber('link_expiration')));
}

/** `<site>/d/<full path>` (+ `?sign=` when signing is on). */
export async function directUrl(ctx: AppContext, req: FastifyRequest, full: string): Promise<string> {
  const sign = await signFor(ctx, full);
  return `${await siteUrl(ctx, req)}/d${encodePath(full)}${sign ? `?sign=${encodeURIComponent(sign)}` : ''}`;
}
