/**
 * The generate request (contract §10.3, seed-formats.md §7.2): its JSON schema and the
 * checks that need no storage access. Every rejection names the field.
 */
import { Type, type Static } from 'typebox';
import type { SeedsDeps } from '../seeds.deps.js';
import { AppError, badRequest } from '../../../lib/errors.js';
import { withField } from '../common/fields.js';
import { trackerProblem } from '../common/trackers.js';
import { Perm, can, type User } from '../../users/user.model.js';
import {
  MAX_SEED_FILES,
  parseHashMatrix,
  parseSeedFormat,
  planSeedHashes,
  type HashMatrix,
  type SeedChannel,
  type SeedFormat,
} from '../formats/index.js';
import { checkSeedName } from './names.js';
import { userPath } from '../../fs/access.js';

const Str = Type.String({ maxLength: 4096 });
const PathList = Type.Array(Str, { maxItems: MAX_SEED_FILES });

export const GenerateBody = Type.Object({
  paths: Type.Optional(PathList),
  formats: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 16 })),
  format: Type.Optional(Type.String({ maxLength: 32, description: 'used when `formats` is empty' })),
  hash_matrix: Type.Optional(Type.Unknown({ description: '{"md5":{"whole":bool,"pieces":bool},"sha1":{…},"sha256":{…}}' })),
  piece_size: Type.Optional(Type.Integer({ description: 'bytes, 16 KiB–64 MiB; default 10 MiB; forced to 10 MiB with cas' })),
  name: Type.Optional(Type.String({ maxLength: 1024 })),
  comment: Type.Optional(Type.String({ maxLength: 65536 })),
  file_comments: Type.Optional(Type.Record(Type.String(), Type.String({ maxLength: 65536 }))),
  trackers: Type.Optional(Type.Array(Str, { maxItems: 1000 })),
  channels: Type.Optional(Type.Array(Type.Object({ driver: Type.String({ maxLength: 256 }), mount_path: Type.Optional(Str) }), { maxItems: 1000 })),
  share_files: Type.Optional(PathList),
  direct_files: Type.Optional(PathList),
  include_share: Type.Optional(Type.Boolean({ description: 'share every file (when share_files is empty)' })),
  include_direct_source: Type.Optional(Type.Boolean({ description: 'direct link for every file (when direct_files is empty)' })),
  web_seeds: Type.Optional(Type.Boolean({ description: 'write BEP 19 web seeds into the .torrent (default: the seed_web_seeds setting)' })),
  output_path: Type.Optional(Str),
  save_path: Type.Optional(Type.String({ maxLength: 4096, description: 'alias of output_path' })),
});
export type GenerateBodyT = Static<typeof GenerateBody>;

/** Everything about a request that does not depend on the files. */
export interface GenerateOptions {
  /** Full virtual paths requested, in request order, without duplicates. */
  paths: string[];
  formats: SeedFormat[];
  matrix: HashMatrix;
  pieceSize: number;
  /** The given (checked, trimmed) name, or null to derive one. */
  name: string | null;
  comment: string;
  /** Per-file comments keyed by the request's path strings (matched against files later). */
  fileComments: Record<string, string>;
  trackers: string[];
  channels: SeedChannel[];
  /** Request path strings; `'*'` entries stand for every file (include_share / include_direct_source). */
  shareFiles: string[];
  directFiles: string[];
  /** Full path of the output folder, or null for the sources' common parent. */
  outputDir: string | null;
  /** Write `url-list` web seeds into the torrent (files with sources; see generation/web-seeds.ts). */
  webSeeds: boolean;
}

export async function parseGenerateRequest(deps: Pick<SeedsDeps, 'settings'>, user: User, body: GenerateBodyT): Promise<GenerateOptions> {
  const rawPaths = body.paths ?? [];
  if (rawPaths.length === 0) throw badRequest('paths: at least one path is required', { field: 'paths' });
  const paths = [...new Set(rawPaths.map((p, i) => withField(`paths[${i}]`, () => userPath(user, p))))];

  let rawFormats = (body.formats ?? []).filter((f) => f.trim() !== '');
  if (rawFormats.length === 0 && body.format?.trim()) rawFormats = [body.format];
  if (rawFormats.length === 0) rawFormats = [await deps.settings.get('seed_default_format')];
  const formats = [...new Set(rawFormats.map((f, i) => withField(`formats[${i}]`, () => parseSeedFormat(f.trim().toLowerCase() === 'bt' ? 'torrent' : f, `formats[${i}]`))))];

  const requested = withField('hash_matrix', () => parseHashMatrix(body.hash_matrix, 'hash_matrix'));
  let defaultMatrix: HashMatrix | undefined;
  try {
    defaultMatrix = parseHashMatrix(await deps.settings.getJson<unknown>('seed_default_matrix'));
  } catch {
    defaultMatrix = undefined; // an unreadable setting counts as "all off" → all six
  }
  const plan = withField('piece_size', () => planSeedHashes({ matrix: requested, formats, pieceSize: body.piece_size, defaultMatrix: defaultMatrix ?? parseHashMatrix(null) }));

  const name = body.name === undefined || body.name === '' ? null : checkSeedName(body.name);

  const trackers = (body.trackers ?? []).map((t, i) => {
    const problem = trackerProblem(t.trim());
    if (problem) throw badRequest(`trackers[${i}]: ${JSON.stringify(t)} ${problem}`, { field: `trackers[${i}]` });
    return t.trim();
  });

  const shareFiles = body.share_files?.length ? body.share_files : body.include_share ? ['*'] : [];
  const directFiles = body.direct_files?.length ? body.direct_files : body.include_direct_source ? ['*'] : [];
  if (shareFiles.length > 0 && !can(user, Perm.SHARE)) throw new AppError(403, 'share_files: permission denied (you may not create shares)', { field: 'share_files' });

  const out = (body.output_path ?? '').trim() || (body.save_path ?? '').trim();
  return {
    paths,
    formats,
    matrix: plan.matrix,
    pieceSize: plan.pieceSize,
    name,
    comment: body.comment ?? '',
    fileComments: body.file_comments ?? {},
    trackers,
    channels: body.channels ?? [],
    shareFiles,
    directFiles,
    outputDir: out ? withField('output_path', () => userPath(user, out)) : null,
    webSeeds: body.web_seeds ?? (await deps.settings.getBool('seed_web_seeds')),
  };
}
