/**
 * The seed endpoints the wizard and the preview use, and the shapes of their answers
 * (src/modules/seeds/generation/ and operations/, seed-formats.md §7–§8).
 */
import { api } from '../../api.js';
import type { HashMatrix, HashName, SeedFormat } from '../../types.js';
import type { Task } from '../tasks/taskApi.js';

// ---------- generation ----------

export interface CapabilityFile {
  /** As the user sees it. */
  path: string;
  seed_path: string;
  name: string;
  size: number;
  available_hashes: HashName[];
  requires_download: boolean;
  estimated_traffic: number;
  /** The server may read the bytes (storage proxy on). */
  streamable: boolean;
  storage: string;
  share_available: boolean;
  direct_source_available: boolean;
}

export interface Capabilities {
  files: CapabilityFile[];
  existing_hashes: HashName[];
  common_hashes: HashName[];
  default_matrix: HashMatrix;
  setting_matrix: HashMatrix;
  estimated_traffic: number;
  total_size: number;
  async: boolean;
  async_threshold: number;
  trackers: string[];
  suggested_name: string;
}

export interface GenerateBody {
  paths: string[];
  formats: SeedFormat[];
  hash_matrix: HashMatrix;
  piece_size?: number;
  name?: string;
  comment?: string;
  file_comments?: Record<string, string>;
  trackers?: string[];
  share_files?: string[];
  direct_files?: string[];
  output_path?: string;
}

export interface Diagnostic {
  level: 'error' | 'warning' | 'info';
  code: string;
  message: string;
  format?: SeedFormat;
  file?: string;
}

export interface GenerateSync {
  async?: undefined;
  paths: string[];
  artifacts: { format: SeedFormat; name: string; size: number; path: string }[];
  files: { path: string; mode: 'direct' | 'download'; size: number }[];
  diagnostics: Diagnostic[];
}
export type GenerateResult = GenerateSync | { async: true; task: Task };

export const seedCapabilities = (paths: string[]) => api.post<Capabilities>('/api/fs/seed/capabilities', { paths });
export const generateSeed = (body: GenerateBody) => api.post<GenerateResult>('/api/fs/seed/generate', body);

// ---------- preview ----------

export interface PreviewSource {
  type: string;
  url: string;
  expires_at?: string;
  expires?: string;
  share_id?: string;
  usable: boolean;
  reason?: string;
}

export interface PreviewFile {
  path: string;
  name: string;
  size: number;
  modified: string | null;
  comment: string;
  hashes: Partial<Record<HashName | 'gcid', string>>;
  pieces: { piece_size: number; count: number } & Partial<Record<HashName, string[]>>;
  cas: { slice_md5: string | null; create_time: string | null; cloud: string | null } | null;
  sources: PreviewSource[];
  missing_channels: string[];
}

export interface Capability {
  available: boolean;
  reason?: string;
  path?: string;
}

export interface MissingData {
  file: string;
  reason: string;
}

export interface DirectPreview {
  enabled: boolean;
  cas_direct_access: boolean;
  file: string | null;
  stored_path: string | null;
  source_url: string | null;
  rapid_upload_to: string | null;
  target_path: string | null;
  available: boolean;
  action: 'preview_file' | 'rapid_upload' | 'preview_source' | 'none';
  reason?: string;
}

export interface Preview {
  format: SeedFormat;
  name: string;
  comment: string;
  created_at: string;
  created_by: string;
  piece_size: number;
  trackers: string[];
  channels: { driver: string; mount_path?: string }[];
  missing_channels: string[];
  files: PreviewFile[];
  file_count: number;
  total_size: number;
  info_hash: string | null;
  torrent_pieces: { piece_size: number; count: number; sha1: string[] } | null;
  /** The sidecar, as the user sees it (opened by path). */
  path: string | null;
  diagnostics: Diagnostic[];
  conversions: Record<SeedFormat, { feasible: boolean; missing: MissingData[]; reasons: string[] }>;
  capabilities: Record<'rapid_upload' | 'offline_download' | 'transfer' | 'convert' | 'edit' | 'recalculate', Capability>;
  direct_preview: DirectPreview;
}

export const parseSeed = (path: string) => api.post<Preview>('/api/fs/seed/parse', { path });

export interface ConvertResult {
  format: SeedFormat;
  file_name: string;
  seed_data: string;
  size: number;
  path?: string;
}

/** Converts the stored seed at `path`; saved into `outputDir` when given. */
export const convertSeed = (path: string, target: SeedFormat, outputDir?: string) =>
  api.post<ConvertResult>('/api/fs/seed/convert', { path, target_format: target, ...(outputDir ? { output_path: outputDir, overwrite: true } : {}) });

/** The seed file's bytes as base64 (re-encoded in its own container), for the operations that take `seed_data`. */
export async function seedData(path: string, format: SeedFormat): Promise<string> {
  return (await convertSeed(path, format)).seed_data;
}

export interface UpdateEdits {
  comment?: string;
  trackers?: string[];
  files?: { path: string; comment?: string; sources?: { type: string; url: string; expires_at?: string; share_id?: string }[] }[];
  remove_files?: string[];
  recalculate?: { path: string; hash_matrix?: HashMatrix; piece_size?: number };
}

export type UpdateResult = Preview & { saved: boolean; removed: string[]; dropped: string[]; recalculated: { path: string; bytes_read: number } | null };

/** Applies edits to the stored seed at `path` and saves the result over it. */
export const updateSeed = (path: string, edits: UpdateEdits) => api.post<UpdateResult>('/api/fs/seed/update', { path, ...edits, output_path: path, overwrite: true });

// ---------- saving the seed's files ----------

export type SaveMode = 'rapid_upload' | 'offline_download' | 'quick_save';

export interface SaveFileResult {
  path: string;
  name: string;
  method: 'rapid_upload' | 'offline_download' | 'transfer' | 'unavailable';
  target: string;
  error?: string;
  task?: Task;
}

export interface SaveOptions {
  dest: string;
  files?: string[];
  overwrite?: boolean;
  transit_path?: string;
}

export async function saveFiles(mode: SaveMode, seedPath: string, format: SeedFormat, o: SaveOptions): Promise<SaveFileResult[]> {
  const seed_data = await seedData(seedPath, format);
  const r = await api.post<{ results: SaveFileResult[] }>(`/api/fs/seed/${mode}`, {
    seed_data,
    format,
    path: o.dest,
    files: o.files,
    overwrite: o.overwrite ?? false,
    ...(o.transit_path ? { transit_path: o.transit_path } : {}),
  });
  return r.results;
}
