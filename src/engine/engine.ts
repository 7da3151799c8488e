// The engine: a vision worker plus the endpoint services, answering in the interface's
// JSON shapes. createEngine() is the library's entry point.
import type { DetectRequest, DetectResponse } from '../api/detect-schema.ts';
import { faceErrorBody, type FaceErrorBody } from '../api/error-body.ts';
import { resolveRuntimeEnv, type RuntimeEnvInput } from '../env.ts';
import { toResult } from '../errors.ts';
import { detect } from '../service/detect.ts';
import type { BackendInfo } from '../worker/ort-backend.ts';
import { startVisionWorker } from './vision-client.ts';

export type EngineOptions = RuntimeEnvInput;

export interface Engine {
  /** which backend runs the models (WASM threads or WebGPU) */
  readonly backend: BackendInfo;
  detect(request: DetectRequest): Promise<DetectResponse | FaceErrorBody>;
  /** stops the worker; the engine cannot be used afterwards */
  close(): void;
}

export async function createEngine(options: EngineOptions = {}): Promise<Engine> {
  const vision = startVisionWorker();
  const backend = await vision.api.init(resolveRuntimeEnv(options));
  const answer = async <T>(work: () => Promise<T>): Promise<T | FaceErrorBody> => {
    const result = await toResult(work);
    return result.ok ? result.value : faceErrorBody(result.error);
  };
  return {
    backend,
    detect: (request) => answer(() => detect(vision.api, request)),
    close: () => vision.terminate(),
  };
}
