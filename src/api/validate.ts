// Request validation in one place: zod issues → the interface's error codes.
//   a required parameter absent (undefined)          → 1002 MISSING_PARAMETER
//   wrong type, out of range, empty or too long      → 1003 INVALID_PARAMETER, naming the parameter
//   a custom issue marked params.kairos (params.ts)  → that kind (1000 bad characters, 1002 empty image)
//   the body is not a JSON object                    → 1001 BAD_CONTENT_TYPE
// When several parameters are wrong, a missing one is reported first, then the first invalid
// one in the schema's order. Unknown extra fields are ignored (zod objects strip them).
import { z } from 'zod';
import { EngineError, type ErrorKind } from '../errors.ts';

/**
 * Message wording: face endpoints use the service's lower-case style; the emotion (v2)
 * endpoints use theirs ("Required source parameter missing.").
 */
export type MessageStyle = 'face' | 'emotion';

export interface ParseOptions {
  style?: MessageStyle;
}

const KINDS_FROM_PARAMS: readonly ErrorKind[] = ['BAD_CHARACTERS', 'MISSING_PARAMETER', 'INVALID_PARAMETER'];

function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = body;
  for (const k of path) {
    if (typeof v !== 'object' || v === null || !Object.prototype.hasOwnProperty.call(v, k)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

function kindOf(issue: z.core.$ZodIssue, body: unknown): ErrorKind {
  if (issue.code === 'custom') {
    const marked = (issue.params as { kairos?: unknown } | undefined)?.kairos;
    if (typeof marked === 'string' && (KINDS_FROM_PARAMS as readonly string[]).includes(marked)) return marked as ErrorKind;
  }
  return valueAt(body, issue.path) === undefined ? 'MISSING_PARAMETER' : 'INVALID_PARAMETER';
}

function messageOf(kind: ErrorKind, name: string, detail: string, style: MessageStyle): string {
  if (style === 'emotion') {
    if (kind === 'MISSING_PARAMETER') return `Required ${name} parameter missing.`;
    if (kind === 'BAD_CHARACTERS') return `Bad characters in the ${name} parameter: ${detail}.`;
    return `Invalid ${name} parameter: ${detail}.`;
  }
  if (kind === 'MISSING_PARAMETER') return `missing required parameter: ${name}`;
  if (kind === 'BAD_CHARACTERS') return `bad characters in parameter ${name}: ${detail}`;
  return `invalid value for parameter ${name}: ${detail}`;
}

/** The body as a plain object, or 1001 (a JSON array, string, number or null is not a request). */
export function requireObject(body: unknown, style: MessageStyle = 'face'): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || body instanceof Blob) {
    throw new EngineError(
      'BAD_CONTENT_TYPE',
      style === 'emotion' ? 'The request body must be a JSON object.' : 'the request body must be a JSON object',
    );
  }
  return body as Record<string, unknown>;
}

/** Validates `body` against `schema`; throws an EngineError with the interface's code otherwise. */
export function parseRequest<S extends z.ZodType>(schema: S, body: unknown, options: ParseOptions = {}): z.output<S> {
  const style = options.style ?? 'face';
  requireObject(body, style);
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({ issue, kind: kindOf(issue, body) }));
  const { issue, kind } = issues.find((i) => i.kind === 'MISSING_PARAMETER') ?? issues[0]!;
  const name = issue.path.map(String).join('.') || 'body';
  throw new EngineError(kind, messageOf(kind, name, issue.message, style));
}
