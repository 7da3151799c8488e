// What the browser offers the engine and which path the engine takes because of it, for
// engine.diagnostics.platform(): the engine runs in Chromium, Firefox and WebKit (Safari), and
// they differ in exactly these features (measured: WebKitGTK 2.50 has no SharedArrayBuffer, so
// one WASM thread, no ImageDecoder and no navigator.storage.estimate; Firefox has no WebGPU).
import { UnsupportedEnvironmentError } from '../errors.ts';
import type { BackendInfo } from '../worker/ort-backend.ts';

/** The globals createEngine() cannot start without (the vision worker, galleries, image work, ORT). */
const REQUIRED_GLOBALS = ['Worker', 'indexedDB', 'WebAssembly', 'OffscreenCanvas', 'createImageBitmap'] as const;

/** The required globals this environment lacks (pure over `scope`; none in any browser page the engine runs in). */
export function missingBrowserFeatures(scope: object = globalThis): string[] {
  return REQUIRED_GLOBALS.filter((name) => typeof (scope as Record<string, unknown>)[name] === 'undefined');
}

/**
 * Throws UnsupportedEnvironmentError naming what is missing and where to call createEngine()
 * instead: without it Node and server renders fail on "ReferenceError: Worker is not defined".
 */
export function requireBrowser(scope: object = globalThis): void {
  const missing = missingBrowserFeatures(scope);
  if (missing.length === 0) return;
  const process = (scope as { process?: { versions?: { node?: string } } }).process;
  const where = process?.versions?.node
    ? ` (this looks like Node.js ${process.versions.node}, e.g. a server render)`
    : typeof (scope as { document?: unknown }).document === 'undefined'
      ? ' (there is no document: not a browser page)'
      : '';
  throw new UnsupportedEnvironmentError(
    missing,
    `createEngine() needs a browser page: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not available here${where}. ` +
      'Call it in the browser only: in client-side code, e.g. inside useEffect / onMounted / a "use client" component, ' +
      "or behind `typeof window !== 'undefined'` — not at the top level of a module a server renders.",
  );
}

export interface PlatformInfo {
  /** the page is cross-origin isolated (COOP/COEP) */
  crossOriginIsolated: boolean;
  /** SharedArrayBuffer exists: ORT's WASM can run threads */
  sharedArrayBuffer: boolean;
  /** the path taken: 'threads' (N WASM threads), 'one thread' (no SharedArrayBuffer or numThreads 1), or 'webgpu' */
  compute: 'threads' | 'one thread' | 'webgpu';
  /** WASM threads ORT runs with (engine.backend.threads) */
  threads: number;
  /** workers running models: 2 where a second worker's ORT uses another core because ORT runs one thread (createEngine's modelWorkers) */
  modelWorkers: number;
  /** why a requested or available WebGPU is not used (no adapter, a software one, or a WebGPU call that gave no answer in time) */
  backendNote?: string;
  /** navigator.gpu exists (the engine takes it only with a real, non-fallback adapter) */
  webgpu: boolean;
  /**
   * WebCodecs' ImageDecoder exists. The engine decodes photos with createImageBitmap in every
   * browser (decoding: always 'createImageBitmap'); this says what an alternative would find.
   */
  imageDecoder: boolean;
  decoding: 'createImageBitmap';
  /** OffscreenCanvas exists: the vision worker crops and resizes on it (no fallback: it is required) */
  offscreenCanvas: boolean;
  /** navigator.storage.estimate() exists; with it, the origin's usage and quota in bytes */
  storageEstimate: boolean;
  storage?: { usage: number; quota: number };
}

export async function platformInfo(backend: BackendInfo): Promise<PlatformInfo> {
  const g = globalThis as typeof globalThis & { ImageDecoder?: unknown };
  const storage = globalThis.navigator?.storage;
  const canEstimate = typeof storage?.estimate === 'function';
  let estimate: { usage: number; quota: number } | undefined;
  if (canEstimate) {
    try {
      const e = await storage.estimate();
      estimate = { usage: e.usage ?? 0, quota: e.quota ?? 0 };
    } catch {
      // an estimate is informative only; a browser that refuses it leaves the field out
    }
  }
  return {
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    sharedArrayBuffer: typeof SharedArrayBuffer !== 'undefined',
    compute: backend.backend === 'webgpu' ? 'webgpu' : backend.threads > 1 ? 'threads' : 'one thread',
    threads: backend.threads,
    modelWorkers: backend.modelWorkers ?? 1,
    ...(backend.note ? { backendNote: backend.note } : {}),
    webgpu: typeof (globalThis.navigator as Navigator & { gpu?: unknown } | undefined)?.gpu !== 'undefined',
    imageDecoder: typeof g.ImageDecoder === 'function',
    decoding: 'createImageBitmap',
    offscreenCanvas: typeof OffscreenCanvas === 'function',
    storageEstimate: canEstimate,
    ...(estimate ? { storage: estimate } : {}),
  };
}
