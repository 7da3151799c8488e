// Runs in the eval page: one ../shared/data image through the worker's whole pipeline with the
// shipped detection settings, reduced to what tools/eval/index.ts scores (a few numbers per face,
// so 100+ calls stay cheap to pass back to Node).
import { startVisionWorker } from '../../../src/engine/vision-client.ts';
import { resolveRuntimeEnv } from '../../../src/env.ts';
import { DEFAULT_EMOTION_MODEL, type DemographicsSettings, type EmotionModelId } from '../../../src/models/catalog.ts';
import { DETECTION, type DetectionSettings } from '../../../src/worker/image-analysis.ts';
import type { BackendInfo } from '../../../src/worker/ort-backend.ts';
import { expose } from '../../harness/page.ts';

const vision = startVisionWorker();
// `npm run eval -- --env JSON`: runtime options of the worker (e.g. {"numThreads":1,"modelWorkers":2})
const envOverrides = JSON.parse(new URLSearchParams(location.search).get('env') ?? '{}') as Record<string, unknown>;
const ready = vision.api.init(resolveRuntimeEnv({ backend: 'wasm', ...envOverrides }));

export interface EvalOptions {
  /** run the emotion classifier on every face, with this model */
  emotionModel?: EmotionModelId;
  /** overrides of the shipped detection settings */
  detection?: Partial<DetectionSettings>;
  /** run the demographics models, with these overrides of the shipped settings */
  demographics?: Partial<DemographicsSettings>;
}

export interface EvalFace {
  /** mesh box [x, y, width, height], rounded to pixels */
  box: [number, number, number, number];
  score: number;
  /** the detector's own box [x, y, width, height] and roll of its eye line (degrees) */
  detector: [number, number, number, number, number];
  meshScore: number;
  /** probabilities by class (angry, disgust, fear, happy, sad, surprise, neutral) */
  emotion?: Record<string, number>;
  demographics?: { age: number; male: number; race: Record<string, number> };
}

export interface EvalImage {
  width: number;
  height: number;
  /** largest first, as analyze() returns them */
  faces: EvalFace[];
  /** analyze()'s own timings.total, .decode and .detect, ms */
  totalMs: number;
  decodeMs: number;
  detectMs: number;
  /** detector views searched */
  views: number;
}

export type EvalResult = { ok: true; image: EvalImage } | { ok: false; error: string };

export interface EvalInfo {
  backend: BackendInfo;
  detection: DetectionSettings;
  /** the emotion model the engine uses when a request names none */
  defaultEmotionModel: EmotionModelId;
  hardwareConcurrency: number;
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

/** `absPath` is a file path on the server's disk; vite serves it under /@fs (fs.allow has ../shared). */
async function analyzeFile(absPath: string, options: EvalOptions = {}): Promise<EvalResult> {
  await ready;
  const response = await fetch(`/@fs${absPath}`);
  if (!response.ok) return { ok: false, error: `fetch ${absPath}: HTTP ${response.status}` };
  const r = await vision.api.analyze(await response.blob(), {
    minHeadScale: 0.015,
    selector: { roll: false, full: false, liveness: false },
    demographics: options.demographics !== undefined,
    demographicsSettings: options.demographics,
    detection: options.detection,
    emotion: options.emotionModel !== undefined,
    emotionModel: options.emotionModel,
    keepMesh: false,
  });
  if (!r.ok) return { ok: false, error: `${r.error.kind} (${r.error.code}): ${r.error.message}` };
  const { faces, timings, detector, width, height } = r.value;
  return {
    ok: true,
    image: {
      width,
      height,
      faces: faces.map((f) => ({
        box: [Math.round(f.box.x), Math.round(f.box.y), Math.round(f.box.width), Math.round(f.box.height)],
        score: round3(f.detection.score),
        detector: [
          ...([f.detection.box.x, f.detection.box.y, f.detection.box.width, f.detection.box.height].map(Math.round) as [number, number, number, number]),
          Math.round((Math.atan2(f.detection.keypoints[1]!.y - f.detection.keypoints[0]!.y, f.detection.keypoints[1]!.x - f.detection.keypoints[0]!.x) * 180) / Math.PI),
        ],
        meshScore: round3(f.meshScore),
        emotion: f.emotion && Object.fromEntries(Object.entries(f.emotion).map(([k, v]) => [k, round3(v)])),
        demographics: f.demographics && { age: f.demographics.age, male: f.demographics.male, race: { ...f.demographics.race } },
      })),
      totalMs: timings.total,
      decodeMs: timings.decode,
      detectMs: timings.detect,
      views: detector.views,
    },
  };
}

async function info(): Promise<EvalInfo> {
  return { backend: await ready, detection: DETECTION, defaultEmotionModel: DEFAULT_EMOTION_MODEL, hardwareConcurrency: navigator.hardwareConcurrency };
}

expose({ analyzeFile, info });
import './video.ts';
import './cuts.ts';
