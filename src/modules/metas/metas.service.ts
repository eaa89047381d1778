/**
 * Metas: per-folder rules (OpenList's), stored in the database and served to the fs access layer through the
 * `FolderRules` port. Every instance re-reads the (small) table every CACHE_MS while it is used (SharedCache), so a
 * change made on one instance holds on all within about a second, and never later than MAX_STALE_MS.
 */
import { badRequest, conflict, notFound } from '../../lib/errors.js';
import { cleanPath } from '../../lib/path-safety.js';
import { parentOf } from '../../lib/paths.js';
import { compileSafeRegex } from '../../lib/safe-regex.js';
import { SharedCache } from '../../lib/shared-cache.js';
import type { FolderMeta, FolderRules } from '../fs/fs.ports.js';
import type { MetaRow, MetasRepo, MetaValues } from './metas.repo.js';
import type { MetaInputValues, MetaView } from './metas.schemas.js';

const CACHE_MS = 500;

/** The non-empty lines of a `hide` text, each a pattern. */
function hideLines(hide: string): string[] {
  return hide.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
}

function toRule(r: MetaRow): FolderMeta {
  return {
    path: r.path,
    password: r.password,
    pSub: r.p_sub === 1,
    write: r.write === 1,
    wSub: r.w_sub === 1,
    // validated on save; a pattern that no longer compiles hides nothing rather than breaking listings
    hide: hideLines(r.hide).flatMap((l) => {
      try {
        return [compileSafeRegex(l, 'hide')];
      } catch {
        return [];
      }
    }),
    hSub: r.h_sub === 1,
    readme: r.readme,
    rSub: r.r_sub === 1,
    header: r.header,
    headerSub: r.header_sub === 1,
  };
}

export function presentMeta(r: MetaRow): MetaView {
  return {
    id: Number(r.id),
    path: r.path,
    password: r.password,
    p_sub: r.p_sub === 1,
    write: r.write === 1,
    w_sub: r.w_sub === 1,
    hide: r.hide,
    h_sub: r.h_sub === 1,
    readme: r.readme,
    r_sub: r.r_sub === 1,
    header: r.header,
    header_sub: r.header_sub === 1,
  };
}

export class MetasService implements FolderRules {
  private readonly cache: SharedCache<Map<string, FolderMeta>>;

  constructor(private readonly repo: MetasRepo) {
    this.cache = new SharedCache({ load: async () => new Map((await repo.all()).map((r) => [r.path, toRule(r)])), freshMs: CACHE_MS });
  }

  private rules(): Promise<Map<string, FolderMeta>> {
    return this.cache.get();
  }

  async nearest(full: string): Promise<FolderMeta | null> {
    const rules = await this.rules();
    if (rules.size === 0) return null;
    for (let p = full; ; p = parentOf(p)) {
      const m = rules.get(p);
      if (m) return m;
      if (p === '/') return null;
    }
  }

  async all(): Promise<readonly FolderMeta[]> {
    return [...(await this.rules()).values()];
  }

  list(offset: number, limit: number | null) {
    return this.repo.page(offset, limit);
  }

  async get(id: number): Promise<MetaRow> {
    const r = await this.repo.byId(id);
    if (!r) throw notFound('meta not found');
    return r;
  }

  async create(input: MetaInputValues): Promise<MetaRow> {
    const v = values(input);
    if (await this.repo.byPath(v.path)) throw conflict(`a meta for ${v.path} already exists`);
    const r = await this.repo.insert(v);
    this.invalidate();
    return r;
  }

  async update(id: number, input: MetaInputValues): Promise<MetaRow> {
    await this.get(id);
    const v = values(input);
    const other = await this.repo.byPath(v.path);
    if (other && Number(other.id) !== id) throw conflict(`a meta for ${v.path} already exists`);
    await this.repo.update(id, v);
    this.invalidate();
    return this.get(id);
  }

  async delete(id: number): Promise<void> {
    if ((await this.repo.delete(id)) === 0) throw notFound('meta not found');
    this.invalidate();
  }

  private invalidate(): void {
    this.cache.invalidate();
  }
}

/** Checked input → row values: the path cleaned (no `..`), each hide pattern compiled (400 naming the bad one). */
function values(i: MetaInputValues): MetaValues {
  const path = cleanPath(i.path.startsWith('/') ? i.path : `/${i.path}`);
  hideLines(i.hide ?? '').forEach((l, n) => compileSafeRegex(l, `hide (line ${n + 1})`));
  for (const field of ['read_users', 'write_users'] as const) {
    if (i[field]?.length) throw badRequest(`${field}: Ferry has no per-user folder lists; leave it empty (permission bits, the folder password and hide patterns decide)`, { field });
  }
  const b = (x: boolean | undefined) => (x ? 1 : 0);
  return {
    path,
    password: i.password ?? '',
    p_sub: b(i.p_sub),
    write: b(i.write),
    w_sub: b(i.w_sub),
    hide: i.hide ?? '',
    h_sub: b(i.h_sub),
    readme: i.readme ?? '',
    r_sub: b(i.r_sub),
    header: i.header ?? '',
    header_sub: b(i.header_sub),
    modified: Date.now(),
  };
}
