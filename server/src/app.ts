// The HTTP surface: fastify routes over the push / pull / galleries modules, authentication
// on every request but /v1/health, rate and size limits, CORS for browsers, and one error
// handler (errors.ts) for everything, so every reply is JSON and no reply carries a stack.
import { randomUUID } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import type { Pool } from 'pg';
import { CursorSchema, GalleryPutSchema, NameSchema, PullQuerySchema, PushRequestSchema, RetentionPutSchema } from '../../src/sync/protocol.ts';
import { Authenticator } from './apps.ts';
import { jsonReply } from './compress.ts';
import type { Config } from './config.ts';
import { transaction } from './db.ts';
import { SyncError, issueMessage, replyWithError } from './errors.ts';
import { listGalleries, putGallery } from './galleries.ts';
import { putRetention } from './retention.ts';
import type { NotifyHub } from './notify.ts';
import { pull } from './pull.ts';
import { AppRateLimit, GlobalRateLimit } from './rate-limit.ts';
import { applyPush } from './push.ts';

declare module 'fastify' {
  interface FastifyRequest {
    appId: string;
  }
}

export interface AppDeps {
  pool: Pool;
  /** a streaming replica for reads (pull, listings); default the primary */
  readPool?: Pool;
  hub: NotifyHub;
  config: Pick<Config, 'SYNC_BODY_LIMIT' | 'SYNC_RATE_LIMIT' | 'SYNC_GLOBAL_RATE_LIMIT' | 'SYNC_IP_RATE_LIMIT' | 'SYNC_MAX_STREAMS' | 'SYNC_CORS_ORIGINS'>;
  /** pino options (main.ts: level SYNC_LOG_LEVEL to stdout); false: silent */
  logger?: FastifyServerOptions['logger'];
}

const HEARTBEAT_MS = 15_000;

/** Every route and its methods: another method on one of these paths is a 405 with `allow`, not a 404. */
const ROUTES: readonly [RegExp, string][] = [
  [/^\/v1\/push$/, 'POST'],
  [/^\/v1\/(pull|galleries|events|health)$/, 'GET, HEAD'],
  [/^\/v1\/galleries\/[^/]+$/, 'PUT'],
];

/** A proxy's request id is kept when it is a plain token (it goes into logs); otherwise a new UUID. */
function requestId(request: { headers: Record<string, string | string[] | undefined> }): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && /^[A-Za-z0-9._:-]{1,128}$/.test(given) ? given : randomUUID();
}

function header(request: FastifyRequest, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = request.headers[name];
    if (typeof value === 'string') return value;
  }
  return undefined;
}

function parsed<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } } }, value: unknown, kind: 'BAD_REQUEST' | 'BAD_CURSOR' = 'BAD_REQUEST', prefix = ''): T {
  const result = schema.safeParse(value);
  if (!result.success) throw new SyncError(kind, prefix + issueMessage(result.error.issues));
  return result.data;
}

export async function buildApp({ pool, readPool = pool, hub, config, logger = false }: AppDeps): Promise<FastifyInstance> {
  // forceCloseConnections: event streams are hijacked sockets that would hold close() open
  const app = Fastify({ logger, disableRequestLogging: true, genReqId: requestId, requestIdLogLabel: 'request_id', bodyLimit: config.SYNC_BODY_LIMIT, trustProxy: true, return503OnClosing: true,
    forceCloseConnections: true,
    // the router's own refusals (a bad URL, a too-long path segment) go through our mapping too
    frameworkErrors: (error, request, reply) => replyWithError(error, request, reply),
  });
  const auth = new Authenticator(pool);
  const origins = config.SYNC_CORS_ORIGINS.split(',').map((o) => o.trim());

  app.setErrorHandler((error, request, reply) => replyWithError(error, request, reply));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0]!;
    const allow = ROUTES.find(([pattern]) => pattern.test(path))?.[1];
    if (allow) void reply.header('allow', allow);
    const error = allow ? new SyncError('METHOD_NOT_ALLOWED', `${path} answers ${allow}, not ${request.method}`) : new SyncError('NOT_FOUND', `no endpoint ${request.method} ${path}`);
    replyWithError(error, request, reply);
  });
  app.decorateRequest('appId', '');

  // CORS by hand (one header set, preflight answered before auth): a browser page on any
  // origin may call the service with its key
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
    const origin = request.headers.origin;
    if (origin && (origins.includes('*') || origins.includes(origin))) {
      void reply.header('access-control-allow-origin', origins.includes('*') ? '*' : origin);
      void reply.header('access-control-allow-headers', 'content-type, app_id, app_key, x-app-id, x-app-key');
      void reply.header('access-control-allow-methods', 'GET, HEAD, POST, PUT, OPTIONS');
      void reply.header('access-control-expose-headers', 'x-request-id, retry-after');
      void reply.header('access-control-max-age', '600');
      void reply.header('cross-origin-resource-policy', 'cross-origin');
    }
    if (request.method === 'OPTIONS') return reply.status(204).send();
  });

  // before authentication: per client address (bounds the scrypt work anyone can ask for)
  await app.register(rateLimit, {
    max: config.SYNC_IP_RATE_LIMIT,
    timeWindow: 60_000,
    keyGenerator: (request) => request.ip,
    errorResponseBuilder: () => new SyncError('RATE_LIMITED', 'too many requests from this address; slow down'),
    allowList: (request) => request.url === '/v1/health',
  });
  // after it: per app (rate-limit.ts says why not before)
  const perApp = new AppRateLimit(config.SYNC_RATE_LIMIT);
  const global = config.SYNC_GLOBAL_RATE_LIMIT > 0 ? new GlobalRateLimit(pool, config.SYNC_GLOBAL_RATE_LIMIT) : undefined;

  app.addHook('preHandler', async (request) => {
    if (request.routeOptions.url === '/v1/health' || request.method === 'OPTIONS') return;
    request.appId = await auth.authenticate(header(request, 'app_id', 'x-app-id'), header(request, 'app_key', 'x-app-key'));
    perApp.take(request.appId);
    await global?.take(request.appId);
  });

  app.get('/v1/health', async () => {
    await pool.query('select 1');
    return { ok: true };
  });

  app.post('/v1/push', async (request) => {
    const body = parsed(PushRequestSchema, request.body);
    const results = await transaction(pool, (db) => applyPush(db, request.appId, body.changes));
    return { results };
  });

  app.get('/v1/pull', async (request, reply) => jsonReply(request, reply, await pullReply(request)));

  async function pullReply(request: FastifyRequest) {
    const query = request.query as Record<string, unknown>;
    if (query.after !== undefined) parsed(CursorSchema, query.after, 'BAD_CURSOR', 'after: ');
    const q = parsed(PullQuerySchema, query, 'BAD_REQUEST');
    const galleries = q.galleries?.split(',').filter(Boolean);
    for (const g of galleries ?? []) parsed(NameSchema, g, 'BAD_REQUEST', 'galleries: ');
    try {
      return await pull(readPool, request.appId, q.after, q.limit, galleries);
    } catch (error) {
      // a lagging replica may not have reached the cursor yet: only the primary may say it is ahead
      if (readPool === pool || !(error instanceof SyncError && error.kind === 'CURSOR_AHEAD')) throw error;
      return pull(pool, request.appId, q.after, q.limit, galleries);
    }
  }

  // listings may lag on a replica: a gallery just PUT is read back from the primary (putGallery)
  app.get('/v1/galleries', async (request) => ({ galleries: await listGalleries(readPool, request.appId) }));

  app.put('/v1/galleries/:gallery', async (request) => {
    const gallery = parsed(NameSchema, (request.params as { gallery: string }).gallery, 'BAD_REQUEST', 'gallery: ');
    const body = parsed(GalleryPutSchema, request.body);
    return putGallery(pool, request.appId, gallery, body.encryption);
  });

  // retention the service enforces itself (retention.ts): { days } or { days: null }
  app.put('/v1/galleries/:gallery/retention', async (request) => {
    const gallery = parsed(NameSchema, (request.params as { gallery: string }).gallery, 'BAD_REQUEST', 'gallery: ');
    return putRetention(pool, request.appId, gallery, parsed(RetentionPutSchema, request.body).days);
  });

  // Server-sent events: "change" events carry the newest seq (or 0 after a lost connection
  // to PostgreSQL: pull anyway). fetch() reads them (headers carry the key; EventSource can't).
  app.get('/v1/events', async (request, reply) => {
    const streamHeaders = { 'content-type': 'text/event-stream', 'cache-control': 'no-store' };
    // HEAD: the stream's headers, no stream (a hijacked HEAD would never end)
    if (request.method === 'HEAD') return reply.headers(streamHeaders).send();
    if (hub.count(request.appId) >= config.SYNC_MAX_STREAMS) throw new SyncError('RATE_LIMITED', 'too many open event streams');
    const raw = reply.raw;
    reply.hijack();
    raw.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>), // CORS and x-request-id from onRequest
      ...streamHeaders,
      connection: 'keep-alive',
      'x-accel-buffering': 'no', // nginx: do not buffer the stream
    });
    raw.write('retry: 1000\n: ready\n\n');
    const unsubscribe = hub.subscribe(request.appId, (seq) => raw.write(`event: change\ndata: {"seq":${seq}}\n\n`));
    const heartbeat = setInterval(() => raw.write(': ping\n\n'), HEARTBEAT_MS);
    const end = () => {
      clearInterval(heartbeat);
      unsubscribe();
    };
    raw.on('close', end);
    raw.on('error', end);
  });

  return app;
}
