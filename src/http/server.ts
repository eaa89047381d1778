/**
 * The HTTP kit's server: Fastify with TypeBox validation, the one error mapper, the auth hook, body and
 * header timeouts, the OpenAPI document (`/api/openapi.json`, error replies included) and `/ping`. It knows
 * no module: the composition root (src/app/http.ts) mounts every module's routes on what this returns.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import type { IncomingMessage } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { installAuthHook, type AuthGuard } from './auth-hook.js';
import { ErrorEnvelope } from './envelope.js';
import { installErrorMapper } from './error-mapper.js';
import { installJsonParser, JSON_BODY_LIMIT } from './json-body.js';
import type { HttpApp } from './types.js';
import { validatorCompiler } from './validation.js';


export interface HttpServerOptions {
  logger: Logger;
  logLevel: string;
  /** Fastify's `trustProxy`: whom to believe about the client address. */
  trustProxy: false | number | string[];
  headersTimeoutMs: number;
  /** A request body that sends nothing for this long loses its connection (0 = off). */
  bodyIdleTimeoutMs: number;
  /** Log event-loop delay percentiles when the server closes. */
  eventLoopStats: boolean;
  /** Shown in the OpenAPI document. */
  version: string;
  /** Whether JSON errors go out with HTTP 200 (`api_errors_http_200`). */
  errorsAsHttp200: () => Promise<boolean>;
  /** Authenticates a request for its route's auth level. */
  guard: AuthGuard;
  /** The base path of the request's user (cut out of error messages). */
  basePathOf: (req: FastifyRequest) => string | undefined;
  /** Host paths the request's user must not see in error messages. */
  hiddenPathsOf: (req: FastifyRequest) => readonly string[];
}

/**
 * Slow bodies (slowloris): while a request body is arriving, its connection is cut after
 * `ms` without a byte (the upload aborts and cleans up). Only inactivity counts: a 1 GiB
 * upload may take as long as it needs. The socket's own timeout is restored at the body's end.
 */
function installBodyIdleTimeout(app: HttpApp, ms: number): void {
  if (ms <= 0) return;
  // callback style (no promise per request): this runs for every request
  app.addHook('onRequest', (req, _reply, done) => {
    guardBodyIdle(app, req.raw, ms);
    done();
  });
}

/** Arms the body idle timeout for a request whose body is still to come. */
function guardBodyIdle(app: HttpApp, raw: IncomingMessage, ms: number): void {
  const hasBody = raw.headers['transfer-encoding'] !== undefined || Number(raw.headers['content-length'] ?? 0) > 0;
  if (!hasBody || raw.complete) return;
  const socket = raw.socket;
  // light-my-request's fake socket (app.inject) has no timeouts: nothing to guard there
  if (typeof socket?.setTimeout !== 'function') return;
  socket.setTimeout(ms); // on expiry, with no 'timeout' listener, node:http destroys the socket
  // Only the client's silence counts: while the server itself holds the body back (a slow
  // storage applying back-pressure pauses the request stream) the timer is off.
  const paused = () => {
    if (!socket.destroyed && !raw.complete) socket.setTimeout(0);
  };
  const resumed = () => {
    if (!socket.destroyed && !raw.complete) socket.setTimeout(ms);
  };
  raw.on('pause', paused);
  raw.on('resume', resumed);
  const restore = () => {
    raw.off('pause', paused);
    raw.off('resume', resumed);
    if (!socket.destroyed) socket.setTimeout(app.server.timeout);
  };
  raw.once('end', restore);
  raw.once('close', restore);
}

/** Bodies up to this size are read (and dropped) before an early error reply goes out. */
const DRAIN_LIMIT = 64 * 1024 * 1024;
/** After such a reply on a connection being closed: how long, and how many bytes, to go on reading and dropping. */
const LINGER_MS = 5000;
const LINGER_BYTES = 8 * 1024 * 1024;

/**
 * An error answered before the request body was read (401, 403, 413 …). A client still sending would otherwise
 * race the reply: closing a connection with unread bytes in it makes the kernel send a reset, which can destroy
 * the reply before the client reads it. So a body of known size up to DRAIN_LIMIT is read and dropped first
 * (the body idle timeout still applies); a chunked or larger body is not read at all: the reply closes the
 * connection (keeping it would make node:http read and discard the rest, whatever its size).
 */
function installUnreadBodyHandling(app: HttpApp): void {
  // callback style (no promise per reply): this runs for every reply
  app.addHook('onSend', (req, reply, payload, next) => {
    const raw = req.raw;
    if (reply.statusCode < 400 || raw.complete || raw.readableEnded || raw.destroyed) return next(null, payload);
    const declared = Number(raw.headers['content-length'] ?? NaN);
    if (raw.headers['transfer-encoding'] === undefined && Number.isFinite(declared) && declared <= DRAIN_LIMIT) {
      const done = () => {
        raw.off('end', done);
        raw.off('close', done);
        raw.off('error', done);
        next(null, payload);
      };
      raw.on('end', done);
      raw.on('close', done);
      raw.on('error', done);
      raw.resume();
      return;
    }
    reply.header('connection', 'close');
    lingerAfterReply(raw);
    next(null, payload);
  });
}

/**
 * A lingering close (as nginx does) for a connection closed after an early error reply: node:http closes the
 * socket once the reply is written, and a close with the client's bytes still unread makes the kernel send a
 * reset that can destroy the reply before the client reads it. Instead the socket is half-closed (FIN after the
 * reply) and what the client still sends is read and dropped until it hangs up, for at most LINGER_MS and
 * LINGER_BYTES; then it is destroyed.
 */
function lingerAfterReply(raw: IncomingMessage): void {
  const socket = raw.socket;
  raw.resume(); // the body is dropped as it comes, never buffered
  socket.destroySoon = () => {
    let dropped = 0;
    const kill = () => socket.destroy();
    const timer = setTimeout(kill, LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    socket.once('end', kill);
    socket.on('data', (c: Buffer) => {
      dropped += c.length;
      if (dropped > LINGER_BYTES) kill();
    });
    socket.end();
    socket.resume();
  };
}

/**
 * FERRY_EVENT_LOOP_STATS: event-loop delay percentiles (ms) between listening and closing, logged when the
 * server closes. The histogram records the time between 10 ms samples; the sampling interval is taken off.
 */
function installEventLoopStats(app: HttpApp, logger: Logger): void {
  const RESOLUTION_MS = 10;
  const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  // from the moment the server listens: start-up (module loading, route schemas compiled) is not serving
  app.addHook('onListen', async () => h.enable());
  app.addHook('onClose', async () => {
    h.disable();
    const ms = (ns: number) => Math.max(0, Math.round(ns / 1e4 - RESOLUTION_MS * 100) / 100);
    logger.info(
      { event_loop_delay_ms: { min: ms(h.min), mean: ms(h.mean), p50: ms(h.percentile(50)), p90: ms(h.percentile(90)), p99: ms(h.percentile(99)), max: ms(h.max) }, samples: h.count },
      'event loop delay',
    );
  });
}

/** Every documented route also documents the error envelope (4xx and 5xx). */
function documentErrors(app: HttpApp): void {
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ??= {}) as { hide?: boolean; response?: Record<string, unknown> };
    if (schema.hide) return;
    schema.response = { ...(schema.response ?? {}), '4xx': ErrorEnvelope, '5xx': ErrorEnvelope };
  });
}

function trustHops(n: number): (addr: string, hop: number) => boolean {
  return (_addr, hop) => hop < n;
}

export async function createHttpServer(o: HttpServerOptions): Promise<HttpApp> {
  const app = Fastify({
    loggerInstance: o.logger as FastifyBaseLogger,
    // a hop count trusts the N nearest hops (what proxy-addr does for a number; Fastify's types take a function)
    trustProxy: typeof o.trustProxy === 'number' ? trustHops(o.trustProxy) : o.trustProxy,
    bodyLimit: JSON_BODY_LIMIT,
    // No total request time limit (large uploads); slow headers time out, slow bodies idle out.
    requestTimeout: 0,
    http: { headersTimeout: o.headersTimeoutMs, connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(o.headersTimeoutMs / 4))) },
    logController: new LogController({ disableRequestLogging: o.logLevel !== 'debug' && o.logLevel !== 'trace' }),
    ajv: { customOptions: { coerceTypes: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  installJsonParser(app);
  // No response is ever sniffed into another type (a JSON error echoing a name must not become HTML).
  app.addHook('onRequest', (_req, reply, done) => {
    reply.header('X-Content-Type-Options', 'nosniff');
    done();
  });
  app.decorateRequest('principal', null);
  installErrorMapper(app, { errorsAsHttp200: o.errorsAsHttp200, basePathOf: o.basePathOf, hiddenPathsOf: o.hiddenPathsOf });
  installAuthHook(app, o.guard);
  installBodyIdleTimeout(app, o.bodyIdleTimeoutMs);
  installUnreadBodyHandling(app);
  if (o.eventLoopStats) installEventLoopStats(app, o.logger);

  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Ferry', version: o.version, description: 'Self-hosted file manager with transfer seeds. Every JSON reply is `{code, message, data}`.' },
      components: { securitySchemes: { token: { type: 'apiKey', in: 'header', name: 'Authorization' } } },
      security: [{ token: [] }],
    },
  });
  documentErrors(app);
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  app.get('/ping', { schema: { hide: true } }, async (_req, reply) => reply.type('text/plain').send('pong'));
  return app;
}
