// engine.watch(source, options): the options (zod) and the per-frame result shapes.
import { z } from 'zod';
import { DEFAULT_EMOTION_MODEL, EmotionModelIdSchema } from '../models/catalog.ts';

/** What runs on every frame: boxes (+ landmarks and pose), + the emotions, + recognition. */
export const LIVE_ANALYSES = ['boxes', 'emotion', 'recognition'] as const;
export type LiveAnalyses = (typeof LIVE_ANALYSES)[number];

/** The part of the options the vision worker's live session needs. */
export const LiveSessionOptionsSchema = z.object({
  /** faces followed at most (largest first when more are found) */
  maxFaces: z.number().int().min(1).max(20).default(5),
  /** boxes: box, landmarks, pose; emotion: + six emotions; recognition: + emotions + embeddings for the gallery */
  analyses: z.enum(LIVE_ANALYSES).default('emotion'),
  /**
   * the detector runs at most this often while faces are followed (it also runs at once when a
   * face is lost, and on every frame while no face is followed), ms
   */
  detectEveryMs: z.number().min(0).max(60_000).default(1000),
  /**
   * smallest face searched for, as a fraction of the frame's shorter side (/detect's is 0.015):
   * 0.07 is 34 px at 640×480, about human's smallest (its detector sees the frame at 256 px), and
   * needs two detector runs (the whole frame at 128 px and one pass at 256×192)
   */
  minFaceScale: z.number().min(0.015).max(0.5).default(0.07),
  /**
   * a followed face's emotions are re-measured this often, ms (0 = on every frame); in between
   * each result carries the last measured values with the time they were measured
   * (`emotions_time_ms`). At most one face is refreshed per frame, oldest first
   */
  emotionEveryMs: z.number().min(0).max(60_000).default(200),
  /** the emotion classifier: faceapi-expression (the engine's default, better on the eval set) or emotion (64×64 grey, cheaper; human's) */
  emotionModel: EmotionModelIdSchema.default(DEFAULT_EMOTION_MODEL),
  /** a followed face's recognition embedding is refreshed this often, ms (and on a large pose change) */
  recognizeEveryMs: z.number().min(100).max(600_000).default(2000),
  /** also return the 468 mesh points per face */
  mesh: z.boolean().default(false),
});
export type LiveSessionOptionsInput = z.input<typeof LiveSessionOptionsSchema>;
export type LiveSessionOptions = z.output<typeof LiveSessionOptionsSchema>;

export const WatchOptionsSchema = LiveSessionOptionsSchema.extend({
  /** frames handed to the worker per second at most; frames in between are skipped (counted as dropped) */
  targetFps: z.number().min(0.1).max(120).default(30),
  /** recognise the faces against this gallery of the account (analyses becomes 'recognition') */
  galleryName: z.string().min(1).max(256).optional(),
  /** account of the gallery; default the engine's */
  appId: z.string().min(1).optional(),
  /** candidates below this confidence are not named (as /recognize's threshold) */
  threshold: z.number().min(0).max(1).default(0.6),
  /**
   * VideoFrame iterator sources only: false = process every frame the iterator gives (it paces
   * itself, e.g. a file decoder); true (default) = read it as fast as it gives frames and keep
   * only the newest while the worker is busy
   */
  dropFrames: z.boolean().default(true),
  /** frames larger than this (longest side, pixels) are downscaled before analysis */
  maxSide: z.number().int().min(64).max(4096).default(1280),
});
export type WatchOptionsInput = z.input<typeof WatchOptionsSchema>;
export type WatchOptions = z.output<typeof WatchOptionsSchema>;

export interface LivePoint {
  x: number;
  y: number;
}

/** The six emotions as /v2/media gives them, 0–100 (neutral is the rest). */
export interface LiveEmotions {
  anger: number;
  disgust: number;
  fear: number;
  joy: number;
  sadness: number;
  surprise: number;
}

/** One face of a frame, as the worker reports it (frame pixels). */
export interface LiveWorkerFace {
  track_id: string;
  box: { x: number; y: number; width: number; height: number };
  /** the 49 named landmarks of /v2/media (left/right = the subject's own) */
  landmarks: Record<string, LivePoint>;
  /** degrees (signs as in docs/detection.md) */
  pose: { yaw: number; pitch: number; roll: number };
  /** true when this frame's box came from the detector, false when it followed the previous box */
  detected: boolean;
  emotions?: LiveEmotions;
  /** the source time of the frame the emotions were measured on (≤ the result's time_ms: see emotionEveryMs) */
  emotions_time_ms?: number;
  /** 468 mesh points, with options.mesh */
  mesh?: LivePoint[];
  /** the recognition embedding, on the frames where it was (re)computed for this face */
  embedding?: Float32Array;
}

export interface LiveWorkerTimings {
  /** in the worker, ms: the detector (0 when it did not run) */
  detect: number;
  /** the face mesh runs (following and new faces), with their crops */
  mesh: number;
  emotion: number;
  /** recognition embeddings */
  embed: number;
  /** the whole frame in the worker */
  total: number;
}

export interface LiveWorkerFrame {
  width: number;
  height: number;
  faces: LiveWorkerFace[];
  detectorRan: boolean;
  timings: LiveWorkerTimings;
}

/** One face of a watch() result. */
export interface LiveFace extends Omit<LiveWorkerFace, 'embedding'> {
  /** with a gallery: the subject this track was recognised as (null: not recognised, or not yet) */
  subject?: { subject_id: string; confidence: number } | null;
}

/** One result of watch(): a processed frame. */
export interface LiveFrame {
  /** 0, 1, 2, … over the results */
  index: number;
  /** the source's own time of the frame, ms (media time of a <video>, timestamp/1000 of a VideoFrame) */
  time_ms: number;
  width: number;
  height: number;
  faces: LiveFace[];
  detector_ran: boolean;
  /** ms from taking the frame from the source to this result */
  latency_ms: number;
  /** frames the source showed that were skipped so far (worker busy, or above targetFps) */
  dropped: number;
  /** results per second over the last second */
  fps: number;
  timings: LiveWorkerTimings;
}
