/**
 * `POST /api/fs/seed/{rapid_upload,offline_download,quick_save}` (and the same under `/fs/seed/`),
 * the legacy `POST /api/fs/torrent/rapid_upload` (and `/fs/torrent/rapid_upload`), and the
 * `offline_download` task handler.
 */
import { Type } from 'typebox';
import type { SeedsDeps } from '../seeds.deps.js';
import { OkOf, ok } from '../../../http/envelope.js';
import { requestOrigin } from '../../../http/origin.js';
import { SaveReplySchema } from '../seeds.schemas.js';
import { LARGE_JSON_BODY_LIMIT } from '../../../http/json-body.js';
import type { HttpApp } from '../../../http/types.js';
import { badRequest, tooLarge } from '../../../lib/errors.js';
import { MAX_SEED_DATA_CHARS, readSeedInput } from './input.js';
import { saveSeedFiles, type SaveMode } from './transfer.js';
import { currentUser } from '../../auth/principal.js';

const Str = Type.String({ maxLength: 4096 });

export const SaveBody = Type.Object({
  seed_data: Type.String({ description: 'the seed file, standard base64 (≤ 14 MiB of characters)' }),
  format: Type.Optional(Type.String({ maxLength: 32, description: 'oss, torrent or cas; detected from file_name and content when absent' })),
  file_name: Type.Optional(Type.String({ maxLength: 4096 })),
  path: Type.String({ maxLength: 4096, description: 'destination folder (must exist; write permission)' }),
  files: Type.Optional(Type.Array(Type.String({ maxLength: 65536 }), { maxItems: 100_000, description: 'seed paths to save (wins over selected_files)' })),
  selected_files: Type.Optional(Type.Array(Type.Integer(), { maxItems: 100_000, description: '0-based indexes of the files to save' })),
  overwrite: Type.Optional(Type.Boolean({ description: 'replace existing files (default false)' })),
  transit_path: Type.Optional(Type.String({ maxLength: 4096, description: 'relay folder: downloads land there, then a server-side copy (method `transfer`)' })),
  update_channel: Type.Optional(Type.Boolean({ description: 'record the destination in channels / missing_channels and return the re-encoded seed' })),
  tool: Type.Optional(Type.String({ maxLength: 256, description: 'accepted for OpenList clients; Ferry downloads with its own fetcher' })),
  delete_policy: Type.Optional(Type.String({ maxLength: 256, description: 'accepted for OpenList clients; ignored' })),
  options: Type.Optional(Type.Object({ mode: Type.Optional(Type.String({ maxLength: 64 })), transit_path: Type.Optional(Str) })),
});

const MODES: { mode: SaveMode; summary: string }[] = [
  { mode: 'rapid_upload', summary: 'Rapid upload: copy content already stored (matched by size and hash) into a folder' },
  { mode: 'offline_download', summary: "Offline download of a seed's files from their sources (a task per file)" },
  { mode: 'quick_save', summary: 'Per file: rapid upload, else offline download (or transfer through transit_path), else unavailable' },
];

const DESCRIPTION =
  '`data` = `{results: [{path, name, method, target, error?, task?}]}` (method `rapid_upload`, `offline_download`, `transfer` or `unavailable`); ' +
  'with `update_channel` also `seed_data` (re-encoded in its format) and `seed`. Every landed file is verified against the seed hashes.';

export function seedTransferRoutes(app: HttpApp, deps: SeedsDeps): void {
  const auth = { config: { auth: 'guest' as const }, bodyLimit: LARGE_JSON_BODY_LIMIT };
  const tags = ['seeds'];

  for (const { mode, summary } of MODES) {
    for (const url of [`/api/fs/seed/${mode}`, `/fs/seed/${mode}`]) {
      app.post(url, { ...auth, schema: { tags, hide: !url.startsWith('/api/'), summary, description: DESCRIPTION, body: SaveBody, response: { 200: OkOf(SaveReplySchema) } } }, async (req) =>
        ok(await saveSeedFiles(deps, currentUser(req), req.body, mode, requestOrigin(req))),
      );
    }
  }

  for (const url of ['/api/fs/torrent/rapid_upload', '/fs/torrent/rapid_upload']) {
    app.post(url, {
      ...auth,
      schema: {
        tags,
        hide: !url.startsWith('/api/'),
        summary: 'Legacy: rapid upload of a single-file torrent into a folder (overwrites)',
        body: Type.Object({ torrent_data: Type.String(), path: Str }),
      },
    }, async (req) => {
      const user = currentUser(req);
      const data = req.body.torrent_data;
      if (data.length > MAX_SEED_DATA_CHARS) throw tooLarge(`torrent_data: over ${MAX_SEED_DATA_CHARS} base64 characters`);
      const body = { seed_data: data, format: 'torrent', path: req.body.path, overwrite: true };
      const { seed } = (await readSeedInput(deps, user, body, { allowPath: false })).decoded;
      if (seed.files.length !== 1) throw badRequest('torrent_data: only single-file torrents can be rapid-uploaded here (use /api/fs/seed/rapid_upload)');
      const one = (await saveSeedFiles(deps, user, body, 'rapid_upload', requestOrigin(req))).results[0]!;
      if (one.error !== undefined) throw badRequest(`rapid upload failed: ${one.error}`);
      return ok({ message: '秒传成功', file_name: one.name, file_size: seed.files[0]!.size });
    });
  }
}
