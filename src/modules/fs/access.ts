/** Per-request checks shared by every protocol: permission bits and user paths inside the base path. */
import { forbidden } from '../../lib/errors.js';
import { cleanPath, joinBasePath } from '../../lib/path-safety.js';
import { isWithin } from '../../lib/paths.js';
import { can, type User } from '../users/user.model.js';

export function requirePerm(user: User, bit: number): void {
  if (!can(user, bit)) throw forbidden('permission denied');
}

/** A user-supplied path resolved inside the user's base path (the one path-safety module). */
export function userPath(user: User, p: string): string {
  return joinBasePath(user.basePath, p);
}

/**
 * A stored full path (a queued task's) is still inside the user's base path: the base path may have changed
 * since the path was resolved.
 */
export function requireWithinBase(user: User, fullPath: string): void {
  if (!isWithin(cleanPath(user.basePath), fullPath)) throw forbidden("permission denied (the path is outside the user's base path)");
}
