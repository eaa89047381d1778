/**
 * The links Ferry hands out and checks: the public site origin, `?sign=` signatures of download paths
 * (while `sign_all` is on) and direct URLs `<site>/d/<path>`.
 */
import type { SettingsReader } from '../settings/settings.service.js';
import { encodePath } from './fs.present.js';
import { expireFor, pathSigner, RememberedSigns, signPath, verifySign, verifyWebSeedToken, webSeedToken } from './sign.js';

export class Links {
  private readonly remembered = new RememberedSigns();
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

  /** The `sign` of a full path when `sign_all` is on (expiring after `link_expiration` hours, 0 = never), else `''`. */
  async sign(full: string): Promise<string> {
    return (await this.signer())(full);
  }

  /**
   * `sign` for many paths at once (a listing): the settings read once, then no await per path. `always`: sign
   * even while `sign_all` is off (files in a password-protected folder: their downloads need a sign). `count`: how
   * many paths it is about to sign.
   */
  async signer(always = false, count = 1): Promise<(full: string) => string> {
    if (!always && !(await this.settings.getBool('sign_all'))) return () => '';
    const key = await this.settings.get('token');
    const expire = expireFor(await this.settings.getNumber('link_expiration'));
    // an expiring sign changes every second: only never-expiring ones are worth remembering, and only for
    // listings the memory holds (a bigger one would push everything out, itself included)
    return expire === 0 && count <= this.remembered.limit ? this.remembered.signer(key) : pathSigner(key, expire);
  }

  /** `<site>/d/<full path>` (+ `?sign=` when signing is on, or `always`). */
  async direct(origin: string, full: string, always = false): Promise<string> {
    return this.directUrl(origin, full, (await this.signer(always))(full));
  }

  /**
   * The direct link a seed records: `<site>/d/<full path>`, while `sign_all` is on with a signature of that one
   * path that never expires (whatever `link_expiration` says): recording it makes that file, and only it, public.
   */
  async recordedDirect(origin: string, full: string): Promise<string> {
    const sign = (await this.settings.getBool('sign_all')) ? signPath(await this.settings.get('token'), full, 0) : '';
    return this.directUrl(origin, full, sign);
  }

  private async directUrl(origin: string, full: string, sign: string): Promise<string> {
    return `${await this.site(origin)}/d${encodePath(full)}${sign ? `?sign=${encodeURIComponent(sign)}` : ''}`;
  }

  /**
   * A web-seed root (BEP 19) for a multi-file torrent named `name` whose files lie below folder `root`:
   * `<site>/ws/<token>/`, under which `<name>/<path>` serves `root/<path>` anonymously. Like a recorded
   * direct link it never expires and is keyed with the `token` setting (resetting it revokes every root).
   */
  async webSeedRoot(origin: string, root: string, name: string): Promise<string> {
    return `${await this.site(origin)}/ws/${webSeedToken(await this.settings.get('token'), root, name)}/`;
  }

  /** The folder and torrent name a web-seed token grants; 401 when it is not valid. */
  async verifyWebSeed(token: string): Promise<{ root: string; name: string }> {
    return verifyWebSeedToken(await this.settings.get('token'), token);
  }

  /**
   * Throws 401 with the reason unless signing is off (and not `always` required) or `sign` is a valid signature
   * of `full`.
   */
  async verify(full: string, sign: string | undefined, always = false): Promise<void> {
    (await this.verifier(always))(full, sign);
  }

  /** `verify` as a synchronous check bound to the current settings (for pure rules that check many links). */
  async verifier(always = false): Promise<(full: string, sign: string | undefined) => void> {
    if (!always && !(await this.settings.getBool('sign_all'))) return () => {};
    const key = await this.settings.get('token');
    return (full, sign) => verifySign(key, full, sign);
  }
}
