/**
 * Saving a seed's files into a folder (contract §10.5, seed-formats.md §8.5):
 * `rapid_upload` (rapid only), `offline_download` (download only) and `quick_save` (rapid, else
 * download), per selected file, each with its own result `{path, name, method, error?, task?}`.
 *
 * - The destination `path` must be an existing folder the user may write to; each file lands at
 *   `<path>/<seed path>`. An existing file is kept unless `overwrite`. No folder or file it names
 *   may be hidden from the user (metas): 403 before anything is written or queued.
 * - A download is an `offline_download` task (offline.ts). With `transit_path` (or
 *   `options.mode: "transfer"` + `options.transit_path`) it goes through that relay folder and is
 *   then copied server-side: method `transfer` (needs the copy permission).
 * - Otherwise `unavailable`, with every reason.
 * - `update_channel`: the destination storage's `{driver, mount_path}` is added to `channels`
 *   when any file was saved; per file the driver leaves or joins `missing_channels`; the seed
 *   is re-encoded in its own format (`seed_data`, `seed`).
 * Everything that can be checked before a file is touched is a 400/403 for the whole request.
 */
import type { SeedsDeps } from '../seeds.deps.js';
import { badRequest, isAppError } from '../../../lib/errors.js';
import { cleanPath, stripBasePath } from '../../../lib/path-safety.js';
import { Perm, can, type User } from '../../users/user.model.js';
import { decodeTorrent, encodeSeed, type DecodedSeed, type Seed, type SeedChannel, type SeedFile } from '../formats/index.js';
import { readSeedInput, type SeedInput } from './input.js';
import { queueOffline } from './offline.js';
import { ScanCache, rapidUpload } from './rapid.js';
import { sourceContextFor, usableSources, type SourceContext } from './source-rules.js';
import { isVerifiable, seedWholeHashes } from './verify.js';
import { baseName, isWithin, joinPath } from '../../../lib/paths.js';
import { requirePerm, userPath } from '../../fs/access.js';
import { type TaskInfo } from '../../tasks/tasks.schemas.js';
import { fieldError } from '../common/fields.js';
import type { SaveFileResult } from '../seeds.schemas.js';

export type SaveMode = 'rapid_upload' | 'offline_download' | 'quick_save';

export interface SaveBody {
  seed_data?: string;
  format?: string;
  file_name?: string;
  path: string;
  files?: string[];
  selected_files?: number[];
  overwrite?: boolean;
  transit_path?: string;
  update_channel?: boolean;
  options?: { mode?: unknown; transit_path?: unknown; [k: string]: unknown };
}

export type FileResult = SaveFileResult;

export interface SaveResult {
  results: FileResult[];
  seed_data?: string;
  seed?: Seed;
}

const message = (e: unknown) => (isAppError(e) || e instanceof Error ? e.message : String(e));

/** An existing folder, as a full path; 400 naming `field` otherwise (403 when hidden from the user, before it is looked up). */
async function folder(deps: Pick<SeedsDeps, 'fs' | 'folderAccess'>, user: User, p: string, field: string): Promise<string> {
  const full = userPath(user, p);
  await deps.folderAccess.requireChange(user, null, [full]).catch((e: unknown) => Promise.reject(fieldError(field, e)));
  const shown = stripBasePath(user.basePath, full);
  const e = await deps.fs.stat(full).catch((err: unknown) => {
    if (isAppError(err) && err.code === 404) throw badRequest(`${field}: ${shown} does not exist`, { field });
    throw err;
  });
  if (!e.isDir) throw badRequest(`${field}: ${shown} is not a folder`, { field });
  return full;
}

/** Indexes of the selected files: `files` (seed paths) wins over `selected_files`; none = all. */
export function selectFiles(seed: Seed, body: Pick<SaveBody, 'files' | 'selected_files'>): number[] {
  if (body.files && body.files.length > 0) {
    const byPath = new Map(seed.files.map((f, i) => [f.path, i]));
    return [...new Set(body.files.map((p) => {
      const i = byPath.get(p);
      if (i === undefined) throw badRequest(`files: ${JSON.stringify(p)} is not a file of the seed`, { field: 'files' });
      return i;
    }))];
  }
  if (body.selected_files && body.selected_files.length > 0) {
    return [...new Set(body.selected_files.map((i) => {
      if (!Number.isInteger(i) || i < 0 || i >= seed.files.length) throw badRequest(`selected_files: ${i} is out of range (the seed has ${seed.files.length} files)`, { field: 'selected_files' });
      return i;
    }))];
  }
  return seed.files.map((_, i) => i);
}

function transitOf(body: SaveBody): string | undefined {
  const t = body.transit_path?.trim();
  if (t) return t;
  const o = body.options;
  if (o?.mode === 'transfer' && typeof o.transit_path === 'string' && o.transit_path.trim()) return o.transit_path.trim();
  return undefined;
}

interface Plan {
  deps: Pick<SeedsDeps, 'fs' | 'hashes' | 'mounts' | 'tasks' | 'folderAccess'>;
  user: User;
  mode: SaveMode;
  decoded: DecodedSeed;
  dest: string;
  transit?: string;
  overwrite: boolean;
  origin: string;
  sctx: SourceContext;
  scan: ScanCache;
}

async function exists(deps: Pick<SeedsDeps, 'fs'>, full: string): Promise<boolean> {
  return deps.fs.stat(full).then(() => true, () => false);
}

/** Downloading the file (directly or through the relay): the queued task, or why not. */
async function download(p: Plan, f: SeedFile, target: string): Promise<{ task: TaskInfo } | { reason: string }> {
  if (!can(p.user, Perm.OFFLINE_DOWNLOAD)) return { reason: 'offline download permission is required' };
  if (!isVerifiable(f)) return { reason: 'the seed has no hash for this file, so a download could not be verified' };
  const { usable, refused } = usableSources(f, p.sctx);
  if (usable.length === 0) return { reason: `no usable source (${refused.length ? refused.join('; ') : 'the seed lists none'})` };
  const transit = p.transit ? relayOf(p.transit, f) : undefined;
  if (transit && (await exists(p.deps, transit))) return { reason: `the relay folder already holds ${stripBasePath(p.user.basePath, transit)}` };
  const task = await queueOffline(p.deps, p.user, { user_id: p.user.id, origin: p.origin, file: f, piece_size: p.decoded.seed.piece_size, target, overwrite: p.overwrite, transit });
  return { task };
}

/** Where a seed file lands in the relay folder (its path below `dest` is checked by `targetOf`). */
const relayOf = (transit: string, f: SeedFile) => cleanPath(joinPath(transit, f.path));

/** Where a seed file lands: `<dest>/<seed path>` (checked before anything is touched). */
function targetOf(dest: string, f: SeedFile): string {
  const target = cleanPath(joinPath(dest, f.path));
  if (!isWithin(dest, target) || target === dest) throw badRequest(`seed_data: unsafe file path ${JSON.stringify(f.path)}`, { field: 'seed_data' });
  return target;
}

async function saveOne(p: Plan, f: SeedFile, target: string): Promise<FileResult> {
  const shown = stripBasePath(p.user.basePath, target);
  const base = { path: f.path, name: baseName(target), target: shown };
  if (!p.overwrite && (await exists(p.deps, target))) return { ...base, method: 'unavailable', error: `file exists: ${shown} (set overwrite to replace it)` };
  const reasons: string[] = [];
  if (p.mode !== 'offline_download') {
    const r = await rapidUpload(p.deps, p.user, { full: target, shown, file: f, pieceSize: p.decoded.seed.piece_size, overwrite: p.overwrite }, p.scan);
    if (r.ok) return { ...base, method: 'rapid_upload' };
    if (p.mode === 'rapid_upload') return { ...base, method: r.failed ? 'rapid_upload' : 'unavailable', error: r.reason };
    reasons.push(`rapid upload: ${r.reason}`);
  }
  const d = await download(p, f, target);
  const method = p.transit ? 'transfer' : 'offline_download';
  if ('task' in d) return { ...base, method, task: d.task };
  reasons.push(`${method.replace('_', ' ')}: ${d.reason}`);
  return { ...base, method: 'unavailable', error: reasons.join('; ') };
}

/** Adds the destination channel and maintains `missing_channels` (seed-formats.md §8.5). */
export function applyChannelUpdate(seed: Seed, channel: SeedChannel, outcome: Map<number, boolean>): Seed {
  const channels = [...(seed.channels ?? [])];
  const anyOk = [...outcome.values()].some(Boolean);
  if (anyOk && !channels.some((c) => c.driver === channel.driver && (c.mount_path ?? '') === (channel.mount_path ?? ''))) channels.push(channel);
  const files = seed.files.map((f, i) => {
    const ok = outcome.get(i);
    if (ok === undefined) return f;
    const missing = (f.missing_channels ?? []).filter((m) => m !== channel.driver);
    if (!ok) missing.push(channel.driver);
    return { ...f, missing_channels: missing.length ? missing : undefined };
  });
  return { ...seed, channels: channels.length ? channels : undefined, files };
}

function reencode(decoded: DecodedSeed, seed: Seed): string | undefined {
  try {
    const only = seed.files.length === 1 ? seed.files[0]! : undefined;
    const layout = only && !only.path.includes('/') ? 'auto' : 'multi';
    return encodeSeed(seed, decoded.format, { pieces: decoded.torrent_pieces, layout }).toString('base64');
  } catch {
    return undefined; // as OpenList: without seed_data when the seed cannot be re-encoded
  }
}

/**
 * Files no source could serve, of a seed with torrent data (a `.torrent`, or an `.oss` whose SHA-1 pieces
 * make one): handed to the configured BitTorrent tool as one `offline_download` task, landing each file at its
 * target, checked against the seed's whole-file digests (the tool checks the pieces).
 */
async function handTorrent(
  deps: Pick<SeedsDeps, 'torrents'>,
  user: User,
  input: SeedInput,
  jobs: { i: number; f: SeedFile; target: string }[],
  results: FileResult[],
  outcome: Map<number, boolean>,
  o: { origin: string; overwrite: boolean },
): Promise<void> {
  const open = jobs.map((j, k) => ({ ...j, k })).filter(({ k }) => results[k]!.method === 'unavailable' && !results[k]!.error?.startsWith('file exists'));
  if (open.length === 0 || !deps.torrents || !can(user, Perm.OFFLINE_DOWNLOAD)) return;
  const tool = await deps.torrents.tool();
  const why = (reason: string) => open.forEach(({ k }) => (results[k]!.error += `; BitTorrent: ${reason}`));
  if (!tool) return why('no BitTorrent tool is configured');
  let torrent: Buffer;
  let decoded: { info_hash: string; info_name: string; single_file: boolean };
  try {
    if (input.decoded.format === 'torrent') torrent = input.bytes;
    else {
      const seed = input.decoded.seed;
      const only = seed.files.length === 1 ? seed.files[0]! : undefined;
      // one file inside a folder named otherwise (`odd/odd.bin`) is a multi-file torrent: the same info hash, the same swarm
      torrent = encodeSeed(seed, 'torrent', { pieces: input.decoded.torrent_pieces, layout: only && !only.path.includes('/') && only.path === seed.name ? 'auto' : 'multi' });
    }
    decoded = decodeTorrent(torrent);
  } catch (e) {
    return why(`the seed has no torrent data (${message(e)})`);
  }
  let task: TaskInfo;
  try {
    task = await deps.torrents.queue(user, {
      origin: o.origin,
      torrent,
      infoHash: decoded.info_hash,
      overwrite: o.overwrite,
      files: open.map(({ f, target }) => ({ rel: decoded.single_file ? decoded.info_name : `${decoded.info_name}/${f.path}`, to: target, size: f.size, expected: seedWholeHashes(f) })),
    });
  } catch (e) {
    // refused (a tracker or web seed the SSRF rules forbid): those files stay unavailable, saying why
    if (isAppError(e) && e.code === 400) return why(e.message);
    throw e;
  }
  for (const { i, k } of open) {
    results[k] = { ...results[k]!, method: 'offline_download', task, error: undefined };
    outcome.set(i, true);
  }
}

/** The whole operation for one request. */
export async function saveSeedFiles(deps: Pick<SeedsDeps, 'fs' | 'hashes' | 'links' | 'mounts' | 'settings' | 'tasks' | 'torrents' | 'folderAccess'>, user: User, body: SaveBody, mode: SaveMode, origin: string): Promise<SaveResult> {
  const input = await readSeedInput(deps, user, { seed_data: body.seed_data, format: body.format, file_name: body.file_name }, { allowPath: false });
  if (!body.path?.trim()) throw badRequest('path: the destination folder is required', { field: 'path' });
  requirePerm(user, Perm.WRITE);
  const dest = await folder(deps, user, body.path, 'path');
  const t = mode === 'rapid_upload' ? undefined : transitOf(body);
  if (t !== undefined) requirePerm(user, Perm.COPY);
  const transit = t === undefined ? undefined : await folder(deps, user, t, 'transit_path');
  const picked = selectFiles(input.decoded.seed, body);
  const plan: Plan = {
    deps, user, mode, decoded: input.decoded, dest, transit, overwrite: body.overwrite === true, origin,
    sctx: await sourceContextFor(deps, origin),
    scan: new ScanCache(deps, user),
  };
  const jobs = picked.map((i) => ({ i, f: input.decoded.seed.files[i]!, target: targetOf(dest, input.decoded.seed.files[i]!) }));
  // no file lands on a name hidden from the user, nor its relay copy: refused before anything is written or queued
  for (const { f, target } of jobs) {
    await deps.folderAccess.requireChange(user, null, transit ? [target, relayOf(transit, f)] : [target]).catch((e: unknown) => Promise.reject(fieldError('files', e, `files (${f.path})`)));
  }
  const results: FileResult[] = [];
  const outcome = new Map<number, boolean>();
  for (const { i, f, target } of jobs) {
    let r: FileResult;
    try {
      r = await saveOne(plan, f, target);
    } catch (e) {
      const method = mode === 'offline_download' ? (transit ? 'transfer' : 'offline_download') : 'rapid_upload';
      r = { path: f.path, name: baseName(target), target: stripBasePath(user.basePath, target), method, error: message(e) };
    }
    outcome.set(i, r.method !== 'unavailable' && r.error === undefined);
    results.push(r);
  }
  if (mode !== 'rapid_upload' && !transit) await handTorrent(deps, user, input, jobs, results, outcome, { origin, overwrite: plan.overwrite });
  if (!body.update_channel) return { results };
  const { storage } = await deps.fs.locate(dest);
  const seed = applyChannelUpdate(input.decoded.seed, { driver: storage.record.driver, mount_path: storage.record.mountPath }, outcome);
  const seedData = reencode(input.decoded, seed);
  return seedData === undefined ? { results } : { results, seed_data: seedData, seed };
}
