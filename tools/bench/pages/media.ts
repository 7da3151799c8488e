// Runs in the media bench page; driven from Node by tools/bench/media.ts through the harness.
// Each clip goes through the real media service (POST /v2/media, frames from a <video>
// element, analysis in the vision worker, results in IndexedDB) and is timed from the POST to
// its complete result. The worker's own per-stage times are collected by wrapping its port.
import hamiltonUrl from '../../../../shared/data/video/short_hamilton_clip.mp4?url';
import synthUrl from '../../../../shared/data/video/synthetic_panzoom_biden_vp9.webm?url';
import obamaUrl from '../../../../shared/data/faces/obama/obama.jpg?url';
import { startVisionWorker } from '../../../src/engine/vision-client.ts';
import { resolveRuntimeEnv } from '../../../src/env.ts';
import { DEFAULT_SAMPLE_FPS } from '../../../src/media/frames.ts';
import { createMediaService, DEFAULT_MEDIA_MIN_HEAD_SCALE, mediaVisionPort, type MediaVision } from '../../../src/media/media-service.ts';
import type { CompleteMedia } from '../../../src/media/schema.ts';
import type { ImageAnalysis } from '../../../src/worker/image-analysis.ts';
import type { BackendInfo } from '../../../src/worker/ort-backend.ts';
import { expose } from '../../harness/page.ts';

export const CLIPS = {
  hamilton: { url: hamiltonUrl, file: 'short_hamilton_clip.mp4' },
  synthetic: { url: synthUrl, file: 'synthetic_panzoom_biden_vp9.webm' },
} as const;
export type ClipId = keyof typeof CLIPS;

export interface MediaBenchOptions {
  /** sampled frames per second (default the service's, 5) */
  sampleFps?: number;
  /** the service's minHeadScale (default the service's) */
  minHeadScale?: number;
  /** runs per clip (default 2; the median is reported) */
  runs?: number;
  clips?: ClipId[];
  threads?: number;
}

export interface StageTotals {
  calls: number;
  detect: number;
  mesh: number;
  demographics: number;
  emotion: number;
  embed: number;
  /** the worker's own total, summed over calls */
  worker: number;
  /** analyzeFrame() as the page sees it (transfer + queueing + worker) */
  roundTrip: number;
}

export interface ClipRun {
  /** POST → complete media object, ms */
  wallMs: number;
  stages: StageTotals;
}

export interface ClipResult {
  id: ClipId;
  file: string;
  width: number;
  height: number;
  /** seconds */
  length: number;
  mimeType: string;
  frames: number;
  /** faces over all sampled frames */
  faces: number;
  people: number;
  runs: ClipRun[];
}

export interface MediaBenchResult {
  backend: BackendInfo;
  hardwareConcurrency: number;
  sampleFps: number;
  minHeadScale: number;
  /** first job of the page (model loading included), ms: a photo */
  coldFirstJobMs: number;
  clips: ClipResult[];
}

function timedPort(inner: MediaVision, totals: () => StageTotals): MediaVision {
  const add = (a: ImageAnalysis, roundTrip: number) => {
    const t = totals();
    t.calls++;
    t.detect += a.timings.detect;
    t.mesh += a.timings.mesh;
    t.demographics += a.timings.demographics;
    t.emotion += a.timings.emotion;
    t.embed += a.timings.embed;
    t.worker += a.timings.total;
    t.roundTrip += roundTrip;
  };
  return {
    async analyze(input, options) {
      const t0 = performance.now();
      const r = await inner.analyze(input, options);
      if (r.ok) add(r.value, performance.now() - t0);
      return r;
    },
    async analyzeFrame(bitmap, options) {
      const t0 = performance.now();
      const r = await inner.analyzeFrame(bitmap, options);
      if (r.ok) add(r.value, performance.now() - t0);
      return r;
    },
  };
}

const zero = (): StageTotals => ({ calls: 0, detect: 0, mesh: 0, demographics: 0, emotion: 0, embed: 0, worker: 0, roundTrip: 0 });

async function benchMedia(options: MediaBenchOptions = {}): Promise<MediaBenchResult> {
  const vision = startVisionWorker();
  const backend = await vision.api.init(resolveRuntimeEnv({ backend: 'wasm', numThreads: options.threads }));
  let current = zero();
  const storageName = `bench-media-${Date.now()}`;
  const service = createMediaService(timedPort(mediaVisionPort(vision.api), () => current), {
    storageName,
    sampleFps: options.sampleFps,
    minHeadScale: options.minHeadScale,
    resume: false,
  });
  try {
    await service.ready;
    // cold: the first job loads every model it uses
    const t0 = performance.now();
    const photo = await service.post({ appId: 'bench', source: await (await fetch(obamaUrl)).blob(), timeout: 60 });
    const coldFirstJobMs = performance.now() - t0;
    if (photo.status !== 200) throw new Error('the warm-up photo did not finish within 60 s');
    // the video path's models and code paths once, untimed
    const warm = await service.post({ appId: 'bench', source: await (await fetch(CLIPS.synthetic.url)).blob(), timeout: 60 });
    if (warm.status !== 200) throw new Error('the warm-up clip did not finish within 60 s');

    const clips: ClipResult[] = [];
    for (const id of options.clips ?? (Object.keys(CLIPS) as ClipId[])) {
      const blob = await (await fetch(CLIPS[id].url)).blob();
      const runs: ClipRun[] = [];
      let media: CompleteMedia | undefined;
      for (let r = 0; r < (options.runs ?? 2); r++) {
        current = zero();
        const start = performance.now();
        const reply = await service.post({ appId: 'bench', source: new File([blob], CLIPS[id].file, { type: blob.type }), timeout: 60 });
        let body = reply.body;
        if (reply.status === 202) {
          await service.settled('bench', body.id);
          body = await service.get('bench', body.id);
        }
        const wallMs = performance.now() - start;
        if (!('frames' in body)) throw new Error(`${id}: ${JSON.stringify(body)}`);
        media = body;
        runs.push({ wallMs, stages: current });
        await service.delete('bench', body.id);
      }
      const video = document.createElement('video');
      video.src = CLIPS[id].url;
      await new Promise((resolve, reject) => {
        video.onloadedmetadata = resolve;
        video.onerror = reject;
      });
      clips.push({
        id,
        file: CLIPS[id].file,
        width: video.videoWidth,
        height: video.videoHeight,
        length: media!.length,
        mimeType: media!.media_info.mime_type,
        frames: media!.frames.length,
        faces: media!.frames.reduce((s, f) => s + f.people.length, 0),
        people: new Set(media!.frames.flatMap((f) => f.people.map((p) => p.person_id))).size,
        runs,
      });
      video.removeAttribute('src');
    }
    return {
      backend,
      hardwareConcurrency: navigator.hardwareConcurrency,
      sampleFps: options.sampleFps ?? DEFAULT_SAMPLE_FPS,
      minHeadScale: options.minHeadScale ?? DEFAULT_MEDIA_MIN_HEAD_SCALE,
      coldFirstJobMs,
      clips,
    };
  } finally {
    await service.close();
    vision.terminate();
    indexedDB.deleteDatabase(service.databaseName);
  }
}

expose({ benchMedia });
