// What the side-by-side bench (tools/bench/peers.ts) asks of each library: start it as its own
// README says (the tfjs wasm backend for human and face-api, ORT-web wasm for this engine),
// then answer one encoded photo with every face model on. Each adapter runs in its own
// same-origin iframe (peer-frame.ts): human and face-api each bundle tfjs, and tfjs keeps
// one engine and kernel registry per JS realm, so two in one page would share a backend.
import type { Peer } from '../peers-data.ts';

export interface PeerRuntime {
  /** e.g. "tfjs 4.22.0 wasm" or "ORT-web wasm" */
  backend: string;
  /** the thread count the runtime settled on */
  threads: number;
  simd?: boolean;
  /** the models the library loaded */
  models: string[];
  /** this engine only: where its first answer's time went (createEngine, model loads, stages) */
  firstAnswer?: { startupMs: number; modelLoads: { id: string; loadMs: number }[]; stages: Record<string, number> };
}

export interface PeerAdapter {
  peer: Peer;
  /**
   * One full analysis of an encoded photo (decoding included: the engine decodes inside
   * /detect, the others get createImageBitmap of the same Blob). Resolves to the number of
   * faces found and the part of the call that was decoding (NaN where it was not measured).
   */
  detect(photo: Blob): Promise<Detected>;
  runtime(): Promise<PeerRuntime>;
  close(): void;
}

export interface Detected {
  faces: number;
  /** ms of the call spent decoding the photo: human createImageBitmap; face-api that and the draw into its canvas; the engine its worker's decode stage */
  decodeMs: number;
}

export interface PeerOptions {
  /** WASM threads */
  threads: number;
  /** leave tfjs-backend-wasm at its own cap of hardwareConcurrency / 2 threads (see letTfjsUseThreads) */
  tfjsNativeThreads: boolean;
  /** this engine as apps get it (the npm package's build in dist/lib) or its source modules through vite's dev server */
  engineBuild: EngineBuild;
  /** another package build's folder under dist/ for engineBuild 'lib' (A/B runs: tools/bench/cold-ab.ts); default 'lib' */
  engineLibDir?: string;
}

export type EngineBuild = 'lib' | 'src';
/** where the package build (npm run build:lib) is served from: the project root, by vite's dev server */
export const engineLibEntry = (dir = 'lib') => `/dist/${dir}/index.js`;

/** Each peer module exports this. */
export type StartPeer = (options: PeerOptions) => Promise<PeerAdapter>;

/** tfjs-backend-wasm's .wasm files, served by the dev server from node_modules (never a CDN) */
export const TFJS_WASM_PATH = '/node_modules/@tensorflow/tfjs-backend-wasm/dist/';

/** The few tfjs functions the adapters call (both bundles export tfjs-backend-wasm's too). */
export interface TfjsWasm {
  version?: Record<string, string>;
  setWasmPaths(prefix: string): void;
  setThreadsCount(threads: number): void;
  getThreadsCount(): number;
  setBackend(name: string): Promise<boolean>;
  getBackend(): string;
  ready(): Promise<void>;
  env(): { getAsync(flag: string): Promise<unknown> };
}

/**
 * tfjs-backend-wasm caps its XNNPACK thread pool at navigator.hardwareConcurrency / 2, whatever
 * setThreadsCount() asks (1 thread on a 2-core machine). To run it on `threads` threads like
 * the engine, this frame reports twice that many cores to it. Call before the backend starts:
 * the cap is read when its WASM module is instantiated.
 */
export function letTfjsUseThreads(threads: number): void {
  if (navigator.hardwareConcurrency / 2 >= threads) return;
  Object.defineProperty(navigator, 'hardwareConcurrency', { configurable: true, get: () => threads * 2 });
}

export async function tfjsRuntime(tf: TfjsWasm, models: string[]): Promise<PeerRuntime> {
  return {
    backend: `tfjs ${tf.version?.['tfjs-core'] ?? '?'} ${tf.getBackend()}`,
    threads: tf.getThreadsCount(),
    simd: Boolean(await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT')),
    models,
  };
}

/** An encoded photo → an upright bitmap, the way the engine decodes (EXIF orientation applied). */
export const decodePhoto = (photo: Blob) => createImageBitmap(photo, { imageOrientation: 'from-image' });

/** `decodePhoto` and the ms it took */
export async function timedDecode(photo: Blob): Promise<{ bitmap: ImageBitmap; decodeMs: number }> {
  const started = performance.now();
  const bitmap = await decodePhoto(photo);
  return { bitmap, decodeMs: performance.now() - started };
}
