// Runtime diagnostics for developer tools: model load times (kept by the worker's model
// registry), per-stage timings of every analysis the engine runs, and the start-up time.
// Timings are observed on the vision ports the services use, so every way in (typed calls,
// engine.handle, the shims, media jobs) reports them without the services knowing.
import type { Result } from '../errors.ts';
import type { ImageAnalysis, ImageTimings } from '../worker/image-analysis.ts';
import type { ModelLoad, ModelRuns } from '../worker/model-registry.ts';
import type { PlatformInfo } from './platform.ts';

/** Which part of the engine ran the analysis. */
export type AnalysisKind = 'detect' | 'recognition' | 'media';

export interface TimingsEvent {
  kind: AnalysisKind;
  timings: ImageTimings;
  faces: number;
}

export type TimingsListener = (event: TimingsEvent) => void;

export interface EngineDiagnostics {
  /** every model loaded so far in the vision worker, with its load time in ms (in load order) */
  modelLoads(): Promise<ModelLoad[]>;
  /**
   * called after every image/frame analysis the engine runs (detect, enroll/verify/recognize,
   * media frames), with its per-stage timings and face count; returns unsubscribe
   */
  onTimings(listener: TimingsListener): () => void;
  /** model runs answered so far by the vision worker and by its model peer (the second core's worker, where ORT runs one thread) */
  modelRuns(): Promise<ModelRuns>;
  /** ms from createEngine() start to ready */
  readonly startupMs: number;
  /** which browser features exist and which path the engine took (threads or one, WebGPU, ImageDecoder, OffscreenCanvas, storage estimate) — src/engine/platform.ts */
  platform(): Promise<PlatformInfo>;
}

export class TimingsFeed {
  private readonly listeners = new Set<TimingsListener>();

  subscribe(listener: TimingsListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** `analyze` reporting each successful analysis as `kind`; results pass through untouched. */
  reported<A extends unknown[]>(kind: AnalysisKind, analyze: (...args: A) => Promise<Result<ImageAnalysis>>) {
    return async (...args: A): Promise<Result<ImageAnalysis>> => {
      const result = await analyze(...args);
      if (result.ok) this.emit({ kind, timings: result.value.timings, faces: result.value.faces.length });
      return result;
    };
  }

  private emit(event: TimingsEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        // a broken developer panel must not fail the request it watches; report it apart
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }
}
