/**
 * The seed wizard's state and the checks it makes before submitting (the same rules the
 * server applies: seed name rule 6, tracker URLs, the direct/download decision per file).
 */
import { forcedCells, HASHES } from '../files/SeedOptions.js';
import { parentPath } from '../../lib/format.js';
import type { HashMatrix, SeedFormat } from '../../types.js';
import type { CapabilityFile, GenerateBody } from './seedApi.js';
// the server's own check (a pure function), so the wizard refuses exactly what the server would
import { trackerProblem } from '../../../../src/modules/seeds/common/trackers.js';

export interface FileChoice {
  comment: string;
  share: boolean;
  direct: boolean;
}

export interface WizardState {
  formats: SeedFormat[];
  matrix: HashMatrix;
  pieceSize: number | null;
  /** '' = use the derived name. */
  name: string;
  comment: string;
  /** Chosen entries of seed_default_trackers. */
  trackers: string[];
  /** More trackers, one per line. */
  extraTrackers: string;
  outputDir: string;
  files: Record<string, FileChoice>;
}

/** Seed name rule 6: empty, `.`, `..`, a `/` or `\`, or NUL → the problem; else null. */
export function seedNameProblem(name: string): string | null {
  const t = name.trim();
  if (t === '') return 'The name is empty.';
  if (t === '.' || t === '..') return `“${t}” cannot be a seed name.`;
  if (name.includes('/') || name.includes('\\')) return 'A seed name cannot contain / or \\.';
  if (name.includes('\0')) return 'A seed name cannot contain a NUL character.';
  return null;
}

/** The problem with the typed name, if any (an empty field means "use the derived name"). */
export function typedNameProblem(name: string, derived: string): string | null {
  if (name === '') return seedNameProblem(derived) ? `The derived name “${derived}” cannot be used; type a name.` : null;
  return seedNameProblem(name);
}

export const extraTrackerList = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);

export function trackersProblem(text: string): string | null {
  for (const t of extraTrackerList(text)) {
    const p = trackerProblem(t);
    if (p) return `${t} ${p}.`;
  }
  return null;
}

/** The matrix as the server will apply it: the chosen cells plus what the formats force. */
export function effectiveMatrix(matrix: HashMatrix, formats: readonly SeedFormat[]): HashMatrix {
  const forced = forcedCells(formats);
  const out = {} as HashMatrix;
  for (const h of HASHES) out[h] = { whole: matrix[h].whole || forced.has(`${h}.whole`), pieces: matrix[h].pieces || forced.has(`${h}.pieces`) };
  return out;
}

export const matrixEmpty = (m: HashMatrix) => HASHES.every((h) => !m[h].whole && !m[h].pieces);

/** Bytes must be read for this file: pieces are selected, or a whole hash the drive does not provide. */
export function needsDownload(f: Pick<CapabilityFile, 'available_hashes'>, m: HashMatrix): boolean {
  return HASHES.some((h) => m[h].pieces || (m[h].whole && !f.available_hashes.includes(h)));
}

/** The deepest folder holding every path. */
export function commonParent(paths: readonly string[]): string {
  if (paths.length === 0) return '/';
  let segs = parentPath(paths[0]!).split('/').filter(Boolean);
  for (const p of paths.slice(1)) {
    const other = parentPath(p).split('/').filter(Boolean);
    let i = 0;
    while (i < segs.length && i < other.length && segs[i] === other[i]) i++;
    segs = segs.slice(0, i);
  }
  return '/' + segs.join('/');
}

export function buildBody(paths: string[], s: WizardState, defaultOutput: string): GenerateBody {
  const m = effectiveMatrix(s.matrix, s.formats);
  const entries = Object.entries(s.files);
  const comments = Object.fromEntries(entries.filter(([, c]) => c.comment.trim() !== '').map(([p, c]) => [p, c.comment.trim()]));
  const trackers = [...new Set([...s.trackers, ...extraTrackerList(s.extraTrackers)])];
  const body: GenerateBody = {
    paths,
    formats: s.formats,
    hash_matrix: m,
    output_path: s.outputDir.trim() || defaultOutput,
  };
  if (s.pieceSize !== null && !s.formats.includes('cas')) body.piece_size = s.pieceSize;
  if (s.name !== '') body.name = s.name.trim();
  if (s.comment.trim() !== '') body.comment = s.comment;
  if (Object.keys(comments).length > 0) body.file_comments = comments;
  if (trackers.length > 0) body.trackers = trackers;
  const share = entries.filter(([, c]) => c.share).map(([p]) => p);
  const direct = entries.filter(([, c]) => c.direct).map(([p]) => p);
  if (share.length > 0) body.share_files = share;
  if (direct.length > 0) body.direct_files = direct;
  return body;
}

/** Formats on by default: the `seed_default_format` setting. */
export function defaultFormats(settings: Record<string, string>): SeedFormat[] {
  const d = settings.seed_default_format;
  return d === 'torrent' || d === 'cas' ? [d] : ['oss'];
}
