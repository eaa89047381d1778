import { randomBytes, randomUUID } from 'node:crypto';
import { badRequest, notFound } from '../../lib/errors.js';
import type { SettingsRepo } from './settings.repo.js';
import { SETTING_DEFS, SETTINGS_BY_KEY, type SettingDef } from './settings.defaults.js';

/** How long a read of the settings table is reused. Short, so instances sharing a database agree quickly. */
const CACHE_MS = 1000;

export interface SettingView {
  key: string;
  value: string;
  type: SettingDef['type'];
  group: SettingDef['group'];
  public: boolean;
  options: string[];
  help: string;
}

export function newAdminToken(): string {
  return `ferry-${randomUUID()}-${randomBytes(32).toString('base64url')}`;
}

/** Settings stored in the database over the defaults of settings.defaults.ts. */
export class SettingsService {
  private cache: { at: number; values: Map<string, string> } | null = null;

  constructor(private readonly repo: SettingsRepo) {}

  /** Seeds every missing setting with its default; generates the admin API token once. */
  async ensureDefaults(): Promise<void> {
    await this.repo.insertMissing(
      SETTING_DEFS.map((d) => ({ key: d.key, value: d.key === 'token' ? newAdminToken() : d.default })),
    );
    this.cache = null;
  }

  private async values(): Promise<Map<string, string>> {
    const now = Date.now();
    if (!this.cache || now - this.cache.at > CACHE_MS) this.cache = { at: now, values: await this.repo.all() };
    return this.cache.values;
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

  async list(): Promise<SettingView[]> {
    const values = await this.values();
    return SETTING_DEFS.map((d) => view(d, values.get(d.key) ?? d.default));
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
    this.cache = null;
  }

  async resetToken(): Promise<string> {
    const token = newAdminToken();
    await this.repo.save([{ key: 'token', value: token }]);
    this.cache = null;
    return token;
  }
}

function view(d: SettingDef, value: string): SettingView {
  return { key: d.key, value, type: d.type, group: d.group, public: d.public, options: d.options ?? [], help: d.help };
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
