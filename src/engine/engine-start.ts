// The first half of createEngine(): what must happen before the vision worker can start its
// (slow) init, and nothing more. The package entry (src/package/index.ts) runs this before it
// loads the rest of the engine (services, store, sync…) with a dynamic import(), so the worker
// fetches and compiles ORT while the page still evaluates that code (docs/benchmarks.md, cold start).
import { resolveApiOptions, type ApiOptionsInput, type ApiOptions } from '../api/options.ts';
import { resolveRuntimeEnv, type RuntimeEnv, type RuntimeEnvInput } from '../env.ts';
import type { BackendInfo } from '../worker/ort-backend.ts';
import { requireBrowser } from './platform.ts';
import { startVisionWorker, type VisionWorker } from './vision-client.ts';

/** A started engine: its worker already initialising. */
export interface EngineStart {
  /** performance.now() when createEngine was called (diagnostics.startupMs) */
  started: number;
  api: ApiOptions;
  env: RuntimeEnv;
  vision: VisionWorker;
  /** the worker's init (ORT, backend); rejects as createEngine must */
  init: Promise<BackendInfo>;
}

/** Checks the environment and options, starts the worker and its init. Throws as createEngine rejects. */
export function startEngine(options: RuntimeEnvInput & ApiOptionsInput & { workerUrl?: string | URL }): EngineStart {
  const started = performance.now();
  requireBrowser();
  const api = resolveApiOptions(options);
  const env = resolveRuntimeEnv(options);
  const vision = startVisionWorker(options.workerUrl);
  const init = vision.api.init(env);
  init.catch(() => {}); // awaited by the rest of createEngine; a failure surfaces there
  return { started, api, env, vision, init };
}
