import { randomBytes, randomUUID } from 'node:crypto';
import { badRequest, notFound } from '../../lib/errors.js';
import { SharedCache } from '../../lib/shared-cache.js';
import type { SettingsRepo } from './settings.repo.js';
import { SETTING_DEFS, SETTINGS_BY_KEY, type SettingDef, type SettingType } from './settings.defaults.js';
import type { SettingView } from './settings.schemas.js';

/**
 * How long a read of the settings table is served before it is reloaded (in the background, see SharedCache),
 * so a change saved on one instance is seen by every instance sharing the database within about this plus
 * one query, and never later than MAX_STALE_MS. The cost is one small query (~20 rows) per instance per interval,
 * only while settings are being read.
 */
const CACHE_MS = 500;

/** What most modules need of the settings: typed reads (cached: CACHE_MS fresh, never older than MAX_STALE_MS). */
export interface SettingsReader {
  get(key: string): Promise<string>;
  getBool(key: string): Promise<boolean>;
  getNumber(key: string): Promise<number>;
  getJson<T>(key: string): Promise<T>;
}

export function newAdminToken(): string {
  return `ferry-${randomUUID()}-${randomBytes(32).toString('base64url')}`;
}

/** Settings stored in the database over the defaults of settings.defaults.ts. */
export class SettingsService implements SettingsReader {
  private readonly cache: SharedCache<Map<string, string>>;

  constructor(private readonly repo: SettingsRepo) {
    this.cache = new SharedCache({ load: () => repo.all(), freshMs: CACHE_MS });
  }

  /**
   * Generates the admin API token once. Other settings are stored only when saved: an unsaved
   * setting reads its current default, so a default changed by an upgrade (`sign_all`) reaches
   * every install that never chose, while a saved value is kept.
   */
  async ensureDefaults(): Promise<void> {
    await this.repo.insertMissing([{ key: 'token', value: newAdminToken() }]);
    this.invalidate();
  }

  /** Drops the cache, so the next read sees what another instance saved a moment ago (a task about to use a tool's endpoint). */
  refresh(): void {
    this.invalidate();
  }

  private invalidate(): void {
    this.cache.invalidate();
  }

  private values(): Promise<Map<string, string>> {
    return this.cache.get();
  }

  async get(key: string): Promise<string> {
    const def = SETTINGS_BY_KEY.get(key);
    if (!def) throw notFound(`setting ${key} not found`);
    return (await this.values()).get(key) ?? def.default;
  }

  async getBool(key: string): Promise<boolean> {
    return (await this.get(key)) === 'true';
  }

  async getNumber(key: string): Promise<number> {
    const n = Number(await this.get(key));
    return Number.isFinite(n) ? n : Number(SETTINGS_BY_KEY.get(key)!.default);
  }

  async getJson<T>(key: string): Promise<T> {
    try {
      return JSON.parse(await this.get(key)) as T;
    } catch {
      return JSON.parse(SETTINGS_BY_KEY.get(key)!.default) as T;
    }
  }

  /** Every setting, or those of the given OpenList groups. */
  async list(groups?: readonly number[]): Promise<SettingView[]> {
    const values = await this.values();
    return SETTING_DEFS.filter((d) => !groups || groups.includes(d.olGroup)).map((d) => view(d, values.get(d.key) ?? d.default));
  }

  /** The default items of every setting, or of the given OpenList groups, in list's shape: nothing is saved. */
  defaults(groups?: readonly number[]): SettingView[] {
    return SETTING_DEFS.filter((d) => (!groups || groups.includes(d.olGroup)) && d.key !== 'token').map((d) => view(d, d.default));
  }

  async getView(key: string): Promise<SettingView> {
    const def = SETTINGS_BY_KEY.get(key);
    if (!def) throw notFound(`setting ${key} not found`);
    return view(def, await this.get(key));
  }

  async publicSettings(): Promise<Record<string, string>> {
    const values = await this.values();
    const out: Record<string, string> = {};
    for (const d of SETTING_DEFS) if (d.public) out[d.key] = values.get(d.key) ?? d.default;
    return out;
  }

  /** Validates every entry first, then saves all in one transaction. */
  async save(entries: { key: string; value: string }[]): Promise<void> {
    entries.forEach((e, i) => validate(e.key, e.value, `[${i}]`));
    await this.repo.save(entries);
    this.invalidate();
  }

  /** Forgets a saved value: the setting reads its default again. The admin API token cannot be removed. */
  async reset(key: string): Promise<void> {
    if (!SETTINGS_BY_KEY.has(key)) throw notFound(`setting ${key} not found`);
    if (key === 'token') throw badRequest('the admin API token cannot be deleted; generate a new one instead');
    await this.repo.remove(key);
    this.invalidate();
  }

  async resetToken(): Promise<string> {
    const token = newAdminToken();
    await this.repo.save([{ key: 'token', value: token }]);
    this.invalidate();
    return token;
  }
}

/** OpenList's input type for a Ferry type (its web UI has no `json`: a JSON object is edited as text). */
const OL_TYPE: Record<SettingType, string> = { string: 'string', text: 'text', bool: 'bool', number: 'number', select: 'select', json: 'text' };
const INDEX = new Map(SETTING_DEFS.map((d, i) => [d.key, i]));

function view(d: SettingDef, value: string): SettingView {
  return {
    key: d.key,
    value,
    help: d.help,
    type: OL_TYPE[d.type],
    options: (d.options ?? []).join(','),
    group: d.olGroup,
    flag: d.public ? 0 : 1,
    index: INDEX.get(d.key) ?? 0,
    section: d.group,
    kind: d.type,
    public: d.public,
  };
}

function validate(key: string, value: string, where: string): void {
  const def = SETTINGS_BY_KEY.get(key);
  if (!def) throw badRequest(`${where}.key: unknown setting ${JSON.stringify(key)}`);
  const bad = (why: string) => badRequest(`${where}.value: setting ${key} ${why}`);
  switch (def.type) {
    case 'bool':
      if (value !== 'true' && value !== 'false') throw bad('must be "true" or "false"');
      break;
    case 'number':
      if (key === 'token_expires_in') {
        // Hours; fractions allowed (0.5 = 30 minutes).
        if (!/^\d+(\.\d+)?$/.test(value) || Number(value) <= 0) throw bad('must be a positive number of hours');
      } else if (!/^\d+$/.test(value)) throw bad('must be a non-negative whole number');
      break;
    case 'select':
      if (!def.options!.includes(value)) throw bad(`must be one of ${def.options!.join(', ')}`);
      break;
    case 'json':
      try {
        const v: unknown = JSON.parse(value);
        if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error();
      } catch {
        throw bad('must be a JSON object');
      }
      break;
    default:
      if (key === 'token' && value.length < 16) throw bad('must be at least 16 characters');
  }
}
