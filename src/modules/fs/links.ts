/**
 * The links Ferry hands out and checks: the public site origin, `?sign=` signatures of download paths
 * (while `sign_all` is on) and direct URLs `<site>/d/<path>`.
 */
import type { SettingsReader } from '../settings/settings.service.js';
import { encodePath } from './fs.present.js';
import { expireFor, signPath, verifySign } from './sign.js';

export class Links {
  /** @param siteUrl FERRY_SITE_URL (null when unset). */
  constructor(
    private readonly settings: SettingsReader,
    private readonly siteUrl: string | null,
  ) {}

  /**
   * The public origin for links: the `seed_site_url` setting, else FERRY_SITE_URL, else `origin` (the origin a
   * request came in on; tasks keep the one of the request that queued them).
   */
  async site(origin: string): Promise<string> {
    const setting = (await this.settings.get('seed_site_url')).trim();
    if (setting) return setting.replace(/\/+$/, '');
    return this.siteUrl ?? origin.replace(/\/+$/, '');
  }

  /** The `sign` of a full path when `sign_all` is on, else `''`. */
  async sign(full: string): Promise<string> {
    if (!(await this.settings.getBool('sign_all'))) return '';
    return signPath(await this.settings.get('token'), full, expireFor(await this.settings.getNumber('link_expiration')));
  }

  /** `<site>/d/<full path>` (+ `?sign=` when signing is on). */
  async direct(origin: string, full: string): Promise<string> {
    const sign = await this.sign(full);
    return `${await this.site(origin)}/d${encodePath(full)}${sign ? `?sign=${encodeURIComponent(sign)}` : ''}`;
  }

  /** Throws 401 with the reason unless signing is off or `sign` is a valid signature of `full`. */
  async verify(full: string, sign: string | undefined): Promise<void> {
    if (await this.settings.getBool('sign_all')) verifySign(await this.settings.get('token'), full, sign);
  }
}
