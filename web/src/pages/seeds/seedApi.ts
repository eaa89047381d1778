/**
 * The seed endpoints the wizard and the preview use, and the shapes of their answers
 * (src/modules/seeds/generation/ and operations/, seed-formats.md §7–§8).
 */
import { api, ApiError, errorMessage } from '../../api.js';
import type { Body, Data } from '../../api-types.js';
import type { Capabilities, HashMatrix, Preview, SeedFormat } from '../../types.js';

/** A failed call as shown: its message and the server's `hint`, if it gave one. */
export interface Failure {
  message: string;
  hint?: string;
}

export function failureOf(e: unknown): Failure {
  const hint = e instanceof ApiError && e.data && typeof e.data === 'object' ? (e.data as { hint?: unknown }).hint : undefined;
  return { message: errorMessage(e), hint: typeof hint === 'string' ? hint : undefined };
}

// ---------- generation ----------

export type CapabilityFile = Capabilities['files'][number];
export type GenerateBody = Omit<Body<'/api/fs/seed/generate', 'post'>, 'hash_matrix'> & { hash_matrix: HashMatrix };
export type GenerateResult = Data<'/api/fs/seed/generate', 'post'>;
export type Diagnostic = Preview['diagnostics'][number];

export const seedCapabilities = (paths: string[]) => api.post<Capabilities>('/api/fs/seed/capabilities', { paths });
export const generateSeed = (body: GenerateBody) => api.post<GenerateResult>('/api/fs/seed/generate', body);

// ---------- preview ----------

export type PreviewFile = Preview['files'][number];
export type PreviewSource = PreviewFile['sources'][number];
export type Capability = Preview['capabilities']['edit'];
export type DirectPreview = Preview['direct_preview'];

export type { Capabilities, Preview };

export const parseSeed = (path: string) => api.post<Preview>('/api/fs/seed/parse', { path });

export type ConvertResult = Data<'/api/fs/seed/convert', 'post'>;

/** Converts the stored seed at `path`; saved into `outputDir` when given. */
export const convertSeed = (path: string, target: SeedFormat, outputDir?: string) =>
  api.post<ConvertResult>('/api/fs/seed/convert', { path, target_format: target, ...(outputDir ? { output_path: outputDir, overwrite: true } : {}) });

/** The seed file's bytes as base64 (re-encoded in its own container), for the operations that take `seed_data`. */
export async function seedData(path: string, format: SeedFormat): Promise<string> {
  return (await convertSeed(path, format)).seed_data;
}

type UpdateBody = Body<'/api/fs/seed/update', 'post'>;
export type UpdateEdits = Pick<UpdateBody, 'comment' | 'trackers' | 'files' | 'remove_files'> & {
  recalculate?: { path: string; hash_matrix?: HashMatrix; piece_size?: number };
};

export type UpdateResult = Data<'/api/fs/seed/update', 'post'>;

/** Applies edits to the stored seed at `path` and saves the result over it. */
export const updateSeed = (path: string, edits: UpdateEdits) => api.post<UpdateResult>('/api/fs/seed/update', { path, ...edits, output_path: path, overwrite: true });

// ---------- saving the seed's files ----------

export type SaveMode = 'rapid_upload' | 'offline_download' | 'quick_save';

export type SaveFileResult = Data<'/api/fs/seed/quick_save', 'post'>['results'][number];

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
