/**
 * The unified preview of a seed (contract §10.5 `parse`, seed-formats.md §8.3): the model and
 * its files with whole and per-piece hashes, comments, times, trackers, channels and sources
 * (with whether each is usable from here), conversion feasibility with the missing data per
 * file, diagnostics, which operations are available (and why not), and the direct preview.
 */
import type { SeedsDeps } from '../seeds.deps.js';
import { stripBasePath } from '../../../lib/path-safety.js';
import { isoTime } from '../../../lib/time.js';
import { Perm, can, type User } from '../../users/user.model.js';
import {
  HASH_NAMES,
  SEED_FORMATS,
  allConversions,
  diagnose,
  pieceCount,
  seedTotalSize,
  type DecodedSeed,
  type MissingData,
  type Seed,
  type SeedFile,
  type SeedFormat,
  type SeedSource,
} from '../formats/index.js';
import type { SeedInput } from './input.js';
import type { Conversions } from '../common/seed-analysis.js';
import { storedFilesStatus } from './locate.js';
import { missingText } from './output.js';
import { checkSourceUrl, type SourceContext } from './source-rules.js';
import { baseName, joinPath } from '../../../lib/paths.js';
import type { PresentedSource, Preview, PreviewFile } from '../seeds.schemas.js';

/** Share ids looked up per preview (a hostile seed may list many). */
const SHARE_CHECK_LIMIT = 100;

export interface Capability {
  available: boolean;
  reason?: string;
}


export interface PreviewOptions {
  sctx: SourceContext;
  /** Full path of a folder (or file) holding the seed's stored files, when the caller names one. */
  dataPath?: string;
}

const yes = (): Capability => ({ available: true });
const no = (reason: string): Capability => ({ available: false, reason });
const listed = (items: string[], max = 5) => items.slice(0, max).join(', ') + (items.length > max ? ` and ${items.length - max} more` : '');

/** Sources with their verdict; an on-site share that no longer exists or has expired is not usable. */
async function presentSources(deps: Pick<SeedsDeps, 'shares'>, seed: Seed, sctx: SourceContext): Promise<PresentedSource[][]> {
  const shares = deps.shares;
  const site = sctx.siteUrl ? safeOrigin(sctx.siteUrl) : null;
  const checked = new Map<string, boolean>();
  const out: PresentedSource[][] = [];
  for (const f of seed.files) {
    const list: PresentedSource[] = [];
    for (const s of f.sources ?? []) {
      const v = checkSourceUrl(s, sctx);
      const p: PresentedSource = { type: s.type, url: s.url, usable: v.usable };
      if (s.expires_at) {
        p.expires_at = s.expires_at;
        const t = Date.parse(s.expires_at);
        if (!Number.isNaN(t)) p.expires = isoTime(t);
      }
      if (s.share_id) p.share_id = s.share_id;
      if (!v.usable) p.reason = v.reason;
      else if (s.type === 'openlist-share' && s.share_id && site && safeOrigin(s.url) === site) {
        if (!checked.has(s.share_id) && checked.size < SHARE_CHECK_LIMIT) {
          checked.set(s.share_id, await shares.isServableId(s.share_id).catch(() => false));
        }
        if (checked.get(s.share_id) === false) {
          p.usable = false;
          p.reason = 'the share no longer exists, has expired or is disabled';
        }
      }
      list.push(p);
    }
    out.push(list);
  }
  return out;
}

function safeOrigin(url: string): string | null {
  try {
    return new URL(url).origin.toLowerCase();
  } catch {
    return null;
  }
}

function presentFile(f: SeedFile, pieceSize: number, sources: PresentedSource[]): PreviewFile {
  const pieces: PreviewFile['pieces'] = { piece_size: pieceSize, count: pieceCount(f.size, pieceSize) };
  for (const a of HASH_NAMES) if (f.hashes.pieces?.[a]?.length) pieces[a] = f.hashes.pieces[a];
  const hashes: Record<string, string> = {};
  for (const a of [...HASH_NAMES, 'gcid'] as const) if (f.hashes[a]) hashes[a] = f.hashes[a]!;
  return {
    path: f.path,
    name: baseName(f.path),
    size: f.size,
    modified: f.modified ?? null,
    comment: f.comment ?? '',
    hashes,
    pieces,
    cas: f.cas_slice_md5 || f.cas_create_time || f.cas_cloud ? { slice_md5: f.cas_slice_md5 ?? null, create_time: f.cas_create_time ?? null, cloud: f.cas_cloud ?? null } : null,
    sources,
    missing_channels: f.missing_channels ?? [],
  };
}

function presentConversions(conv: Conversions) {
  const out = {} as Record<SeedFormat, Conversions[SeedFormat] & { reasons: string[] }>;
  for (const f of SEED_FORMATS) out[f] = { ...conv[f], reasons: conv[f].missing.map((m) => `${m.file}: ${m.reason}`) };
  return out;
}

/** Presents every file, yielding to the event loop between slices (a seed may list 100,000 files). */
async function presentFiles(seed: Seed, sources: PresentedSource[][]): Promise<PreviewFile[]> {
  const out: PreviewFile[] = [];
  for (let i = 0; i < seed.files.length; i++) {
    if (i > 0 && i % 2000 === 0) await new Promise((r) => setImmediate(r));
    out.push(presentFile(seed.files[i]!, seed.piece_size, sources[i]!));
  }
  return out;
}

/** Builds the `parse` result for a decoded seed (read from `input.stored` when opened by path). */
export async function buildPreview(
  deps: Pick<SeedsDeps, 'fs' | 'settings' | 'shares' | 'folderAccess'>,
  user: User,
  input: Pick<SeedInput, 'decoded' | 'stored' | 'conversions' | 'diagnostics'>,
  opts: PreviewOptions,
): Promise<Preview> {
  const { decoded } = input;
  const seed = decoded.seed;
  const sources = await presentSources(deps, seed, opts.sctx);
  const files = await presentFiles(seed, sources);
  const conversions = presentConversions(input.conversions);
  const shown = (full: string) => stripBasePath(user.basePath, full);

  // Where the seed's files are stored: the folder named by the caller, else the sidecar's folder.
  const base = opts.dataPath ?? input.stored?.dir;
  const stored = base ? await storedFilesStatus(deps, user, seed, base) : null;

  const canWrite = can(user, Perm.WRITE);
  const unhashed = seed.files.filter((f) => !HASH_NAMES.some((a) => f.hashes[a])).map((f) => f.path);
  const sourced = files.filter((f) => f.sources.some((s) => s.usable));
  const rapid = !canWrite ? no('saving files needs the write permission') : unhashed.length > 0 ? no(`no whole-file hash to look the content up by for ${listed(unhashed)}`) : yes();
  let offline: Capability;
  if (!canWrite) offline = no('saving files needs the write permission');
  else if (!can(user, Perm.OFFLINE_DOWNLOAD)) offline = no('offline download needs the offline download permission');
  else if (sourced.length === 0) {
    const reasons = [...new Set(files.flatMap((f) => f.sources.map((s) => s.reason ?? '')).filter(Boolean))];
    offline = no(reasons.length > 0 ? `no usable source: ${listed(reasons, 3)}` : 'the seed records no share or direct link to fetch the files from');
  } else offline = sourced.length < files.length ? { available: true, reason: `only ${sourced.length} of ${files.length} files have a usable source` } : yes();
  const others = SEED_FORMATS.filter((f) => f !== decoded.format);
  const convertible = others.filter((f) => conversions[f].feasible);
  const recalc = stored?.found
    ? { available: true, path: shown(stored.root) }
    : { available: false, reason: stored ? stored.reason : 'open the seed from a stored sidecar, or name the folder holding its files, to recalculate from them' };

  return {
    format: decoded.format,
    seed,
    name: seed.name,
    comment: seed.comment ?? '',
    created_at: seed.created_at,
    created_by: seed.created_by,
    piece_size: seed.piece_size,
    trackers: seed.trackers ?? [],
    channels: seed.channels ?? [],
    missing_channels: [...new Set(seed.files.flatMap((f) => f.missing_channels ?? []))],
    files,
    file_count: files.length,
    total_size: seedTotalSize(seed),
    info_hash: decoded.info_hash ?? null,
    torrent_pieces: decoded.torrent_pieces
      ? { piece_size: decoded.torrent_pieces.pieceSize, count: decoded.torrent_pieces.hashes.length / 20, sha1: hexList(decoded.torrent_pieces.hashes) }
      : null,
    path: input.stored ? input.stored.shown : null,
    diagnostics: [
      ...input.diagnostics,
      ...(stored?.found ? stored.changed : []).map((c) => ({
        level: 'warning' as const,
        code: 'stored_file_changed',
        message: `the stored file no longer matches this seed (${c.reason}); recalculate to update the seed`,
        file: c.file,
      })),
    ],
    conversions,
    capabilities: {
      rapid_upload: rapid,
      offline_download: offline,
      transfer: offline.available ? { available: true } : no(`transfer relays an offline download: ${offline.reason}`),
      convert: convertible.length > 0 ? yes() : no(`cannot write ${others.map((f) => `.${f}`).join(' or ')} from this seed: ${missingText(others.flatMap((f) => conversions[f].missing), 3)}`),
      edit: yes(),
      recalculate: recalc,
    },
    direct_preview: await directPreview(deps, user, input, seed, files, stored?.found ? stored.root : null),
  };
}

function hexList(stream: Uint8Array): string[] {
  const b = Buffer.from(stream.buffer, stream.byteOffset, stream.byteLength);
  const out: string[] = [];
  for (let i = 0; i + 20 <= b.length; i += 20) out.push(b.toString('hex', i, i + 20));
  return out;
}

/**
 * Whether the UI may open a single-file seed's content directly (`seed_single_direct_preview`),
 * and for a stored single-file `.cas` with `seed_cas_direct_access`, that it should rapid-upload
 * the content into the sidecar's folder and preview the result.
 */
async function directPreview(
  deps: Pick<SeedsDeps, 'settings'>,
  user: User,
  input: Pick<SeedInput, 'decoded' | 'stored'>,
  seed: Seed,
  files: ReturnType<typeof presentFile>[],
  storedRoot: string | null,
) {
  const single = seed.files.length === 1;
  const singleSetting = await deps.settings.getBool('seed_single_direct_preview');
  const casSetting = await deps.settings.getBool('seed_cas_direct_access');
  const casDirect = single && casSetting && input.decoded.format === 'cas';
  const shown = (full: string) => stripBasePath(user.basePath, full);
  const base = {
    enabled: singleSetting,
    cas_direct_access: casDirect,
    file: single ? seed.files[0]!.path : null,
    stored_path: single && storedRoot ? shown(joinPath(storedRoot, seed.files[0]!.path)) : null,
    source_url: single ? (files[0]!.sources.find((s) => s.usable)?.url ?? null) : null,
    rapid_upload_to: casDirect && input.stored ? shown(input.stored.dir) : null,
    target_path: casDirect && input.stored ? shown(joinPath(input.stored.dir, baseName(seed.files[0]!.path))) : null,
  };
  if (!single) return { ...base, available: false, action: 'none' as const, reason: `the seed holds ${seed.files.length} files` };
  if (!singleSetting && !casDirect) {
    return { ...base, available: false, action: 'none' as const, reason: input.decoded.format === 'cas' ? 'seed_single_direct_preview and seed_cas_direct_access are off' : 'seed_single_direct_preview is off' };
  }
  if (base.stored_path) return { ...base, available: true, action: 'preview_file' as const };
  if (casDirect && base.rapid_upload_to) return { ...base, available: true, action: 'rapid_upload' as const };
  if (base.source_url) return { ...base, available: true, action: 'preview_source' as const };
  return { ...base, available: false, action: 'none' as const, reason: casDirect ? 'open the .cas from a stored sidecar so its folder can receive the file' : 'the file is neither stored here nor reachable through a usable source' };
}

