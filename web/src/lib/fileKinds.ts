/** What the UI can show a file as, by its extension (the server serves passive types inline only). */
import { extension, isSeedFile } from './format.js';

export type ViewKind = 'seed' | 'image' | 'video' | 'audio' | 'markdown' | 'text' | 'pdf' | 'other';

const KINDS: Record<Exclude<ViewKind, 'seed' | 'other'>, readonly string[]> = {
  image: ['png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'svg', 'ico', 'bmp'],
  video: ['mp4', 'm4v', 'webm', 'mkv', 'mov', 'ogv'],
  audio: ['mp3', 'flac', 'ogg', 'oga', 'opus', 'wav', 'm4a', 'aac'],
  markdown: ['md', 'markdown'],
  pdf: ['pdf'],
  text: [
    'txt', 'log', 'csv', 'tsv', 'json', 'jsonl', 'yaml', 'yml', 'toml', 'ini', 'conf', 'cfg', 'env', 'xml', 'html', 'htm', 'css', 'scss',
    'js', 'mjs', 'cjs', 'ts', 'tsx', 'jsx', 'py', 'rb', 'go', 'rs', 'java', 'kt', 'swift', 'c', 'h', 'cc', 'cpp', 'hpp', 'cs', 'php',
    'lua', 'pl', 'sh', 'bash', 'zsh', 'fish', 'ps1', 'bat', 'sql', 'diff', 'patch', 'srt', 'vtt', 'gitignore', 'dockerfile', 'makefile',
  ],
};

const BY_EXT = new Map<string, ViewKind>(Object.entries(KINDS).flatMap(([kind, exts]) => exts.map((e) => [e, kind as ViewKind])));

export function viewKind(name: string): ViewKind {
  if (isSeedFile(name)) return 'seed';
  const ext = extension(name) || name.toLowerCase();
  return BY_EXT.get(ext) ?? 'other';
}

/**
 * The kind a file's bytes show (`content_type` from `fs/get`), where they overrule its name: a PNG
 * named `.txt` opens as an image, HTML or SVG named `.png` as text (its source, never rendered).
 * Undefined: the bytes leave it open (plain text, unknown) — the name decides.
 */
export function sniffedKind(contentType: string | undefined, name: string): ViewKind | undefined {
  if (!contentType || isSeedFile(name)) return undefined;
  const named = viewKind(name);
  if (contentType === 'image/svg+xml') return named === 'image' && extension(name) === 'svg' ? 'image' : 'text';
  if (contentType === 'text/html' || contentType.endsWith('/xml') || contentType.endsWith('+xml')) return 'text';
  if (contentType === 'application/pdf') return 'pdf';
  for (const k of ['image', 'video', 'audio'] as const) if (contentType.startsWith(`${k}/`)) return k;
  return undefined;
}

/** The highlight.js language for a file, when its extension names one. */
export function languageOf(name: string): string | undefined {
  const ext = extension(name) || name.toLowerCase();
  const alias: Record<string, string> = { htm: 'html', yml: 'yaml', jsonl: 'json', h: 'c', hpp: 'cpp', cc: 'cpp', mjs: 'javascript', cjs: 'javascript', zsh: 'bash', sh: 'bash', env: 'ini', conf: 'ini', cfg: 'ini', srt: 'plaintext', vtt: 'plaintext', log: 'plaintext', txt: 'plaintext', csv: 'plaintext', tsv: 'plaintext' };
  return alias[ext] ?? ext;
}

/** A link with `inline=1` added (the server then shows passive types inline). */
export function inlineUrl(url: string): string {
  return url + (url.includes('?') ? '&' : '?') + 'inline=1';
}
