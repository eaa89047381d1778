/**
 * `POST /api/fs/seed/capabilities` with `seed_data` (seed-formats.md §8.4, destination planning):
 * for a seed and a destination folder, the storage and its sidecar policy, and per file the
 * method a save would try first — `rapid_upload` (the content is already stored where the user
 * can read it; looked up for the first RAPID_PROBES files, the rest count as candidates when they
 * have a whole-file hash), `offline_download` (a usable source), else `unavailable` with the reason.
 * The `{paths}` mode stays in generation/capabilities.ts.
 */
import { Type, type Static } from 'typebox';
import type { SeedsDeps } from '../seeds.deps.js';
import { badRequest, forbidden } from '../../../lib/errors.js';
import { stripBasePath } from '../../../lib/path-safety.js';
import { Perm, can, type User } from '../../users/user.model.js';
import { HASH_NAMES } from '../formats/index.js';
import { SeedInputFields, readSeedInput } from './input.js';
import { findStored } from './rapid.js';
import { checkSourceUrl, type SourceContext } from './source-rules.js';
import { joinPath } from '../../../lib/paths.js';
import { userPath } from '../../fs/access.js';
import { fieldError, seedStep } from '../common/fields.js';
import type { DestinationPlan } from '../seeds.schemas.js';

/** Files whose content is actually looked up (each lookup may scan index-less storages). */
const RAPID_PROBES = 32;

export const SeedPlanFields = {
  seed_data: SeedInputFields.seed_data,
  format: SeedInputFields.format,
  file_name: SeedInputFields.file_name,
  path: Type.Optional(Type.String({ maxLength: 4096, description: 'with seed_data: the destination folder (default: your root)' })),
  policy: Type.Optional(Type.String({ maxLength: 16, description: 'sidecar policy to resolve: "", inherit, on or off' })),
};
const PlanBody = Type.Object(SeedPlanFields);
export type SeedPlanBody = Static<typeof PlanBody>;

function shownOrNull(user: User, full: string): string | null {
  try {
    return stripBasePath(user.basePath, full);
  } catch {
    return null;
  }
}

export async function seedDestinationPlan(deps: Pick<SeedsDeps, 'fs' | 'hashes' | 'mounts' | 'settings' | 'folderAccess'>, user: User, body: SeedPlanBody, sctx: SourceContext): Promise<DestinationPlan> {
  const input = await readSeedInput(deps, user, { seed_data: body.seed_data, format: body.format, file_name: body.file_name }, { allowPath: false });
  const policy = (body.policy ?? '').trim();
  if (!['', 'inherit', 'on', 'off'].includes(policy)) throw badRequest('policy: policy must be off, on, or inherit', { field: 'policy' });
  if (!can(user, Perm.WRITE)) throw forbidden('path: permission denied (saving files needs the write permission)', { field: 'path' });
  const dest = seedStep('path', () => userPath(user, body.path ?? '/'));
  // a destination hidden from the user is refused before it is looked up, as the save itself refuses it
  await deps.folderAccess.requireChange(user, null, [dest]).catch((err: unknown) => Promise.reject(fieldError('path', err)));
  const shown = stripBasePath(user.basePath, dest);
  const e = await deps.fs.stat(dest).catch(() => null);
  if (!e) throw badRequest(`path: ${shown} does not exist`, { field: 'path' });
  if (!e.isDir) throw badRequest(`path: ${shown} is not a folder`, { field: 'path' });
  const { storage, driver } = await deps.fs.locate(dest);

  const globalPolicy = (await deps.settings.get('seed_auto_generate_policy')) === 'on' ? 'on' : 'off';
  const requested = policy === '' || policy === 'inherit' ? storage.record.seedPolicy : policy;
  const resolved = requested === 'inherit' ? globalPolicy : requested;
  const offlineAllowed = can(user, Perm.OFFLINE_DOWNLOAD);

  const files = [];
  for (const [i, f] of input.decoded.seed.files.entries()) {
    const target = stripBasePath(user.basePath, joinPath(dest, f.path));
    const hashes = HASH_NAMES.filter((a) => f.hashes[a]);
    const usable = (f.sources ?? []).map((s) => checkSourceUrl(s, sctx));
    const source = usable.some((u) => u.usable);
    const checked = hashes.length > 0 && i < RAPID_PROBES;
    const stored = checked ? await findStored(deps, user, f).catch(() => null) : null;
    const base = { path: f.path, target, size: f.size, hashes, usable_source: source, rapid_checked: checked };
    const fallback = source && offlineAllowed ? ('offline_download' as const) : null;
    if (stored) {
      files.push({ ...base, method: 'rapid_upload' as const, requires_download: false, found_at: shownOrNull(user, stored.full), fallback });
    } else if (hashes.length > 0 && !checked) {
      files.push({ ...base, method: 'rapid_upload' as const, requires_download: false, found_at: null, fallback });
    } else if (fallback) {
      files.push({ ...base, method: 'offline_download' as const, requires_download: true, fallback: null });
    } else {
      const lookup = hashes.length > 0 ? 'no stored file you can read has this content' : 'no whole-file hash to look the content up by';
      const why = source
        ? 'offline download needs the offline download permission'
        : `no usable source${usable.length > 0 ? ` (${usable.flatMap((u) => (u.usable ? [] : [u.reason])).join('; ')})` : ''}`;
      files.push({ ...base, method: 'unavailable' as const, requires_download: true, fallback: null, reason: `${lookup}, and ${why}` });
    }
  }

  return {
    path: shown,
    mount_path: storage.record.mountPath,
    driver: storage.record.driver,
    storage_policy: storage.record.seedPolicy,
    global_policy: globalPolicy,
    resolved_policy: resolved,
    files,
    driver_supports: {
      // Ferry's rapid upload finds content by size plus any whole hash on any readable storage.
      cas_rapid: true,
      put_url: false,
      offline_download: true,
      rapid_hash_algos: [...HASH_NAMES],
      rapid_uses_pieces: false,
      streamable: storage.record.proxy && driver.capabilities.streamable,
    },
  };
}
