/**
 * Serves one stored file over HTTP: single and open-ended/suffix ranges (206/416),
 * conditional requests (ETag / Last-Modified → 304), HEAD, Content-Disposition with
 * UTF-8 names. Used by `/d`, `/p` and share downloads.
 *
 * Files are users' content served at the web UI's origin, so none of them may run script there
 * (README "Security model"): every response carries `X-Content-Type-Options: nosniff` and a
 * `Content-Security-Policy` whose `sandbox` gives a document opened from it an opaque origin with
 * scripts off (it cannot read the UI's token from localStorage). Files are attachments unless the
 * link asks for `inline=1` and the type is passive (images but SVG, audio, video, plain text, PDF) by its name
 * AND by its first bytes (sniff.ts): an `evil.png` holding HTML is an `application/octet-stream` attachment.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { extname } from 'node:path';
import type { OutgoingHttpHeaders } from 'node:http';
import { isDirectSendable, type DirectSendable, type Entry, type StorageDriver } from '../storages/drivers/index.js';
import { sniffFile, type Sniffed } from './sniff.js';

const MIME: Record<string, string> = {
  '.txt': 'text/plain; charset=utf-8', '.md': 'text/markdown; charset=utf-8', '.json': 'application/json', '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8', '.css': 'text/css', '.js': 'text/javascript', '.xml': 'application/xml', '.pdf': 'application/pdf',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp', '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon', '.avif': 'image/avif', '.mp4': 'video/mp4', '.webm': 'video/webm', '.mkv': 'video/x-matroska', '.mov': 'video/quicktime',
  '.mp3': 'audio/mpeg', '.flac': 'audio/flac', '.ogg': 'audio/ogg', '.wav': 'audio/wav', '.m4a': 'audio/mp4', '.zip': 'application/zip',
  '.gz': 'application/gzip', '.tar': 'application/x-tar', '.7z': 'application/x-7z-compressed', '.torrent': 'application/x-bittorrent',
  '.oss': 'application/json', '.cas': 'text/plain; charset=utf-8', '.apk': 'application/vnd.android.package-archive',
};

/** Types a browser shows without running anything of the file's own. SVG, HTML, XML and scripts are not among them. */
const PASSIVE = /^(?:image\/(?:png|jpeg|gif|webp|avif|x-icon)|audio\/|video\/|text\/plain|application\/pdf)/;

/**
 * The type to show a file inline as, when its name says a passive type (`named`): the one its first bytes show
 * when that is passive, `named` for plain text that shows no binary type; null (an attachment) for markup, for
 * bytes of another kind (an `.png` holding HTML or a zip), and for a file that could not be read.
 */
export function inlineType(named: string, sniffed: Sniffed | null): string | null {
  if (!sniffed || sniffed.markup) return null;
  if (sniffed.mime) return PASSIVE.test(sniffed.mime) ? sniffed.mime : null;
  return named.startsWith('text/plain') ? named : null;
}

/** `inline=1` asks for inline display; only passive types get it, judged by the file's bytes (`inlineType`). */
export function wantsInline(query: unknown): boolean {
  const v = (query as { inline?: unknown } | undefined)?.inline;
  return v === '1' || v === 'true';
}

/**
 * A file's document, if a browser makes one of it, runs in a sandbox: unique origin, no script, nothing
 * loaded from elsewhere. Chromium's PDF viewer is a plugin that `sandbox` blocks, so a PDF gets the rest of
 * the policy without `sandbox` (PDF script runs in the viewer, never in the page's origin; nosniff keeps a
 * `.pdf` that is really HTML from being rendered as HTML).
 */
export function fileSecurityHeaders(type: string): Record<string, string> {
  const policy = "default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'self'";
  return {
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': type.startsWith('application/pdf') ? `${policy}; object-src 'self'` : `sandbox; ${policy}`,
  };
}

export function contentType(name: string): string {
  return MIME[extname(name).toLowerCase()] ?? 'application/octet-stream';
}

/** `attachment; filename="…"; filename*=UTF-8''…` (RFC 6266 / 5987); `inline; …` for inline display. */
export function contentDisposition(name: string, disposition: 'attachment' | 'inline' = 'attachment'): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  // A lone surrogate (no valid UTF-8) would make encodeURIComponent throw.
  const wellFormed = name.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
  const star = encodeURIComponent(wellFormed).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${star}`;
}

export function etagOf(e: Entry): string {
  const hashes = Object.values(e.hashes ?? {}).filter(Boolean).sort();
  if (hashes.length) return `"${hashes[hashes.length - 1]}"`;
  return `"${Math.floor(e.modified.getTime() / 1000).toString(16)}-${e.size.toString(16)}"`;
}

/** Parses a single `bytes=` range against `size`; null = whole file, 'invalid' = 416. Multiple ranges are served whole. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | null | 'invalid' {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return header.trim().startsWith('bytes=') && header.includes(',') ? null : 'invalid';
  const [, a, b] = m;
  if (a === '' && b === '') return 'invalid';
  if (size === 0) return null;
  let start: number;
  let end: number;
  if (a === '') {
    const n = Number(b);
    if (n === 0) return 'invalid';
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(a);
    end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  }
  if (start >= size || start > end) return 'invalid';
  return { start, end };
}

/** `If-None-Match` matches `etag`: weak comparison (RFC 9110 §13.1.2), so `W/"x"` matches `"x"`. */
export function ifNoneMatchHits(header: string, etag: string): boolean {
  const opaque = (t: string) => t.trim().replace(/^W\//, '');
  return header.split(',').some((t) => t.trim() === '*' || opaque(t) === opaque(etag));
}

/** True when `serveFile` answers 304 for this request (conditional GET). */
export function notModified(req: FastifyRequest, etag: string, modified: Date): boolean {
  const inm = req.headers['if-none-match'];
  if (inm) return ifNoneMatchHits(inm, etag);
  const ims = req.headers['if-modified-since'];
  if (ims) {
    const t = Date.parse(ims);
    return !Number.isNaN(t) && Math.floor(modified.getTime() / 1000) <= Math.floor(t / 1000);
  }
  return false;
}

export interface ServeOptions {
  /** The ETag to use (WebDAV keeps one ETag in listings and downloads); default `etagOf(e)`. */
  etag?: string;
  /** No `Content-Disposition` (a mounted file is opened, not downloaded); the sandboxing headers stay. */
  inline?: boolean;
}

export async function serveFile(req: FastifyRequest, reply: FastifyReply, driver: StorageDriver, inner: string, e: Entry, o: ServeOptions = {}): Promise<FastifyReply> {
  const etag = o.etag ?? etagOf(e);
  let type = contentType(e.name);
  let inline = false;
  if (wantsInline(req.query) && PASSIVE.test(type)) {
    const shown = inlineType(type, await sniffFile(driver, inner, e.size));
    inline = shown !== null;
    type = shown ?? 'application/octet-stream';
  }
  reply
    .headers(fileSecurityHeaders(type))
    .header('Accept-Ranges', 'bytes')
    .header('ETag', etag)
    .header('Last-Modified', e.modified.toUTCString())
    .header('Content-Type', type);
  if (!o.inline) reply.header('Content-Disposition', contentDisposition(e.name, inline ? 'inline' : 'attachment'));
  if (notModified(req, etag, e.modified)) return reply.status(304).send();
  let range = parseRange(req.headers.range, e.size);
  const ifRange = req.headers['if-range'];
  if (range && range !== 'invalid' && ifRange && ifRange !== etag && ifRange !== e.modified.toUTCString()) range = null;
  if (range === 'invalid') {
    return reply.status(416).header('Content-Range', `bytes */${e.size}`).type('application/json').send({ code: 416, message: 'range not satisfiable', data: null });
  }
  const length = range ? range.end - range.start + 1 : e.size;
  reply.header('Content-Length', String(length));
  if (range) reply.status(206).header('Content-Range', `bytes ${range.start}-${range.end}/${e.size}`);
  if (req.method === 'HEAD' || length === 0) return reply.send();
  const body = await driver.read(inner, range ?? undefined);
  if (isDirectSendable(body)) return sendDirect(req, reply, body);
  return reply.send(body);
}

/**
 * Writes the headers Fastify holds and then the bytes straight to the socket's response (no stream
 * layers, the reader's few buffers reused: storages/drivers/file-range.ts). The status and every header
 * are already decided, so nothing of Fastify's reply lifecycle is left to run. A failure after the
 * headers went out can only cut the connection (the client sees a short body, never a wrong one).
 */
async function sendDirect(req: FastifyRequest, reply: FastifyReply, body: DirectSendable): Promise<FastifyReply> {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(reply.statusCode, reply.getHeaders() as OutgoingHttpHeaders);
  try {
    await body.sendTo(res);
    res.end();
  } catch (e) {
    if (!res.destroyed) req.log.warn({ err: e, url: req.url }, 'download cut short');
    res.destroy();
  }
  return reply;
}
