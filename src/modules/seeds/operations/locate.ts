/**
 * Where the files a seed describes are stored: below a folder as `<folder>/<seed path>`, or in
 * the torrent layout `<folder>/<seed name>/<seed path>`; a single-file seed may also be given
 * the file itself. Used to offer recalculation (preview) and to run it (update).
 */
import { HASH_NAMES } from '../formats/index.js';
import type { SeedsDeps } from '../seeds.deps.js';
import { badRequest, isAppError } from '../../../lib/errors.js';
import { stripBasePath } from '../../../lib/path-safety.js';
import type { User } from '../../users/user.model.js';
import type { Seed } from '../formats/index.js';
import { joinPath } from '../../../lib/paths.js';
import { canReadFile, readableEntry } from '../common/access.js';
import { fieldError } from '../common/fields.js';

/** Files checked when a preview looks for the stored data (a preview stays cheap on huge seeds). */
export const PREVIEW_CHECK_LIMIT = 64;

/** Files tried when choosing between the two layouts (one of them may be missing). */
const LAYOUT_PROBES = 8;

export interface SeedFileLocation {
  /** Full path of the folder the seed paths are relative to (the file's folder for a single file given directly). */
  root: string;
  /** Seed path → full path of the stored file. */
  files: Map<string, string>;
}

const statOrNull = (deps: Pick<SeedsDeps, 'fs'>, full: string) => deps.fs.stat(full).catch(() => null);

/** A stored file of the seed as the user may see it: one they may not read (hidden, or in a guarded folder) counts as missing. */
const readableOrNull = async (deps: Pick<SeedsDeps, 'fs' | 'folderAccess'>, user: User, full: string) => ((await canReadFile(deps, user, full)) ? statOrNull(deps, full) : null);

const mapBelow = (seed: Seed, root: string): SeedFileLocation => ({ root, files: new Map(seed.files.map((f) => [f.path, joinPath(root, f.path)])) });

/**
 * Resolves `base` (full path: a folder, or the file of a single-file seed) to the seed's files.
 * Picks the layout in which one of the first files exists; the files themselves are checked by the caller.
 * Null when `base` does not exist or holds none of the layouts.
 */
export async function locateSeedFiles(deps: Pick<SeedsDeps, 'fs' | 'folderAccess'>, user: User, seed: Seed, base: string): Promise<SeedFileLocation | null> {
  const e = await statOrNull(deps, base);
  if (!e) return null;
  if (!e.isDir) {
    if (seed.files.length !== 1) return null;
    return { root: base.slice(0, base.lastIndexOf('/')) || '/', files: new Map([[seed.files[0]!.path, base]]) };
  }
  for (const root of [base, joinPath(base, seed.name)]) {
    for (const f of seed.files.slice(0, LAYOUT_PROBES)) {
      const hit = await readableOrNull(deps, user, joinPath(root, f.path));
      if (hit && !hit.isDir) return mapBelow(seed, root);
    }
  }
  return null;
}

/**
 * For the preview: whether the seed's files are stored at `base` (the first PREVIEW_CHECK_LIMIT
 * files are checked; their content may differ — recalculating is what tells). `reason` says what is off.
 */
export async function storedFilesStatus(
  deps: Pick<SeedsDeps, 'fs' | 'folderAccess'>,
  user: User,
  seed: Seed,
  base: string,
): Promise<{ found: true; root: string; checked: number; changed: { file: string; reason: string }[] } | { found: false; reason: string }> {
  const shown = (full: string) => stripBasePath(user.basePath, full);
  const loc = await locateSeedFiles(deps, user, seed, base);
  if (!loc) return { found: false, reason: `the seed's files are not stored at ${shown(base)}` };
  let checked = 0;
  const changed: { file: string; reason: string }[] = [];
  for (const f of seed.files.slice(0, PREVIEW_CHECK_LIMIT)) {
    const full = loc.files.get(f.path)!;
    const e = await readableOrNull(deps, user, full);
    if (!e || e.isDir) return { found: false, reason: `${f.path} is not stored at ${shown(full)}` };
    checked++;
    // Only what costs no read: the size, and whole hashes the storage already knows.
    if (e.size !== f.size) changed.push({ file: f.path, reason: `${e.size} bytes here, ${f.size} in the seed` });
    else {
      const alg = HASH_NAMES.find((a) => e.hashes?.[a] && f.hashes[a] && e.hashes[a]!.toLowerCase() !== f.hashes[a]!.toLowerCase());
      if (alg) changed.push({ file: f.path, reason: `its ${alg} here differs from the seed's` });
    }
  }
  return { found: true, root: loc.root, checked, changed };
}

/**
 * A folder (or file) named to hold a seed's files (`recalculate.path`, `data_path`): 403 naming `field` when it is
 * hidden from the user or a folder password guards it (common/access.ts); a missing path passes (the caller says
 * the files are not there).
 */
export async function requireReadablePath(deps: Pick<SeedsDeps, 'fs' | 'folderAccess'>, user: User, base: string, field: string): Promise<void> {
  await readableEntry(deps, user, base).catch((e: unknown) => {
    if (isAppError(e) && e.code === 404) return;
    throw fieldError(field, e);
  });
}

/** Like locateSeedFiles, for the update's `recalculate.path`: a 400 naming the problem when the files are not there. */
export async function requireSeedFiles(deps: Pick<SeedsDeps, 'fs' | 'folderAccess'>, user: User, seed: Seed, base: string, field: string): Promise<SeedFileLocation> {
  const loc = await locateSeedFiles(deps, user, seed, base);
  if (loc) return loc;
  const e = await statOrNull(deps, base);
  const shown = stripBasePath(user.basePath, base);
  if (!e) throw badRequest(`${field}: ${shown} does not exist`, { field });
  if (!e.isDir) throw badRequest(`${field}: ${shown} is a file, but the seed has ${seed.files.length} files; give the folder holding them`, { field });
  throw badRequest(`${field}: ${seed.files[0]!.path} is neither at ${shown}/${seed.files[0]!.path} nor at ${shown}/${seed.name}/${seed.files[0]!.path}`, { field });
}
