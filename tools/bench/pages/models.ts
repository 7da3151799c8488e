// Runs in the bench page: times every manifest model in the vision worker (WASM backend)
// on a real face crop. Driven from Node by tools/bench/models.ts through the harness.
import obamaUrl from '../../../../shared/data/faces/obama/obama.jpg?url';
import { startVisionWorker, type VisionWorker } from '../../../src/engine/vision-client.ts';
import { resolveRuntimeEnv } from '../../../src/env.ts';
import { ModelManifestSchema, type ModelEntry } from '../../../src/models/manifest.ts';
import { rgbaToTensor } from '../../../src/vision/tensor.ts';
import type { BackendInfo } from '../../../src/worker/ort-backend.ts';
import { expose } from '../../harness/page.ts';
import { summarize, type Summary } from '../stats.ts';

/** obama.jpg's face region, as in test/browser/runtime.test.ts */
const FACE_BOX = { x: 215, y: 170, size: 500 };
/** minimum warm-up per model, on top of the warm-up run count */
const WARMUP_MIN_MS = 500;

export interface ModelBenchOptions {
  /** timed warm runs per model (default 20) */
  runs?: number;
  /** untimed runs before the timed ones (default 3, and at least WARMUP_MIN_MS of them) */
  warmup?: number;
  /** subset of manifest ids, in manifest order (default all) */
  models?: string[];
  /** ORT WASM threads (default: the engine's own choice) */
  threads?: number;
}

export interface ModelTiming {
  id: string;
  inputDims: number[];
  bytes: number;
  weightStorage: ModelEntry['weightStorage'];
  /** fetch + session creation, as the worker reports it (ORT's WASM init excluded, see below) */
  loadMs: number;
  /** the first runModel() call, seen from the page */
  firstRunMs: number;
  /** warm runModel() calls after every model's first run, seen from the page (comlink round trip included) */
  warm: Summary;
  /** the warm times in run order, for looking at spread */
  samples: number[];
}

export interface ModelBenchResult {
  backend: BackendInfo;
  hardwareConcurrency: number;
  userAgent: string;
  runs: number;
  warmup: number;
  /** extra cost of a worker's first session: ORT's WASM compile + thread pool start */
  ortInitMs: number;
  models: ModelTiming[];
}

async function faceCrop(width: number, height: number): Promise<Uint8ClampedArray> {
  const bitmap = await createImageBitmap(await (await fetch(obamaUrl)).blob());
  const ctx = new OffscreenCanvas(width, height).getContext('2d')!;
  ctx.drawImage(bitmap, FACE_BOX.x, FACE_BOX.y, FACE_BOX.size, FACE_BOX.size, 0, 0, width, height);
  return ctx.getImageData(0, 0, width, height).data;
}

async function startWasmWorker(threads: number | undefined): Promise<VisionWorker> {
  const worker = startVisionWorker();
  await worker.api.init(resolveRuntimeEnv({ backend: 'wasm', numThreads: threads }));
  return worker;
}

interface Prepared {
  model: ModelEntry;
  input: Float32Array;
  dims: number[];
  loadMs: number;
  firstRunMs: number;
}

/** Cold phase: load + first run, as an app would see them at start-up. */
async function loadAndRunOnce(api: VisionWorker['api'], model: ModelEntry, made: Record<string, Float32Array>): Promise<Prepared> {
  const [, h, w, c] = model.input.shape as [unknown, number, number, number];
  const dims = [1, h, w, c];
  const channels = model.input.channels;
  // a model part's feature-map input is what an earlier part made; input is structured-cloned per
  // call (not transferred), so one tensor serves every run
  const input = channels === 'features' ? made[model.input.name] : rgbaToTensor(await faceCrop(w, h), w * h, channels, model.input.range);
  if (!input) throw new Error(`${model.id}: bench it with the model part that makes its ${model.input.name}`);
  const loadMs = await api.loadModel(model.id);
  const started = performance.now();
  const first = await api.runModel(model.id, input, dims);
  const firstRunMs = performance.now() - started;
  const names = Object.keys(first).sort().join();
  if (names !== model.outputs.map((o) => o.name).sort().join()) throw new Error(`${model.id}: unexpected outputs ${names}`);
  for (const [name, output] of Object.entries(first)) made[name] = output.data as Float32Array;
  return { model, input, dims, loadMs, firstRunMs };
}

/**
 * Warm phase. V8 first runs ORT's WASM with its baseline compiler and tiers hot code up in
 * the background, so a model's early runs are slow and noisy; hence warm-up by time too.
 */
async function timeWarm(api: VisionWorker['api'], p: Prepared, runs: number, warmup: number): Promise<ModelTiming> {
  const warmUntil = performance.now() + WARMUP_MIN_MS;
  for (let i = 0; i < warmup || performance.now() < warmUntil; i++) await api.runModel(p.model.id, p.input, p.dims);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await api.runModel(p.model.id, p.input, p.dims);
    times.push(performance.now() - started);
  }
  const warm = summarize(times);
  const { model, dims, loadMs, firstRunMs } = p;
  return { id: model.id, inputDims: dims, bytes: model.bytes, weightStorage: model.weightStorage, loadMs, firstRunMs, warm, samples: times };
}

/**
 * A worker's first session also pays for ORT's WASM init; a second fresh worker loads
 * models[1] first, then models[0] cleanly, and the difference is that init cost.
 */
async function separateOrtInit(
  models: ModelEntry[],
  firstLoadMs: number,
  threads: number | undefined,
): Promise<{ cleanLoadMs: number; ortInitMs: number }> {
  if (models.length < 2) return { cleanLoadMs: firstLoadMs, ortInitMs: Number.NaN };
  const probe = await startWasmWorker(threads);
  try {
    await probe.api.loadModel(models[1]!.id);
    const cleanLoadMs = await probe.api.loadModel(models[0]!.id);
    return { cleanLoadMs, ortInitMs: firstLoadMs - cleanLoadMs };
  } finally {
    probe.terminate();
  }
}

async function benchModels(options: ModelBenchOptions = {}): Promise<ModelBenchResult> {
  const runs = options.runs ?? 20;
  const warmup = options.warmup ?? 3;
  const manifest = ModelManifestSchema.parse(await (await fetch('/models/manifest.json')).json());
  const models = options.models ? manifest.models.filter((m) => options.models!.includes(m.id)) : manifest.models;
  const unknown = options.models?.filter((id) => !manifest.models.some((m) => m.id === id)) ?? [];
  if (unknown.length) throw new Error(`unknown model ids: ${unknown.join(', ')}`);
  if (!models.length) throw new Error('no models to bench');

  const vision = await startWasmWorker(options.threads);
  try {
    const prepared: Prepared[] = [];
    const made: Record<string, Float32Array> = {};
    for (const model of models) {
      console.log(`bench: load + first run ${model.id}`);
      prepared.push(await loadAndRunOnce(vision.api, model, made));
    }
    const timings: ModelTiming[] = [];
    for (const p of prepared) {
      console.log(`bench: warm runs ${p.model.id}`);
      timings.push(await timeWarm(vision.api, p, runs, warmup));
    }
    const backend = await vision.api.backendInfo(); // thread count is settled once a session exists
    const { cleanLoadMs, ortInitMs } = await separateOrtInit(models, timings[0]!.loadMs, options.threads);
    timings[0]!.loadMs = cleanLoadMs;
    return { backend, hardwareConcurrency: navigator.hardwareConcurrency, userAgent: navigator.userAgent, runs, warmup, ortInitMs, models: timings };
  } finally {
    vision.terminate();
  }
}

expose({ benchModels });
