/** `PUT|POST /api/fs/put` (raw body) and `/api/fs/form` (multipart field `file`), also at `/fs/…`. */
import multipart from '@fastify/multipart';
import type { Readable } from 'node:stream';
import { OkOf, ok } from '../../http/envelope.js';
import { UploadResultSchema } from './fs.schemas.js';
import type { HttpApp } from '../../http/types.js';
import { badRequest, isAppError } from '../../lib/errors.js';
import { parseUploadHeaders, type UploadService, type UploadSpec } from './upload.service.js';

export interface UploadRouteDeps {
  uploads: UploadService;
  /** Folder rules: whether the user may write in the target folder (bit 3, or a meta write bypass). */
  folderAccess: Pick<FolderAccess, 'requireWriteIn' | 'requireChange'>;
}

/** The upload's headers, the right to write in its folder (bit 3 or a meta's write grant), and a name not hidden from the user. */
async function uploadSpec(req: FastifyRequest, access: UploadRouteDeps['folderAccess'], sizeFromContentLength: boolean): Promise<UploadSpec> {
  const user = currentUser(req);
  const spec = parseUploadHeaders(req, user, { sizeFromContentLength, writeChecked: true });
  await access.requireWriteIn(user, parentOf(spec.full));
  await access.requireChange(user, null, [spec.full]);
  return spec;
}
import { currentUser } from '../auth/principal.js';
import type { FastifyRequest } from 'fastify';
import { parentOf } from '../../lib/paths.js';
import type { FolderAccess } from './access.js';
import { presentTask } from '../tasks/tasks.present.js';

const UPLOAD_HEADERS_DOC =
  'Headers: File-Path (URL-encoded), Overwrite (default true), As-Task or ?as_task=true, Content-Length or X-File-Size, ' +
  'Last-Modified (Unix ms), If-Match (the ETag as /d/ gives it: 412 when it changed), X-File-Md5|Sha1|Sha256 (a mismatch fails the upload). The file appears only when complete. ' +
  'Sidecars (contract §10.4): X-Seed-Sidecars (oss,torrent,cas), X-Generate-Seed (on|off|inherit), X-Seed-Format, ' +
  'X-Seed-Piece-Size (bytes), X-Seed-Hash-Matrix (JSON, raw or URL-encoded); written beside the file as <name>.<format>, all or nothing.';

export function uploadRoutes(app: HttpApp, { uploads, folderAccess }: UploadRouteDeps): void {
  const finish = async (spec: UploadSpec, body: Readable, req: Parameters<typeof currentUser>[0]) => {
    if (spec.asTask) {
      const task = await uploads.spool(currentUser(req), spec, body);
      return ok({ task: presentTask(task, currentUser(req).username) });
    }
    await uploads.store(spec, body);
    return ok(null);
  };

  // Raw body: the request stream goes to the storage untouched (no parser buffers it).
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null));
    for (const url of ['/api/fs/put', '/fs/put']) {
      scope.route({
        method: ['PUT', 'POST'],
        url,
        config: { auth: 'guest' },
        schema: { tags: ['fs'], summary: 'Streamed upload (raw body)', description: UPLOAD_HEADERS_DOC, hide: url.startsWith('/fs'), response: { 200: OkOf(UploadResultSchema) } },
        handler: async (req) => {
          const spec = await uploadSpec(req, folderAccess, true);
          await uploads.planCompanions(req.headers, spec);
          return finish(spec, req.raw, req);
        },
      });
    }
  });

  void app.register(async (scope) => {
    await scope.register(multipart, { limits: { files: 1, fileSize: Number.MAX_SAFE_INTEGER, fields: 20 } });
    for (const url of ['/api/fs/form', '/fs/form']) {
      scope.route({
        method: ['PUT', 'POST'],
        url,
        config: { auth: 'guest' },
        schema: { tags: ['fs'], summary: 'Multipart upload (field "file")', description: UPLOAD_HEADERS_DOC, hide: url.startsWith('/fs'), response: { 200: OkOf(UploadResultSchema) } },
        handler: async (req) => {
          const spec = await uploadSpec(req, folderAccess, false);
          if (!req.isMultipart()) throw badRequest('body: multipart/form-data with a "file" field is required');
          const part = await req.file().catch((e: Error & { statusCode?: number }) => {
            // the multipart parser's own faults (no boundary, broken headers) are the client's: 400, not 500
            throw isAppError(e) || e.statusCode !== undefined ? e : badRequest(`body: malformed multipart body (${e.message})`);
          });
          if (!part || part.fieldname !== 'file') throw badRequest('body: multipart field "file" is required');
          // A form field `as_task` sent before the file counts like the header and query.
          const field = part.fields.as_task;
          const asTaskField = field && !Array.isArray(field) && field.type === 'field' ? String(field.value) : undefined;
          if (asTaskField === 'true') spec.asTask = true;
          await uploads.planCompanions(req.headers, spec);
          return finish(spec, part.file, req);
        },
      });
    }
  });
}
