// Runs in the /detect bench page; driven from Node by tools/bench/detect.ts through the
// harness. The URL picks what the page does:
//   ?mode=cold        creates the engine as soon as this module runs and answers one /detect
//                     (the cold start an app sees); Node collects it with coldStart()
//   ?mode=coldstages  the same first request through the worker API, for its per-stage times
//                     and model load times; Node collects it with coldStages()
//   (no mode)         warm runs: benchWarm(options)
// `backend` and `threads` URL parameters set the engine options in every mode.
import obamaUrl from '../../../../shared/data/faces/obama/obama.jpg?url';
import solvayUrl from '../../../../shared/data/groups/solvay1927.jpg?url';
import type { DetectRequest, DetectResponse } from '../../../src/api/detect-schema.ts';
import type { FaceErrorBody } from '../../../src/api/error-body.ts';
import { createEngine } from '../../../src/engine/engine.ts';
import { startVisionWorker, type VisionWorker } from '../../../src/engine/vision-client.ts';
import { workerVisionPort } from '../../../src/engine/vision-port.ts';
import { BackendPreferenceSchema, resolveRuntimeEnv, type RuntimeEnv } from '../../../src/env.ts';
import { detect as detectService } from '../../../src/service/detect.ts';
import type { VisionPort } from '../../../src/service/vision-port.ts';
import { CAPABILITIES } from '../../../src/models/capabilities.ts';
import { DETECTION, type ImageAnalysis, type ImageTimings } from '../../../src/worker/image-analysis.ts';
import type { BackendInfo } from '../../../src/worker/ort-backend.ts';
import { expose } from '../../harness/page.ts';
import { GROUP, SINGLE_FACE } from '../detect-photos.ts';
import { summarize, type Summary } from '../stats.ts';

/** when this module started running: every page script has been fetched and evaluated */
const moduleStart = performance.now();

/** the models a default /detect request loads (detector, mesh, demographics) */
const DETECT_MODELS = CAPABILITIES.detect.models;
/** minimum warm-up per case and path, on top of the warm-up run count (V8 tiers ORT's WASM up in the background) */
const WARMUP_MIN_MS = 1000;

const params = new URLSearchParams(location.search);
const env: RuntimeEnv = resolveRuntimeEnv({
  backend: BackendPreferenceSchema.parse(params.get('backend') ?? 'wasm'),
  numThreads: params.has('threads') ? Number(params.get('threads')) : undefined,
});

async function singleFacePhoto(): Promise<Blob> {
  const bitmap = await createImageBitmap(await (await fetch(obamaUrl)).blob());
  const { crop, width, height, quality } = SINGLE_FACE;
  const canvas = new OffscreenCanvas(width, height);
  canvas.getContext('2d')!.drawImage(bitmap, crop.x, crop.y, crop.width, crop.height, 0, 0, width, height);
  bitmap.close();
  return canvas.convertToBlob({ type: 'image/jpeg', quality });
}

async function groupPhoto(): Promise<Blob> {
  return (await fetch(solvayUrl)).blob();
}

function facesOf(response: DetectResponse | FaceErrorBody): number {
  if ('Errors' in response) throw new Error(`/detect failed: ${JSON.stringify(response.Errors)}`);
  return response.images[0]!.faces.length;
}

/** The /detect service on the worker API, keeping the worker's analysis (timings, detector stats) of each call. */
function timedDetect(api: VisionWorker['api']): { run(request: DetectRequest): Promise<{ response: DetectResponse; analysis: ImageAnalysis }> } {
  return {
    async run(request) {
      let analysis: ImageAnalysis | undefined;
      const worker = workerVisionPort(api);
      const port: VisionPort = {
        async analyze(input, options) {
          const result = await worker.analyze(input, options);
          if (result.ok) analysis = result.value;
          return result;
        },
      };
      const response = await detectService(port, request);
      return { response, analysis: analysis! };
    },
  };
}

// ---------------------------------------------------------------- cold start (?mode=cold)

export interface NavigationMarks {
  /** ms since navigation start */
  responseStart: number;
  responseEnd: number;
  domContentLoaded: number;
}

export interface ColdStart {
  navigation: NavigationMarks;
  /** the times below are ms since navigation start (performance.timeOrigin) */
  moduleStart: number;
  /** createEngine() resolved: worker started, ORT's JS imported, model manifest read (ORT's WASM and the models load lazily) */
  engineReady: number;
  /** the bench's own photo, made in parallel with createEngine() */
  photoReady: number;
  /** the first engine.detect() answered (ORT WASM init, model loads, first runs) */
  firstResult: number;
  /** the second engine.detect() on the same photo, ms */
  secondDetectMs: number;
  faces: number;
  backend: BackendInfo;
  /** script resources the page itself loaded (the worker's are not in its timeline) */
  pageScripts: number;
}

function navigationMarks(): NavigationMarks {
  const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
  return { responseStart: nav?.responseStart ?? Number.NaN, responseEnd: nav?.responseEnd ?? Number.NaN, domContentLoaded: nav?.domContentLoadedEventEnd ?? Number.NaN };
}

async function coldStart(): Promise<ColdStart> {
  const starting = createEngine(env);
  const photoMade = singleFacePhoto().then((photo) => ({ photo, at: performance.now() }));
  const engine = await starting;
  try {
    const engineReady = performance.now();
    const { photo, at: photoReady } = await photoMade;
    const faces = facesOf(await engine.detect({ image: photo }));
    const firstResult = performance.now();
    facesOf(await engine.detect({ image: photo }));
    const secondDetectMs = performance.now() - firstResult;
    const pageScripts = performance.getEntriesByType('resource').filter((e) => (e as PerformanceResourceTiming).initiatorType === 'script' || e.name.endsWith('.ts')).length;
    return { navigation: navigationMarks(), moduleStart, engineReady, photoReady, firstResult, secondDetectMs, faces, backend: engine.backend, pageScripts };
  } finally {
    engine.close();
  }
}

// ------------------------------------------------------------ warm start (?mode=warmstart)

/** A fresh page as the demo starts: createEngine(), then engine.warmUp(), then the first /detect. */
export interface WarmStart {
  /** ms since navigation start */
  engineReady: number;
  /** engine.warmUp() resolved, ms since navigation start */
  warmedUp: number;
  /** the warm-up itself, ms */
  warmUpMs: number;
  /** the first engine.detect() after the warm-up, ms */
  firstDetectMs: number;
  /** the worker's stage times of that detect */
  firstTimings: ImageTimings;
  /** the second engine.detect(), ms */
  secondDetectMs: number;
  faces: number;
}

async function warmStart(): Promise<WarmStart> {
  const engine = await createEngine(env);
  try {
    const engineReady = performance.now();
    const photo = await singleFacePhoto();
    const report = await engine.warmUp();
    const timings: ImageTimings[] = [];
    engine.diagnostics.onTimings((e) => timings.push(e.timings));
    const warmedUp = performance.now();
    const faces = facesOf(await engine.detect({ image: photo }));
    const firstDetectMs = performance.now() - warmedUp;
    facesOf(await engine.detect({ image: photo }));
    const secondDetectMs = performance.now() - warmedUp - firstDetectMs;
    return { engineReady, warmedUp, warmUpMs: report.ms, firstDetectMs, firstTimings: timings[0]!, secondDetectMs, faces };
  } finally {
    engine.close();
  }
}

// ------------------------------------------------------------ cold stages (?mode=coldstages)

export interface ColdStages {
  navigation: NavigationMarks;
  /** ms since navigation start */
  moduleStart: number;
  /** startVisionWorker() + init(): what createEngine() does */
  initMs: number;
  /** the first /detect through the service, page-side, ms */
  firstDetectMs: number;
  /** the worker's stage times of that first call (model loads happen inside them) */
  firstTimings: ImageTimings;
  firstViews: number;
  /** fetch + session creation of each model during the first call; the detector's includes ORT's WASM init */
  loadMs: Record<string, number>;
  /** ORT's WASM init (fetch, compile, thread pool), from a second worker: detector load there after another model */
  ortInitMs: number;
  /** the second call, for comparison */
  secondDetectMs: number;
  secondTimings: ImageTimings;
  backend: BackendInfo;
}

async function coldStages(): Promise<ColdStages> {
  const photoMade = singleFacePhoto();
  let started = performance.now();
  const vision = startVisionWorker();
  try {
    await vision.api.init(env);
    const initMs = performance.now() - started;
    const photo = await photoMade;
    const service = timedDetect(vision.api);
    started = performance.now();
    const first = await service.run({ image: photo });
    const firstDetectMs = performance.now() - started;
    started = performance.now();
    const second = await service.run({ image: photo });
    const secondDetectMs = performance.now() - started;
    const loadMs: Record<string, number> = {};
    for (const id of DETECT_MODELS) loadMs[id] = await vision.api.loadModel(id); // already loaded: the time it took then
    const backend = await vision.api.backendInfo();
    // ORT's WASM init, apart: in a second worker, the detector loads after another model
    const probe = startVisionWorker();
    let ortInitMs: number;
    try {
      await probe.api.init(env);
      await probe.api.loadModel('facemesh');
      ortInitMs = loadMs[DETECTION.detector]! - (await probe.api.loadModel(DETECTION.detector));
    } finally {
      probe.terminate();
    }
    return {
      navigation: navigationMarks(),
      moduleStart,
      initMs,
      firstDetectMs,
      firstTimings: first.analysis.timings,
      firstViews: first.analysis.detector.views,
      loadMs,
      ortInitMs,
      secondDetectMs,
      secondTimings: second.analysis.timings,
      backend,
    };
  } finally {
    vision.terminate();
  }
}

// ---------------------------------------------------------------------- warm (no mode)

export interface WarmOptions {
  /** timed runs per case (default 20) */
  runs?: number;
  /** timed runs for the group photo (default 10: one run is seconds) */
  groupRuns?: number;
  /** untimed runs per case before the timed ones (default 3, and at least WARMUP_MIN_MS of them) */
  warmup?: number;
  /** subset of case ids (default all) */
  cases?: string[];
}

export interface WarmCase {
  id: string;
  label: string;
  request: { minHeadScale?: number; selector?: string };
  image: { width: number; height: number; bytes: number };
  runs: number;
  faces: number;
  /** detector views and candidates (the same every run) */
  views: number;
  candidates: number;
  /** the worker's stage times (analyze() of the service path); other = total − the named stages */
  stages: Record<'decode' | 'detect' | 'mesh' | 'demographics' | 'liveness' | 'other' | 'total', Summary>;
  /** inside the detect stage: cutting views + making tensors, and the detector model */
  detectorCrop: Summary;
  detectorInfer: Summary;
  /** the service path end to end, seen by the page (detect() from src/service/detect.ts on the worker API) */
  serviceE2e: Summary;
  /** engine.detect() end to end, seen by the page */
  engineE2e: Summary;
}

export interface WarmResult {
  /** after the runs: the thread count ORT settled on */
  backend: BackendInfo;
  hardwareConcurrency: number;
  userAgent: string;
  warmup: number;
  cases: WarmCase[];
}

interface CaseSpec {
  id: string;
  label: string;
  photo: () => Promise<Blob>;
  request: { minHeadScale?: number; selector?: string };
  group?: boolean;
}

const CASES: CaseSpec[] = [
  { id: 'single', label: 'single face 640×480, default request', photo: singleFacePhoto, request: {} },
  { id: 'single-whole-frame', label: 'single face, minHeadScale 0.2 (whole frame only)', photo: singleFacePhoto, request: { minHeadScale: 0.2 } },
  { id: 'single-liveness', label: 'single face, selector LIVENESS', photo: singleFacePhoto, request: { selector: 'LIVENESS' } },
  { id: 'group', label: `group photo (${GROUP.source}), default request`, photo: groupPhoto, request: {}, group: true },
];

interface PathRun {
  faces: number;
  /** the worker's analysis, on the service path */
  analysis?: ImageAnalysis;
}

/**
 * Times every case on one path. Warm-up by count and by time: V8 tiers ORT's WASM up in the
 * background, and the first case's warm-up also loads the models.
 */
async function timePath(
  path: string,
  specs: { spec: CaseSpec; photo: Blob; runs: number }[],
  warmup: number,
  once: (request: DetectRequest) => Promise<PathRun>,
): Promise<{ times: number[]; runs: PathRun[] }[]> {
  const out: { times: number[]; runs: PathRun[] }[] = [];
  for (const { spec, photo, runs } of specs) {
    const request = { image: photo, ...spec.request };
    console.log(`bench: ${path}: ${spec.id}: warm-up, then ${runs} runs`);
    const warmUntil = performance.now() + WARMUP_MIN_MS;
    for (let i = 0; i < warmup || performance.now() < warmUntil; i++) await once(request);
    const times: number[] = [];
    const results: PathRun[] = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      results.push(await once(request));
      times.push(performance.now() - t);
    }
    out.push({ times, runs: results });
  }
  return out;
}

async function benchWarm(options: WarmOptions = {}): Promise<WarmResult> {
  const warmup = options.warmup ?? 3;
  const chosen = options.cases ? CASES.filter((c) => options.cases!.includes(c.id)) : CASES;
  const unknown = options.cases?.filter((id) => !CASES.some((c) => c.id === id)) ?? [];
  if (unknown.length) throw new Error(`unknown cases: ${unknown.join(', ')} (known: ${CASES.map((c) => c.id).join(', ')})`);
  const specs = [];
  for (const spec of chosen) specs.push({ spec, photo: await spec.photo(), runs: spec.group ? (options.groupRuns ?? 10) : (options.runs ?? 20) });

  // The two paths run one after the other, each with the only live worker: a second idle
  // worker's ORT thread pool would spin after its runs and take a core from the other.
  const engine = await createEngine(env);
  let engineRuns: Awaited<ReturnType<typeof timePath>>;
  try {
    engineRuns = await timePath('engine.detect', specs, warmup, async (request) => ({ faces: facesOf(await engine.detect(request)) }));
  } finally {
    engine.close();
  }
  const vision = startVisionWorker();
  let serviceRuns: Awaited<ReturnType<typeof timePath>>;
  let backend: BackendInfo;
  try {
    await vision.api.init(env);
    const service = timedDetect(vision.api);
    serviceRuns = await timePath('service', specs, warmup, async (request) => {
      const { response, analysis } = await service.run(request);
      return { faces: facesOf(response), analysis };
    });
    backend = await vision.api.backendInfo();
  } finally {
    vision.terminate();
  }

  const cases = specs.map(({ spec, photo, runs }, i): WarmCase => {
    const viaEngine = engineRuns[i]!;
    const viaService = serviceRuns[i]!;
    const faceCounts = new Set([...viaEngine.runs, ...viaService.runs].map((r) => r.faces));
    if (faceCounts.size !== 1) throw new Error(`${spec.id}: face count varies between runs: ${[...faceCounts].join(', ')}`);
    const analyses = viaService.runs.map((r) => r.analysis!);
    const stage = (pick: (t: ImageTimings) => number) => summarize(analyses.map((a) => pick(a.timings)));
    const first = analyses[0]!;
    return {
      id: spec.id,
      label: spec.label,
      request: spec.request,
      image: { width: first.width, height: first.height, bytes: photo.size },
      runs,
      faces: [...faceCounts][0]!,
      views: first.detector.views,
      candidates: first.detector.candidates,
      stages: {
        decode: stage((t) => t.decode),
        detect: stage((t) => t.detect),
        mesh: stage((t) => t.mesh),
        demographics: stage((t) => t.demographics),
        liveness: stage((t) => t.liveness),
        other: stage((t) => t.total - t.decode - t.detect - t.mesh - t.demographics - t.emotion - t.liveness - t.embed),
        total: stage((t) => t.total),
      },
      detectorCrop: summarize(analyses.map((a) => a.detector.cropMs)),
      detectorInfer: summarize(analyses.map((a) => a.detector.inferMs)),
      serviceE2e: summarize(viaService.times),
      engineE2e: summarize(viaEngine.times),
    };
  });
  return { backend, hardwareConcurrency: navigator.hardwareConcurrency, userAgent: navigator.userAgent, warmup, cases };
}

// ---------------------------------------------------------------------------- wiring

const mode = params.get('mode');
const notOpened = (m: string) => () => Promise.reject(new Error(`the page was not opened with ?mode=${m}`));
// started at once, as an app would; the rejection (if any) is observed when Node collects it
const cold = mode === 'cold' ? coldStart() : undefined;
const stages = mode === 'coldstages' ? coldStages() : undefined;
const warmed = mode === 'warmstart' ? warmStart() : undefined;
cold?.catch(() => {});
stages?.catch(() => {});
warmed?.catch(() => {});

expose({
  coldStart: cold ? () => cold : notOpened('cold'),
  coldStages: stages ? () => stages : notOpened('coldstages'),
  warmStart: warmed ? () => warmed : notOpened('warmstart'),
  benchWarm,
});
