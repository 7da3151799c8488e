// The vision worker: owns the ORT backend and model sessions; the page talks to it
// through comlink (see src/engine/vision-client.ts).
import * as Comlink from 'comlink';
import type { RuntimeEnv } from '../env.ts';
import { toResult, type Result } from '../errors.ts';
import { CropRenderer } from './crop-renderer.ts';
import { analyzeBitmap, analyzeImage, PIPELINE_MODELS, type ImageAnalysis, type ImageAnalysisOptions } from './image-analysis.ts';
import { ModelRegistry, type ModelLoad, type ModelWarmUp, type NamedOutput } from './model-registry.ts';
import { OrtBackend, type BackendInfo } from './ort-backend.ts';

let ready: Promise<{ backend: OrtBackend; models: ModelRegistry }> | undefined;
const crops = new CropRenderer();

function requireReady() {
  if (!ready) throw new Error('vision worker used before init()');
  return ready;
}

const api = {
  async init(env: RuntimeEnv): Promise<BackendInfo> {
    ready ??= (async () => {
      const backend = await OrtBackend.create(env);
      return { backend, models: await ModelRegistry.open(backend, env.modelBaseUrl) };
    })();
    return (await ready).backend.info;
  },

  async backendInfo(): Promise<BackendInfo> {
    return (await requireReady()).backend.info;
  },

  /** Loads a model (once) and returns how long that took. */
  async loadModel(id: string): Promise<number> {
    return (await (await requireReady()).models.load(id)).loadMs;
  },

  /** Loads and runs once each model a default request uses (one at a time: requests arriving meanwhile wait for at most one model). */
  async warmUp(ids: readonly string[] = PIPELINE_MODELS): Promise<ModelWarmUp[]> {
    const { models } = await requireReady();
    const done: ModelWarmUp[] = [];
    for (const id of ids) done.push(await models.warmUp(id));
    return done;
  },

  /** Every model loaded so far with its load time (fetch + session creation), in load order. */
  async modelLoads(): Promise<ModelLoad[]> {
    return (await requireReady()).models.loads();
  },

  /** Runs one model on an NHWC tensor; outputs are transferred, not copied. */
  async runModel(id: string, input: Float32Array, dims: number[]): Promise<Record<string, NamedOutput>> {
    const outputs = await (await requireReady()).models.run(id, input, dims);
    return Comlink.transfer(outputs, Object.values(outputs).map((o) => o.data.buffer as ArrayBuffer));
  },

  /** The whole pipeline on one image: decode, detect, mesh, attributes. */
  async analyze(input: Blob | string | Uint8Array, options: ImageAnalysisOptions): Promise<Result<ImageAnalysis>> {
    const { models } = await requireReady();
    // the worker's own fetch is the real network: a page-level fetch shim never reaches here
    return toResult(() => analyzeImage(input, options, { models, crops, fetch: globalThis.fetch.bind(globalThis) }));
  },

  /** The pipeline on a decoded frame (transfer it: the worker closes it when done). */
  async analyzeFrame(frame: ImageBitmap, options: ImageAnalysisOptions): Promise<Result<ImageAnalysis>> {
    const { models } = await requireReady();
    try {
      return await toResult(() => analyzeBitmap(frame, options, { models, crops }));
    } finally {
      frame.close();
    }
  },
};

export type VisionWorkerApi = typeof api;

Comlink.expose(api);
