/**
 * Every setting Ferry knows, with its default (contract §9). Values are stored
 * as strings, as in OpenList; `type` says how they are validated on save.
 */
export type SettingType = 'string' | 'text' | 'bool' | 'number' | 'json' | 'select';

export interface SettingDef {
  key: string;
  default: string;
  type: SettingType;
  group: 'site' | 'security' | 'sftp' | 'seed' | 'index' | 'display' | 'offline';
  /** Shown at /api/public/settings without login. */
  public: boolean;
  options?: string[];
  help: string;
  /**
   * OpenList's group number (its settings pages ask for one or more): 0 single, 1 site, 2 style, 3 preview,
   * 4 global, 6 index, 10 FTP/SFTP; 12 = Ferry's transfer seeds (no OpenList page asks for it).
   */
  olGroup: number;
}

/** OpenList's setting groups, by number (the official web UI's pages ask for them). */
export const OL_GROUP = { SINGLE: 0, SITE: 1, STYLE: 2, PREVIEW: 3, GLOBAL: 4, OFFLINE_DOWNLOAD: 5, INDEX: 6, FTP: 10, SEED: 12 } as const;

const ALL_HASHES = { md5: { whole: true, pieces: false }, sha1: { whole: true, pieces: false }, sha256: { whole: true, pieces: false } };

export const SETTING_DEFS: readonly SettingDef[] = [
  { key: 'site_title', default: 'Ferry', type: 'string', group: 'site', public: true, help: 'Title of the site; also the 2FA issuer.', olGroup: OL_GROUP.SITE },
  { key: 'token_expires_in', default: '48', type: 'number', group: 'security', public: false, help: 'Login token lifetime in hours (fractions allowed).', olGroup: OL_GROUP.GLOBAL },
  { key: 'sign_all', default: 'true', type: 'bool', group: 'security', public: true, help: 'Require a signature on every /d/ and /p/ download link (private by default; shares are unaffected).', olGroup: OL_GROUP.GLOBAL },
  { key: 'link_expiration', default: '0', type: 'number', group: 'security', public: false, help: 'Signed link lifetime in hours; 0 = never.', olGroup: OL_GROUP.GLOBAL },
  { key: 'api_errors_http_200', default: 'false', type: 'bool', group: 'site', public: false, help: 'Send JSON errors with HTTP 200 (the real code stays in the body), for older OpenList clients.', olGroup: OL_GROUP.SITE },
  { key: 'sftp_disable_password_login', default: 'false', type: 'bool', group: 'sftp', public: false, help: 'Allow only public-key logins over SFTP.', olGroup: OL_GROUP.FTP },
  { key: 'token', default: '', type: 'string', group: 'security', public: false, help: 'Admin API token: sent as the whole Authorization header, it authenticates as admin.', olGroup: OL_GROUP.SINGLE },
  { key: 'seed_site_url', default: '', type: 'string', group: 'seed', public: false, help: 'Public base URL used in share/direct links recorded in seeds.', olGroup: OL_GROUP.SEED },
  { key: 'seed_default_matrix', default: JSON.stringify(ALL_HASHES), type: 'json', group: 'seed', public: true, help: 'Hash matrix used when a request selects none.', olGroup: OL_GROUP.SEED },
  { key: 'seed_format_policies', default: JSON.stringify({ oss: 'off', torrent: 'off', cas: 'off' }), type: 'json', group: 'seed', public: true, help: 'Formats enabled by default for upload sidecars ("on"/"off" per format).', olGroup: OL_GROUP.SEED },
  { key: 'seed_default_format', default: 'oss', type: 'select', options: ['oss', 'torrent', 'cas'], group: 'seed', public: true, help: 'Sidecar format used when nothing else names one.', olGroup: OL_GROUP.SEED },
  { key: 'seed_auto_generate_policy', default: 'off', type: 'select', options: ['off', 'on'], group: 'seed', public: true, help: 'Generate sidecars on upload when neither the request nor the storage decides.', olGroup: OL_GROUP.SEED },
  { key: 'seed_default_trackers', default: '', type: 'text', group: 'seed', public: true, help: 'Trackers offered in the seed wizard, one URL per line.', olGroup: OL_GROUP.SEED },
  { key: 'seed_single_direct_preview', default: 'false', type: 'bool', group: 'seed', public: true, help: 'Offer a direct preview of a single-file seed.', olGroup: OL_GROUP.SEED },
  { key: 'seed_cas_direct_access', default: 'false', type: 'bool', group: 'seed', public: true, help: 'Allow direct access through .cas seeds.', olGroup: OL_GROUP.SEED },
  { key: 'seed_follow', default: 'true', type: 'bool', group: 'seed', public: false, help: 'Sidecars follow rename/move/copy/remove of their file.', olGroup: OL_GROUP.SEED },
  { key: 'seed_async_threshold', default: '1073741824', type: 'number', group: 'seed', public: false, help: 'Total bytes above which seed generation runs as a background task.', olGroup: OL_GROUP.SEED },
  { key: 'seed_max_files', default: '100000', type: 'number', group: 'seed', public: false, help: 'Most files a seed may list to be previewed or used (at most 100000).', olGroup: OL_GROUP.SEED },
  { key: 'seed_fallback_name', default: 'Service Seed', type: 'string', group: 'seed', public: false, help: 'Seed name when none can be derived.', olGroup: OL_GROUP.SEED },
  { key: 'seed_web_seeds', default: 'true', type: 'bool', group: 'seed', public: true, help: 'Write web seeds (BEP 19 url-list) into .torrent files whose files have share or direct sources, so BitTorrent clients download from this site.', olGroup: OL_GROUP.SEED },
  { key: 'seed_trusted_source_hosts', default: '', type: 'text', group: 'seed', public: false, help: 'Hosts besides the site whose seed sources may be fetched, one per line.', olGroup: OL_GROUP.SEED },
  // Display settings the official OpenList web UI reads from /api/public/settings (Ferry's own UI ignores them).
  { key: 'announcement', default: '', type: 'text', group: 'display', public: true, help: 'Markdown shown on the home page of the OpenList web UI.', olGroup: OL_GROUP.SITE },
  { key: 'pagination_type', default: 'all', type: 'select', options: ['all', 'pagination', 'load_more', 'auto_load_more'], group: 'display', public: true, help: 'How the OpenList web UI pages long folders.', olGroup: OL_GROUP.SITE },
  { key: 'default_page_size', default: '30', type: 'number', group: 'display', public: true, help: 'Page size of the OpenList web UI when it pages folders.', olGroup: OL_GROUP.SITE },
  { key: 'logo', default: '/api/public/logo.svg', type: 'string', group: 'display', public: true, help: 'Logo URL of the OpenList web UI.', olGroup: OL_GROUP.STYLE },
  { key: 'favicon', default: '/api/public/logo.svg', type: 'string', group: 'display', public: true, help: 'Favicon URL of the OpenList web UI.', olGroup: OL_GROUP.STYLE },
  { key: 'main_color', default: '#1890ff', type: 'string', group: 'display', public: true, help: 'Accent colour of the OpenList web UI.', olGroup: OL_GROUP.STYLE },
  { key: 'home_icon', default: '🏠', type: 'string', group: 'display', public: true, help: 'Icon of the home breadcrumb in the OpenList web UI.', olGroup: OL_GROUP.STYLE },
  { key: 'home_container', default: 'max_980px', type: 'select', options: ['max_980px', 'hope_container'], group: 'display', public: true, help: 'Page width of the OpenList web UI.', olGroup: OL_GROUP.STYLE },
  { key: 'settings_layout', default: 'list', type: 'select', options: ['list', 'responsive'], group: 'display', public: true, help: 'Layout of the settings pages of the OpenList web UI.', olGroup: OL_GROUP.STYLE },
  { key: 'iframe_previews', default: '{}', type: 'json', group: 'display', public: true, help: 'OpenList web UI: iframe previewers per extension (JSON object).', olGroup: OL_GROUP.PREVIEW },
  { key: 'external_previews', default: '{}', type: 'json', group: 'display', public: true, help: 'OpenList web UI: external previewers per extension (JSON object).', olGroup: OL_GROUP.PREVIEW },
  { key: 'audio_cover', default: '', type: 'string', group: 'display', public: true, help: 'OpenList web UI: cover image of audio files without one.', olGroup: OL_GROUP.PREVIEW },
  { key: 'audio_autoplay', default: 'true', type: 'bool', group: 'display', public: true, help: 'OpenList web UI: start audio previews at once.', olGroup: OL_GROUP.PREVIEW },
  { key: 'video_autoplay', default: 'true', type: 'bool', group: 'display', public: true, help: 'OpenList web UI: start video previews at once.', olGroup: OL_GROUP.PREVIEW },
  { key: 'preview_archives_by_default', default: 'false', type: 'bool', group: 'display', public: true, help: 'OpenList web UI: open archives in the archive previewer (Ferry has none).', olGroup: OL_GROUP.PREVIEW },
  { key: 'readme_autorender', default: 'true', type: 'bool', group: 'display', public: true, help: 'Render a folder\'s readme (metas) below its listing.', olGroup: OL_GROUP.PREVIEW },
  { key: 'hide_files', default: '', type: 'text', group: 'display', public: true, help: 'OpenList web UI: names it hides from listings in the browser, one /regex/flags per line (not a permission: metas hide for real).', olGroup: OL_GROUP.GLOBAL },
  { key: 'package_download', default: 'true', type: 'bool', group: 'display', public: true, help: 'OpenList web UI: offer to download several files at once (the browser fetches each).', olGroup: OL_GROUP.GLOBAL },
  { key: 'search_index', default: 'database', type: 'select', options: ['database', 'none'], group: 'index', public: true, help: 'Search back end: "database" (an index in Ferry\'s own database) or "none" (search off; the web UIs hide the search box).', olGroup: OL_GROUP.INDEX },
  { key: 'ignore_paths', default: '', type: 'text', group: 'index', public: false, help: 'Virtual paths the search index leaves out (with everything below them), one per line.', olGroup: OL_GROUP.INDEX },
  { key: 'max_index_depth', default: '20', type: 'number', group: 'index', public: false, help: 'Deepest folder level below a build or update path that the index walks.', olGroup: OL_GROUP.INDEX },
  { key: 'aria2_uri', default: '', type: 'string', group: 'offline', public: false, help: 'aria2 JSON-RPC endpoint for offline downloads (e.g. http://127.0.0.1:6800/jsonrpc); set with /api/admin/setting/set_aria2.', olGroup: OL_GROUP.OFFLINE_DOWNLOAD },
  { key: 'aria2_secret', default: '', type: 'string', group: 'offline', public: false, help: 'aria2 RPC secret (--rpc-secret).', olGroup: OL_GROUP.OFFLINE_DOWNLOAD },
  { key: 'aria2_seedtime', default: '0', type: 'number', group: 'offline', public: false, help: 'Minutes aria2 keeps seeding a finished torrent (0 = none).', olGroup: OL_GROUP.OFFLINE_DOWNLOAD },
  { key: 'transmission_uri', default: '', type: 'string', group: 'offline', public: false, help: 'Transmission RPC URL, user and password in it (e.g. http://user:pass@127.0.0.1:9091/transmission/rpc); set with set_transmission.', olGroup: OL_GROUP.OFFLINE_DOWNLOAD },
  { key: 'transmission_seedtime', default: '0', type: 'number', group: 'offline', public: false, help: 'Minutes Transmission keeps seeding (idle limit; 0 = Ferry removes the torrent when done).', olGroup: OL_GROUP.OFFLINE_DOWNLOAD },
  { key: 'qbittorrent_url', default: '', type: 'string', group: 'offline', public: false, help: 'qBittorrent Web UI URL, user and password in it (e.g. http://admin:pass@127.0.0.1:8080/); set with set_qbit.', olGroup: OL_GROUP.OFFLINE_DOWNLOAD },
  { key: 'qbittorrent_seedtime', default: '0', type: 'number', group: 'offline', public: false, help: 'Minutes qBittorrent keeps seeding (0 = Ferry removes the torrent when done).', olGroup: OL_GROUP.OFFLINE_DOWNLOAD },
  { key: 'offline_stall_timeout', default: '1800', type: 'number', group: 'offline', public: false, help: 'Seconds an offline download may go without any progress (no peers, a dead swarm or source) before its task fails and the tool drops it; 0 = wait forever.', olGroup: OL_GROUP.OFFLINE_DOWNLOAD },
  { key: 'offline_http_via_tool', default: 'false', type: 'bool', group: 'offline', public: false, help: 'Let external tools fetch plain http(s) URLs (Ferry still refuses private and loopback addresses first); off: only SimpleHttp fetches them.', olGroup: OL_GROUP.OFFLINE_DOWNLOAD },
];

export const SETTINGS_BY_KEY: ReadonlyMap<string, SettingDef> = new Map(SETTING_DEFS.map((d) => [d.key, d]));
