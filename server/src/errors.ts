// Every failure the service reports, as typed values, and the one place that maps them (and
// anything else thrown, fastify's own errors included) to an HTTP status and a JSON error body.
// No reply ever carries a stack or a driver message: unknown failures are logged and answered
// with a generic 500 body.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorBody, ErrorInfo } from '../../src/sync/protocol.ts';

export const SYNC_ERRORS = {
  UNAUTHORIZED: { status: 401, message: 'missing or wrong app_id/app_key' },
  BAD_REQUEST: { status: 400, message: 'the request is malformed' },
  BAD_CURSOR: { status: 400, message: 'the cursor is not a server sequence number' },
  CURSOR_AHEAD: { status: 409, message: 'the cursor is ahead of this server: its database was reset or restored; pull again from 0' },
  BODY_TOO_LARGE: { status: 413, message: 'the request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'the body must be application/json' },
  NOT_FOUND: { status: 404, message: 'no such endpoint' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'method not allowed' },
  RATE_LIMITED: { status: 429, message: 'too many requests; slow down' },
  DATABASE_UNAVAILABLE: { status: 503, message: 'the database is unavailable; retry later' },
  INTERNAL: { status: 500, message: 'internal error' },
  // per-change rejections inside a push reply (the push itself answers 200)
  MODEL_MISMATCH: { status: 422, message: 'the template was made by another embedding model than the gallery holds' },
  ENCRYPTION_MISMATCH: { status: 422, message: 'the gallery is end-to-end encrypted and the template is not, or the other way round' },
  TEMPLATE_NOT_FOUND: { status: 404, message: 'no such template in this app' },
  DUPLICATE_TEMPLATE: { status: 409, message: 'the template id is already used by another change' },
  GALLERY_EXISTS: { status: 409, message: 'the gallery exists with other encryption settings' },
} as const;

export type SyncErrorKind = keyof typeof SYNC_ERRORS;

export class SyncError extends Error {
  constructor(
    readonly kind: SyncErrorKind,
    message: string = SYNC_ERRORS[kind].message,
  ) {
    super(message);
  }

  get info(): ErrorInfo {
    return { code: this.kind, message: this.message };
  }
}

/** PostgreSQL connection-level failures: the client should retry, nothing was decided. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004']);

function isConnectionFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : '';
  return (typeof code === 'string' && CONNECTION_CODES.has(code)) || /Connection terminated|connection timeout|Client has encountered a connection error/i.test(message);
}

/** fastify's own error codes → ours */
function fromFastify(error: FastifyError): SyncError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new SyncError('BODY_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new SyncError('UNSUPPORTED_MEDIA_TYPE');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new SyncError('BAD_REQUEST', 'the body is empty; expected a JSON object');
    case 'FST_ERR_MAX_PARAM_LENGTH':
    case 'FST_ERR_BAD_URL':
      return new SyncError('BAD_REQUEST', 'the URL is malformed or a path segment is too long');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new SyncError('BAD_REQUEST', 'the body is not valid JSON');
    default:
      break;
  }
  if (error instanceof SyntaxError) return new SyncError('BAD_REQUEST', 'the body is not valid JSON');
  if (error.statusCode === 429) return new SyncError('RATE_LIMITED');
  if (error.statusCode === 413) return new SyncError('BODY_TOO_LARGE');
  if (error.statusCode === 415) return new SyncError('UNSUPPORTED_MEDIA_TYPE');
  if (error.statusCode === 404) return new SyncError('NOT_FOUND');
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) return new SyncError('BAD_REQUEST', 'the request is malformed');
  return undefined;
}

export function toSyncError(error: unknown): SyncError {
  if (error instanceof SyncError) return error;
  if (isConnectionFailure(error)) return new SyncError('DATABASE_UNAVAILABLE');
  const fromFramework = typeof error === 'object' && error !== null && 'code' in error ? fromFastify(error as FastifyError) : undefined;
  return fromFramework ?? new SyncError('INTERNAL');
}

export function errorBody(error: SyncError): ErrorBody {
  return { error: error.info };
}

/**
 * What a log line says of a failure: its type, driver code, message (cut: a driver message may
 * quote a value, and values may be biometric) and stack frames — never the request's body.
 */
function loggable(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { type: typeof error };
  const code = (error as { code?: unknown }).code;
  return { type: error.name, ...(typeof code === 'string' ? { code } : {}), message: error.message.slice(0, 200), stack: error.stack?.split('\n').slice(1, 8).join('\n') };
}

/** fastify's error handler: the only place a failure becomes a reply. Every 5xx is logged with the request's id, which the reply carries too. */
export function replyWithError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const mapped = toSyncError(error);
  const status = SYNC_ERRORS[mapped.kind].status;
  void reply.header('x-request-id', request.id);
  if (status >= 500) {
    request.log.error({ err: loggable(error), method: request.method, route: request.url.split('?')[0], status, code: mapped.kind }, 'request failed');
    if (mapped.kind === 'DATABASE_UNAVAILABLE') void reply.header('retry-after', '1');
    void reply.status(status).send({ error: { ...mapped.info, request_id: request.id } });
    return;
  }
  void reply.status(status).send(errorBody(mapped));
}

interface Issue {
  path: readonly PropertyKey[];
  message: string;
  /** a record key's own issues (zod's "invalid_key") */
  issues?: readonly Issue[];
}

/** a path segment as is when plain, else quoted (a refused key may hold a NUL or a surrogate) */
const segment = (key: PropertyKey) => (typeof key === 'string' && !/^[\w.-]*$/.test(key) ? JSON.stringify(key) : String(key));

/** zod's first issue as one line: "changes.0.payload.embedding: is not base64". */
export function issueMessage(issues: readonly Issue[]): string {
  const issue = issues[0];
  if (!issue) return 'invalid value';
  const message = issue.issues?.[0]?.message ?? issue.message;
  const path = issue.path.map(segment).join('.');
  return path ? `${path}: ${message}` : message;
}
