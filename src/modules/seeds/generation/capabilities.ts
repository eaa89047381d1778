/**
 * `POST /api/fs/seed/capabilities {paths}` — the wizard's preflight (contract §10.3, rule 7):
 * per file the hashes the drive already provides, whether a download is needed for the
 * default selection, whether the storage may be streamed; the default matrix is the set of
 * whole-file hashes every file's drive provides (so the default needs no download), else the
 * `seed_default_matrix` setting. Also the offered trackers and the suggested name.
 */
import type { SeedsDeps } from '../seeds.deps.js';
import { badRequest } from '../../../lib/errors.js';
import { stripBasePath } from '../../../lib/path-safety.js';
import { Perm, can, type User } from '../../users/user.model.js';
import { EMPTY_HASH_MATRIX, HASH_NAMES, cloneHashMatrix, normalizeHashMatrix, parseHashMatrix, type HashMatrix } from '../formats/index.js';
import { collectFiles, needsDownload, providedList } from '../common/source-files.js';
import { deriveSeedName } from './names.js';
import { userPath } from '../../fs/access.js';
import { withField } from '../common/fields.js';
import type { Capabilities } from '../seeds.schemas.js';

export async function seedCapabilities(deps: Pick<SeedsDeps, 'fs' | 'settings' | 'folderAccess'>, user: User, rawPaths: string[]): Promise<Capabilities> {
  if (rawPaths.length === 0) throw badRequest('paths: at least one path is required', { field: 'paths' });
  const paths = [...new Set(rawPaths.map((p, i) => withField(`paths[${i}]`, () => userPath(user, p))))];
  const { files, root, singleFile } = await collectFiles(deps, user, paths);

  let setting: HashMatrix;
  try {
    setting = normalizeHashMatrix(parseHashMatrix(await deps.settings.getJson<unknown>('seed_default_matrix')), []);
  } catch {
    setting = normalizeHashMatrix(EMPTY_HASH_MATRIX, []);
  }
  const common = HASH_NAMES.filter((a) => files.every((f) => Boolean(f.provided[a])));
  const union = HASH_NAMES.filter((a) => files.some((f) => Boolean(f.provided[a])));
  const implied = cloneHashMatrix(EMPTY_HASH_MATRIX);
  for (const a of common) implied[a].whole = true;
  const defaultMatrix = common.length > 0 ? implied : setting;

  const trackers = (await deps.settings.get('seed_default_trackers')).split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const threshold = await deps.settings.getNumber('seed_async_threshold');
  const shown = files.map((f) => {
    const download = needsDownload(f, defaultMatrix);
    return {
      path: f.shown,
      seed_path: f.seedPath,
      name: f.shown.slice(f.shown.lastIndexOf('/') + 1),
      size: f.size,
      available_hashes: providedList(f.provided),
      requires_download: download,
      requires_fetch: download,
      estimated_traffic: download ? f.size : 0,
      streamable: f.streamable,
      storage: f.mountPath,
      share_available: can(user, Perm.SHARE),
      // a recorded direct link carries a non-expiring signature of its path while sign_all is on
      direct_source_available: true,
    };
  });
  const total = files.reduce((n, f) => n + f.size, 0);
  return {
    formats: { oss: true, torrent: true, cas: true },
    files: shown,
    existing_hashes: union,
    common_hashes: common,
    default_matrix: defaultMatrix,
    setting_matrix: setting,
    estimated_traffic: shown.reduce((n, f) => n + f.estimated_traffic, 0),
    total_size: total,
    async: total > threshold,
    async_threshold: threshold,
    trackers,
    suggested_name: deriveSeedName(files.map((f) => f.shown), stripBasePath(user.basePath, root), await deps.settings.get('seed_fallback_name'), { folderRequested: paths.length === 1 && !singleFile }).name,
  };
}
