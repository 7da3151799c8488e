// The installed package's entry (package.json "exports", built by `npm run build:lib`):
// everything src/index.ts exports, with createEngine() finding the package's own worker, ORT
// files and models next to this module (src/package/files.ts), so it needs no options in an
// app that installed the package. modelBaseUrl / ortWasmBaseUrl / workerUrl still override.
import { createEngine as createEngineWith, type Engine, type EngineOptions } from '../engine/engine.ts';
import { fileUrls, MODEL_DIR, ORT_DIR, workerFileUrl } from './files.ts';

export * from '../index.ts';
export { CAPABILITIES, modelsFor, type Capability, type CapabilityName } from '../models/capabilities.ts';
export { engineFiles, type EngineFile, type EngineFilesOptions } from './files.ts';

/** The engine, with the package's own files unless options name others. */
export function createEngine(options: EngineOptions = {}): Promise<Engine> {
  return createEngineWith({
    ...options,
    workerUrl: options.workerUrl ?? workerFileUrl(),
    modelFiles: options.modelFiles ?? (options.modelBaseUrl === undefined ? fileUrls(MODEL_DIR) : undefined),
    ortFiles: options.ortFiles ?? (options.ortWasmBaseUrl === undefined ? fileUrls(ORT_DIR) : undefined),
  });
}
