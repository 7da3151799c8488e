// Engine failures → the interface's error bodies and HTTP statuses (the only place).
import type { EngineFailure } from '../errors.ts';

export interface FaceErrorBody {
  Errors: { Message: string; ErrCode: number }[];
}

export function faceErrorBody(f: EngineFailure): FaceErrorBody {
  return { Errors: [{ Message: f.message, ErrCode: f.code }] };
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
    default:
      return 200;
  }
}
