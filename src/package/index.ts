// The installed package's entry (package.json "exports", built by `npm run build:lib`):
// everything src/index.ts exports, with createEngine() finding the package's own worker, ORT
// files and models next to this module (src/package/files.ts), so it needs no options in an
// app that installed the package. modelBaseUrl / ortWasmBaseUrl / workerUrl still override.
import { createEngine as createEngineWith, type Engine, type EngineOptions } from '../engine/engine.ts';
import { fileUrls, MODEL_DIR, ORT_DIR, workerFileUrl, type PackageFile } from './files.ts';

export * from '../index.ts';
export { CAPABILITIES, modelsFor, type Capability, type CapabilityName } from '../models/capabilities.ts';
export { engineFiles, type EngineFile, type EngineFilesOptions, type PackageFile } from './files.ts';

export interface PackageEngineOptions extends EngineOptions {
  /**
   * ORT's WebGPU build, opt-in: `webgpuFiles` from 'kairos-in-browser/webgpu' (importing it makes
   * the app's bundler copy its 26.8 MB .wasm). Without it, and without ortWasmBaseUrl / ortFiles
   * of your own, the engine runs on ORT's WASM build (backend 'auto' means 'wasm').
   */
  webgpu?: readonly PackageFile[];
}

/** The engine, with the package's own files unless options name others. */
export function createEngine(options: PackageEngineOptions = {}): Promise<Engine> {
  const { webgpu, ...engineOptions } = options;
  const ownOrt = options.ortFiles === undefined && options.ortWasmBaseUrl === undefined;
  let backend = options.backend;
  if (ownOrt && !webgpu) {
    if (backend === 'webgpu') {
      return Promise.reject(
        new Error("backend 'webgpu' needs ORT's WebGPU build: import { webgpuFiles } from 'kairos-in-browser/webgpu' and pass createEngine({ webgpu: webgpuFiles })"),
      );
    }
    backend = 'wasm';
  }
  return createEngineWith({
    ...engineOptions,
    backend,
    workerUrl: options.workerUrl ?? workerFileUrl(),
    modelFiles: options.modelFiles ?? (options.modelBaseUrl === undefined ? fileUrls(MODEL_DIR) : undefined),
    ortFiles: options.ortFiles ?? (ownOrt ? { ...fileUrls(ORT_DIR), ...fileUrls(ORT_DIR, webgpu) } : undefined),
  });
}
