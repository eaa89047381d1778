/**
 * aria2 over JSON-RPC (HTTP POST, `token:<secret>` as the first parameter when a secret is set).
 * A magnet's first download fetches the metadata; the files follow under the id in `followedBy`.
 */
import { randomUUID } from 'node:crypto';
import { relative, sep } from 'node:path';
import { ToolAuthError, ToolError, bitSet, firstMissingPiece, redact, toolFetch, type DownloadTool, type MissingPiece, type ToolInput, type ToolStatus } from './tool.js';

export { ToolError };

interface Aria2File {
  path: string;
  length: string;
  selected: string;
}

interface Aria2Status {
  gid: string;
  status: 'active' | 'waiting' | 'paused' | 'error' | 'complete' | 'removed';
  totalLength: string;
  completedLength: string;
  errorCode?: string;
  errorMessage?: string;
  followedBy?: string[];
  seeder?: string;
  numSeeders?: string;
  connections?: string;
  files?: Aria2File[];
}

const STATUS_KEYS = ['gid', 'status', 'totalLength', 'completedLength', 'errorCode', 'errorMessage', 'followedBy', 'seeder', 'numSeeders', 'connections', 'files'];

export class Aria2 implements DownloadTool {
  readonly name = 'aria2';

  constructor(
    readonly uri: string,
    private readonly secret: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method, params: this.secret ? [`token:${this.secret}`, ...params] : params });
    const res = await toolFetch('aria2', this.uri, { method: 'POST', headers: { 'content-type': 'application/json' }, body }, this.timeoutMs);
    const text = await res.text();
    let reply: { result?: T; error?: { code: number; message: string } };
    try {
      reply = JSON.parse(text) as typeof reply;
    } catch {
      throw new ToolError(`aria2 at ${redact(this.uri)} answered HTTP ${res.status} without a JSON-RPC reply (is this the aria2 RPC endpoint, e.g. http://host:6800/jsonrpc?)`);
    }
    if (reply.error) {
      if (/unauthorized/i.test(reply.error.message)) throw new ToolAuthError(`aria2: ${reply.error.message} (wrong or missing secret)`);
      throw new ToolError(`aria2: ${reply.error.message}`);
    }
    return reply.result as T;
  }

  async version(): Promise<string> {
    return (await this.call<{ version: string }>('aria2.getVersion')).version;
  }

  add(input: ToolInput, dir: string, seedMinutes: number): Promise<string> {
    const options = { dir, 'seed-time': String(seedMinutes), 'seed-ratio': '0', 'follow-torrent': 'mem', 'bt-save-metadata': 'false', 'auto-file-renaming': 'false', 'allow-overwrite': 'true' };
    if (input.kind === 'torrent') return this.call<string>('aria2.addTorrent', [input.bytes.toString('base64'), [], options]);
    return this.call<string>('aria2.addUri', [[input.url], options]);
  }

  async status(gid: string, dir: string): Promise<ToolStatus> {
    const st = await this.call<Aria2Status>('aria2.tellStatus', [gid, STATUS_KEYS]);
    const total = Number(st.totalLength);
    const done = Number(st.completedLength);
    const base = { doneBytes: done, totalBytes: total, text: `aria2: ${st.status}, ${st.connections ?? 0} connections${st.numSeeders ? `, ${st.numSeeders} seeders` : ''}` };
    if (st.followedBy && st.followedBy.length > 0) return { ...base, state: 'active', next: st.followedBy[0] };
    if (st.status === 'error') return { ...base, state: 'error', error: `aria2: ${st.errorMessage || 'download failed'} (error code ${st.errorCode ?? '?'})` };
    if (st.status === 'removed') return { ...base, state: 'error', error: 'aria2: the download was removed from aria2' };
    const seeding = st.seeder === 'true' && total > 0 && done === total;
    if (st.status !== 'complete' && !seeding) return { ...base, state: 'active' };
    const files = (st.files ?? [])
      .filter((f) => f.selected === 'true' && f.path !== '' && !f.path.startsWith('[METADATA]'))
      .map((f) => ({ rel: relative(dir, f.path).split(sep).join('/'), size: Number(f.length) }));
    return { ...base, state: 'done', files, seeding };
  }

  async missingPiece(gid: string, dir: string): Promise<MissingPiece | null> {
    const st = await this.call<{ bitfield?: string; pieceLength: string; numPieces: string; files?: Aria2File[] }>('aria2.tellStatus', [gid, ['bitfield', 'pieceLength', 'numPieces', 'files']]);
    const field = Buffer.from(st.bitfield ?? '', 'hex');
    const files = (st.files ?? []).map((f) => ({ name: relative(dir, f.path).split(sep).join('/'), length: Number(f.length) }));
    return firstMissingPiece((i) => bitSet(field, i), Number(st.numPieces), Number(st.pieceLength), files);
  }

  async clear(dir: string): Promise<void> {
    const keys = ['gid', 'dir'];
    const lists = await Promise.all([
      this.call<{ gid: string; dir: string }[]>('aria2.tellActive', [keys]),
      this.call<{ gid: string; dir: string }[]>('aria2.tellWaiting', [0, 1000, keys]),
      this.call<{ gid: string; dir: string }[]>('aria2.tellStopped', [0, 1000, keys]),
    ]).catch(() => [] as { gid: string; dir: string }[][]);
    for (const d of lists.flat()) if (d.dir === dir) await this.forget(d.gid, true);
  }

  async forget(gid: string, _deleteData: boolean): Promise<void> {
    // aria2 never deletes files itself: the caller removes the download folder
    await this.call('aria2.forceRemove', [gid]).catch(() => undefined);
    for (let i = 0; i < 20; i++) {
      const st = await this.call<Aria2Status>('aria2.tellStatus', [gid, ['status']]).catch(() => null);
      if (!st || st.status === 'removed' || st.status === 'complete' || st.status === 'error') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await this.call('aria2.removeDownloadResult', [gid]).catch(() => undefined);
  }
}
