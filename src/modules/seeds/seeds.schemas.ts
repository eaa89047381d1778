/**
 * Wire shapes of the seeds API (contract §10): what generation, the wizard's capabilities, the unified preview,
 * conversions, edits and saves answer. The server's result types are derived from these, and the web UI's
 * types are generated from the OpenAPI document they produce.
 */
import { Type, type Static } from 'typebox';
import { Nullable } from '../../http/envelope.js';
import { TaskInfoSchema } from '../tasks/tasks.schemas.js';
import { SeedSchema } from './formats/index.js';

const Format = Type.Union([Type.Literal('oss'), Type.Literal('torrent'), Type.Literal('cas')]);
const HashName = Type.Union([Type.Literal('md5'), Type.Literal('sha1'), Type.Literal('sha256')]);
const Selection = Type.Object({ whole: Type.Boolean(), pieces: Type.Boolean() });

/** `{"md5":{"whole":bool,"pieces":bool},"sha1":{…},"sha256":{…}}` (contract §10.1). */
export const HashMatrixSchema = Type.Object({ md5: Selection, sha1: Selection, sha256: Selection });

export const DiagnosticSchema = Type.Object({
  level: Type.Union([Type.Literal('error'), Type.Literal('warning'), Type.Literal('info')]),
  code: Type.String(),
  message: Type.String(),
  format: Type.Optional(Format),
  file: Type.Optional(Type.String()),
});

const MissingDataSchema = Type.Object({
  file: Type.String(),
  needs: Type.Array(Type.Object({ algorithm: HashName, kind: Type.Union([Type.Literal('whole'), Type.Literal('pieces'), Type.Literal('stream')]), piece_size: Type.Optional(Type.Integer()) })),
  reason: Type.String(),
});

// ------------------------------------------------------------------ capabilities ({paths} mode)

export const CapabilityFileSchema = Type.Object({
  path: Type.String(),
  seed_path: Type.String(),
  name: Type.String(),
  size: Type.Number(),
  available_hashes: Type.Array(HashName),
  requires_download: Type.Boolean(),
  requires_fetch: Type.Boolean(),
  estimated_traffic: Type.Number(),
  streamable: Type.Boolean(),
  storage: Type.String(),
  share_available: Type.Boolean(),
  direct_source_available: Type.Boolean(),
});

export const CapabilitiesSchema = Type.Object({
  formats: Type.Object({ oss: Type.Boolean(), torrent: Type.Boolean(), cas: Type.Boolean() }),
  files: Type.Array(CapabilityFileSchema),
  existing_hashes: Type.Array(HashName),
  common_hashes: Type.Array(HashName),
  default_matrix: HashMatrixSchema,
  setting_matrix: HashMatrixSchema,
  estimated_traffic: Type.Number(),
  total_size: Type.Number(),
  async: Type.Boolean(),
  async_threshold: Type.Number(),
  trackers: Type.Array(Type.String()),
  suggested_name: Type.String(),
});
export type Capabilities = Static<typeof CapabilitiesSchema>;

// ------------------------------------------------------------------ capabilities ({seed_data} mode)

const PlannedFileSchema = Type.Object({
  path: Type.String(),
  target: Type.String(),
  size: Type.Number(),
  hashes: Type.Array(HashName),
  usable_source: Type.Boolean(),
  rapid_checked: Type.Boolean(),
  method: Type.Union([Type.Literal('rapid_upload'), Type.Literal('offline_download'), Type.Literal('unavailable')]),
  requires_download: Type.Boolean(),
  found_at: Type.Optional(Nullable(Type.String())),
  fallback: Type.Union([Type.Literal('offline_download'), Type.Null()]),
  reason: Type.Optional(Type.String()),
});

export const DestinationPlanSchema = Type.Object({
  path: Type.String(),
  mount_path: Type.String(),
  driver: Type.String(),
  storage_policy: Type.String(),
  global_policy: Type.String(),
  resolved_policy: Type.String(),
  files: Type.Array(PlannedFileSchema),
  driver_supports: Type.Object({
    cas_rapid: Type.Boolean(),
    put_url: Type.Boolean(),
    offline_download: Type.Boolean(),
    rapid_hash_algos: Type.Array(HashName),
    rapid_uses_pieces: Type.Boolean(),
    streamable: Type.Boolean(),
  }),
});
export type DestinationPlan = Static<typeof DestinationPlanSchema>;

// ------------------------------------------------------------------ generation

export const ArtifactSchema = Type.Object({
  format: Format,
  name: Type.String(),
  file_name: Type.String(),
  size: Type.Integer(),
  /** Where it was written, as the user sees it. */
  path: Type.String(),
  seed_data: Type.String({ description: 'the file, base64' }),
});

export const GeneratedSchema = Type.Object({
  paths: Type.Array(Type.String()),
  artifacts: Type.Array(ArtifactSchema),
  seed: SeedSchema,
  /** Per file: `direct` (hashes from the drive, no read) or `download` (streamed once). */
  files: Type.Array(Type.Object({ path: Type.String(), mode: Type.Union([Type.Literal('direct'), Type.Literal('download')]), size: Type.Number() })),
  diagnostics: Type.Array(DiagnosticSchema),
});
export type Generated = Static<typeof GeneratedSchema>;

/** Synchronous: the artifacts; above `seed_async_threshold`: the queued task. */
export const GenerateReplySchema = Type.Union([GeneratedSchema, Type.Object({ async: Type.Literal(true), task: TaskInfoSchema })]);

// ------------------------------------------------------------------ preview (parse)

const CapabilitySchema = Type.Object({ available: Type.Boolean(), reason: Type.Optional(Type.String()), path: Type.Optional(Type.String()) });

export const PresentedSourceSchema = Type.Object({
  type: Type.String(),
  url: Type.String(),
  expires_at: Type.Optional(Type.String()),
  /** `expires_at` in the API's time format, when it parses. */
  expires: Type.Optional(Type.String()),
  share_id: Type.Optional(Type.String()),
  usable: Type.Boolean(),
  reason: Type.Optional(Type.String()),
});
export type PresentedSource = Static<typeof PresentedSourceSchema>;

export const PreviewFileSchema = Type.Object({
  path: Type.String(),
  name: Type.String(),
  size: Type.Number(),
  modified: Nullable(Type.String()),
  comment: Type.String(),
  hashes: Type.Object({ md5: Type.Optional(Type.String()), sha1: Type.Optional(Type.String()), sha256: Type.Optional(Type.String()), gcid: Type.Optional(Type.String()) }),
  pieces: Type.Object({
    piece_size: Type.Integer(),
    count: Type.Integer(),
    md5: Type.Optional(Type.Array(Type.String())),
    sha1: Type.Optional(Type.Array(Type.String())),
    sha256: Type.Optional(Type.Array(Type.String())),
  }),
  cas: Nullable(Type.Object({ slice_md5: Nullable(Type.String()), create_time: Nullable(Type.String()), cloud: Nullable(Type.String()) })),
  sources: Type.Array(PresentedSourceSchema),
  missing_channels: Type.Array(Type.String()),
});
export type PreviewFile = Static<typeof PreviewFileSchema>;

/** `missing` and `reasons` list at most 100 files; `missing_total` counts them all. */
const ConversionSchema = Type.Object({ feasible: Type.Boolean(), missing: Type.Array(MissingDataSchema), missing_total: Type.Integer(), reasons: Type.Array(Type.String()) });

export const DirectPreviewSchema = Type.Object({
  enabled: Type.Boolean(),
  cas_direct_access: Type.Boolean(),
  file: Nullable(Type.String()),
  stored_path: Nullable(Type.String()),
  source_url: Nullable(Type.String()),
  rapid_upload_to: Nullable(Type.String()),
  target_path: Nullable(Type.String()),
  available: Type.Boolean(),
  action: Type.Union([Type.Literal('none'), Type.Literal('preview_file'), Type.Literal('rapid_upload'), Type.Literal('preview_source')]),
  reason: Type.Optional(Type.String()),
});

export const PreviewSchema = Type.Object({
  format: Format,
  seed: SeedSchema,
  name: Type.String(),
  comment: Type.String(),
  created_at: Type.String(),
  created_by: Type.String(),
  piece_size: Type.Integer(),
  trackers: Type.Array(Type.String()),
  channels: Type.Array(Type.Object({ driver: Type.String(), mount_path: Type.Optional(Type.String()) })),
  missing_channels: Type.Array(Type.String()),
  files: Type.Array(PreviewFileSchema),
  file_count: Type.Integer(),
  total_size: Type.Number(),
  info_hash: Nullable(Type.String()),
  torrent_pieces: Nullable(Type.Object({ piece_size: Type.Integer(), count: Type.Integer(), sha1: Type.Array(Type.String()) })),
  /** The sidecar's path, when opened by path. */
  path: Nullable(Type.String()),
  diagnostics: Type.Array(DiagnosticSchema),
  conversions: Type.Object({ oss: ConversionSchema, torrent: ConversionSchema, cas: ConversionSchema }),
  capabilities: Type.Object({
    rapid_upload: CapabilitySchema,
    offline_download: CapabilitySchema,
    transfer: CapabilitySchema,
    convert: CapabilitySchema,
    edit: CapabilitySchema,
    recalculate: CapabilitySchema,
  }),
  direct_preview: DirectPreviewSchema,
});
export type Preview = Static<typeof PreviewSchema>;

/** `upload_parse` (and the legacy torrent routes) add the file and OpenList's legacy fields. */
export const UploadPreviewSchema = Type.Intersect([
  PreviewSchema,
  Type.Object({ seed_data: Type.String(), file_name: Nullable(Type.String()) }, { additionalProperties: true }),
]);

// ------------------------------------------------------------------ convert, diagnose, update

export const ConvertReplySchema = Type.Object({
  convertible: Type.Boolean(),
  format: Format,
  file_name: Type.String(),
  name: Type.String(),
  seed_data: Type.String(),
  size: Type.Integer(),
  path: Type.Optional(Type.String()),
});

export const DiagnoseReplySchema = Type.Object({
  format: Format,
  diagnostics: Type.Array(DiagnosticSchema),
  oss: Type.Array(Type.String()),
  torrent: Type.Array(Type.String()),
  cas: Type.Array(Type.String()),
});

export const UpdateReplySchema = Type.Intersect([
  PreviewSchema,
  Type.Object({
    seed_data: Type.String(),
    file_name: Type.String(),
    size: Type.Integer(),
    dropped: Type.Array(Type.String()),
    removed: Type.Array(Type.String()),
    recalculated: Nullable(Type.Object({ path: Type.String(), bytes_read: Type.Number() })),
    /** True when written to `output_path`; `path` (of the preview) is then where. */
    saved: Type.Boolean(),
  }),
]);

// ------------------------------------------------------------------ saving a seed's files

export const SaveFileResultSchema = Type.Object({
  /** The file's path inside the seed. */
  path: Type.String(),
  /** Name of the created file. */
  name: Type.String(),
  method: Type.Union([Type.Literal('rapid_upload'), Type.Literal('offline_download'), Type.Literal('transfer'), Type.Literal('unavailable')]),
  /** Where it lands, as the user sees it. */
  target: Type.String(),
  error: Type.Optional(Type.String()),
  task: Type.Optional(TaskInfoSchema),
});
export type SaveFileResult = Static<typeof SaveFileResultSchema>;

export const SaveReplySchema = Type.Object({
  results: Type.Array(SaveFileResultSchema),
  seed_data: Type.Optional(Type.String()),
  seed: Type.Optional(SeedSchema),
});
