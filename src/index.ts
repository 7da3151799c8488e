// The library's one public entry.
export { createEngine, type CallOptions, type Engine, type EngineOptions, type WarmUpReport } from './engine/engine.ts';
export * from './exports.ts';
