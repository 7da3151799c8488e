// The vision worker: owns the ORT backend and model sessions; the page talks to it
// through comlink (see src/engine/vision-client.ts).
import * as Comlink from 'comlink';
import { MIN_HEAD_SCALE } from '../api/params.ts';
import { modelFileUrl, type RuntimeEnv } from '../env.ts';
import { parseSelector } from '../vision/selector.ts';
import { toResult, type Result } from '../errors.ts';
import type { TransferredImage } from '../intake/decoded-input.ts';
import { CropRenderer } from './crop-renderer.ts';
import { analyzeBitmap, analyzeImage, DETECTION, UNPADDED_EDGES, PIPELINE_MODELS, type ImageAnalysis, type ImageAnalysisOptions } from './image-analysis.ts';
import { ModelRegistry, type ModelLoad, type ModelWarmUp, type NamedOutput } from './model-registry.ts';
import { liveWorkerApi } from './live-session.ts';

/** What warmUp() did: each model's load and first run, then one detection pass. */
export interface WorkerWarmUp {
  models: ModelWarmUp[];
  /** a /detect-sized blank frame through the pipeline (crops and every detector view), ms; 0 after the first warm-up */
  detectionPassMs: number;
}

/**
 * A blank 640×480 frame through the pipeline as /detect runs it: the view crops and all the
 * detector runs of a photo that size happen once (measured: the first real /detect after the
 * models alone spent ~3× the steady time in its detect stage).
 */
let detectionPassDone = false;
async function blankDetectionPass(models: ModelRegistry): Promise<number> {
  if (detectionPassDone) return 0;
  detectionPassDone = true;
  const started = performance.now();
  const canvas = new OffscreenCanvas(640, 480);
  const ctx = canvas.getContext('2d')!;
  ctx.fillStyle = '#808080';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  const frame = canvas.transferToImageBitmap();
  try {
    const options = { minHeadScale: MIN_HEAD_SCALE.default, selector: parseSelector(undefined), demographics: true, emotion: false, keepMesh: false };
    await analyzeBitmap(frame, options, { models, crops });
  } finally {
    frame.close();
  }
  return performance.now() - started;
}
import { OrtBackend, type BackendInfo } from './ort-backend.ts';

let ready: Promise<{ backend: OrtBackend; models: ModelRegistry; formats: RuntimeEnv['formats']; cutFaces: boolean }> | undefined;

/** The engine's cutFaces option applied to a request's detection settings (a request's own override wins). */
function withEngineDetection(options: ImageAnalysisOptions, cutFaces: boolean): ImageAnalysisOptions {
  return cutFaces ? options : { ...options, detection: { edges: UNPADDED_EDGES, ...options.detection } };
}
const crops = new CropRenderer();

/**
 * Work for when the worker is idle, queued after an answer (an image's or a live frame's) so that
 * it runs once the answer has gone out: the code-cache warm-up (ModelRegistry.warmCodeCache).
 */
function afterAnswer(models: ModelRegistry): void {
  // a timer only while there is work for it: once the warm-up is done, every answer skips it
  if (models.codeCacheWarmUpPending) setTimeout(() => void models.warmCodeCache().catch(() => {}), 0);
}

function requireReady() {
  if (!ready) throw new Error('vision worker used before init()');
  return ready;
}

const api = {
  async init(env: RuntimeEnv): Promise<BackendInfo> {
    ready ??= (async () => {
      const backend = await OrtBackend.create(env);
      // ORT's WASM runtime starts now, while the manifest and the first models download (it
      // would otherwise wait for the detector's bytes: ~0.2 s of every cold start)
      void backend.start();
      const models = await ModelRegistry.open(backend, (file) => modelFileUrl(env, file));
      // every request starts with the detector: its download and session begin now, while the
      // page is still getting its first image (errors surface at first use)
      models.load(DETECTION.detector).catch(() => {});
      return { backend, models, formats: env.formats, cutFaces: env.cutFaces ?? true };
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

  /**
   * Loads and runs once each model a default request uses, then one blank detection pass (one
   * step at a time: requests arriving meanwhile wait for at most one model load or run).
   */
  async warmUp(ids: readonly string[] = PIPELINE_MODELS): Promise<WorkerWarmUp> {
    const { models } = await requireReady();
    const done: ModelWarmUp[] = [];
    for (const id of ids) done.push(await models.warmUp(id));
    return { models: done, detectionPassMs: await blankDetectionPass(models) };
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

  /**
   * The whole pipeline on one image: decode, detect, mesh, attributes. A decoded input comes as an
   * ImageBitmap or VideoFrame (transferred: the worker closes it) or an ImageData.
   */
  async analyze(input: Blob | string | Uint8Array | TransferredImage, options: ImageAnalysisOptions): Promise<Result<ImageAnalysis>> {
    const { models, formats, cutFaces } = await requireReady();
    try {
      // the worker's own fetch is the real network: a page-level fetch shim never reaches here
      return await toResult(() => analyzeImage(input, withEngineDetection(options, cutFaces), { models, crops, formats, fetch: globalThis.fetch.bind(globalThis) }));
    } finally {
      afterAnswer(models);
    }
  },

  /** The pipeline on a decoded frame (transfer it: the worker closes it when done). */
  async analyzeFrame(frame: ImageBitmap, options: ImageAnalysisOptions): Promise<Result<ImageAnalysis>> {
    const { models, cutFaces } = await requireReady();
    try {
      return await toResult(() => analyzeBitmap(frame, withEngineDetection(options, cutFaces), { models, crops }));
    } finally {
      frame.close();
      afterAnswer(models);
    }
  },

  // engine.watch(): live sessions (src/worker/live-session.ts)
  ...liveWorkerApi(requireReady, crops, afterAnswer),
};

export type VisionWorkerApi = typeof api;

Comlink.expose(api);
