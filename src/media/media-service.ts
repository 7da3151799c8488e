// The emotion analysis (v2) endpoints: POST /v2/media, GET and DELETE /v2/media/{id},
// GET /v2/analytics/{id}, on top of the vision worker, a fair job queue and IndexedDB.
//
//   POST     validates, stores the job with its source (one transaction), queues it, and waits
//            up to `timeout` seconds: finished → 200 + the media object; not yet → 202 +
//            {id, status_code: 2, status_message: "Processing"} and the work goes on.
//   GET      the stored result, or the job's state.
//   DELETE   cancels the work if it runs here and removes job, source and result at once.
//   owners   a tab owns a job while it holds the job's Web Lock (from POST, or taking it over,
//            until the job ends); a crashed or closed tab's locks are released by the browser.
//            Every open tab of the origin watches every unfinished job it hears of (a
//            BroadcastChannel announces new jobs; jobs found at start or asked for by GET) and
//            takes over one whose lock has no holder, restarting it from its stored source.
// Runs on the page's main thread (video frames come from a <video> element, see frames.ts);
// all model work happens in the vision worker. Definitions: docs/emotion.md.
import * as Comlink from 'comlink';
import type { Remote } from 'comlink';
import type { EngineProgress, Services } from '../api/services.ts';
import { EngineError, type EngineFailure, type Result } from '../errors.ts';
import { raceAbort } from '../intake/abort.ts';
import { fetchImageBytes, type FetchLike } from '../intake/fetch-image.ts';
import { parseImageString } from '../intake/image-input.ts';
import { internalFailure } from '../api/error-body.ts';
import { TRACKING_EMBEDDING } from '../models/catalog.ts';
import type { ImageAnalysis, ImageAnalysisOptions } from '../worker/image-analysis.ts';
import type { VisionWorkerApi } from '../worker/vision.worker.ts';
import { analyticsOf } from './analytics.ts';
import { DEFAULT_SAMPLE_FPS, MAX_SAMPLE_FPS, sampleTimes, VideoFrameSource, type VideoFrame } from './frames.ts';
import { JobStore, mediaDatabaseName } from './job-store.ts';
import { FramesBuilder } from './people.ts';
import { JobScheduler, type Outcome } from './queue.ts';
import {
  FAILED_STATUS_CODE,
  MEDIA_STATUS,
  type Analytics,
  type CompleteMedia,
  type JobRecord,
  type MediaType,
  type StatusReply,
} from './schema.ts';
import { IMAGE_FORMATS, type ImageFormat } from '../intake/sniff.ts';
import { checkMediaSize, MAX_MEDIA_BYTES, MEDIA_FETCH_TIMEOUT_MS, mediaFileName, sniffMedia, SNIFF_BYTES } from './source.ts';

/** POST /v2/media `timeout`: default and maximum, seconds. */
export const MEDIA_TIMEOUT_S = { default: 10, max: 60 } as const;
/** Smallest face searched in media, as a fraction of the frame's shorter side (see docs/emotion.md). */
export const DEFAULT_MEDIA_MIN_HEAD_SCALE = 0.1;
/** A job whose processing started this many times without finishing (each start killed by a reload/crash) fails. */
export const MAX_ATTEMPTS = 3;
/** Demographics: the first estimates of each person come from consecutive frames; later ones every DEMOGRAPHICS_EVERY_MS. */
export const MIN_DEMOGRAPHIC_SAMPLES = 3;
export const DEMOGRAPHICS_EVERY_MS = 2000;

/** What the media service needs from the vision worker. */
export interface MediaVision {
  analyze(input: Blob, options: ImageAnalysisOptions): Promise<Result<ImageAnalysis>>;
  /** takes ownership of the bitmap (transfers and closes it) */
  analyzeFrame(bitmap: ImageBitmap, options: ImageAnalysisOptions): Promise<Result<ImageAnalysis>>;
}

/** The worker's comlink API as a MediaVision (frames are transferred, not copied). */
export function mediaVisionPort(api: Remote<VisionWorkerApi>): MediaVision {
  return {
    analyze: (input, options) => api.analyze(input, options) as Promise<Result<ImageAnalysis>>,
    analyzeFrame: (bitmap, options) => api.analyzeFrame(Comlink.transfer(bitmap, [bitmap]), options) as Promise<Result<ImageAnalysis>>,
  };
}

export interface MediaServiceOptions {
  /** the engine's storage name; the database is `${storageName}-media` */
  storageName: string;
  /** bound of one storage transaction, ms (default DEFAULT_TRANSACTION_TIMEOUT_MS) */
  storageTimeoutMs?: number;
  /** sampled frames per second of video (default 5, at most 30) */
  sampleFps?: number;
  /** smallest face searched, fraction of the frame's shorter side (default 0.1; 0.015–0.5) */
  minHeadScale?: number;
  /** the network fetch for source URLs (default: globalThis.fetch as it is when the service starts) */
  fetch?: FetchLike;
  /** jobs processed at once, interleaved frame by frame (default 2) */
  maxActive?: number;
  /** restart unfinished jobs found in storage (default true) */
  resume?: boolean;
  /** still-image formats accepted (the engine's `formats` option; default every one intake knows) */
  formats?: readonly ImageFormat[];
}

export interface MediaPostInput {
  appId: string;
  /** a URL (http/https), base64 data, or a file */
  source: Blob | string | undefined;
  /** add the 49 named landmarks per person */
  landmarks?: boolean;
  /** seconds to wait for the result (0–60, default 10) */
  timeout?: number;
  /** false: keep the source only in memory (the `store_image: false` header); default true */
  storeSource?: boolean;
  /** the caller gave up waiting: rejects with its reason; an accepted job goes on */
  signal?: AbortSignal;
  /** progress of the job while the POST waits: the fraction of sampled frames analysed */
  onProgress?: (progress: EngineProgress) => void;
}

export interface MediaPostReply {
  status: 200 | 202;
  body: CompleteMedia | StatusReply;
}

export interface MediaService {
  /** resolves once storage is open and unfinished jobs are queued again */
  readonly ready: Promise<void>;
  readonly databaseName: string;
  post(input: MediaPostInput): Promise<MediaPostReply>;
  get(appId: string, id: string): Promise<CompleteMedia | StatusReply>;
  delete(appId: string, id: string): Promise<StatusReply>;
  analytics(appId: string, id: string): Promise<Analytics | StatusReply>;
  /** Resolves when the job is no longer queued or running in this instance (tests, tools). */
  settled(appId: string, id: string): Promise<void>;
  /** The four endpoints in the router's Services shape. */
  services(): Pick<Services, 'mediaPost' | 'mediaGet' | 'mediaDelete' | 'analyticsGet'>;
  /**
   * Stops all work and closes storage. Jobs keep their stored state, exactly as when the tab
   * closes: the next service over the same storage restarts them.
   */
  close(): Promise<void>;
}

type JobOutcome = { kind: 'complete'; media: CompleteMedia } | { kind: 'failed'; failure: EngineFailure } | { kind: 'gone' } | { kind: 'elsewhere' };

const processingReply = (id: string): StatusReply => ({ id, ...MEDIA_STATUS.processing });
const notFoundReply = (id: string): StatusReply => ({ id, ...MEDIA_STATUS.notFound });
const failedReply = (id: string, message: string): StatusReply => ({
  id,
  status_code: FAILED_STATUS_CODE,
  status_message: `Error. ${message.charAt(0).toUpperCase()}${message.slice(1)}${/[.!?]$/.test(message) ? '' : '.'}`,
});

/** A media id: 128 random bits as 32 lowercase hex digits. */
function newMediaId(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Exclusive per-job lock across tabs (Web Locks); resolves to its release, or null when another tab holds it. */
async function tryLock(name: string): Promise<(() => void) | null> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  if (!locks) return () => {};
  return new Promise((resolve) => {
    void locks
      .request(name, { ifAvailable: true }, (lock) => {
        if (!lock) {
          resolve(null);
          return undefined;
        }
        return new Promise<void>((release) => resolve(release));
      })
      .catch(() => resolve(() => {}));
  });
}

/** Whether any tab (or this one) holds or waits for the lock; unknown without Web Locks (false). */
async function lockInUse(name: string): Promise<boolean> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  if (!locks) return false;
  const state = await locks.query().catch(() => ({ held: [], pending: [] }) as LockManagerSnapshot);
  return (state.held ?? []).some((lock) => lock.name === name);
}

/** Resolves once nobody holds the lock (another tab finished or closed). */
function whenUnlocked(name: string): Promise<void> {
  const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
  if (!locks) return Promise.resolve();
  return locks.request(name, () => undefined).then(
    () => undefined,
    () => undefined,
  );
}

export function createMediaService(vision: MediaVision, options: MediaServiceOptions): MediaService {
  const sampleFps = options.sampleFps ?? DEFAULT_SAMPLE_FPS;
  if (!(sampleFps > 0 && sampleFps <= MAX_SAMPLE_FPS)) throw new RangeError(`sampleFps must be in (0, ${MAX_SAMPLE_FPS}]`);
  const minHeadScale = options.minHeadScale ?? DEFAULT_MEDIA_MIN_HEAD_SCALE;
  if (!(minHeadScale >= 0.015 && minHeadScale <= 0.5)) throw new RangeError('minHeadScale must be from 0.015 to 0.5');
  const netFetch: FetchLike = options.fetch ?? globalThis.fetch.bind(globalThis);
  const formats = options.formats ?? IMAGE_FORMATS;
  const databaseName = mediaDatabaseName(options.storageName);
  const storeOpening = JobStore.open(options.storageName, options.storageTimeoutMs);
  storeOpening.catch(() => {});
  let closed = false;
  let closing: Promise<void> | undefined;
  let seq = 0;

  const keyOf = (appId: string, id: string) => JSON.stringify([appId, id]);
  const lockName = (appId: string, id: string) => `kairos-media:${databaseName}:${keyOf(appId, id)}`;
  const resume = options.resume ?? true;
  /** the job lock of every job this tab owns: its release */
  const owned = new Map<string, () => void>();
  /** jobs whose lock this tab waits on, to take them over when their owner goes */
  const watching = new Set<string>();
  /** new jobs are announced to every tab of the origin, so any of them can take one over */
  const announcements = typeof BroadcastChannel === 'undefined' ? undefined : new BroadcastChannel(`kairos-media:${databaseName}`);
  /** sources kept only in memory (store_image: false), by job key */
  const memorySources = new Map<string, Blob | string>();
  /** callers waiting for a job's end (POST within its timeout, settled()) */
  const waiters = new Map<string, ((o: JobOutcome) => void)[]>();
  /** jobs queued or running here, until their end is settled */
  const tracked = new Set<string>();
  /** progress listeners of waiting POSTs, by job key */
  const progress = new Map<string, ((p: EngineProgress) => void)[]>();
  const report = (job: JobRecord, p: EngineProgress) => {
    for (const listener of progress.get(keyOf(job.appId, job.id)) ?? []) {
      try {
        listener(p);
      } catch {
        // a listener's bug must not break the job
      }
    }
  };

  function settle(appId: string, id: string, outcome: JobOutcome): void {
    const key = keyOf(appId, id);
    const list = waiters.get(key);
    waiters.delete(key);
    tracked.delete(key);
    owned.get(key)?.();
    owned.delete(key);
    for (const w of list ?? []) w(outcome);
  }

  function waitFor(appId: string, id: string): Promise<JobOutcome> {
    return new Promise((resolve) => {
      const key = keyOf(appId, id);
      const list = waiters.get(key) ?? [];
      list.push(resolve);
      waiters.set(key, list);
    });
  }

  const isUnfinished = (job: JobRecord | undefined): job is JobRecord => job?.state === 'queued' || job?.state === 'processing';

  /**
   * Makes this tab the job's owner and queues it, if no other tab owns it; otherwise whoever
   * waits here hears 'elsewhere' and the tab watches the job, to take it over if its owner goes.
   */
  async function adopt(job: JobRecord): Promise<void> {
    const key = keyOf(job.appId, job.id);
    if (closed || tracked.has(key)) return;
    tracked.add(key);
    const release = await tryLock(lockName(job.appId, job.id));
    if (!release || closed) {
      release?.();
      settle(job.appId, job.id, { kind: 'elsewhere' });
      if (!closed) watch(job.appId, job.id);
      return;
    }
    owned.set(key, release);
    scheduler.enqueue(job);
  }

  /** Takes the job over once its owner lets go of it without finishing it (a crash, a closed tab). */
  function watch(appId: string, id: string): void {
    const key = keyOf(appId, id);
    if (!resume || closed || watching.has(key) || tracked.has(key)) return;
    watching.add(key);
    void whenUnlocked(lockName(appId, id)).then(async () => {
      watching.delete(key);
      if (closed) return;
      const job = await (await storeOpening).job(appId, id).catch(() => undefined);
      if (isUnfinished(job)) await adopt(job);
    });
  }

  announcements?.addEventListener('message', (event: MessageEvent<unknown>) => {
    const notice = event.data as { appId?: unknown; id?: unknown } | null;
    if (typeof notice?.appId === 'string' && typeof notice.id === 'string') watch(notice.appId, notice.id);
  });

  const scheduler = new JobScheduler<JobRecord, JobOutcome>({
    maxActive: options.maxActive ?? 2,
    run: (job, signal) => processJob(job, signal),
    done: async (job, outcome) => finishJob(job, outcome),
  });

  async function finishJob(job: JobRecord, outcome: Outcome<JobOutcome>): Promise<void> {
    const store = await storeOpening;
    const key = keyOf(job.appId, job.id);
    let result: JobOutcome;
    if (outcome.ok) {
      result = outcome.value;
      if (result.kind === 'complete' && !(await store.complete(job.appId, job.id, result.media, Date.now()))) result = { kind: 'gone' };
    } else {
      const error = outcome.error;
      const failure = error instanceof EngineError ? error.failure : internalFailure(error);
      result = { kind: 'failed', failure };
      if (!(await store.fail(job.appId, job.id, { code: failure.code, message: failure.message }, Date.now()))) result = { kind: 'gone' };
    }
    if (result.kind !== 'elsewhere') memorySources.delete(key);
    settle(job.appId, job.id, result);
  }

  function analysisOptions(job: JobRecord, demographics: boolean, embed: boolean): ImageAnalysisOptions {
    return {
      minHeadScale: job.minHeadScale,
      selector: { roll: false, full: false, liveness: false },
      demographics,
      emotion: true,
      keepMesh: job.landmarks,
      embed: embed ? { models: [TRACKING_EMBEDDING], flip: false } : undefined,
    };
  }

  const unwrap = (r: Result<ImageAnalysis>): ImageAnalysis => {
    if (!r.ok) throw new EngineError(r.error.kind, r.error.message);
    return r.value;
  };

  function mediaObject(job: JobRecord, type: MediaType, mimeType: string, length: number, builder: FramesBuilder): CompleteMedia {
    return {
      id: job.id,
      length,
      media_info: { file: job.file, length, mime_type: mimeType, type },
      ...MEDIA_STATUS.complete,
      frames: builder.finish(),
    };
  }

  /** The job's bytes: stored, in memory, or downloaded now (and stored). */
  async function loadSource(job: JobRecord, signal: AbortSignal): Promise<{ blob: Blob; job: JobRecord } | undefined> {
    const store = await storeOpening;
    const stored = await store.source(job.appId, job.id);
    const memory = memorySources.get(keyOf(job.appId, job.id));
    let blob = stored?.blob ?? (memory instanceof Blob ? memory : undefined);
    const url = stored?.url ?? (typeof memory === 'string' ? memory : undefined);
    if (!blob && url === undefined) {
      throw new EngineError(
        'IMAGE_DECODE',
        job.attempts > 1
          ? 'processing was interrupted and the source was not stored (store_image: false); post it again'
          : 'the media source is missing',
      );
    }
    if (!blob) {
      const bytes = await fetchImageBytes(url!, { fetch: netFetch, signal, timeoutMs: MEDIA_FETCH_TIMEOUT_MS, maxBytes: MAX_MEDIA_BYTES });
      checkMediaSize(bytes.length);
      const kind = sniffMedia(bytes.subarray(0, SNIFF_BYTES), formats);
      blob = new Blob([bytes as Uint8Array<ArrayBuffer>], { type: kind.mimeType });
      if (stored?.url !== undefined) {
        if (!(await store.saveDownloadedSource(job.appId, job.id, blob, kind))) return undefined;
      } else {
        memorySources.set(keyOf(job.appId, job.id), blob);
        await store.updateJob(job.appId, job.id, (j) => ({ ...j, ...kind }));
      }
      job = { ...job, ...kind };
    }
    return { blob, job };
  }

  async function* processJob(queued: JobRecord, signal: AbortSignal): AsyncGenerator<void, JobOutcome, undefined> {
    // this tab holds the job's lock from adopt() until the job is settled
    const store = await storeOpening;
    {
      const started = await store.updateJob(queued.appId, queued.id, (j) =>
        j.state === 'queued' || j.state === 'processing' ? { ...j, state: 'processing', attempts: j.attempts + 1 } : undefined,
      );
      if (!started) return { kind: 'gone' };
      if (started.state !== 'processing') return { kind: 'elsewhere' };
      if (started.attempts > MAX_ATTEMPTS) {
        throw new EngineError('IMAGE_DECODE', `processing was interrupted ${MAX_ATTEMPTS} times (the page was closed or crashed each time); post the media again`);
      }
      const loaded = await loadSource(started, signal);
      if (!loaded) return { kind: 'gone' };
      const { blob, job } = loaded;
      const kind = job.type && job.mimeType ? { type: job.type, mimeType: job.mimeType } : sniffMedia(new Uint8Array(await blob.slice(0, SNIFF_BYTES).arrayBuffer()), formats);
      yield;
      signal.throwIfAborted();

      if (kind.type === 'image') {
        const analysis = unwrap(await raceAbort(vision.analyze(blob, analysisOptions(job, true, false)), signal));
        const builder = new FramesBuilder({ landmarks: job.landmarks, intervalMs: 0, baseEpochMs: job.createdAt, width: analysis.width, height: analysis.height });
        builder.addFrame(0, analysis.faces);
        return { kind: 'complete', media: mediaObject(job, 'image', kind.mimeType, 0, builder) };
      }

      const video = await VideoFrameSource.open(blob, signal);
      let next: Promise<VideoFrame> | undefined;
      try {
        const fps = job.sampleFps;
        const times = sampleTimes(video.duration, fps);
        const builder = new FramesBuilder({
          landmarks: job.landmarks,
          intervalMs: 1000 / fps,
          baseEpochMs: job.createdAt,
          width: video.width,
          height: video.height,
        });
        let lastDemographicsMs = -Infinity;
        let previousIds: string[] = [];
        next = video.frameAt(times[0]!, signal);
        for (let i = 0; i < times.length; i++) {
          const frame: VideoFrame = await next!;
          // the next seek and grab overlap this frame's analysis in the worker
          next = i + 1 < times.length ? video.frameAt(times[i + 1]!, signal) : undefined;
          next?.catch(() => {});
          const demographics =
            frame.timeMs - lastDemographicsMs >= DEMOGRAPHICS_EVERY_MS ||
            previousIds.some((id) => builder.demographicSamples(id) < MIN_DEMOGRAPHIC_SAMPLES);
          // a face first seen in a frame analysed without demographics gets them from a second pass
          const spare = demographics ? undefined : await createImageBitmap(frame.bitmap);
          try {
            const analysis = unwrap(await raceAbort(vision.analyzeFrame(frame.bitmap, analysisOptions(job, demographics, true)), signal));
            signal.throwIfAborted();
            previousIds = builder.addFrame(frame.timeMs, analysis.faces, frame.scale);
            if (demographics && analysis.faces.length) lastDemographicsMs = frame.timeMs;
            if (spare && builder.latestFrameLacksDemographics()) {
              const again = unwrap(await raceAbort(vision.analyzeFrame(spare, analysisOptions(job, true, false)), signal));
              builder.supplyDemographics(again.faces);
            } else spare?.close();
          } catch (e) {
            spare?.close();
            throw e;
          }
          report(job, { stage: 'analysing video frames', fraction: (i + 1) / times.length });
          yield;
          signal.throwIfAborted();
        }
        return { kind: 'complete', media: mediaObject(job, 'video', kind.mimeType, Math.round(video.duration * 1000) / 1000, builder) };
      } finally {
        void next?.then((f) => f.bitmap.close(), () => {});
        video.close();
      }
    }
  }

  const ready = (async () => {
    const store = await storeOpening;
    if (resume) {
      for (const job of await store.unfinished()) await adopt(job);
    }
  })();
  ready.catch(() => {});

  async function storeOrFail() {
    try {
      return await storeOpening;
    } catch (e) {
      throw new EngineError('UNAVAILABLE', `temporarily unavailable: the media storage (IndexedDB) could not be opened: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  async function post(input: MediaPostInput): Promise<MediaPostReply> {
    const { appId, source } = input;
    if (source === undefined || source === null || (typeof source === 'string' && source.trim() === '')) {
      throw new EngineError('MISSING_PARAMETER', 'Required source parameter missing.');
    }
    const timeout = input.timeout ?? MEDIA_TIMEOUT_S.default;
    if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout < 0 || timeout > MEDIA_TIMEOUT_S.max) {
      throw new EngineError('INVALID_PARAMETER', `Invalid timeout parameter: must be from 0 to ${MEDIA_TIMEOUT_S.max} seconds.`);
    }
    if (!(source instanceof Blob) && typeof source !== 'string') {
      throw new EngineError('INVALID_PARAMETER', 'Invalid source parameter: expected a URL or a file.');
    }
    const deadline = performance.now() + timeout * 1000;
    input.signal?.throwIfAborted();

    // the source: an upload (sniffed now), base64 bytes (same), or a URL (downloaded by the job)
    let blob: Blob | undefined;
    let url: string | undefined;
    if (source instanceof Blob) blob = source;
    else {
      const parsed = parseImageString(source);
      if (parsed.kind === 'url') url = parsed.url;
      else blob = new Blob([parsed.bytes as Uint8Array<ArrayBuffer>]);
    }
    let kind: { type: MediaType; mimeType: string } | undefined;
    if (blob) {
      checkMediaSize(blob.size);
      kind = sniffMedia(new Uint8Array(await blob.slice(0, SNIFF_BYTES).arrayBuffer()), formats);
      if (blob.type !== kind.mimeType) blob = new Blob([blob], { type: kind.mimeType });
    }

    const store = await storeOrFail();
    await ready;
    input.signal?.throwIfAborted();
    const storeSource = input.storeSource ?? true;
    const job: JobRecord = {
      appId,
      id: newMediaId(),
      state: 'queued',
      createdAt: Date.now(),
      seq: seq++,
      landmarks: input.landmarks ?? false,
      sampleFps,
      minHeadScale,
      file: mediaFileName(source),
      ...(kind ? { mimeType: kind.mimeType, type: kind.type } : {}),
      attempts: 0,
    };
    if (!storeSource) memorySources.set(keyOf(appId, job.id), blob ?? url!);
    await store.create(job, storeSource ? { appId, id: job.id, ...(blob ? { blob } : { url }) } : { appId, id: job.id });
    const outcome = waitFor(appId, job.id);
    // owned (locked) before it is announced, so the other tabs' watches wait behind this tab
    await adopt(job);
    if (storeSource) announcements?.postMessage({ appId, id: job.id });

    const key = keyOf(appId, job.id);
    if (input.onProgress) progress.set(key, [...(progress.get(key) ?? []), input.onProgress]);
    const timedOut = Symbol('timeout');
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeLimit = new Promise<typeof timedOut>((resolve) => (timer = setTimeout(() => resolve(timedOut), Math.max(0, deadline - performance.now()))));
    const waiting = Promise.race([outcome, timeLimit]);
    let first: JobOutcome | typeof timedOut;
    try {
      first = await (input.signal ? raceAbort(waiting, input.signal) : waiting);
    } finally {
      clearTimeout(timer);
      const listeners = progress.get(key)?.filter((l) => l !== input.onProgress);
      if (listeners?.length) progress.set(key, listeners);
      else progress.delete(key);
    }
    if (first === timedOut || first.kind === 'elsewhere') return { status: 202, body: processingReply(job.id) };
    if (first.kind === 'complete') return { status: 200, body: first.media };
    if (first.kind === 'gone') return { status: 200, body: notFoundReply(job.id) };
    // failed while the caller waited: it gets the error itself, so no record is kept
    await store.delete(appId, job.id).catch(() => {});
    throw new EngineError(first.failure.kind, first.failure.message);
  }

  async function statusOf(appId: string, id: string): Promise<{ job?: JobRecord; reply?: StatusReply }> {
    const store = await storeOrFail();
    const job = await store.job(appId, id);
    if (!job) return { reply: notFoundReply(id) };
    if (job.state === 'failed') return { job, reply: failedReply(id, job.error?.message ?? 'processing failed') };
    if (job.state !== 'complete') {
      // "Processing" is true only while some tab owns the job: nobody does, so this tab takes it over
      if (!tracked.has(keyOf(appId, id)) && !(await lockInUse(lockName(appId, id)))) void adopt(job);
      else watch(appId, id);
      return { job, reply: processingReply(id) };
    }
    return { job };
  }

  async function get(appId: string, id: string): Promise<CompleteMedia | StatusReply> {
    const { reply } = await statusOf(appId, id);
    if (reply) return reply;
    return (await (await storeOrFail()).result(appId, id)) ?? notFoundReply(id);
  }

  async function analytics(appId: string, id: string): Promise<Analytics | StatusReply> {
    const media = await get(appId, id);
    return 'frames' in media ? analyticsOf(media) : media;
  }

  async function remove(appId: string, id: string): Promise<StatusReply> {
    const store = await storeOrFail();
    scheduler.cancel(appId, id);
    let existed: boolean;
    try {
      existed = await store.delete(appId, id);
    } catch {
      // 5003 is also "subject ID was not found"; the emotion body {code, message} tells them apart
      throw new EngineError('SUBJECT_NOT_FOUND', 'Unable to delete media.');
    }
    memorySources.delete(keyOf(appId, id));
    if (!existed) return notFoundReply(id);
    settle(appId, id, { kind: 'gone' });
    return { id, ...MEDIA_STATUS.deleted };
  }

  async function settled(appId: string, id: string): Promise<void> {
    await ready;
    if (tracked.has(keyOf(appId, id))) await waitFor(appId, id);
  }

  return {
    ready,
    databaseName,
    post,
    get,
    delete: remove,
    analytics,
    settled,
    services: () => ({
      mediaPost: async ({ appId, storeImage, signal, onProgress, params }) =>
        (
          await post({
            appId,
            source: params.source,
            landmarks: params.landmarks,
            timeout: params.timeout,
            storeSource: storeImage,
            signal,
            onProgress,
          })
        ).body,
      mediaGet: ({ appId, params }) => get(appId, params.id),
      mediaDelete: ({ appId, params }) => remove(appId, params.id),
      analyticsGet: ({ appId, params }) => analytics(appId, params.id),
    }),
    close() {
      closing ??= (async () => {
        closed = true;
        announcements?.close();
        await scheduler.stop();
        // whoever still waits is answered as if the tab had gone: the job is still processing
        for (const key of [...waiters.keys()]) {
          const [appId, id] = JSON.parse(key) as [string, string];
          settle(appId, id, { kind: 'elsewhere' });
        }
        // what this tab still owns goes back to the other tabs, as when the tab closes
        for (const release of owned.values()) release();
        owned.clear();
        (await storeOpening.catch(() => undefined))?.close();
      })();
      return closing;
    },
  };
}
