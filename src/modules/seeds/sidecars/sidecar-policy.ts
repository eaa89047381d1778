/**
 * Whether an upload writes sidecars, and which (service-interface "Upload with sidecars",
 * contract §10.4). Decision order: (1) `X-Seed-Sidecars` non-empty → on; (2) `X-Generate-Seed`
 * on/true/1 → on, off/false/0 → off, inherit/empty → next; (3) the target storage's
 * `seed_policy`; (4) `seed_auto_generate_policy` — steps 3–4 only when `seed_format_policies`
 * turns at least one format on. Every header is validated whether or not sidecars end up on,
 * so a bad value is a 400 before any byte is stored.
 */
import type { SeedsDeps } from '../seeds.deps.js';
import { badRequest } from '../../../lib/errors.js';
import type { StorageRecord } from '../../storages/storage.model.js';
import {
  MAX_PIECE_SIZE,
  MIN_PIECE_SIZE,
  SEED_FORMATS,
  SeedFormatError,
  parseHashMatrix,
  parseHashMatrixText,
  parseSeedFormat,
  planSeedHashes,
  type HashMatrix,
  type SeedFormat,
} from '../formats/index.js';
import { trackerProblem } from '../common/trackers.js';

/** What an upload with sidecars computes and writes. */
export interface SidecarPlan {
  formats: SeedFormat[];
  matrix: HashMatrix;
  pieceSize: number;
  trackers: string[];
}

/** The sidecar headers of a request (lower-case names), or `{}` for SFTP and tasks. */
export type SidecarHeaders = Partial<Record<'x-seed-sidecars' | 'x-generate-seed' | 'x-seed-format' | 'x-seed-piece-size' | 'x-seed-hash-matrix', string>>;

const ON = new Set(['on', 'true', '1']);
const OFF = new Set(['off', 'false', '0']);

function parseFormatList(value: string, header: string): SeedFormat[] {
  const items = value
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
  const out: SeedFormat[] = [];
  for (const item of items) {
    let f: SeedFormat;
    try {
      f = parseSeedFormat(item === 'bt' ? 'torrent' : item, header);
    } catch {
      throw badRequest(`${header}: unknown seed format ${JSON.stringify(item)} (expected ${SEED_FORMATS.join(', ')})`, { field: header });
    }
    if (!out.includes(f)) out.push(f);
  }
  return out;
}

function parsePieceSize(value: string | undefined): number | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  if (!/^\d+$/.test(v)) throw badRequest('X-Seed-Piece-Size: must be a decimal number of bytes', { field: 'X-Seed-Piece-Size' });
  const n = Number(v);
  if (n < MIN_PIECE_SIZE || n > MAX_PIECE_SIZE) {
    throw badRequest(`X-Seed-Piece-Size: must be between ${MIN_PIECE_SIZE} (16 KiB) and ${MAX_PIECE_SIZE} (64 MiB) bytes, got ${v}`, { field: 'X-Seed-Piece-Size' });
  }
  return n;
}

function parseMatrixHeader(value: string | undefined): HashMatrix {
  const v = value?.trim();
  if (!v) return parseHashMatrix(null);
  try {
    return parseHashMatrixText(v, 'X-Seed-Hash-Matrix');
  } catch (e) {
    if (e instanceof SeedFormatError) throw badRequest(`invalid seed hash matrix: ${e.message}`, { field: 'X-Seed-Hash-Matrix' });
    throw e;
  }
}

function parseGenerateSeed(value: string | undefined): 'on' | 'off' | 'inherit' {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '' || v === 'inherit') return 'inherit';
  if (ON.has(v)) return 'on';
  if (OFF.has(v)) return 'off';
  throw badRequest(`X-Generate-Seed: must be on, off or inherit, got ${JSON.stringify(value)}`, { field: 'X-Generate-Seed' });
}

/** Formats switched on in `seed_format_policies` (invalid JSON → none), in oss, torrent, cas order. */
async function policyFormats(deps: Pick<SeedsDeps, 'settings'>): Promise<SeedFormat[]> {
  let raw: unknown;
  try {
    raw = JSON.parse(await deps.settings.get('seed_format_policies'));
  } catch {
    return [];
  }
  if (!raw || typeof raw !== 'object') return [];
  const policies = raw as Record<string, unknown>;
  return SEED_FORMATS.filter((f) => typeof policies[f] === 'string' && (policies[f] as string).trim().toLowerCase() === 'on');
}

async function defaultMatrix(deps: Pick<SeedsDeps, 'settings'>): Promise<HashMatrix> {
  try {
    return parseHashMatrix(await deps.settings.getJson<unknown>('seed_default_matrix'));
  } catch {
    return parseHashMatrix(null); // unreadable setting: normalisation falls back to all hashes
  }
}

async function defaultTrackers(deps: Pick<SeedsDeps, 'settings'>): Promise<string[]> {
  const text = await deps.settings.get('seed_default_trackers');
  return text
    .split(/\r?\n/)
    .map((t) => t.trim())
    .filter((t) => t !== '' && trackerProblem(t) === null);
}

/**
 * The sidecar plan for an upload into `storage`, or null when no sidecars are written.
 * Throws a 400 for any malformed sidecar header.
 */
export async function resolveSidecarPlan(deps: Pick<SeedsDeps, 'settings'>, headers: SidecarHeaders, storage: Pick<StorageRecord, 'seedPolicy'>): Promise<SidecarPlan | null> {
  const explicit = parseFormatList(headers['x-seed-sidecars'] ?? '', 'X-Seed-Sidecars');
  const chosen = parseFormatList(headers['x-seed-format'] ?? '', 'X-Seed-Format');
  const generate = parseGenerateSeed(headers['x-generate-seed']);
  const requestedPieceSize = parsePieceSize(headers['x-seed-piece-size']);
  const requestedMatrix = parseMatrixHeader(headers['x-seed-hash-matrix']);

  let on: boolean;
  let configured: SeedFormat[] | undefined;
  if (explicit.length > 0) on = true;
  else if (generate !== 'inherit') on = generate === 'on';
  else {
    configured = await policyFormats(deps);
    const policy = storage.seedPolicy !== 'inherit' ? storage.seedPolicy : await deps.settings.get('seed_auto_generate_policy');
    on = ON.has(policy.trim().toLowerCase()) && configured.length > 0;
  }
  if (!on) return null;

  let formats = explicit.length > 0 ? explicit : chosen;
  if (formats.length === 0) formats = configured ?? (await policyFormats(deps));
  if (formats.length === 0) formats = [parseSeedFormat(await deps.settings.get('seed_default_format'), 'seed_default_format')];
  const plan = planSeedHashes({ matrix: requestedMatrix, formats, pieceSize: requestedPieceSize, defaultMatrix: await defaultMatrix(deps) });
  return { formats, matrix: plan.matrix, pieceSize: plan.pieceSize, trackers: await defaultTrackers(deps) };
}
