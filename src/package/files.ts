// The installed package's own files (worker, ORT's WASM, models) as URLs an app can fetch.
//
// The library build (tools/vite-package-files.ts) puts, in place of __KAIROS_PACKAGE_FILES__,
// one literal `new URL('./models/gear.onnx', import.meta.url).href` per file: the pattern vite,
// webpack 5 and other bundlers recognise, so each copies the file into the app's build and
// rewrites the URL, and a page without a bundler resolves it against the module itself. Nothing
// is fetched until the engine needs it. Outside that build (the demo, tests) the list is empty.
// The list holds only what a default call can load; ORT's WebGPU build is in its own module
// (dist/lib/webgpu.js, `kairos-in-browser/webgpu`), copied only by apps that import it.
import { CAPABILITIES, modelsFor, type CapabilityName } from '../models/capabilities.ts';

export interface PackageFile {
  /** path inside the package's dist/lib, e.g. "models/gear.onnx", "ort/ort-wasm-simd-threaded.wasm" */
  path: string;
  /** where the app serves it (absolute) */
  url: string;
  bytes: number;
  /** hex SHA-256 of the content */
  sha256: string;
  /** the model id, for models */
  model?: string;
}

declare const __KAIROS_PACKAGE_FILES__: readonly PackageFile[];

let files: readonly PackageFile[] = [];
try {
  files = __KAIROS_PACKAGE_FILES__; // named once: the build replaces exactly one occurrence
} catch {
  // not the library build: no package files (a ReferenceError)
}

export function packageFiles(): readonly PackageFile[] {
  return files;
}

export const WORKER_FILE = 'assets/vision.worker.js';
export const MODEL_DIR = 'models/';
export const ORT_DIR = 'ort/';
export const MODEL_MANIFEST = 'manifest.json';
/** ORT's build for the WASM backend (in the entry's list) */
export const ORT_WASM_BUILD = ['ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm'];
/** ORT's build for the WebGPU backend (26.8 MB of WASM): listed by dist/lib/webgpu.js only, an opt-in */
export const ORT_WEBGPU_BUILD = ['ort-wasm-simd-threaded.asyncify.mjs', 'ort-wasm-simd-threaded.asyncify.wasm'];
export const WEBGPU_MODULE = 'webgpu.js';

/** file name → URL of the package's files under `dir` (for EngineOptions modelFiles / ortFiles) */
export function fileUrls(dir: string, files: readonly PackageFile[] = packageFiles()): Record<string, string> {
  return Object.fromEntries(files.filter((f) => f.path.startsWith(dir)).map((f) => [f.path.slice(dir.length), f.url]));
}

export function workerFileUrl(): string | undefined {
  return packageFiles().find((f) => f.path === WORKER_FILE)?.url;
}

/** One file to precache: the entry shape of the demo's service worker (src/demo/offline/precache.ts). */
export interface EngineFile {
  url: string;
  bytes: number;
  sha256: string;
}

export interface EngineFilesOptions {
  /** capabilities the app uses (default: all); only their models are listed */
  capabilities?: readonly CapabilityName[];
  /** also list ORT's WebGPU build: `webgpuFiles` from 'kairos-in-browser/webgpu' (default: the WASM build only) */
  webgpu?: readonly PackageFile[];
}

/**
 * The package files an app needs offline with default options: the vision worker, ORT's WASM
 * build, the model manifest and the models of the given capabilities, each with its size and
 * SHA-256 (of the bytes the app serves: bundlers copy these files unchanged). The app's own
 * page and bundles are not in it — the app lists those (docs/install.md).
 */
export function engineFiles(options: EngineFilesOptions = {}): EngineFile[] {
  // a page served without COOP/COEP also loads the capabilities' peer models
  const models = new Set(modelsFor(options.capabilities ?? (Object.keys(CAPABILITIES) as CapabilityName[]), { peerModels: true }));
  const ort = new Set(ORT_WASM_BUILD.map((n) => ORT_DIR + n));
  return [
    ...packageFiles().filter((f) => f.path === WORKER_FILE || f.path === MODEL_DIR + MODEL_MANIFEST || ort.has(f.path) || (f.model !== undefined && models.has(f.model))),
    ...(options.webgpu ?? []),
  ].map(({ url, bytes, sha256 }) => ({ url, bytes, sha256 }));
}
