/**
 * Transmission over its RPC (`POST <uri>`, JSON `{method, arguments}`): the `X-Transmission-Session-Id`
 * handshake (409 → retry with the id it names), HTTP basic auth from the URI's user and password.
 * Downloads are addressed by info hash.
 */
import { readFile, stat } from 'node:fs/promises';
import { MAX_SEED_DOC_BYTES } from '../../seeds/formats/index.js';
import { ToolAuthError, ToolError, bitSet, firstMissingPiece, redact, toolFetch, type DownloadTool, type MissingPiece, type ToolInput, type ToolStatus } from './tool.js';

interface TrTorrent {
  hashString: string;
  status: number;
  percentDone: number;
  sizeWhenDone: number;
  leftUntilDone: number;
  haveValid: number;
  error: number;
  errorString: string;
  metadataPercentComplete: number;
  peersConnected: number;
  /** Bytes of pieces that failed their hash check and were thrown away. */
  corruptEver: number;
  files: { name: string; length: number }[];
}

const FIELDS = ['hashString', 'status', 'percentDone', 'sizeWhenDone', 'leftUntilDone', 'haveValid', 'error', 'errorString', 'metadataPercentComplete', 'peersConnected', 'corruptEver', 'files'];
const TR_LOCAL_ERROR = 3;

export class Transmission implements DownloadTool {
  readonly name = 'Transmission';
  private readonly endpoint: string;
  private readonly auth?: string;
  private session = '';

  constructor(uri: string, private readonly timeoutMs = 10_000) {
    const u = new URL(uri);
    if (u.username || u.password) this.auth = 'Basic ' + Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64');
    u.username = '';
    u.password = '';
    this.endpoint = u.toString();
  }

  async call<T>(method: string, args: Record<string, unknown> = {}): Promise<T> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-transmission-session-id': this.session };
      if (this.auth) headers.authorization = this.auth;
      const res = await toolFetch('Transmission', this.endpoint, { method: 'POST', headers, body: JSON.stringify({ method, arguments: args }) }, this.timeoutMs);
      if (res.status === 409) {
        this.session = res.headers.get('x-transmission-session-id') ?? '';
        await res.body?.cancel();
        continue;
      }
      if (res.status === 401) throw new ToolAuthError('Transmission: wrong user or password (401)');
      if (res.status === 403) throw new ToolError('Transmission: access denied (403: check rpc-whitelist)');
      const text = await res.text();
      let reply: { result?: string; arguments?: T };
      try {
        reply = JSON.parse(text) as typeof reply;
      } catch {
        throw new ToolError(`Transmission at ${redact(this.endpoint)} answered HTTP ${res.status} without an RPC reply (e.g. http://host:9091/transmission/rpc)`);
      }
      if (reply.result !== 'success') throw new ToolError(`Transmission: ${reply.result ?? 'no result'}`);
      return reply.arguments as T;
    }
    throw new ToolError('Transmission: the session id handshake did not settle');
  }

  async version(): Promise<string> {
    return (await this.call<{ version: string }>('session-get', { fields: ['version'] })).version;
  }

  async add(input: ToolInput, dir: string, seedMinutes: number): Promise<string> {
    const args: Record<string, unknown> = { 'download-dir': dir, paused: false };
    if (input.kind === 'torrent') args.metainfo = input.bytes.toString('base64');
    else args.filename = input.url;
    const r = await this.call<{ 'torrent-added'?: { hashString: string }; 'torrent-duplicate'?: { hashString: string } }>('torrent-add', args);
    const hash = r['torrent-added']?.hashString ?? r['torrent-duplicate']?.hashString;
    if (!hash) throw new ToolError('Transmission did not add the torrent');
    if (r['torrent-duplicate']) throw new ToolError(`Transmission already holds this torrent (${hash}); remove it there first`);
    if (seedMinutes > 0) await this.call('torrent-set', { ids: [hash], seedIdleLimit: seedMinutes, seedIdleMode: 1 });
    return hash;
  }

  async status(hash: string): Promise<ToolStatus> {
    const r = await this.call<{ torrents: TrTorrent[] }>('torrent-get', { ids: [hash], fields: FIELDS });
    const t = r.torrents[0];
    if (!t) return { state: 'error', doneBytes: 0, totalBytes: 0, error: 'Transmission: the download was removed from Transmission', text: '' };
    const base = { doneBytes: t.haveValid, totalBytes: t.sizeWhenDone, text: `Transmission: ${Math.floor(t.percentDone * 100)}%, ${t.peersConnected} peers${t.corruptEver > 0 ? `, ${t.corruptEver} bytes of corrupt pieces discarded` : ''}` };
    if (t.error === TR_LOCAL_ERROR) return { ...base, state: 'error', error: `Transmission: ${t.errorString}` };
    if (t.metadataPercentComplete < 1 || t.leftUntilDone > 0 || t.percentDone < 1 || t.files.length === 0) return { ...base, state: 'active' };
    return { ...base, state: 'done', files: t.files.map((f) => ({ rel: f.name, size: f.length })), seeding: true };
  }

  async metainfo(hash: string): Promise<Buffer | null> {
    // Transmission keeps the .torrent in its config folder and names it (it runs on Ferry's host, see README)
    const r = await this.call<{ torrents: { torrentFile?: string }[] }>('torrent-get', { ids: [hash], fields: ['torrentFile'] });
    const file = r.torrents[0]?.torrentFile;
    if (!file || !file.endsWith('.torrent')) return null;
    const st = await stat(file).catch(() => null);
    return st?.isFile() && st.size <= MAX_SEED_DOC_BYTES ? readFile(file) : null;
  }

  async missingPiece(hash: string): Promise<MissingPiece | null> {
    const r = await this.call<{ torrents: { pieces: string; pieceCount: number; pieceSize: number; files: { name: string; length: number }[] }[] }>('torrent-get', { ids: [hash], fields: ['pieces', 'pieceCount', 'pieceSize', 'files'] });
    const t = r.torrents[0];
    if (!t) return null;
    const field = Buffer.from(t.pieces, 'base64');
    return firstMissingPiece((i) => bitSet(field, i), t.pieceCount, t.pieceSize, t.files);
  }

  async clear(dir: string, infoHash: string | null): Promise<void> {
    // without a hash (an orphaned folder): every torrent downloading into `dir`
    const r = await this.call<{ torrents: { hashString: string; downloadDir: string }[] }>('torrent-get', { ...(infoHash ? { ids: [infoHash] } : {}), fields: ['hashString', 'downloadDir'] }).catch(() => null);
    for (const t of r?.torrents ?? []) if (t.downloadDir.replace(/\/+$/, '') === dir) await this.forget(t.hashString, true);
  }

  async forget(hash: string, deleteData: boolean): Promise<void> {
    await this.call('torrent-remove', { ids: [hash], 'delete-local-data': deleteData }).catch(() => undefined);
  }
}
