// The engine's one configuration object: where models and ORT's WASM live, which
// backend to prefer. Defaults suit the demo page served by vite; library users override.
import { z } from 'zod';
import { IMAGE_FORMATS } from './intake/sniff.ts';

export const BackendPreferenceSchema = z.enum(['auto', 'wasm', 'webgpu']);
export type BackendPreference = z.infer<typeof BackendPreferenceSchema>;

export const RuntimeEnvSchema = z.object({
  /** URL (absolute or relative to the page) of the folder with manifest.json and the .onnx files */
  modelBaseUrl: z.string().default('/models/'),
  /** URL of the folder serving ORT's ort-wasm-simd-threaded*.{mjs,wasm} */
  ortWasmBaseUrl: z.string().default('/ort/'),
  /** auto = WebGPU on a real (non-fallback) adapter, else WASM */
  backend: BackendPreferenceSchema.default('auto'),
  /**
   * A WebGPU call into ORT (a session creation, a run) that gives no answer within this many ms
   * makes the engine fall back to WASM for good and repeat the call there (src/worker/ort-backend.ts);
   * engine.diagnostics.platform() then says why. Default 120 s: a first run on Chromium's
   * software adapter took up to 58 s on a loaded 2-core machine (docs/models.md).
   */
  webgpuTimeoutMs: z.number().int().positive().default(120_000),
  /**
   * ORT's start (its compiled WASM instantiated, its threads and its init) that has not finished
   * this many ms after the WASM was compiled — the download is not counted — ends the vision
   * worker: the calls waiting on it fail with 3001 and the next call starts a fresh worker
   * (src/worker/ort-backend.ts). A start takes 0.2–1 s on a loaded 2-core machine; default 15 s.
   */
  ortStartTimeoutMs: z.number().int().positive().default(15_000),
  /**
   * A download of the engine's own files (ORT's WASM, the model manifest, a model) that receives
   * no data for this many ms is ended: the request that needs the file answers 3001 and the next
   * one downloads it again (src/worker/download.ts, precompiled-wasm.ts). Slow is fine, silent is
   * not; default 30 s.
   */
  downloadStallMs: z.number().int().positive().default(30_000),
  /** WASM threads; default: every core, at most 4 */
  numThreads: z.number().int().min(1).max(16).optional(),
  /**
   * Workers that run models. Default: 2 where ORT runs one thread (no SharedArrayBuffer: a page
   * without COOP/COEP, WebKit) on a device with two cores or more — a second worker's ORT takes
   * half the runs on the second core — else 1. 2 with threads runs both workers on one thread
   * each unless numThreads says otherwise (src/worker/model-peer.ts, docs/benchmarks.md).
   */
  modelWorkers: z.number().int().min(1).max(2).optional(),
  /**
   * Image formats the face endpoints and /v2/media accept, decided by content. Default: every
   * still format the browser decodes; `KAIROS_FORMATS` (['jpeg', 'png']) is the strict
   * contract. Anything else is 5000. See docs/intake.md.
   */
  formats: z.array(z.enum(IMAGE_FORMATS)).min(1).default([...IMAGE_FORMATS]),
  /**
   * File name → URL of manifest.json and each model, wherever a bundler put the installed
   * package's copies (src/package/); a file listed here wins over modelBaseUrl.
   */
  modelFiles: z.record(z.string(), z.string()).optional(),
  /** File name → URL of ORT's .mjs/.wasm files, as modelFiles; wins over ortWasmBaseUrl. */
  ortFiles: z.record(z.string(), z.string()).optional(),
  /**
   * Find faces cut by the photo's edge too (the whole-frame detector run padded with the frame's
   * edges mirrored: docs/detection.md). On by default; false saves ~1% of a ≤ 1 MP photo's /detect
   * (bench:stages, docs/benchmarks.md) and finds 83% instead of 95% of faces cut by the edge.
   */
  cutFaces: z.boolean().default(true),
});
export type RuntimeEnv = z.infer<typeof RuntimeEnvSchema>;
export type RuntimeEnvInput = z.input<typeof RuntimeEnvSchema>;

/** Resolves relative URLs against the page so a worker (with a different base) can use them. */
export function resolveRuntimeEnv(input: RuntimeEnvInput = {}, base = globalThis.location?.href): RuntimeEnv {
  const env = RuntimeEnvSchema.parse(input);
  const abs = (u: string) => (base ? new URL(u, base).href : u);
  const absAll = (files?: Record<string, string>) =>
    files && Object.fromEntries(Object.entries(files).map(([name, url]) => [name, abs(url)]));
  return {
    ...env,
    modelBaseUrl: abs(env.modelBaseUrl),
    ortWasmBaseUrl: abs(env.ortWasmBaseUrl),
    modelFiles: absAll(env.modelFiles),
    ortFiles: absAll(env.ortFiles),
  };
}

/** Where a model file (or manifest.json) is fetched from: its own URL if listed, else under modelBaseUrl. */
export function modelFileUrl(env: RuntimeEnv, file: string): string {
  return env.modelFiles?.[file] ?? new URL(file, env.modelBaseUrl).href;
}

/** ORT's two builds: the plain one for the WASM backend, the asyncify one for WebGPU. */
export type OrtBuild = 'ort-wasm-simd-threaded' | 'ort-wasm-simd-threaded.asyncify';

/**
 * Where ORT finds a build's files: `wasmPaths` as ORT's env.wasm takes it (both files' URLs when
 * ortFiles lists them, else the ortWasmBaseUrl prefix), and the URL its .wasm is fetched from.
 */
export function ortBuildFiles(env: RuntimeEnv, build: OrtBuild): { wasmPaths: string | { mjs: string; wasm: string }; wasmUrl: string } {
  const mjs = env.ortFiles?.[`${build}.mjs`];
  const wasm = env.ortFiles?.[`${build}.wasm`];
  if (mjs && wasm) return { wasmPaths: { mjs, wasm }, wasmUrl: wasm };
  // ORT appends the file name to the prefix as it is
  return { wasmPaths: env.ortWasmBaseUrl, wasmUrl: `${env.ortWasmBaseUrl}${build}.wasm` };
}
