// engine.watch(): the live loop on the page's main thread. One frame at a time goes to the
// vision worker (transferred); while it is busy, newer frames replace older ones in the tap
// (latest frame wins, counted as dropped). Recognition embeddings that come back are searched
// in the gallery here and turned into non-flickering names per track (identity.ts).
import * as Comlink from 'comlink';
import { EngineError } from '../errors.ts';
import type { VisionWorkerApi } from '../worker/vision.worker.ts';
import { openTap, type FrameTap, type WatchSource } from './frame-source.ts';
import { TrackIdentities, type Match } from './identity.ts';
import { WatchOptionsSchema, type LiveFace, type LiveFrame, type WatchOptions, type WatchOptionsInput } from './options.ts';

export interface WatchDeps {
  vision: Comlink.Remote<VisionWorkerApi>;
  /** the best match of an embedding in a gallery at or above `threshold`, or null; throws 5004 for an unknown gallery */
  recognize(appId: string | undefined, gallery: string, embedding: Float32Array, threshold: number): Promise<Match | null>;
  /** throws (5004) when the gallery does not exist */
  checkGallery(appId: string | undefined, gallery: string): Promise<void>;
  /**
   * aborted when the engine closes: its worker is gone and calls in flight never answer, so the
   * loop stops waiting for them and ends (done resolves, the iterator ends)
   */
  closed?: AbortSignal;
}

/** thrown into the loop's awaits when the engine closes under it */
class EngineClosed extends Error {}

export type WatchCallOptions = WatchOptionsInput & {
  /** called with every result (the callback form; the iterator works as well) */
  onFrame?: (frame: LiveFrame) => void;
};

/** A running watch: iterate it for results, or use onFrame; stop() ends it. */
export interface LiveWatch extends AsyncIterable<LiveFrame> {
  /** ends the loop and frees the worker session; resolves when the last frame in flight is done */
  stop(): Promise<void>;
  /** settles when the loop has ended: stop(), the source ended, or a failure (rejects with it) */
  readonly done: Promise<void>;
  readonly options: WatchOptions;
}

/** results kept for a slow iterator consumer; older ones are dropped first */
const RESULT_BUFFER = 16;

export function watch(deps: WatchDeps, source: WatchSource, input: WatchCallOptions = {}): LiveWatch {
  const { onFrame, ...rest } = input;
  const parsed = WatchOptionsSchema.safeParse(rest);
  if (!parsed.success) throw new EngineError('INVALID_PARAMETER', `watch(): ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const options: WatchOptions = { ...parsed.data, analyses: parsed.data.galleryName ? 'recognition' : parsed.data.analyses };
  // recognition without a gallery would compute embeddings nobody reads
  if (options.analyses === 'recognition' && !options.galleryName) options.analyses = 'emotion';

  let stopped = false;
  let tap: FrameTap | undefined;
  const buffer: LiveFrame[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  let failure: unknown;
  const notify = () => {
    wake?.();
    wake = undefined;
  };

  let onClose: () => void = () => {};
  const closing = deps.closed
    ? new Promise<never>((_, reject) => {
        onClose = () => {
          stopped = true;
          tap?.close();
          reject(new EngineClosed());
        };
        if (deps.closed!.aborted) onClose();
        else deps.closed!.addEventListener('abort', onClose, { once: true });
      })
    : undefined;
  closing?.catch(() => undefined);
  const isClosed = () => deps.closed?.aborted === true;
  const orClosed = <T>(p: Promise<T>): Promise<T> => (closing ? Promise.race([p, closing]) : p);

  const loop = async () => {
    let sessionId: number | undefined;
    try {
      if (options.galleryName) await orClosed(deps.checkGallery(options.appId, options.galleryName));
      sessionId = await orClosed(deps.vision.liveOpen({
        maxFaces: options.maxFaces,
        analyses: options.analyses,
        detectEveryMs: options.detectEveryMs,
        minFaceScale: options.minFaceScale,
        recognizeEveryMs: options.recognizeEveryMs,
        emotionEveryMs: options.emotionEveryMs,
        emotionModel: options.emotionModel,
        mesh: options.mesh,
      }));
      const opening = openTap(source, { maxSide: options.maxSide, dropFrames: options.dropFrames });
      // closed while opening: the tap still opens, and must let go of its source
      opening.then((t) => isClosed() && t.close(), () => undefined);
      tap = await orClosed(opening);
      if (stopped) return;
      const names = new TrackIdentities();
      const completions: number[] = [];
      const minGapMs = 1000 / options.targetFps;
      let lastTaken = -Infinity;
      for (let index = 0; !stopped; index++) {
        // target fps: wait out the rest of the interval (frames shown meanwhile are skipped)
        const wait = lastTaken + minGapMs - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const taken = await orClosed(tap.next());
        if (!taken || stopped) {
          taken?.frame.close();
          break;
        }
        const takenAt = performance.now();
        lastTaken = takenAt;
        const result = await orClosed(deps.vision.liveFrame(sessionId, Comlink.transfer(taken.frame, [taken.frame as unknown as Transferable]), taken.timeMs, options.maxSide));
        const faces: LiveFace[] = [];
        for (const f of result.faces) {
          const { embedding, ...face } = f;
          const out: LiveFace = face;
          if (options.galleryName) {
            if (embedding) names.update(f.track_id, await orClosed(deps.recognize(options.appId, options.galleryName, embedding, options.threshold)));
            out.subject = names.get(f.track_id) ?? null;
          }
          faces.push(out);
        }
        names.keepOnly(faces.map((f) => f.track_id));
        const now = performance.now();
        completions.push(now);
        while (completions.length && completions[0]! < now - 1000) completions.shift();
        const frame: LiveFrame = {
          index,
          time_ms: Math.round(taken.timeMs * 10) / 10,
          width: result.width,
          height: result.height,
          faces,
          detector_ran: result.detectorRan,
          latency_ms: Math.round((now - takenAt) * 10) / 10,
          dropped: tap.dropped,
          fps: completions.length,
          timings: result.timings,
        };
        onFrame?.(frame);
        buffer.push(frame);
        if (buffer.length > RESULT_BUFFER) buffer.shift();
        notify();
      }
    } catch (e) {
      // the engine closed: a clean end, whatever the interrupted call threw (a released worker proxy throws)
      if (isClosed()) return;
      failure = e;
      throw e;
    } finally {
      tap?.close();
      deps.closed?.removeEventListener('abort', onClose);
      if (sessionId !== undefined && !isClosed()) void deps.vision.liveClose(sessionId).catch(() => undefined);
      ended = true;
      notify();
    }
  };
  const done = loop();
  done.catch(() => undefined); // reported through `done` and the iterator

  return {
    options,
    done,
    async stop() {
      stopped = true;
      tap?.close();
      await done.catch(() => undefined);
    },
    [Symbol.asyncIterator](): AsyncIterator<LiveFrame> {
      return {
        next: async (): Promise<IteratorResult<LiveFrame>> => {
          for (;;) {
            const value = buffer.shift();
            if (value) return { value, done: false };
            if (ended) {
              if (failure) throw failure;
              return { value: undefined, done: true };
            }
            await new Promise<void>((r) => (wake = r));
          }
        },
        return: async (): Promise<IteratorResult<LiveFrame>> => {
          stopped = true;
          tap?.close();
          await done.catch(() => undefined);
          return { value: undefined, done: true };
        },
      };
    },
  };
}
