/**
 * `update` and `update_channels` (contract §10.5, seed-formats.md §8.6): edits on the model —
 * overall comment, trackers, channels, per-file comments and sources, missing channels,
 * removing files (never all of them) — applied to a copy, checked by the model validator.
 * Recalculation from stored files is in recalc.ts; encoding and saving in output.ts.
 */
import { Type, type Static } from 'typebox';
import { badRequest } from '../../../lib/errors.js';
import { canonicalizeSeed, validateSeed, type Seed, type SeedChannel, type SeedFile, type SeedSource } from '../formats/index.js';
import { SeedInputFields } from './input.js';
import { checkSourceUrl, type SourceContext } from './source-rules.js';
import { seedStep } from '../common/fields.js';
import { trackerProblem } from '../common/trackers.js';

const Str = Type.String({ maxLength: 4096 });
const Text = Type.String({ maxLength: 65536 });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const SourceBody = Type.Object({
  type: Type.String({ maxLength: 64, description: 'openlist-direct or openlist-share' }),
  url: Str,
  expires_at: Type.Optional(Type.String({ maxLength: 64 })),
  share_id: Type.Optional(Type.String({ maxLength: 256 })),
});
export const ChannelBody = Type.Object({ driver: Type.String({ maxLength: 256 }), mount_path: Type.Optional(Str) });
const MissingChannels = Type.Union([
  Type.Array(Type.String({ maxLength: 256 }), { maxItems: 1000, description: 'for every file' }),
  Type.Record(Type.String(), Type.Array(Type.String({ maxLength: 256 }), { maxItems: 1000 }), { description: 'seed path → driver names' }),
]);

const OutputFields = {
  target_format: Type.Optional(Type.String({ maxLength: 32, description: 'format to write (default: the seed’s own); `format` is an alias' })),
  output_path: Type.Optional(Type.String({ maxLength: 4096, description: 'save the result there (a folder receives <seed name>.<format>)' })),
  save_path: Type.Optional(Type.String({ maxLength: 4096, description: 'alias of output_path' })),
  overwrite: Type.Optional(Type.Boolean({ description: 'replace an existing file at output_path (default true)' })),
};

export const UpdateBody = Type.Object({
  ...SeedInputFields,
  ...OutputFields,
  comment: Type.Optional(Nullable(Text)),
  trackers: Type.Optional(Nullable(Type.Array(Str, { maxItems: 1000 }))),
  channels: Type.Optional(Nullable(Type.Array(ChannelBody, { maxItems: 1000 }))),
  files: Type.Optional(
    Type.Array(
      Type.Object({ path: Str, comment: Type.Optional(Nullable(Text)), sources: Type.Optional(Nullable(Type.Array(SourceBody, { maxItems: 100 }))) }),
      { maxItems: 100_000 },
    ),
  ),
  file_comments: Type.Optional(Type.Record(Type.String(), Text, { description: 'OpenList form: seed path → comment' })),
  file_sources: Type.Optional(Type.Record(Type.String(), Type.Array(SourceBody, { maxItems: 100 }), { description: 'OpenList form: seed path → sources' })),
  missing_channels: Type.Optional(MissingChannels),
  remove_files: Type.Optional(Type.Array(Str, { maxItems: 100_000 })),
  recalculate: Type.Optional(
    Type.Object({
      path: Str,
      hash_matrix: Type.Optional(Type.Unknown({ description: '{"md5":{"whole":bool,"pieces":bool},"sha1":{…},"sha256":{…}}; default: what the seed carries' })),
      piece_size: Type.Optional(Type.Integer({ description: 'bytes, 16 KiB–64 MiB (10 MiB for cas); default: the seed’s' })),
    }),
  ),
});
export type UpdateBodyT = Static<typeof UpdateBody>;

export const UpdateChannelsBody = Type.Object({
  ...SeedInputFields,
  ...OutputFields,
  channels: Type.Optional(Nullable(Type.Array(ChannelBody, { maxItems: 1000 }))),
  missing_channels: Type.Optional(MissingChannels),
});
export type UpdateChannelsBodyT = Static<typeof UpdateChannelsBody>;

type SourceIn = Static<typeof SourceBody>;

/** Checks a source given in an edit: a usable type, URL on the site or a trusted host, right prefix, readable expiry. */
function checkSource(s: SourceIn, field: string, sctx: SourceContext): SeedSource {
  const type = s.type.trim();
  if (type !== 'openlist-direct' && type !== 'openlist-share') throw badRequest(`${field}.type: must be openlist-direct or openlist-share`, { field: `${field}.type` });
  const source: SeedSource = { type, url: s.url.trim(), expires_at: s.expires_at?.trim() || undefined, share_id: s.share_id?.trim() || undefined };
  if (source.expires_at !== undefined && Number.isNaN(Date.parse(source.expires_at))) {
    throw badRequest(`${field}.expires_at: not a date (RFC 3339 expected)`, { field: `${field}.expires_at` });
  }
  const verdict = checkSourceUrl(source, sctx);
  if (!verdict.usable) throw badRequest(`${field}: ${verdict.reason}`, { field });
  return source;
}

function fileIndex(seed: Seed): Map<string, number> {
  return new Map(seed.files.map((f, i) => [f.path, i]));
}

function requireFile(index: Map<string, number>, path: string, field: string): number {
  const i = index.get(path);
  if (i === undefined) throw badRequest(`${field}: ${JSON.stringify(path)} is not a file of this seed`, { field });
  return i;
}

export interface EditResult {
  seed: Seed;
  /** Files were removed (a torrent piece stream of the input no longer applies). */
  removed: string[];
}

/** Applies every edit of an update (or update_channels) body to a copy of `seed`; the result is validated. */
export function applyEdits(seed: Seed, body: Partial<UpdateBodyT>, sctx: SourceContext): EditResult {
  const files: SeedFile[] = seed.files.map((f) => ({ ...f }));
  const next: Seed = { ...seed, files };
  const index = fileIndex(seed);

  if (body.comment !== undefined && body.comment !== null) next.comment = body.comment.trim() || undefined;
  if (body.trackers !== undefined && body.trackers !== null) {
    next.trackers = body.trackers.map((t, i) => {
      const problem = trackerProblem(t.trim());
      if (problem) throw badRequest(`trackers[${i}]: ${JSON.stringify(t)} ${problem}`, { field: `trackers[${i}]` });
      return t.trim();
    });
  }
  if (body.channels !== undefined && body.channels !== null) {
    next.channels = body.channels.map((c): SeedChannel => ({ driver: c.driver.trim(), mount_path: c.mount_path?.trim() || undefined }));
  }

  const setComment = (i: number, text: string | null | undefined) => {
    if (text !== undefined && text !== null) files[i] = { ...files[i]!, comment: text.trim() || undefined };
  };
  const setSources = (i: number, list: SourceIn[] | null | undefined, field: string) => {
    if (list === undefined) return;
    files[i] = { ...files[i]!, sources: (list ?? []).map((s, j) => checkSource(s, `${field}[${j}]`, sctx)) };
  };
  (body.files ?? []).forEach((f, k) => {
    const i = requireFile(index, f.path, `files[${k}].path`);
    setComment(i, f.comment);
    setSources(i, f.sources, `files[${k}].sources`);
  });
  for (const [path, text] of Object.entries(body.file_comments ?? {})) setComment(requireFile(index, path, `file_comments[${JSON.stringify(path)}]`), text);
  for (const [path, list] of Object.entries(body.file_sources ?? {})) {
    const field = `file_sources[${JSON.stringify(path)}]`;
    setSources(requireFile(index, path, field), list, field);
  }

  const mc = body.missing_channels;
  if (Array.isArray(mc)) {
    files.forEach((f, i) => (files[i] = { ...f, missing_channels: mc.map((m) => m.trim()) }));
  } else if (mc) {
    for (const [path, list] of Object.entries(mc)) {
      const i = requireFile(index, path, `missing_channels[${JSON.stringify(path)}]`);
      files[i] = { ...files[i]!, missing_channels: list.map((m) => m.trim()) };
    }
  }

  const removed = removeFiles(next, index, body.remove_files);
  const out = canonicalizeSeed(next);
  seedStep('seed', () => validateSeed(out));
  return { seed: out, removed };
}

/** `remove_files`: exact seed paths; blank entries ignored (all blank → 400); removing every file → 400. */
function removeFiles(seed: Seed, index: Map<string, number>, list: string[] | undefined): string[] {
  if (list === undefined) return [];
  const paths = [...new Set(list.filter((p) => p.trim() !== ''))];
  if (paths.length === 0) throw badRequest('remove_files: remove_files requires at least one non-empty path', { field: 'remove_files' });
  paths.forEach((p, k) => requireFile(index, p, `remove_files[${k}]`));
  const drop = new Set(paths);
  const kept = seed.files.filter((f) => !drop.has(f.path));
  if (kept.length === 0) throw badRequest('remove_files: cannot remove all files from a seed', { field: 'remove_files' });
  seed.files = kept;
  return paths;
}
