// Engine failures → the interface's error bodies and HTTP statuses (the only place).
import { failure, type EngineFailure } from '../errors.ts';

/** Face recognition endpoints: `{"Errors":[{"ErrCode":5002,"Message":"…"}]}`. */
export interface FaceErrorBody {
  Errors: { Message: string; ErrCode: number }[];
}

/** Emotion analysis (v2) endpoints: `{"code":1002,"message":"…"}`. */
export interface EmotionErrorBody {
  code: number;
  message: string;
}

/** Which family of endpoints a request belongs to: it decides the error body's shape. */
export type EndpointFamily = 'face' | 'emotion';

export function faceErrorBody(f: EngineFailure): FaceErrorBody {
  return { Errors: [{ Message: f.message, ErrCode: f.code }] };
}

export function emotionErrorBody(f: EngineFailure): EmotionErrorBody {
  return { code: f.code, message: f.message };
}

export function errorBodyOf(family: EndpointFamily, f: EngineFailure): FaceErrorBody | EmotionErrorBody {
  return family === 'emotion' ? emotionErrorBody(f) : faceErrorBody(f);
}

/** Paths under /v2/ are the emotion analysis interface; everything else is face recognition. */
export function familyOfPath(path: string): EndpointFamily {
  return path === '/v2' || path.startsWith('/v2/') ? 'emotion' : 'face';
}

/** Face endpoints answer 200 for their listed errors; auth, routing and load use other statuses. */
export function httpStatusOf(f: EngineFailure): number {
  switch (f.kind) {
    case 'AUTHENTICATION':
      return 403;
    case 'INVALID_ENDPOINT':
      return 404;
    case 'RATE_LIMITED':
      return 429;
    case 'UNAVAILABLE':
      return 502;
    case 'STORAGE_FULL':
      return 507;
    default:
      return 200;
  }
}

export const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK',
  202: 'Accepted',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
  502: 'Bad Gateway',
  507: 'Insufficient Storage',
};

/**
 * An unexpected exception (a bug, a crashed worker) as a failure: 502 + 3001 "temporarily
 * unavailable", the original service's answer when it cannot serve a request.
 */
export function internalFailure(e: unknown): EngineFailure {
  let detail: string;
  try {
    detail = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  } catch {
    detail = 'unknown error';
  }
  return failure('UNAVAILABLE', `temporarily unavailable: internal error (${detail.slice(0, 500)})`);
}

/** An endpoint of the interface that this build of the engine does not implement yet: 502 + 3001. */
export function notImplementedFailure(endpoint: string): EngineFailure {
  return failure('UNAVAILABLE', `temporarily unavailable: ${endpoint} is not implemented yet in this engine`);
}
