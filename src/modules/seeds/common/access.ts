/**
 * Folder rules (metas) on seed routes: what a seed operation reads (a source of generation, recalculation or
 * capabilities, a stored seed, a data folder, a rapid-upload source) and writes (outputs, save destinations).
 * Every rule is FolderAccess's (src/modules/fs/access.ts), the one place metas are enforced; this file only says
 * which of its calls a seed operation makes. Seed routes take no folder password: a folder guarded by one (for a
 * user without bit 1) is refused, as `fs/list` refuses it without its password.
 */
import { forbidden } from '../../../lib/errors.js';
import { stripBasePath } from '../../../lib/path-safety.js';
import { parentOf } from '../../../lib/paths.js';
import { HIDDEN_DENIED, type FolderAccess } from '../../fs/access.js';
import type { Entry } from '../../storages/drivers/index.js';
import type { User } from '../../users/user.model.js';
import type { SeedsDeps } from '../seeds.deps.js';

/** The FolderAccess calls seed operations make. */
export type SeedFolderAccess = Pick<FolderAccess, 'isVisible' | 'visibleIn' | 'passwordGuard' | 'requireChange'>;

export const SEED_FOLDER_PASSWORD = 'folder is password-protected (seed operations take no folder password)';

type Access = Pick<SeedsDeps, 'folderAccess'>;

/** 403 `permission denied` when `full` or a folder above it (below the user's base path) is hidden from the user. */
export async function requireSeedVisible(deps: Access, user: User, full: string): Promise<void> {
  if (!(await deps.folderAccess.isVisible(user, full, user.basePath))) throw forbidden(HIDDEN_DENIED);
}

/** 403 when a folder password guards folder `dir` for the user (the message names it as the user sees it). */
export async function requireSeedUnguarded(deps: Access, user: User, dir: string): Promise<void> {
  if (!(await deps.folderAccess.passwordGuard(user, dir))) return;
  let shown: string;
  try {
    shown = stripBasePath(user.basePath, dir);
  } catch {
    shown = '/';
  }
  throw forbidden(`${shown}: ${SEED_FOLDER_PASSWORD}`);
}

/**
 * The entry at `full` when the user may read it through a seed operation: hidden → 403 before it is looked up
 * (the answer does not tell whether it exists); then its folder password (`full` for a folder, its folder for a
 * file) → 403. A missing path is the stat's 404.
 */
export async function readableEntry(deps: Access & Pick<SeedsDeps, 'fs'>, user: User, full: string): Promise<Entry> {
  await requireSeedVisible(deps, user, full);
  const e = await deps.fs.stat(full);
  await requireSeedUnguarded(deps, user, e.isDir ? full : parentOf(full));
  return e;
}

/** Whether the user may read the file at `full` through a seed operation (visible, its folder not guarded). */
export async function canReadFile(deps: Access, user: User, full: string): Promise<boolean> {
  return (await deps.folderAccess.isVisible(user, full, user.basePath)) && !(await deps.folderAccess.passwordGuard(user, parentOf(full)));
}

