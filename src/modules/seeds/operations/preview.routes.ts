/**
 * Seed preview operations (contract §10.5) at `/api/fs/seed/<op>` and `/fs/seed/<op>`:
 * `parse`, `upload_parse` (multipart `seed`), `convert`, `diagnose`, `update`, `update_channels`;
 * plus the legacy `/api/fs/torrent/parse` (`torrent_data`) and `/api/fs/torrent/upload_parse`
 * (multipart `torrent`), which answer the same preview with OpenList's legacy fields added.
 */
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { SeedsDeps } from '../seeds.deps.js';
import { OkOf, ok } from '../../../http/envelope.js';
import { ConvertReplySchema, DiagnoseReplySchema, PreviewSchema, UpdateReplySchema, UploadPreviewSchema } from '../seeds.schemas.js';
import { LARGE_JSON_REPLIES } from '../../../http/json-body.js';
import type { HttpApp } from '../../../http/types.js';
import { badRequest } from '../../../lib/errors.js';
import type { User } from '../../users/user.model.js';
import { CAS_SLICE_SIZE, MAX_SEED_DOC_BYTES, decodeAny, diagnose, fileCasSliceMd5, parseSeedFormat, pieceCount, type DecodedSeed } from '../formats/index.js';
import { UpdateBody, UpdateChannelsBody, applyEdits, type UpdateBodyT } from './edit.js';
import { SeedInputFields, readSeedInput, type SeedInput } from './input.js';
import { encodeOutput, saveSeedFile, targetFormat, torrentLayout } from './output.js';
import { buildPreview } from './preview.js';
import { recalculateSeed } from './recalc.js';
import { requireReadablePath } from './locate.js';
import { sourceContext } from './source-rules.js';
import { currentUser } from '../../auth/principal.js';
import { userPath } from '../../fs/access.js';
import { seedStep, seedStepAsync } from '../common/fields.js';
import { analyzeModel, analyzeSeed } from '../common/seed-analysis.js';
import { keptWebSeeds } from '../common/web-seeds.js';

const tags = ['seeds'];
const auth = { config: { auth: 'guest' as const }, ...LARGE_JSON_REPLIES };
const urls = (op: string, legacy = false) => [`/api/fs/seed/${op}`, `/fs/seed/${op}`, ...(legacy ? [`/api/fs/torrent/${op}`, `/fs/torrent/${op}`] : [])];

const ParseBody = Type.Object({
  ...SeedInputFields,
  torrent_data: Type.Optional(Type.String({ description: 'legacy alias of seed_data' })),
  data_path: Type.Optional(Type.String({ maxLength: 4096, description: 'folder holding the seed’s files (for recalculation); default: the sidecar’s folder' })),
});
const ConvertBody = Type.Object({
  ...SeedInputFields,
  target_format: Type.Optional(Type.String({ maxLength: 32 })),
  output_path: Type.Optional(Type.String({ maxLength: 4096 })),
  save_path: Type.Optional(Type.String({ maxLength: 4096 })),
  overwrite: Type.Optional(Type.Boolean()),
});
const DiagnoseBody = Type.Object(SeedInputFields);

/** OpenList's legacy torrent-parse fields (name, piece_length, piece_count, has_cas, cas). */
function legacyInfo(d: DecodedSeed) {
  const s = d.seed;
  const total = s.files.reduce((n, f) => n + f.size, 0);
  const single = s.files.length === 1 ? s.files[0]! : undefined;
  const slice = single?.hashes.md5 ? fileCasSliceMd5(single, s.piece_size) : null;
  return {
    name: s.name,
    total_size: total,
    piece_length: d.torrent_pieces?.pieceSize ?? s.piece_size,
    piece_count: d.torrent_pieces ? d.torrent_pieces.hashes.length / 20 : pieceCount(total, s.piece_size),
    info_hash: d.info_hash ?? null,
    files: s.files.map((f) => ({ path: f.path, size: f.size })),
    has_cas: slice !== null,
    ...(slice !== null ? { cas: { file_md5: single!.hashes.md5!.toUpperCase(), slice_md5: slice, slice_size: CAS_SLICE_SIZE, cloud: single!.cas_cloud || '189' } } : {}),
  };
}

async function preview(deps: Pick<SeedsDeps, 'fs' | 'links' | 'settings' | 'shares' | 'folderAccess'>, req: FastifyRequest, user: User, input: Pick<SeedInput, 'decoded' | 'stored' | 'conversions' | 'diagnostics'>, dataPath?: string) {
  const full = dataPath?.trim() ? seedStep('data_path', () => userPath(user, dataPath)) : undefined;
  if (full !== undefined) await requireReadablePath(deps, user, full, 'data_path');
  return buildPreview(deps, user, input, { sctx: await sourceContext(deps, req), dataPath: full });
}

/** Reads the multipart body: the file in field `seed` (or `torrent`), plus `format`/`file_name`/`data_path` fields. */
async function readUpload(req: FastifyRequest): Promise<{ bytes: Buffer; fileName?: string; fields: Record<string, string> }> {
  if (!req.isMultipart()) throw badRequest('body: multipart/form-data with a "seed" file field is required');
  const fields: Record<string, string> = {};
  let file: { bytes: Buffer; fileName?: string } | undefined;
  for await (const part of req.parts()) {
    if (part.type === 'field') {
      if (typeof part.value === 'string') fields[part.fieldname] = part.value;
      continue;
    }
    const chunks: Buffer[] = [];
    for await (const c of part.file) chunks.push(c as Buffer);
    if (part.file.truncated) throw badRequest(`${part.fieldname}: the seed file is larger than ${MAX_SEED_DOC_BYTES} bytes`, { field: part.fieldname });
    if (part.fieldname !== 'seed' && part.fieldname !== 'torrent') continue;
    file = { bytes: Buffer.concat(chunks), fileName: part.filename || undefined };
  }
  if (!file) throw badRequest('seed: multipart field "seed" (a .oss, .torrent or .cas file) is required', { field: 'seed' });
  if (file.bytes.length === 0) throw badRequest('seed: the uploaded file is empty', { field: 'seed' });
  return { ...file, fields };
}

export function seedPreviewRoutes(app: HttpApp, deps: SeedsDeps): void {
  for (const url of urls('parse', true)) {
    const legacy = url.includes('/torrent/');
    app.post(url, {
      ...auth,
      schema: {
        tags,
        hide: url !== '/api/fs/seed/parse',
        ...(legacy ? {} : { response: { 200: OkOf(PreviewSchema) } }),
        summary: 'Preview a seed (seed_data base64, or path of a stored sidecar)',
        description:
          '`data` = `{format, seed, name, comment, trackers, channels, missing_channels, files, total_size, info_hash, torrent_pieces, path, diagnostics, ' +
          'conversions {oss|torrent|cas: {feasible, missing, reasons}}, capabilities {rapid_upload|offline_download|transfer|convert|edit|recalculate: {available, reason?}}, direct_preview}`.',
        body: ParseBody,
      },
    }, async (req) => {
      const user = currentUser(req);
      const body = { ...req.body, seed_data: req.body.seed_data ?? req.body.torrent_data };
      const input = await readSeedInput(deps, user, body);
      const p = await preview(deps, req, user, input, req.body.data_path);
      return ok(legacy ? { ...p, ...legacyInfo(input.decoded), files: p.files } : p);
    });
  }

  void app.register(async (scope) => {
    await scope.register(multipart, { limits: { files: 1, fileSize: MAX_SEED_DOC_BYTES, fields: 10, parts: 11 }, throwFileSizeLimit: false });
    for (const url of urls('upload_parse', true)) {
      const legacy = url.includes('/torrent/');
      scope.post(url, {
        ...auth,
        schema: { tags, hide: url !== '/api/fs/seed/upload_parse', ...(legacy ? {} : { response: { 200: OkOf(UploadPreviewSchema) } }), summary: 'Preview an uploaded seed file (multipart field "seed", ≤ 10 MiB)', description: 'The parse result plus `seed_data` (base64 of the file) and `file_name`.' },
      }, async (req) => {
        const user = currentUser(req);
        const up = await readUpload(req);
        const format = up.fields.format?.trim() ? seedStep('format', () => parseSeedFormat(up.fields.format)) : undefined;
        const fileName = up.fields.file_name?.trim() || up.fileName;
        const analysis = await seedStepAsync('seed', async () => analyzeSeed(up.bytes, { filename: fileName, format, maxFiles: await deps.settings.getNumber('seed_max_files') }));
        const { decoded } = analysis;
        const p = await preview(deps, req, user, analysis, up.fields.data_path);
        const seedData = up.bytes.toString('base64');
        if (!legacy) return ok({ ...p, seed_data: seedData, file_name: fileName ?? null });
        const info = legacyInfo(decoded);
        return ok({ ...p, ...info, files: p.files, info, torrent_data: seedData, seed_data: seedData, file_name: fileName ?? null });
      });
    }
  });

  for (const url of urls('convert')) {
    app.post(url, {
      ...auth,
      schema: {
        tags,
        hide: url !== '/api/fs/seed/convert',
        response: { 200: OkOf(ConvertReplySchema) },
        summary: 'Re-encode a seed in another container (when its data allows); optionally save it',
        description:
          'Input: `seed_data` (then `path` is where to save the result), or `path` of a stored sidecar (then save with `output_path`). ' +
          'The target is `target_format` (or `format`); infeasible → 400 with `data.missing`. `data` = `{convertible, format, file_name, seed_data, size, path?}`.',
        body: ConvertBody,
      },
    }, async (req) => {
      const user = currentUser(req);
      const b = req.body;
      const input = await readSeedInput(deps, user, b, { formatIsSource: false });
      const format = targetFormat(b);
      const layout = torrentLayout(input);
      const webSeeds = keptWebSeeds(await deps.settings.getBool('seed_web_seeds'), input.decoded.seed, layout, input.decoded.web_seeds);
      const out = encodeOutput(input.decoded.seed, format, { pieces: input.decoded.torrent_pieces, layout, webSeeds });
      const hasData = Boolean(b.seed_data?.trim());
      const target = b.output_path?.trim() || b.save_path?.trim() || (hasData ? b.path?.trim() : undefined);
      const saved = target ? await saveSeedFile(deps, user, target, out.fileName, out.data, { overwrite: b.overwrite ?? true, field: b.output_path?.trim() ? 'output_path' : b.save_path?.trim() ? 'save_path' : 'path' }) : undefined;
      return ok({ convertible: true, format, file_name: out.fileName, name: out.fileName, seed_data: out.data.toString('base64'), size: out.data.length, ...(saved ? { path: saved } : {}) });
    });
  }

  for (const url of urls('diagnose')) {
    app.post(url, {
      ...auth,
      schema: {
        tags,
        hide: url !== '/api/fs/seed/diagnose',
        response: { 200: OkOf(DiagnoseReplySchema) },
        summary: 'What each container lacks or would lose for a seed',
        description: '`data` = `{format, diagnostics: [{level, code, message, format?, file?}], oss: string[], torrent: string[], cas: string[]}` (the per-format lists name what blocks that conversion).',
        body: DiagnoseBody,
      },
    }, async (req) => {
      const input = await readSeedInput(deps, currentUser(req), req.body);
      const { diagnostics } = input;
      const blocking = (f: string) => diagnostics.filter((d) => d.format === f && d.level === 'error').map((d) => (d.file ? `${d.file}: ${d.message}` : d.message));
      return ok({ format: input.decoded.format, diagnostics, oss: blocking('oss'), torrent: blocking('torrent'), cas: blocking('cas') });
    });
  }

  const update = async (req: FastifyRequest, body: Partial<UpdateBodyT>) => {
    const user = currentUser(req);
    const input = await readSeedInput(deps, user, body, { formatIsSource: false });
    const format = targetFormat(body, input.decoded.format);
    const sctx = await sourceContext(deps, req);
    const edited = applyEdits(input.decoded.seed, body, sctx);
    let seed = edited.seed;
    // The input's v1 piece stream still applies while the file set and piece size are unchanged.
    let pieces = edited.removed.length === 0 ? input.decoded.torrent_pieces : undefined;
    let recalculated: { path: string; bytes_read: number } | undefined;
    if (body.recalculate) {
      const r = await recalculateSeed(deps, user, seed, body.recalculate, format);
      seed = r.seed;
      pieces = r.pieces;
      recalculated = { path: r.root, bytes_read: r.bytesRead };
    }
    const layout = torrentLayout(input);
    const webSeeds = keptWebSeeds(await deps.settings.getBool('seed_web_seeds'), seed, layout, input.decoded.web_seeds);
    const out = encodeOutput(seed, format, { pieces, layout, webSeeds });
    const dropped = (await analyzeModel(seed, format, pieces)).diagnostics.filter((d) => d.format === format && d.code.startsWith(`${format}.drops_`)).map((d) => d.message);
    const target = body.output_path?.trim() || body.save_path?.trim();
    const saved = target ? await saveSeedFile(deps, user, target, out.fileName, out.data, { overwrite: body.overwrite ?? true, field: body.output_path?.trim() ? 'output_path' : 'save_path' }) : undefined;
    const analysis = await seedStepAsync('seed', async () => analyzeSeed(out.data, { format, maxFiles: await deps.settings.getNumber('seed_max_files') }));
    const p = await buildPreview(deps, user, { ...analysis, stored: input.stored }, { sctx });
    return ok({ ...p, seed_data: out.data.toString('base64'), file_name: out.fileName, size: out.data.length, dropped, removed: edited.removed, recalculated: recalculated ?? null, ...(saved ? { path: saved, saved: true } : { saved: false }) });
  };

  for (const url of urls('update')) {
    app.post(url, {
      ...auth,
      schema: {
        tags,
        hide: url !== '/api/fs/seed/update',
        response: { 200: OkOf(UpdateReplySchema) },
        summary: 'Edit a seed: comment, trackers, channels, per-file comments and sources, remove files, recalculate from stored files',
        description:
          'The input is `seed_data` or `path` (a stored sidecar); `format`/`target_format` name the output container (default: the input’s). ' +
          '`data` = the parse result of the new seed plus `{seed_data, file_name, size, dropped, removed, recalculated, saved, path?}`.',
        body: UpdateBody,
      },
    }, async (req) => update(req, req.body));
  }

  for (const url of urls('update_channels')) {
    app.post(url, {
      ...auth,
      schema: {
        tags,
        hide: url !== '/api/fs/seed/update_channels',
        response: { 200: OkOf(UpdateReplySchema) },
        summary: 'Replace a seed’s channels and per-file missing channels',
        description: '`missing_channels`: a list (every file) or `{seed path: [driver, …]}`. `data` as for update.',
        body: UpdateChannelsBody,
      },
    }, async (req) => update(req, { ...req.body }));
  }
}
