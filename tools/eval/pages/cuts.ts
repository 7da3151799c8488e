// Runs in the eval page: the border-cut and close-up sets (tools/eval/cuts.ts) built from one
// ../shared/data photo at eval time — the photo decoded once, its face found on the uncut
// photo (the truth), then every crop cut from the decoded pixels and sent through the worker's
// pipeline as a frame; boxes come back clipped to the crop as /detect's fields are.
// Also the audience count: engine.watch() over the audience segment of short_hamilton_clip.
import * as Comlink from 'comlink';
import { startVisionWorker } from '../../../src/engine/vision-client.ts';
import { resolveRuntimeEnv } from '../../../src/env.ts';
import { createEngine, type Engine } from '../../../src/index.ts';
import { clippedBox } from '../../../src/service/face-json.ts';
import type { ImageAnalysisOptions } from '../../../src/worker/image-analysis.ts';
import { expose } from '../../harness/page.ts';
import { borderCrops, closeUpCrops, type CropOutcome, type Rect } from '../cuts.ts';

const vision = startVisionWorker();
const ready = vision.api.init(resolveRuntimeEnv({ backend: 'wasm' }));

const OPTIONS: ImageAnalysisOptions = {
  minHeadScale: 0.015,
  selector: { roll: false, full: false, liveness: false },
  demographics: false,
  emotion: false,
  keepMesh: false,
};

/** Boxes of the faces found in `bitmap` (transferred), clipped to it. */
async function boxesIn(bitmap: ImageBitmap, detection?: ImageAnalysisOptions['detection']): Promise<{ boxes: Rect[]; ms: number }> {
  const { width, height } = bitmap;
  const r = await vision.api.analyzeFrame(Comlink.transfer(bitmap, [bitmap]), { ...OPTIONS, detection });
  if (!r.ok) throw new Error(`${r.error.kind} (${r.error.code}): ${r.error.message}`);
  return {
    boxes: r.value.faces.map((f) => {
      const b = clippedBox(f, width, height);
      return { x: b.topLeftX, y: b.topLeftY, width: b.width, height: b.height };
    }),
    ms: r.value.timings.total,
  };
}

export type CutsResult =
  | { ok: true; width: number; height: number; uncutFaces: number; outcomes: CropOutcome[]; ms: number }
  | { ok: false; error: string };

/** The photo's border-cut or close-up crops, each analysed; skipped (no outcomes) unless the uncut photo has exactly one face. */
async function analyzeCuts(absPath: string, set: 'border' | 'closeup', detection?: ImageAnalysisOptions['detection']): Promise<CutsResult> {
  await ready;
  try {
    const response = await fetch(`/@fs${absPath}`);
    if (!response.ok) return { ok: false, error: `fetch ${absPath}: HTTP ${response.status}` };
    // EXIF orientation applied, as the engine's intake does
    const decoded = await createImageBitmap(await response.blob(), { imageOrientation: 'from-image' });
    // crops are cut from a canvas: cropping an ImageBitmap of an EXIF-rotated JPEG in Chromium
    // cut the unrotated pixels (faces/biden/biden2_exif_orientation6.jpg)
    const photo = new OffscreenCanvas(decoded.width, decoded.height);
    photo.getContext('2d')!.drawImage(decoded, 0, 0);
    decoded.close();
    try {
      const uncut = await boxesIn(await createImageBitmap(photo), detection);
      const outcomes: CropOutcome[] = [];
      let ms = 0;
      if (uncut.boxes.length === 1) {
        const face = uncut.boxes[0]!;
        const crops = set === 'border' ? borderCrops(face, photo.width, photo.height) : closeUpCrops(face, photo.width, photo.height);
        for (const crop of crops) {
          const { rect } = crop;
          const found = await boxesIn(await createImageBitmap(photo, rect.x, rect.y, rect.width, rect.height), detection);
          ms += found.ms;
          outcomes.push({ path: absPath, crop, boxes: found.boxes });
        }
      }
      return { ok: true, width: photo.width, height: photo.height, uncutFaces: uncut.boxes.length, outcomes, ms };
    } finally {
      photo.width = photo.height = 0;
    }
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

export interface AudienceFrame {
  time_ms: number;
  /** centre x and width of every face returned (frame pixels) */
  faces: { cx: number; width: number; detected: boolean }[];
}

let engine: Promise<Engine> | undefined;

/** VideoFrames of a clip by seeking a <video> at `fps` from `fromS` to `toS` (frame-exact, so runs repeat). */
async function* seekFrames(url: string, fps: number, fromS: number, toS: number, letterbox?: { width: number; height: number }): AsyncGenerator<VideoFrame> {
  const video = document.createElement('video');
  video.muted = true;
  video.preload = 'auto';
  const loaded = new Promise<void>((resolve) => video.addEventListener('loadeddata', () => resolve(), { once: true }));
  video.src = url;
  await loaded;
  const canvas = letterbox && new OffscreenCanvas(letterbox.width, letterbox.height);
  const g = canvas?.getContext('2d');
  try {
    for (let k = 0; ; k++) {
      const t = fromS + k / fps;
      if (t >= Math.min(toS, video.duration) - 1e-3) break;
      const seeked = new Promise<void>((resolve) => video.addEventListener('seeked', () => resolve(), { once: true }));
      const shown = new Promise<void>((resolve) => {
        video.requestVideoFrameCallback(() => resolve());
        setTimeout(resolve, 250);
      });
      video.currentTime = t + 0.0005;
      await seeked;
      await shown;
      const timestamp = Math.round(t * 1e6);
      if (!g || !canvas) {
        yield new VideoFrame(video, { timestamp });
        continue;
      }
      // a webcam's 4:3 frame: the 16:9 clip letterboxed, faces moved down, not sideways
      g.fillStyle = '#000';
      g.fillRect(0, 0, canvas.width, canvas.height);
      const h = (canvas.width * video.videoHeight) / video.videoWidth;
      g.drawImage(video, 0, (canvas.height - h) / 2, canvas.width, h);
      yield new VideoFrame(canvas, { timestamp });
    }
  } finally {
    video.removeAttribute('src');
    video.load();
  }
}

/** engine.watch() (default options, every frame processed) over a clip segment; the faces of each result. */
async function watchSegment(absPath: string, storageName: string, fps: number, fromS: number, toS: number, letterbox?: { width: number; height: number }): Promise<AudienceFrame[]> {
  engine ??= createEngine({ backend: 'wasm', storageName });
  const e = await engine;
  const url = URL.createObjectURL(await (await fetch(`/@fs${absPath}`)).blob());
  try {
    const out: AudienceFrame[] = [];
    for await (const frame of e.watch(seekFrames(url, fps, fromS, toS, letterbox), { dropFrames: false })) {
      out.push({ time_ms: frame.time_ms, faces: frame.faces.map((f) => ({ cx: f.box.x + f.box.width / 2, width: f.box.width, detected: f.detected })) });
    }
    return out;
  } finally {
    URL.revokeObjectURL(url);
  }
}

/**
 * Frames of a clip segment as photos: each through the pipeline as /detect runs it (default
 * selector, or FULL), centre x and width of every face returned. The frames are the clip's own
 * (640×360), not letterboxed.
 */
async function detectSegment(absPath: string, fps: number, fromS: number, toS: number, full: boolean): Promise<AudienceFrame[]> {
  await ready;
  const url = URL.createObjectURL(await (await fetch(`/@fs${absPath}`)).blob());
  try {
    const out: AudienceFrame[] = [];
    for await (const frame of seekFrames(url, fps, fromS, toS)) {
      const time_ms = frame.timestamp / 1000;
      const bitmap = await createImageBitmap(frame);
      frame.close();
      const r = await vision.api.analyzeFrame(Comlink.transfer(bitmap, [bitmap]), { ...OPTIONS, selector: { ...OPTIONS.selector, full } });
      if (!r.ok) throw new Error(`${r.error.kind} (${r.error.code}): ${r.error.message}`);
      out.push({ time_ms, faces: r.value.faces.map((f) => ({ cx: f.box.x + f.box.width / 2, width: f.box.width, detected: true })) });
    }
    return out;
  } finally {
    URL.revokeObjectURL(url);
  }
}

expose({ analyzeCuts, watchSegment, detectSegment });
