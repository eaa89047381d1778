/** The OpenList object JSON (`ObjResp`) of list/get items. */
import { extensionOf } from '../../lib/paths.js';
import { isoTime } from '../../lib/time.js';
import type { Entry } from '../storages/drivers/index.js';
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
