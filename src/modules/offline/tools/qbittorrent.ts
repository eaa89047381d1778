/**
 * qBittorrent over its Web API v2: a login (user and password from the URL) gives the `SID` cookie;
 * downloads are addressed by info hash (qBittorrent's add answers no id).
 */
import { MAX_SEED_DOC_BYTES } from '../../seeds/formats/index.js';
import { ToolAuthError, ToolError, firstMissingPiece, magnetInfoHash, redact, toolFetch, type DownloadTool, type MissingPiece, type ToolInput, type ToolStatus } from './tool.js';

interface QbTorrent {
  hash: string;
  state: string;
  progress: number;
  size: number;
  completed: number;
  amount_left: number;
  num_seeds: number;
}

const ERROR_STATES = new Set(['error', 'missingFiles']);

export class QBittorrent implements DownloadTool {
  readonly name = 'qBittorrent';
  private readonly base: string;
  private readonly user: string;
  private readonly password: string;
  private cookie = '';

  constructor(url: string, private readonly timeoutMs = 10_000) {
    const u = new URL(url);
    this.user = decodeURIComponent(u.username);
    this.password = decodeURIComponent(u.password);
    u.username = '';
    u.password = '';
    this.base = u.toString().replace(/\/+$/, '');
  }

  private async login(): Promise<void> {
    const res = await toolFetch('qBittorrent', `${this.base}/api/v2/auth/login`, { method: 'POST', body: new URLSearchParams({ username: this.user, password: this.password }) }, this.timeoutMs);
    const text = await res.text();
    if (res.status === 403) throw new ToolAuthError('qBittorrent: this address is banned after too many failed logins (403)');
    if (res.status === 200 && text.trim() !== 'Ok.') throw new ToolAuthError('qBittorrent: wrong user or password');
    if (res.status !== 200) throw new ToolError(`qBittorrent at ${redact(this.base)} answered HTTP ${res.status} to the login (is this its Web UI URL?)`);
    const sid = /SID=([^;]+)/.exec(res.headers.get('set-cookie') ?? '');
    this.cookie = sid ? `SID=${sid[1]}` : '';
  }

  private async request(path: string, init: RequestInit = {}): Promise<string> {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (!this.cookie) await this.login();
      const res = await toolFetch('qBittorrent', `${this.base}${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), cookie: this.cookie } }, this.timeoutMs);
      if (res.status === 403 && attempt === 0) {
        this.cookie = '';
        await res.body?.cancel();
        continue;
      }
      const text = await res.text();
      if (res.status !== 200) throw new ToolError(`qBittorrent: ${path} answered HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`);
      return text;
    }
    throw new ToolError('qBittorrent: not logged in');
  }

  async version(): Promise<string> {
    return (await this.request('/api/v2/app/version')).trim();
  }

  async add(input: ToolInput, dir: string, seedMinutes: number): Promise<string> {
    const form = new FormData();
    let hash: string | null;
    if (input.kind === 'torrent') {
      form.append('torrents', new Blob([input.bytes]), 'download.torrent');
      hash = input.infoHash;
    } else {
      form.append('urls', input.url);
      hash = input.kind === 'magnet' ? magnetInfoHash(input.url) : null;
    }
    if (!hash) throw new ToolError('qBittorrent takes magnets and torrents here (their info hash identifies the download)');
    form.append('savepath', dir);
    form.append('paused', 'false');
    form.append('root_folder', 'true');
    form.append('contentLayout', 'Original');
    form.append('seedingTimeLimit', String(seedMinutes));
    const r = await this.request('/api/v2/torrents/add', { method: 'POST', body: form });
    if (r.trim() !== 'Ok.') throw new ToolError(`qBittorrent did not add the torrent (${r.trim() || 'no answer'}); is it already there?`);
    return hash;
  }

  async status(hash: string): Promise<ToolStatus> {
    const list = JSON.parse(await this.request(`/api/v2/torrents/info?hashes=${hash}`)) as QbTorrent[];
    const t = list[0];
    if (!t) return { state: 'error', doneBytes: 0, totalBytes: 0, error: 'qBittorrent: the download is not (or no longer) in qBittorrent', text: '' };
    const base = { doneBytes: t.completed, totalBytes: t.size, text: `qBittorrent: ${t.state}, ${Math.floor(t.progress * 100)}%, ${t.num_seeds} seeds` };
    if (ERROR_STATES.has(t.state)) return { ...base, state: 'error', error: `qBittorrent: the download is in state ${t.state}` };
    if (t.state === 'metaDL' || t.progress < 1 || t.amount_left > 0 || t.size <= 0 || t.state.startsWith('checking')) return { ...base, state: 'active' };
    const files = JSON.parse(await this.request(`/api/v2/torrents/files?hash=${hash}`)) as { name: string; size: number }[];
    return { ...base, state: 'done', files: files.map((f) => ({ rel: f.name, size: f.size })), seeding: true };
  }

  async metainfo(hash: string): Promise<Buffer | null> {
    if (!this.cookie) await this.login();
    const res = await toolFetch('qBittorrent', `${this.base}/api/v2/torrents/export?hash=${hash}`, { headers: { cookie: this.cookie } }, this.timeoutMs);
    if (res.status !== 200) {
      await res.body?.cancel();
      return null;
    }
    const bytes = Buffer.from(await res.arrayBuffer());
    return bytes.length <= MAX_SEED_DOC_BYTES ? bytes : null;
  }

  async missingPiece(hash: string): Promise<MissingPiece | null> {
    // pieceStates: 0 missing, 1 downloading, 2 downloaded (and verified)
    const states = JSON.parse(await this.request(`/api/v2/torrents/pieceStates?hash=${hash}`)) as number[];
    const props = JSON.parse(await this.request(`/api/v2/torrents/properties?hash=${hash}`)) as { piece_size: number };
    const files = JSON.parse(await this.request(`/api/v2/torrents/files?hash=${hash}`)) as { name: string; size: number }[];
    return firstMissingPiece((i) => states[i] === 2, states.length, props.piece_size, files.map((f) => ({ name: f.name, length: f.size })));
  }

  async clear(dir: string, infoHash: string | null): Promise<void> {
    // without a hash (an orphaned folder): every torrent saving into `dir`
    const list = await this.request(`/api/v2/torrents/info${infoHash ? `?hashes=${infoHash}` : ''}`).then((t) => JSON.parse(t) as { hash: string; save_path: string }[]).catch(() => []);
    for (const t of list) if (t.save_path.replace(/\/+$/, '') === dir) await this.forget(t.hash, true);
  }

  async forget(hash: string, deleteData: boolean): Promise<void> {
    await this.request('/api/v2/torrents/delete', { method: 'POST', body: new URLSearchParams({ hashes: hash, deleteFiles: String(deleteData) }) }).catch(() => undefined);
  }
}
