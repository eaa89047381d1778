/**
 * BEP 19 web seeds (`url-list`) for the torrents Ferry writes, so any BitTorrent client can download
 * straight from this site:
 * - single-file torrent: the file's own usable sources (its recorded direct link, then its share);
 * - multi-file torrent generated from one folder whose every file has a source: a signed root
 *   `<site>/ws/<token>/` (Links.webSeedRoot), under which `<torrent name>/<path>` resolves.
 * Off when the `seed_web_seeds` setting (or the request's `web_seeds`) says so.
 */
import { joinPath } from '../../../lib/paths.js';
import { isSingleFileTorrent, type Seed, type SeedFile } from '../formats/index.js';
import type { SeedsDeps } from '../seeds.deps.js';

const WEB_SOURCE_TYPES = ['openlist-direct', 'openlist-share'];

/** A file's sources a web seed can use: direct before share, http(s), not expired. */
export function webSourceUrls(file: Pick<SeedFile, 'sources'>, now = Date.now()): string[] {
  const usable = (file.sources ?? []).filter((s) => {
    if (!WEB_SOURCE_TYPES.includes(s.type) || !/^https?:\/\//i.test(s.url)) return false;
    if (!s.expires_at) return true;
    const t = Date.parse(s.expires_at);
    return Number.isFinite(t) && t > now;
  });
  return usable.sort((a, b) => WEB_SOURCE_TYPES.indexOf(a.type) - WEB_SOURCE_TYPES.indexOf(b.type)).map((s) => s.url);
}

export interface GeneratedLayout {
  /** Web seeds asked for (request option or setting). */
  enabled: boolean;
  layout: 'auto' | 'multi';
  /** The one folder requested, when the seed is that folder's content. */
  folder: string | null;
  /** Full virtual path of each seed file, by seed path. */
  fullPaths: ReadonlyMap<string, string>;
  origin: string;
}

/** The `url-list` of a torrent seed generation writes (empty: none). */
export async function generatedWebSeeds(deps: Pick<SeedsDeps, 'links'>, seed: Seed, g: GeneratedLayout): Promise<string[]> {
  if (!g.enabled) return [];
  if (isSingleFileTorrent(seed.files, g.layout)) return webSourceUrls(seed.files[0]!);
  const root = g.folder;
  if (root === null || seed.files.length === 0) return [];
  // The root publishes the folder: only when the user made every file public anyway, and every file
  // is where `<root>/<path>` says.
  if (!seed.files.every((f) => webSourceUrls(f).length > 0 && g.fullPaths.get(f.path) === joinPath(root, f.path))) return [];
  return [await deps.links.webSeedRoot(g.origin, root, seed.name)];
}

/** The `url-list` of a converted or edited torrent: the file's sources (single file), else the input's own web seeds. */
export function keptWebSeeds(enabled: boolean, seed: Seed, layout: 'auto' | 'multi', inputWebSeeds: readonly string[] = []): string[] {
  if (!enabled) return [];
  if (isSingleFileTorrent(seed.files, layout)) return [...new Set([...webSourceUrls(seed.files[0]!), ...inputWebSeeds])];
  return [...inputWebSeeds];
}
