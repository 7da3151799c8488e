// Request validation in one place: zod issues → the interface's error codes
// (missing required parameter → 1002, wrong type or out of range → 1003 naming it).
import { z } from 'zod';
import { EngineError } from '../errors.ts';

export function parseRequest<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new EngineError('BAD_CONTENT_TYPE', 'the request body must be a JSON object');
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const name = issue.path.map(String).join('.') || 'body';
  const value = issue.path.reduce<unknown>((v, k) => (v as Record<PropertyKey, unknown> | undefined)?.[k as PropertyKey], body);
  if (value === undefined) throw new EngineError('MISSING_PARAMETER', `missing required parameter: ${name}`);
  throw new EngineError('INVALID_PARAMETER', `invalid value for parameter ${name}: ${issue.message}`);
}
