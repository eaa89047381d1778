/** The OpenList object JSON (`ObjResp`) of list/get items. */
import { extensionOf } from '../../lib/paths.js';
import { isoTime } from '../../lib/time.js';
import type { Entry, EntryColumns } from '../storages/drivers/index.js';
import type { ObjView } from './fs.schemas.js';
import { contentType } from './serve-file.js';
import type { Sniffed } from './sniff.js';

const TYPES: [number, string[]][] = [
  [3, ['mp3', 'flac', 'ogg', 'm4a', 'wav', 'opus', 'wma']],
  [2, ['mp4', 'mkv', 'avi', 'mov', 'rmvb', 'webm', 'flv', 'm3u8']],
  [5, ['jpg', 'tiff', 'jpeg', 'png', 'gif', 'bmp', 'svg', 'ico', 'swf', 'webp', 'avif']],
  [4, ['txt', 'htm', 'html', 'xml', 'java', 'properties', 'sql', 'js', 'md', 'json', 'conf', 'ini', 'vue', 'php', 'py', 'bat', 'gitignore', 'yml', 'go', 'sh', 'c', 'cpp', 'h', 'hpp', 'tsx', 'vtt', 'srt', 'ass', 'rs', 'lrc', 'strm', 'oss', 'cas']],
];

const TYPE_OF = new Map(TYPES.flatMap(([t, exts]) => exts.map((e) => [e, t] as const)));

/** OpenList type number from the name: 0 unknown, 2 video, 3 audio, 4 text, 5 image. */
export function fileType(name: string): number {
  return TYPE_OF.get(extensionOf(name)) ?? 0;
}

/**
 * A file's OpenList type and MIME type by its first bytes (`fs/get`), the name deciding only what the bytes leave
 * open: a PNG named `.txt` is an image (5, `image/png`); HTML named `.png` is text (4, `text/html`), as is any
 * markup but an SVG named `.svg` (an image, shown through `<img>` only); a `.png` whose bytes are no known format
 * is unknown (0). `sniffed` null (unreadable): the name alone.
 */
export function sniffedType(name: string, sniffed: Sniffed | null): { type: number; content_type: string } {
  const named = fileType(name);
  if (!sniffed) return { type: named, content_type: contentType(name) };
  const { mime, markup } = sniffed;
  if (markup) return { type: mime === 'image/svg+xml' && extensionOf(name) === 'svg' ? 5 : 4, content_type: mime ?? 'text/html' };
  if (mime) {
    const kind = mime.split('/')[0];
    return { type: kind === 'image' ? 5 : kind === 'video' ? 2 : kind === 'audio' ? 3 : 0, content_type: mime };
  }
  return named === 4 ? { type: 4, content_type: contentType(name) } : { type: 0, content_type: 'application/octet-stream' };
}

/** The `hash_info` fields in the response schema's order (what its serializer writes). */
const HASH_FIELDS = ['md5', 'sha1', 'sha256'] as const;

export function presentObj(e: Entry, sign: string, thumb = ''): ObjView {
  const hashes = e.hashes && Object.keys(e.hashes).length ? e.hashes : null;
  const modified = isoTime(e.modified);
  return {
    name: e.name,
    size: e.isDir ? 0 : e.size,
    is_dir: e.isDir,
    modified,
    created: e.created && e.created.getTime() !== e.modified.getTime() ? isoTime(e.created) : modified,
    sign: e.isDir ? '' : sign,
    thumb,
    type: e.isDir ? 1 : fileType(e.name),
    hashinfo: hashes ? JSON.stringify(hashes) : 'null',
    hash_info: hashes,
  };
}

/** Percent-encodes each path segment (for URLs). */
export function encodePath(p: string): string {
  return p.split('/').map(encodeURIComponent).join('/');
}

const DAY_MS = 86_400_000;
/** Years 0–9999: where `toISOString` writes four year digits (outside, `isoTime` itself is used). */
const ISO_MIN = -62_167_219_200_000;
const ISO_MAX = 253_402_300_800_000;
const PAD2 = Array.from({ length: 100 }, (_, i) => String(i).padStart(2, '0'));
const PAD3 = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

/**
 * `isoTime` of many times (a listing's): each distinct day is formatted once by `toISOString`, the time of day
 * from table lookups, so a 100,000-entry folder costs no Date per entry. Output is exactly `isoTime`'s.
 */
export function isoTimes(): (ms: number) => string {
  let day = NaN;
  let head = '';
  return (ms) => {
    if (!(ms >= ISO_MIN && ms < ISO_MAX) || !Number.isInteger(ms)) return isoTime(ms);
    const d = Math.floor(ms / DAY_MS);
    if (d !== day) {
      day = d;
      head = new Date(d * DAY_MS).toISOString().slice(0, 11); // YYYY-MM-DDT
    }
    let r = ms - d * DAY_MS;
    const h = Math.floor(r / 3_600_000);
    r -= h * 3_600_000;
    const m = Math.floor(r / 60_000);
    r -= m * 60_000;
    const sec = Math.floor(r / 1000);
    return `${head}${PAD2[h]}:${PAD2[m]}:${PAD2[sec]}.${PAD3[r - sec * 1000]}+00:00`;
  };
}

const json = JSON.stringify;
/** The end of an entry without known hashes. */
const NO_HASHES = '"hashinfo":"null","hash_info":null}';

/** `hash_info` as the response schema writes it: the known digests in schema order. */
function hashInfoJson(hashes: NonNullable<Entry['hashes']>): string {
  const parts: string[] = [];
  for (const k of HASH_FIELDS) if (typeof hashes[k] === 'string') parts.push(`"${k}":${json(hashes[k])}`);
  return `{${parts.join(',')}}`;
}

/**
 * Row `i` of a listing as JSON text: byte for byte what `presentObj` of the row's entry (`entryAt`) serialized by
 * the `ObjSchema` response schema gives, written directly (no object per entry, times through `time`, an
 * `isoTimes()`). `sign` is used for files only.
 */
export function objJson(c: EntryColumns, i: number, sign: string, thumb: string, time: (ms: number) => string): string {
  const h = c.hashes?.[i];
  const hashes = h && Object.keys(h).length ? h : null;
  const isDir = c.dirs[i] === 1;
  const name = c.names[i]!;
  const mtime = c.mtimes[i]!;
  const born = c.births[i]!;
  const modified = time(mtime);
  const created = born === born && born !== mtime ? time(born) : modified; // NaN: unknown
  const head = `{"name":${json(name)},"size":${isDir ? 0 : c.sizes[i]!},"is_dir":${isDir},"modified":"${modified}","created":"${created}"`;
  const rest = hashes ? `"hashinfo":${json(json(hashes))},"hash_info":${hashInfoJson(hashes)}}` : NO_HASHES;
  return `${head},"sign":${isDir || !sign ? '""' : json(sign)},"thumb":${thumb ? json(thumb) : '""'},"type":${isDir ? 1 : fileType(name)},${rest}`;
}
