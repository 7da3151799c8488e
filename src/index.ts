// The library's one public entry.
export { createEngine, type Engine, type EngineOptions } from './engine/engine.ts';
export * from './api/detect-schema.ts';
export type { FaceErrorBody } from './api/error-body.ts';
export { ERRORS, type EngineFailure } from './errors.ts';
export type { BackendInfo } from './worker/ort-backend.ts';
