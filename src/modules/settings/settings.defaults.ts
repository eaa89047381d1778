/**
 * Every setting Ferry knows, with its default (contract §9). Values are stored
 * as strings, as in OpenList; `type` says how they are validated on save.
 */
export type SettingType = 'string' | 'text' | 'bool' | 'number' | 'json' | 'select';

export interface SettingDef {
  key: string;
  default: string;
  type: SettingType;
  group: 'site' | 'security' | 'sftp' | 'seed';
  /** Shown at /api/public/settings without login. */
  public: boolean;
  options?: string[];
  help: string;
}

const ALL_HASHES = { md5: { whole: true, pieces: false }, sha1: { whole: true, pieces: false }, sha256: { whole: true, pieces: false } };

export const SETTING_DEFS: readonly SettingDef[] = [
  { key: 'site_title', default: 'Ferry', type: 'string', group: 'site', public: true, help: 'Title of the site; also the 2FA issuer.' },
  { key: 'token_expires_in', default: '48', type: 'number', group: 'security', public: false, help: 'Login token lifetime in hours (fractions allowed).' },
  { key: 'sign_all', default: 'true', type: 'bool', group: 'security', public: true, help: 'Require a signature on every /d/ and /p/ download link (private by default; shares are unaffected).' },
  { key: 'link_expiration', default: '0', type: 'number', group: 'security', public: false, help: 'Signed link lifetime in hours; 0 = never.' },
  { key: 'api_errors_http_200', default: 'false', type: 'bool', group: 'site', public: false, help: 'Send JSON errors with HTTP 200 (the real code stays in the body), for older OpenList clients.' },
  { key: 'sftp_disable_password_login', default: 'false', type: 'bool', group: 'sftp', public: false, help: 'Allow only public-key logins over SFTP.' },
  { key: 'token', default: '', type: 'string', group: 'security', public: false, help: 'Admin API token: sent as the whole Authorization header, it authenticates as admin.' },
  { key: 'seed_site_url', default: '', type: 'string', group: 'seed', public: false, help: 'Public base URL used in share/direct links recorded in seeds.' },
  { key: 'seed_default_matrix', default: JSON.stringify(ALL_HASHES), type: 'json', group: 'seed', public: true, help: 'Hash matrix used when a request selects none.' },
  { key: 'seed_format_policies', default: JSON.stringify({ oss: 'off', torrent: 'off', cas: 'off' }), type: 'json', group: 'seed', public: true, help: 'Formats enabled by default for upload sidecars ("on"/"off" per format).' },
  { key: 'seed_default_format', default: 'oss', type: 'select', options: ['oss', 'torrent', 'cas'], group: 'seed', public: true, help: 'Sidecar format used when nothing else names one.' },
  { key: 'seed_auto_generate_policy', default: 'off', type: 'select', options: ['off', 'on'], group: 'seed', public: true, help: 'Generate sidecars on upload when neither the request nor the storage decides.' },
  { key: 'seed_default_trackers', default: '', type: 'text', group: 'seed', public: true, help: 'Trackers offered in the seed wizard, one URL per line.' },
  { key: 'seed_single_direct_preview', default: 'false', type: 'bool', group: 'seed', public: true, help: 'Offer a direct preview of a single-file seed.' },
  { key: 'seed_cas_direct_access', default: 'false', type: 'bool', group: 'seed', public: true, help: 'Allow direct access through .cas seeds.' },
  { key: 'seed_follow', default: 'true', type: 'bool', group: 'seed', public: false, help: 'Sidecars follow rename/move/copy/remove of their file.' },
  { key: 'seed_async_threshold', default: '1073741824', type: 'number', group: 'seed', public: false, help: 'Total bytes above which seed generation runs as a background task.' },
  { key: 'seed_max_files', default: '100000', type: 'number', group: 'seed', public: false, help: 'Most files a seed may list to be previewed or used (at most 100000).' },
  { key: 'seed_fallback_name', default: 'Service Seed', type: 'string', group: 'seed', public: false, help: 'Seed name when none can be derived.' },
  { key: 'seed_trusted_source_hosts', default: '', type: 'text', group: 'seed', public: false, help: 'Hosts besides the site whose seed sources may be fetched, one per line.' },
];

export const SETTINGS_BY_KEY: ReadonlyMap<string, SettingDef> = new Map(SETTING_DEFS.map((d) => [d.key, d]));
