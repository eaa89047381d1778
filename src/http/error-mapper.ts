/**
 * The one place where failures become HTTP replies (contract §2): HTTP status = `code`,
 * unless the `api_errors_http_200` setting asks for HTTP 200 (older OpenList clients).
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isAppError } from '../lib/errors.js';

interface AjvLikeError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

const CONTEXT_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** A plain sentence naming the field, e.g. `body.username is required`. */
export function validationMessage(errors: AjvLikeError[], context: string | undefined): string {
  const where = CONTEXT_NAMES[context ?? 'body'] ?? context ?? 'body';
  const e = errors[0]!;
  const path = e.instancePath.split('/').filter(Boolean).map((s) => (/^\d+$/.test(s) ? `[${s}]` : `.${s}`)).join('');
  const field = `${where}${path}`;
  switch (e.keyword) {
    case 'required':
      return `${field}.${String(e.params.missingProperty)} is required`;
    case 'type':
      return `${field} must be ${String(e.params.type)}`;
    case 'additionalProperties':
      return `${field}.${String(e.params.additionalProperty)} is not allowed`;
    case 'enum':
    case 'const':
      return `${field} must be one of the allowed values`;
    default:
      return `${field} ${e.message ?? 'is invalid'}`;
  }
}

export interface ErrorReply {
  code: number;
  message: string;
  data: Record<string, unknown> | null;
  /** The code to send instead while errors go out as HTTP 200 (OpenList clients), if it differs. Never sent itself. */
  compatCode?: number;
}

/** Maps anything thrown to `{code, message, data}`. */
export function toErrorReply(err: unknown): ErrorReply {
  if (isAppError(err)) return { code: err.code, message: err.replyMessage(), data: err.data, ...(err.compatCode !== null ? { compatCode: err.compatCode } : {}) };
  const fe = err as FastifyError & { validation?: AjvLikeError[]; validationContext?: string };
  if (fe && Array.isArray(fe.validation) && fe.validation.length > 0) {
    return { code: 400, message: validationMessage(fe.validation, fe.validationContext), data: null };
  }
  switch (fe?.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { code: 400, message: `body: malformed JSON (${fe.message})`, data: null };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { code: 413, message: 'body: request body is too large', data: null };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { code: 400, message: `body: unsupported content type`, data: null };
  }
  if (err instanceof SyntaxError && /JSON/.test(err.message)) {
    return { code: 400, message: `body: malformed JSON (${err.message})`, data: null };
  }
  const status = typeof fe?.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) return { code: status, message: fe.message, data: null };
  return { code: 500, message: 'internal server error', data: null };
}

/**
 * Storage errors name paths inside the storage, which for a user with a base path start with
 * it; users see paths relative to their base path, so it is cut out of the message.
 */
export function hideBasePath(body: ErrorReply, basePath: string | undefined): ErrorReply {
  if (!basePath || basePath === '/') return body;
  const message = body.message.split(`${basePath}/`).join('/').split(basePath).join('/');
  return { ...body, message };
}

export interface ErrorMapperOptions {
  /** Whether errors go out with HTTP 200 (the `api_errors_http_200` setting, for older OpenList clients). */
  errorsAsHttp200: () => Promise<boolean>;
  /** The base path of the request's user: cut out of error messages (users see paths relative to it). */
  basePathOf: (req: FastifyRequest) => string | undefined;
  /** Host paths (data dir, storage roots) this request's user must not see in a message (none for admins). */
  hiddenPathsOf: (req: FastifyRequest) => readonly string[];
}

/** Replaces each host path (longest first) in the message by `…`: the last guard against leaking the server's layout. */
export function hideHostPaths(body: ErrorReply, hidden: readonly string[]): ErrorReply {
  let message = body.message;
  for (const p of [...hidden].filter((x) => x.length > 1).sort((a, b) => b.length - a.length)) message = message.split(p).join('…');
  return message === body.message ? body : { ...body, message };
}

export function installErrorMapper(app: FastifyInstance, o: ErrorMapperOptions): void {
  const send = async (reply: FastifyReply, body: ErrorReply) => {
    let compat = false;
    try {
      compat = await o.errorsAsHttp200();
    } catch {
      compat = false;
    }
    // Errors never go through a route's response schema: with HTTP 200 (compat mode)
    // that schema would describe a success and rewrite the body.
    const { compatCode, ...out } = body;
    if (compat && compatCode !== undefined) out.code = compatCode;
    return reply
      .status(compat ? 200 : out.code)
      .type('application/json; charset=utf-8')
      .serializer((p: unknown) => JSON.stringify(p))
      .send(out);
  };
  app.setErrorHandler(async (err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    const body = hideHostPaths(hideBasePath(toErrorReply(err), o.basePathOf(req)), o.hiddenPathsOf(req));
    if (body.code >= 500) req.log.error({ err }, 'request failed');
    return send(reply, body);
  });
  app.setNotFoundHandler(async (req, reply) => send(reply, { code: 404, message: `no route for ${req.method} ${req.url.split('?')[0]}`, data: null }));
}
