// Video → sampled frames as ImageBitmaps, on the page's main thread.
//
// Why a <video> element and not WebCodecs: Chromium's <video> demuxes WebM and MP4 itself and
// seeks frame-exactly for VP8, VP9, AV1 and H.264 (docs/emotion.md); WebCodecs would need our
// own MP4 and WebM demuxers. <video> exists only on the main thread (workers have no DOM),
// so frames are grabbed here and transferred to the vision worker. Nothing here blocks the
// UI: seeking and decoding happen in the media pipeline; the main thread only awaits events
// and calls createImageBitmap (asynchronous; the copy of one frame), and all model work runs
// in the worker.
//
// Sampling: frames at media times 0, 1/fps, 2/fps, … while < duration. Seeking to time t
// shows the frame whose presentation interval holds t; we seek 0.5 ms past t so that a frame
// starting exactly at t is never missed through rounding.
import { EngineError } from '../errors.ts';
import { errorText } from '../intake/abort.ts';

/** Default sampling rate of videos, frames per second. */
export const DEFAULT_SAMPLE_FPS = 5;
/** Upper bound of the sampling rate (Chromium's seeking gets no faster; beyond ~30 there is nothing new to see). */
export const MAX_SAMPLE_FPS = 30;
/** Frames larger than this (longest side, pixels) are downscaled before analysis. */
export const MAX_ANALYSIS_SIDE = 1280;
/** A seek that takes longer than this fails the job. */
const SEEK_TIMEOUT_MS = 30_000;
const SEEK_EPSILON_S = 0.0005;

/** Media times (ms, rounded) of the samples of a `durationS`-second video at `fps`. */
export function sampleTimes(durationS: number, fps: number): number[] {
  if (!(durationS > 0) || !(fps > 0)) return [0];
  const out: number[] = [];
  for (let k = 0; ; k++) {
    const t = (k * 1000) / fps;
    if (t >= durationS * 1000 - 1e-6) break;
    out.push(Math.round(t));
  }
  return out.length ? out : [0];
}

function once(target: EventTarget, ok: string, signal: AbortSignal | undefined, timeoutMs: number, what: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const cleanup = () => {
      target.removeEventListener(ok, onOk);
      target.removeEventListener('error', onError);
      signal?.removeEventListener('abort', onAbort);
      clearTimeout(timer);
    };
    const onOk = () => {
      cleanup();
      resolve();
    };
    const onError = () => {
      cleanup();
      const err = (target as HTMLVideoElement).error;
      reject(new EngineError('IMAGE_DECODE', `the video could not be decoded (${what}): ${err?.message || `media error ${err?.code ?? '?'}`}`));
    };
    const onAbort = () => {
      cleanup();
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new EngineError('IMAGE_DECODE', `the video could not be decoded: ${what} took longer than ${timeoutMs / 1000} s`));
    }, timeoutMs);
    target.addEventListener(ok, onOk);
    target.addEventListener('error', onError);
    signal?.addEventListener('abort', onAbort);
  });
}

export interface VideoFrame {
  /** media time of the sample, ms */
  timeMs: number;
  bitmap: ImageBitmap;
  /** media pixels per bitmap pixel (> 1 when downscaled) */
  scale: number;
}

/** One opened video: its size and duration, and frames on demand. Close it when done. */
export class VideoFrameSource {
  private constructor(
    private readonly video: HTMLVideoElement,
    private readonly url: string,
    readonly width: number,
    readonly height: number,
    /** seconds */
    readonly duration: number,
  ) {}

  static async open(blob: Blob, signal?: AbortSignal): Promise<VideoFrameSource> {
    if (typeof document === 'undefined') throw new Error('VideoFrameSource needs a page (a <video> element); it cannot run in a worker');
    const video = document.createElement('video');
    video.muted = true;
    video.playsInline = true;
    video.preload = 'auto';
    const url = URL.createObjectURL(blob);
    try {
      const loaded = once(video, 'loadeddata', signal, SEEK_TIMEOUT_MS, 'reading its header');
      video.src = url;
      await loaded;
      if (!(video.videoWidth > 0 && video.videoHeight > 0)) {
        throw new EngineError('IMAGE_DECODE', 'the file has no video track Chromium can decode');
      }
      let duration = video.duration;
      if (!Number.isFinite(duration)) {
        // WebM written live has no duration in its header: seeking far past the end makes
        // Chromium scan the file and settle it
        const settled = once(video, 'seeked', signal, SEEK_TIMEOUT_MS, 'finding its duration');
        video.currentTime = 1e9;
        await settled;
        duration = video.duration;
        if (!Number.isFinite(duration)) duration = video.currentTime;
      }
      return new VideoFrameSource(video, url, video.videoWidth, video.videoHeight, duration);
    } catch (e) {
      video.removeAttribute('src');
      video.load();
      URL.revokeObjectURL(url);
      if (e instanceof EngineError || signal?.aborted) throw e;
      throw new EngineError('IMAGE_DECODE', `the video could not be opened: ${errorText(e)}`);
    }
  }

  /** The frame shown at media time `timeMs`, downscaled to MAX_ANALYSIS_SIDE when larger. */
  async frameAt(timeMs: number, signal?: AbortSignal): Promise<VideoFrame> {
    const v = this.video;
    const target = Math.min(timeMs / 1000 + SEEK_EPSILON_S, Math.max(0, this.duration - SEEK_EPSILON_S));
    const seeked = once(v, 'seeked', signal, SEEK_TIMEOUT_MS, `seeking to ${(timeMs / 1000).toFixed(3)} s`);
    v.currentTime = target;
    await seeked;
    const side = Math.max(this.width, this.height);
    const scale = side > MAX_ANALYSIS_SIDE ? side / MAX_ANALYSIS_SIDE : 1;
    try {
      const bitmap =
        scale === 1
          ? await createImageBitmap(v)
          : await createImageBitmap(v, {
              resizeWidth: Math.round(this.width / scale),
              resizeHeight: Math.round(this.height / scale),
              resizeQuality: 'medium',
            });
      return { timeMs, bitmap, scale };
    } catch (e) {
      throw new EngineError('IMAGE_DECODE', `the video frame at ${(timeMs / 1000).toFixed(3)} s could not be decoded: ${errorText(e)}`);
    }
  }

  close(): void {
    this.video.removeAttribute('src');
    this.video.load();
    URL.revokeObjectURL(this.url);
  }
}
