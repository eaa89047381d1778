/**
 * Shared by the routes and the tasks: the configured tools, the SSRF rules for URLs handed to a tool (and for
 * those inside a magnet or torrent), and reading a stored `.torrent` (through the hardened parser, on the seed
 * workers) before it goes to a tool.
 */
import { badRequest, forbidden } from '../../lib/errors.js';
import { cleanPath, stripBasePath } from '../../lib/path-safety.js';
import { isWithin } from '../../lib/paths.js';
import type { User } from '../users/user.model.js';
import { MAX_SEED_DOC_BYTES } from '../seeds/formats/index.js';
import { analyzeSeed } from '../seeds/common/seed-analysis.js';
import { checkPublicAddress, HostUnresolved, onceResolver, SourceRefused, type FetchOptions } from '../seeds/operations/fetcher.js';
import { sourceContextFor } from '../seeds/operations/source-rules.js';
import { addressKey, magnetAddresses, magnetWithout, torrentAddresses, torrentWithout, type InnerAddress } from './inner-addresses.js';
import type { OfflineDeps } from './offline.deps.js';
import { Aria2 } from './tools/aria2.js';
import { QBittorrent } from './tools/qbittorrent.js';
import { ToolError, type DownloadTool, type ToolInput } from './tools/tool.js';
import { Transmission } from './tools/transmission.js';

/**
 * What happens to a tool's copy after the transfer. `upload_download_stream` (OpenList 4.2, its web UI's default:
 * "Download stream direct upload") streams the URL straight into the folder with no copy, which is what SimpleHttp
 * always does; it is refused for the BitTorrent tools, which always keep a copy.
 */
export const DELETE_POLICIES = ['delete_on_upload_succeed', 'delete_on_upload_failed', 'delete_never', 'delete_always', 'upload_download_stream'] as const;

export const BT_TOOLS = ['aria2', 'Transmission', 'qBittorrent'] as const;
export type BtToolName = (typeof BT_TOOLS)[number];
export const TOOLS = ['SimpleHttp', ...BT_TOOLS] as const;
export type ToolName = (typeof TOOLS)[number];

/** Per tool: the setting holding its endpoint, its seeding time, the admin route that sets it, and how to reach it. */
export const TOOL_SETTINGS: Record<BtToolName, { url: string; seedtime: string; route: string; make: (url: string, secret: string, timeoutMs?: number) => DownloadTool }> = {
  aria2: { url: 'aria2_uri', seedtime: 'aria2_seedtime', route: 'set_aria2', make: (url, secret, t) => new Aria2(url, secret, t) },
  Transmission: { url: 'transmission_uri', seedtime: 'transmission_seedtime', route: 'set_transmission', make: (url, _s, t) => new Transmission(url, t) },
  qBittorrent: { url: 'qbittorrent_url', seedtime: 'qbittorrent_seedtime', route: 'set_qbit', make: (url, _s, t) => new QBittorrent(url, t) },
};

/** The tools usable now: SimpleHttp always, the others once configured. */
export async function availableTools(deps: Pick<OfflineDeps, 'settings'>): Promise<ToolName[]> {
  const out: ToolName[] = ['SimpleHttp'];
  for (const t of BT_TOOLS) if ((await deps.settings.get(TOOL_SETTINGS[t].url)).trim()) out.push(t);
  return out;
}

/** The configured tool and its seeding minutes, or a clear error when it is not configured. */
export async function toolOf(deps: Pick<OfflineDeps, 'settings'>, name: BtToolName): Promise<{ tool: DownloadTool; seedMinutes: number }> {
  const s = TOOL_SETTINGS[name];
  // the task may run on another instance than the one that saved the endpoint a moment ago
  deps.settings.refresh();
  const url = (await deps.settings.get(s.url)).trim();
  if (!url) throw new ToolError(`${name} is not configured (POST /api/admin/setting/${s.route})`);
  const secret = name === 'aria2' ? await deps.settings.get('aria2_secret') : '';
  return { tool: s.make(url, secret), seedMinutes: Math.max(0, await deps.settings.getNumber(s.seedtime)) };
}

/** The address rule of http sources for one URL, as a 400 naming `field` (and `label`: what the URL is). */
async function checkAddress(u: URL, opts: Pick<FetchOptions, 'sctx' | 'resolve'>, field: string, label = ''): Promise<void> {
  try {
    await checkPublicAddress(u, opts);
  } catch (e) {
    if (e instanceof SourceRefused) throw badRequest(`${field}: ${label}refused: ${e.message}`, { field });
    throw badRequest(`${field}: ${label}${(e as Error).message}`, { field });
  }
}

/**
 * Refuses (400) an http(s) URL whose host resolves to a loopback, private, link-local or metadata address
 * (unless it is a trusted source host), before anything is sent to it or to a tool.
 */
async function checkToolUrl(deps: Pick<OfflineDeps, 'links' | 'settings'>, origin: string, url: string, field: string): Promise<void> {
  await checkAddress(new URL(url), { sctx: await sourceContextFor(deps, origin) }, field);
}

/** At most this many distinct trackers, web seeds and peers in one magnet or torrent. */
export const MAX_INNER_ADDRESSES = 200;

/** What a tool may be handed, and the addresses left out of it (their hosts do not resolve), for the task to say. */
export interface CheckedInput {
  input: ToolInput;
  /** `tracker http://…: cannot resolve …` per address dropped; empty when nothing was. */
  dropped: string[];
}

/**
 * What goes to a tool obeys the SSRF rules of http sources (checkToolUrl): the URL itself, or every tracker, web
 * seed and peer inside a magnet or a torrent (inner-addresses.ts). Each one that is, or resolves to, a refused
 * address (unless its host is trusted), or cannot be read, answers a 400 naming `field` and it. Inside a magnet or
 * a torrent, one whose host does not resolve is DROPPED from what the tool gets (the magnet's parameter; the
 * torrent's `announce`/`announce-list`/`url-list`/`httpseeds`/`nodes` entry, outside `info`, so the info hash is
 * unchanged) and named in `dropped`; if that leaves nothing of what it named (no tracker, web seed, peer or
 * metainfo source at all), it is refused: nothing could be reached by name, and with DHT off the tool would only
 * stall until offline_stall_timeout. (A magnet that names no tracker at all is handed over as is: DHT.)
 * A plain URL whose host does not resolve is refused like any unresolvable http source.
 * Checked when a download is queued, and again whenever its task runs (a retry after the trusted hosts changed).
 */
export async function checkToolInput(deps: Pick<OfflineDeps, 'links' | 'settings'>, origin: string, input: ToolInput, field: string): Promise<CheckedInput> {
  if (input.kind === 'url') {
    await checkToolUrl(deps, origin, input.url, field);
    return { input, dropped: [] };
  }
  let found: InnerAddress[];
  try {
    found = input.kind === 'torrent' ? torrentAddresses(input.bytes) : magnetAddresses(input.url);
  } catch (e) {
    throw badRequest(`${field}: not a usable torrent: ${(e as Error).message}`, { field });
  }
  const seen = new Set<string>();
  found = found.filter((a) => !seen.has(addressKey(a)) && seen.add(addressKey(a)));
  if (found.length > MAX_INNER_ADDRESSES) throw badRequest(`${field}: names ${found.length} trackers, web seeds and peers (at most ${MAX_INNER_ADDRESSES})`, { field });
  const label = (a: InnerAddress) => `${a.what} ${a.shown.length > 200 ? `${a.shown.slice(0, 200)}…` : a.shown}: `;
  const bad = found.find((a) => a.url === null);
  if (bad) throw badRequest(`${field}: ${label(bad)}${bad.problem}`, { field });
  if (found.length === 0) return { input, dropped: [] };
  const opts = { sctx: await sourceContextFor(deps, origin), resolve: onceResolver() };
  // resolved together; the first refused one in the order written is reported
  const outcomes = await Promise.allSettled(found.map((a) => checkPublicAddress(a.url!, opts)));
  const unresolved = new Set<string>();
  const dropped: string[] = [];
  for (const [i, o] of outcomes.entries()) {
    if (o.status === 'fulfilled') continue;
    const a = found[i]!;
    const e = o.reason as Error;
    if (e instanceof HostUnresolved) {
      unresolved.add(addressKey(a));
      dropped.push(`${label(a)}${e.message}`);
    } else if (e instanceof SourceRefused) throw badRequest(`${field}: ${label(a)}refused: ${e.message}`, { field });
    else throw badRequest(`${field}: ${label(a)}${e.message}`, { field });
  }
  if (unresolved.size === 0) return { input, dropped };
  if (unresolved.size === found.length) throw badRequest(`${field}: none of the trackers, web seeds and peers it names can be reached (${dropped.join('; ')}); nothing to download from`, { field });
  const out: ToolInput = input.kind === 'torrent' ? { ...input, bytes: torrentWithout(input.bytes, unresolved) } : { ...input, url: magnetWithout(input.url, unresolved) };
  return { input: out, dropped };
}

/** What the task and the API say about the addresses dropped from a magnet or torrent. */
export function droppedNote(dropped: string[]): string {
  return dropped.length === 0 ? '' : `${dropped.length} unreachable tracker(s)/web seed(s)/peer(s) left out (their hosts do not resolve): ${dropped.join('; ')}`;
}

/** The bytes and info hash of a stored `.torrent` the user may read, checked by the torrent parser. */
export async function readStoredTorrent(deps: Pick<OfflineDeps, 'fs' | 'settings' | 'folderAccess'>, user: User, full: string, field = 'urls'): Promise<{ bytes: Buffer; infoHash: string }> {
  const shown = stripBasePath(user.basePath, full);
  if (!isWithin(cleanPath(user.basePath), full) || !(await deps.folderAccess.isVisible(user, full, user.basePath))) throw forbidden(`${field}: ${shown}: permission denied`, { field });
  const e = await deps.fs.stat(full);
  if (e.isDir) throw badRequest(`${field}: ${shown} is a folder, not a .torrent`, { field });
  const tooLarge = () => badRequest(`${field}: ${shown} is larger than ${MAX_SEED_DOC_BYTES} bytes`, { field });
  if (e.size > MAX_SEED_DOC_BYTES) throw tooLarge();
  const { driver, inner } = await deps.fs.locate(full);
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of await driver.read(inner)) {
    n += (c as Buffer).length;
    if (n > MAX_SEED_DOC_BYTES) throw tooLarge();
    chunks.push(c as Buffer);
  }
  return checkTorrent(deps, Buffer.concat(chunks), shown, field);
}

/** An uploaded `.torrent` (base64 of a data: URL in `urls`): the same checks as a stored one. */
export async function readUploadedTorrent(deps: Pick<OfflineDeps, 'settings'>, base64: string, field = 'urls'): Promise<{ bytes: Buffer; infoHash: string }> {
  // base64 is 4 characters for 3 bytes: refuse by length before decoding
  if (Math.floor((base64.length * 3) / 4) > MAX_SEED_DOC_BYTES + 2) throw badRequest(`${field}: the uploaded .torrent is larger than ${MAX_SEED_DOC_BYTES} bytes`, { field });
  return checkTorrent(deps, Buffer.from(base64, 'base64'), 'the uploaded .torrent', field);
}

async function checkTorrent(deps: Pick<OfflineDeps, 'settings'>, bytes: Buffer, shown: string, field: string): Promise<{ bytes: Buffer; infoHash: string }> {
  if (bytes.length > MAX_SEED_DOC_BYTES) throw badRequest(`${field}: ${shown} is larger than ${MAX_SEED_DOC_BYTES} bytes`, { field });
  try {
    const a = await analyzeSeed(bytes, { format: 'torrent', maxFiles: await deps.settings.getNumber('seed_max_files') });
    return { bytes, infoHash: a.decoded.info_hash ?? '' };
  } catch (err) {
    throw badRequest(`${field}: ${shown} is not a usable torrent: ${(err as Error).message}`, { field });
  }
}
