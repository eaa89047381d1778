/**
 * What the offline-download task needs of a BitTorrent-capable download tool (aria2, Transmission,
 * qBittorrent): add a URL/magnet or a torrent into a folder, report progress and the files, forget a
 * download (stopping it and, with `deleteData`, removing what it wrote).
 */
export class ToolError extends Error {
  override readonly name: string = 'ToolError';
}

/** The tool refused the credentials Ferry holds for it (changed or revoked since they were saved). */
export class ToolAuthError extends ToolError {
  override readonly name = 'ToolAuthError';
}

export type ToolInput = { kind: 'url' | 'magnet'; url: string } | { kind: 'torrent'; bytes: Buffer; infoHash: string };

export interface ToolStatus {
  state: 'active' | 'done' | 'error';
  doneBytes: number;
  totalBytes: number;
  /** For `error`: what the tool said. */
  error?: string;
  /** For `done`: every file, relative to the download folder, `/`-separated. */
  files?: { rel: string; size: number }[];
  /** True when the tool keeps seeding it (its id must be forgotten before its files go). */
  seeding?: boolean;
  /** Set when the download continues under another id (aria2: a magnet's metadata, then the files). */
  next?: string;
  /** Free text for the task status. */
  text: string;
}

export interface DownloadTool {
  readonly name: 'aria2' | 'Transmission' | 'qBittorrent';
  version(): Promise<string>;
  /** Starts the download into `dir` (absolute host folder); returns the tool's id for it. */
  add(input: ToolInput, dir: string, seedMinutes: number): Promise<string>;
  status(id: string, dir: string): Promise<ToolStatus>;
  /** Stops and removes the download from the tool; never throws. */
  forget(id: string, deleteData: boolean): Promise<void>;
  /**
   * Removes what an earlier attempt of the same task left in the tool (a task taken over after its instance
   * died starts again, or its task is gone): downloads into `dir` (of `infoHash` when given). Never throws.
   */
  clear(dir: string, infoHash: string | null): Promise<void>;
  /** The `.torrent` of a download the tool started from a magnet (once it has the metadata), or null. */
  metainfo?(id: string): Promise<Buffer | null>;
  /** The first piece the tool does not have yet and the files it spans (for a stalled download's error), or null. */
  missingPiece?(id: string, dir: string): Promise<MissingPiece | null>;
}

export interface MissingPiece {
  index: number;
  count: number;
  /** Files (as the tool names them) with bytes in that piece. */
  files: string[];
}

/**
 * The first piece `has` says is absent, and the files of `files` (in torrent order, `length` bytes each) that
 * overlap it; null when every piece is there or the layout is unknown.
 */
export function firstMissingPiece(has: (i: number) => boolean, count: number, pieceSize: number, files: { name: string; length: number }[]): MissingPiece | null {
  if (!(pieceSize > 0) || count <= 0) return null;
  let index = 0;
  while (index < count && has(index)) index++;
  if (index === count) return null;
  const start = index * pieceSize;
  const end = start + pieceSize;
  const names: string[] = [];
  let at = 0;
  for (const f of files) {
    if (f.length > 0 && at < end && at + f.length > start) names.push(f.name);
    at += f.length;
  }
  return { index, count, files: names };
}

/** Bit `i` of a BitTorrent bitfield (most significant bit first). */
export function bitSet(field: Uint8Array, i: number): boolean {
  return ((field[i >> 3] ?? 0) & (0x80 >> (i & 7))) !== 0;
}

/** `fetch` with a timeout; a network failure becomes a ToolError naming the tool and where. */
export async function toolFetch(tool: string, url: string, init: RequestInit, timeoutMs: number): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new ToolError(`${tool} at ${redact(url)} cannot be reached: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
  }
}

/** A URL without its credentials, for messages. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return url;
  }
}

/** Hex info hash of a magnet's first `xt=urn:btih:` (hex or base32), lowercase. */
export function magnetInfoHash(magnet: string): string | null {
  const m = /[?&]xt(?:\.\d+)?=urn:btih:([0-9a-z]+)/i.exec(magnet);
  if (!m) return null;
  const h = m[1]!;
  if (/^[0-9a-f]{40}$/i.test(h)) return h.toLowerCase();
  if (!/^[a-z2-7]{32}$/i.test(h)) return null;
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let bits = '';
  for (const c of h.toLowerCase()) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  let hex = '';
  for (let i = 0; i < 160; i += 4) hex += parseInt(bits.slice(i, i + 4), 2).toString(16);
  return hex;
}
