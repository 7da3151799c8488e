// Every failure the engine reports, as a typed value. The Kairos error bodies and HTTP
// statuses are derived from these in one place (src/api/), never built ad hoc.
import { z } from 'zod';

export const ERRORS = {
  BAD_CHARACTERS: { code: 1000, message: 'bad characters in a parameter' },
  BAD_CONTENT_TYPE: { code: 1001, message: 'invalid content type or malformed request body' },
  MISSING_PARAMETER: { code: 1002, message: 'a required parameter is missing' },
  INVALID_PARAMETER: { code: 1003, message: 'a parameter has an invalid value' },
  URL_TOO_LONG: { code: 1004, message: 'URL too long' },
  RATE_LIMITED: { code: 3000, message: 'rate limited' },
  UNAVAILABLE: { code: 3001, message: 'temporarily unavailable' },
  INVALID_ENDPOINT: { code: 3002, message: 'invalid endpoint' },
  AUTHENTICATION: { code: 3003, message: 'invalid authentication parameters' },
  /** the browser refused a write for lack of space (QuotaExceededError); nothing was written */
  STORAGE_FULL: {
    code: 3004,
    message: "storage is full: this browser's quota for the site is used up and nothing was stored; remove galleries or media results, or ask for persistent storage (navigator.storage.persist())",
  },
  IMAGE_DECODE: { code: 5000, message: 'bad image format or the image could not be decoded' },
  IMAGE_FETCH: { code: 5001, message: 'the image URL could not be fetched' },
  NO_FACES: { code: 5002, message: 'no faces found in the image' },
  SUBJECT_NOT_FOUND: { code: 5003, message: 'subject ID was not found' },
  GALLERY_NOT_FOUND: { code: 5004, message: 'gallery name not found' },
  CORRUPT_FACE_DATA: { code: 5005, message: 'corrupt face data' },
  TOO_MANY_FACES: { code: 5010, message: 'too many faces in image' },
  NO_MATCH: { code: 5012, message: 'no match found' },
} as const;

export type ErrorKind = keyof typeof ERRORS;

/** A failure as plain data: safe to send across a worker boundary (Error subclasses are not). */
export const EngineFailureSchema = z.object({
  kind: z.enum(Object.keys(ERRORS) as [ErrorKind, ...ErrorKind[]]),
  code: z.number().int(),
  message: z.string(),
});
export type EngineFailure = z.infer<typeof EngineFailureSchema>;

export function failure(kind: ErrorKind, message: string = ERRORS[kind].message): EngineFailure {
  return { kind, code: ERRORS[kind].code, message };
}

/** Thrown inside the engine; converted to an EngineFailure at the worker/API boundary. */
export class EngineError extends Error {
  readonly failure: EngineFailure;

  constructor(kind: ErrorKind, message?: string) {
    const f = failure(kind, message);
    super(f.message);
    this.name = 'EngineError';
    this.failure = f;
  }
}

/**
 * The same failure with its "nothing was stored / changed" clause replaced by `remains`: a
 * failed write whose undo did not finish must not claim that nothing is left of it.
 */
export function withWhatRemains(error: EngineError, remains: string): EngineError {
  const { kind, message } = error.failure;
  const clause = /nothing was (stored|changed)/;
  return new EngineError(kind, clause.test(message) ? message.replace(clause, remains) : `${message}; ${remains}`);
}

export type Result<T> = { ok: true; value: T } | { ok: false; error: EngineFailure };

/** Runs `work`, turning an EngineError into a failure value; other errors propagate as bugs. */
export async function toResult<T>(work: () => Promise<T>): Promise<Result<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (e) {
    if (e instanceof EngineError) return { ok: false, error: e.failure };
    throw e;
  }
}

/**
 * createEngine() outside a browser page (Node, a framework's server render, a page without
 * workers): the engine needs these and they are missing. An EngineError (3001) so callers that
 * catch engine failures catch it too; `missing` names the absent globals.
 */
export class UnsupportedEnvironmentError extends EngineError {
  constructor(readonly missing: readonly string[], detail: string) {
    super('UNAVAILABLE', detail);
    this.name = 'UnsupportedEnvironmentError';
  }
}
