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
import { ModelRegistry, type ModelLoad, type ModelRuns, type ModelWarmUp, type NamedOutput } from './model-registry.ts';
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
import { startModelPeer, wantsPeer } from './model-peer.ts';
import { declareBroken } from './worker-broken.ts';

let ready: Promise<{ backend: OrtBackend; models: ModelRegistry; formats: RuntimeEnv['formats']; cutFaces: boolean; modelWorkers: number }> | undefined;
/** the backend once init() has made it, for pulse() (which must not wait for init) */
let backendMade: OrtBackend | undefined;

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
  // the model peer starts once the first answer is out: started with the worker, its ORT start
  // competed with the first request's on a 2-core machine (bench:peers, one thread: cold start
  // 1.29 of human's with it at init)
  if (startPeer) {
    const peer = startPeer();
    startPeer = undefined;
    if (peer) {
      peerStarting = true;
      void peer.started.finally(() => (peerStarting = false));
      models.attachPeer(peer);
    }
  }
  // a timer only while there is work for it: once the warm-up is done, every answer skips it
  if (models.codeCacheWarmUpPending) setTimeout(() => void models.warmCodeCache().catch(() => {}), 0);
  // the peer-first models' own sessions here, one per idle turn (model-registry.ts PEER_FIRST_MODELS)
  if (models.deferredLoadsPending) setTimeout(() => void models.loadDeferred(), 0);
}

/** starts the model peer (src/worker/model-peer.ts) when the worker wants one and has not started it yet */
let startPeer: (() => ReturnType<typeof startModelPeer>) | undefined;
/** the model peer's worker is starting (Firefox can deadlock this worker there, as at ORT's start) */
let peerStarting = false;

function requireReady() {
  if (!ready) throw new Error('vision worker used before init()');
  return ready;
}

const api = {
  /** `role` 'peer': a model peer's init (src/worker/model-peer.ts), which gets its models from the main worker */
  async init(env: RuntimeEnv, role: 'main' | 'peer' = 'main'): Promise<BackendInfo> {
    ready ??= (async () => {
      // two model workers on one thread each, unless the caller set the threads
      const backend = await OrtBackend.create(env.modelWorkers === 2 && env.numThreads === undefined ? { ...env, numThreads: 1 } : env);
      backendMade = backend;
      // an ORT that never started leaves this worker useless but responsive: its owner ends it
      void backend.stalled.then((reason) => declareBroken(`could not start: ${reason}`));
      // ORT's WASM runtime starts now, while the manifest and the first models download (it
      // would otherwise wait for the detector's bytes: ~0.2 s of every cold start)
      void backend.start();
      const models = await ModelRegistry.open(backend, (file) => modelFileUrl(env, file), env.downloadStallMs);
      const settings = { backend, models, formats: env.formats, cutFaces: env.cutFaces ?? true };
      if (role === 'peer') return { ...settings, modelWorkers: 1 };
      const peer = backend.info.backend === 'wasm' && wantsPeer(env, backend.info.threads);
      // after the first answer (afterAnswer)
      if (peer) startPeer = () => startModelPeer(env);
      // every request starts with the detector: its download and session begin now, while the
      // page is still getting its first image (errors surface at first use)
      models.load(DETECTION.detector).catch(() => {});
      return { ...settings, modelWorkers: peer ? 2 : 1 };
    })();
    const { backend, modelWorkers } = await ready;
    return { ...backend.info, modelWorkers };
  },

  /**
   * The page's watchdog ping (src/engine/vision-client.ts): answers at once, init or not, so only a
   * frozen thread stays silent. `starting`: ORT, or a worker this one starts (the model peer, after
   * the first answer), is not up yet — where Firefox can deadlock this thread, so the page waits
   * less and may send a lost call again.
   */
  pulse(): { starting: boolean } {
    return { starting: !(backendMade?.isUp ?? false) || startPeer !== undefined || peerStarting };
  },

  async backendInfo(): Promise<BackendInfo> {
    const { backend, modelWorkers } = await requireReady();
    return { ...backend.info, modelWorkers };
  },

  /** How many model runs this worker's ORT and its peer's answered. */
  async modelRuns(): Promise<ModelRuns> {
    return (await requireReady()).models.runCounts();
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

  /** A model's session from bytes another worker fetched and unpacked (a model peer's: src/worker/model-peer.ts); its load ms. */
  async adoptModel(id: string, model: Uint8Array): Promise<number> {
    return (await (await requireReady()).models.adopt(id, model)).loadMs;
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
