// The engine: a vision worker plus the endpoint services, answering in the interface's
// JSON shapes. createEngine() is the library's entry point.
//
// Three ways in, one set of services:
//   typed calls   engine.detect({image}), engine.enroll({…}) …  → success body | error body
//   HTTP-shaped   engine.handle(new Request(…))                 → Response (router.ts)
//   shims         installFetchShim / installXhrShim(engine)     → engine.handle
// To wire an endpoint, give `services` its entry (it receives validated params, the account
// and the signal — src/api/services.ts); every endpoint without one answers 502/3001
// "not implemented yet".
import type { z } from 'zod';
import type { DetectRequest, DetectResponse } from '../api/detect-schema.ts';
import { emotionErrorBody, faceErrorBody, type EmotionErrorBody, type FaceErrorBody } from '../api/error-body.ts';
import { resolveApiOptions, type ApiOptionsInput } from '../api/options.ts';
import { handleRequest, type HandleOptions } from '../api/router.ts';
import {
  REQUEST_SCHEMAS,
  unimplementedServices,
  type EngineProgress,
  type ServiceCall,
  type ServiceInput,
  type ServiceName,
  type ServiceResults,
  type Services,
} from '../api/services.ts';
import { parseRequest } from '../api/validate.ts';
import { resolveRuntimeEnv, type RuntimeEnvInput } from '../env.ts';
import { toResult } from '../errors.ts';
import { raceAbort } from '../intake/abort.ts';
import { detect } from '../service/detect.ts';
import {
  ExportGalleryRequestSchema,
  galleryTools,
  ImportGalleryRequestSchema,
  SubjectTemplatesRequestSchema,
  TemplateImageRequestSchema,
} from '../service/gallery-tools.ts';
import { recognitionServices } from '../service/recognition.ts';
import type { VisionPort } from '../service/vision-port.ts';
import type { GalleryFile } from '../store/gallery-file.ts';
import {
  ApplyRetentionRequestSchema,
  AuditLogRequestSchema,
  ForgetRequestSchema,
  GalleryOptionsRequestSchema,
  SetGalleryOptionsRequestSchema,
  privacyTools,
  type ErasureStatus,
  type ForgetRequest,
  type ForgetResult,
  type RetentionResult,
  type SetGalleryOptionsRequest,
} from '../service/privacy.ts';
import type { AuditEvent, GalleryOptions } from '../store/schema.ts';
import { GalleryStore } from '../store/index.ts';
import { RemoteSearchIndex } from '../store/remote-search-index.ts';
import { recognitionStore } from '../store/recognition-adapter.ts';
import type { ModelWarmUp } from '../worker/model-registry.ts';
import type { BackendInfo } from '../worker/ort-backend.ts';
import { TimingsFeed, type EngineDiagnostics } from './diagnostics.ts';
import { platformInfo, requireBrowser } from './platform.ts';
import { startVisionWorker } from './vision-client.ts';
import { workerVisionPort } from './vision-port.ts';
// sync (team galleries through the sync service, docs/sync.md): absent option = nothing changes
import { DISABLED_STATUS, startSync, type Sync, type SyncOptionsInput, type SyncStatus, type SyncStatusListener } from '../sync/index.ts';
import { createMediaService, mediaVisionPort, type MediaService } from '../media/media-service.ts';
import { galleryMatcher } from '../live/recognition.ts';
import { watch, type LiveWatch, type WatchCallOptions } from '../live/watch.ts';
import type { WatchSource } from '../live/frame-source.ts';

/**
 * Runtime (modelBaseUrl, ortWasmBaseUrl, backend, numThreads — src/env.ts) plus the request
 * surface (credentials, appId, storageName — src/api/options.ts).
 */
export type EngineOptions = RuntimeEnvInput &
  ApiOptionsInput & {
    /**
     * URL of the built vision worker (dist/lib/assets/vision.worker.js) when an app serves it
     * itself; default: the worker chunk next to the library entry.
     */
    workerUrl?: string | URL;
    /** share the account's galleries with other browsers through a sync service (src/sync/, docs/sync.md) */
    sync?: SyncOptionsInput;
  };

/** Options of one typed call. */
export interface CallOptions {
  /** aborting rejects the call with the signal's reason */
  signal?: AbortSignal;
  /** progress of long work (media analysis) */
  onProgress?: (progress: EngineProgress) => void;
  /** false = the `store_image: false` header: keep no copy of the image; default true */
  storeImage?: boolean;
  /** the account to act as; default the engine's appId option (first credential) */
  appId?: string;
}

/** What engine.warmUp() did: per model, the load and first-run time it spent (0 = already done). */
export interface WarmUpReport {
  models: ModelWarmUp[];
  /** a blank photo-sized frame through detection (view crops, every detector view), ms */
  detectionPassMs: number;
  /** wall-clock ms of the whole warm-up */
  ms: number;
}

type FaceAnswer<K extends ServiceName> = Promise<ServiceResults[K] | FaceErrorBody>;
type EmotionAnswer<K extends ServiceName> = Promise<ServiceResults[K] | EmotionErrorBody>;

export interface Engine {
  /** which backend runs the models (WASM threads or WebGPU) */
  readonly backend: BackendInfo;
  /** the account typed calls act as (no app_key needed: the caller holds the engine) */
  readonly appId: string;
  /** the IndexedDB database name of galleries and media */
  readonly storageName: string;
  /** emotion analysis of media (v2): jobs, queue and results in IndexedDB — src/media/ */
  readonly media: MediaService;
  detect(request: DetectRequest, options?: CallOptions): Promise<DetectResponse | FaceErrorBody>;
  enroll(request: ServiceInput<'enroll'>, options?: CallOptions): FaceAnswer<'enroll'>;
  verify(request: ServiceInput<'verify'>, options?: CallOptions): FaceAnswer<'verify'>;
  recognize(request: ServiceInput<'recognize'>, options?: CallOptions): FaceAnswer<'recognize'>;
  galleryListAll(request?: ServiceInput<'galleryListAll'>, options?: CallOptions): FaceAnswer<'galleryListAll'>;
  galleryView(request: ServiceInput<'galleryView'>, options?: CallOptions): FaceAnswer<'galleryView'>;
  galleryViewSubject(request: ServiceInput<'galleryViewSubject'>, options?: CallOptions): FaceAnswer<'galleryViewSubject'>;
  galleryRemove(request: ServiceInput<'galleryRemove'>, options?: CallOptions): FaceAnswer<'galleryRemove'>;
  galleryRemoveSubject(request: ServiceInput<'galleryRemoveSubject'>, options?: CallOptions): FaceAnswer<'galleryRemoveSubject'>;
  mediaPost(request: ServiceInput<'mediaPost'>, options?: CallOptions): EmotionAnswer<'mediaPost'>;
  mediaGet(request: ServiceInput<'mediaGet'>, options?: CallOptions): EmotionAnswer<'mediaGet'>;
  mediaDelete(request: ServiceInput<'mediaDelete'>, options?: CallOptions): EmotionAnswer<'mediaDelete'>;
  analyticsGet(request: ServiceInput<'analyticsGet'>, options?: CallOptions): EmotionAnswer<'analyticsGet'>;
  /** Export a whole gallery of the account as a portable JSON-serialisable object (embeddings base64 float32 LE). */
  exportGallery(request: { gallery_name: string; include_images?: boolean }, options?: CallOptions): Promise<GalleryFile | FaceErrorBody>;
  /** Import a gallery file (the object, its JSON text, or a Blob/File of that JSON) into the account, under `gallery_name` if given else the file's name. Adds to an existing gallery. All or nothing. */
  importGallery(
    request: { file: unknown; gallery_name?: string },
    options?: CallOptions,
  ): Promise<{ gallery_name: string; subject_ids: string[]; templates: number } | FaceErrorBody>;
  /** The stored photo a template was enrolled from, with the face box in that photo; null when store_image was false. */
  templateImage(
    request: { gallery_name: string; subject_id: string; face_id: string },
    options?: CallOptions,
  ): Promise<{ image: Blob; box: { topLeftX: number; topLeftY: number; width: number; height: number } } | null | FaceErrorBody>;
  /** Template details for browsing: like /gallery/view_subject but with quality, box, attributes and whether a photo is stored. */
  subjectTemplates(
    request: { gallery_name: string; subject_id: string },
    options?: CallOptions,
  ): Promise<
    | Array<{
        face_id: string;
        enrollment_timestamp: string;
        quality: number;
        has_image: boolean;
        attributes: Record<string, unknown>;
        box: { topLeftX: number; topLeftY: number; width: number; height: number };
      }>
    | FaceErrorBody
  >;
  /**
   * Loads every model a default request uses and runs each once, so the first request is as
   * fast as later ones. Optional (models otherwise load on first use); worth calling right
   * after createEngine() while the user is still choosing a photo. Requests made meanwhile
   * are answered, waiting for at most one model's load or run.
   */
  warmUp(): Promise<WarmUpReport>;
  /**
   * Live video: follows the faces of a <video>, a MediaStream or a VideoFrame iterator frame by
   * frame (track ids, boxes, landmarks, pose, emotions; names with `galleryName`) — docs/live.md.
   */
  watch(source: WatchSource, options?: WatchCallOptions): LiveWatch;
  /** Runtime diagnostics for developer tools: model load times, per-stage timings, start-up time (src/engine/diagnostics.ts). */
  readonly diagnostics: EngineDiagnostics;
  /**
   * Answers an HTTP-shaped request exactly as the service would (auth with app_id/app_key,
   * validation, statuses, JSON bodies). Never rejects. Used by the fetch and XHR shims.
   */
  handle(request: Request, options?: HandleOptions): Promise<Response>;
  /** sync: what it is doing (pending changes, last synced, errors); `enabled: false` without the sync option */
  syncStatus(): SyncStatus;
  /** sync: called on every status change; returns unsubscribe */
  onSyncStatus(listener: SyncStatusListener): () => void;
  /** sync: push and pull now; resolves with the status after */
  syncNow(): Promise<SyncStatus>;
  /**
   * Erasure: removes a subject (or, without subject_id, a whole gallery) with its templates,
   * stored photos and search-index rows, and with sync its queued enrolls; the removal is queued
   * for the service in the same transaction (docs/privacy.md).
   */
  forget(request: ForgetRequest, options?: CallOptions): Promise<ForgetResult | FaceErrorBody>;
  /** A gallery's privacy options on this device (requireConsent, retention; docs/privacy.md). */
  galleryOptions(request: { gallery_name: string }, options?: CallOptions): Promise<(GalleryOptions & { gallery_name: string }) | FaceErrorBody>;
  /** Sets them; the gallery need not exist yet, and they outlive its removal. */
  setGalleryOptions(request: SetGalleryOptionsRequest, options?: CallOptions): Promise<(GalleryOptions & { gallery_name: string }) | FaceErrorBody>;
  /**
   * Destroys the templates every gallery's retention has expired (run at start and hourly by
   * the engine itself; `now` (epoch ms) replaces the clock). With sync the removals reach the
   * service and every device.
   */
  applyRetention(request?: { now?: number }, options?: CallOptions): Promise<RetentionResult | FaceErrorBody>;
  /**
   * The audit log: enroll, verify, recognize, remove, export, import and retention events of the
   * account (time, gallery, subject; never images or embeddings), oldest first, the newest
   * `limit` when given; bounded to the newest 10 000. Plain JSON: show it or save it.
   */
  auditLog(request?: { limit?: number }, options?: CallOptions): Promise<AuditEvent[] | FaceErrorBody>;
  /** Where an erasure stands: on this device, and on the service (which then tombstones it on every syncing device). */
  erasureStatus(request: ForgetRequest, options?: CallOptions): Promise<ErasureStatus | FaceErrorBody>;
  /** stops the worker; the engine cannot be used afterwards */
  close(): void;
}

/** how often the engine applies its galleries' retention by itself */
const RETENTION_SWEEP_MS = 3_600_000;

export async function createEngine(options: EngineOptions = {}): Promise<Engine> {
  const started = performance.now();
  requireBrowser();
  const api = resolveApiOptions(options);
  const vision = startVisionWorker(options.workerUrl);
  const env = resolveRuntimeEnv(options);
  // the gallery database opens while the worker starts ORT (not after it: createEngine waits for both)
  const galleriesOpening = GalleryStore.open({ name: api.storageName, timeoutMs: api.storageTimeoutMs });
  galleriesOpening.catch(() => {}); // awaited below; a failure surfaces there
  let backend: BackendInfo;
  try {
    backend = await vision.api.init(env);
  } catch (error) {
    vision.terminate();
    void galleriesOpening.then((g) => g.close(), () => {});
    throw error;
  }
  // every analysis reports its timings (diagnostics), whichever service asked for it
  const timings = new TimingsFeed();
  // running watches end when the engine closes (their worker calls would never answer)
  const closing = new AbortController();
  const port = workerVisionPort(vision.api);
  const visionFor = (kind: 'detect' | 'recognition'): VisionPort => ({ analyze: timings.reported(kind, port.analyze) });
  const detectVision = visionFor('detect');
  const mediaVision = mediaVisionPort(vision.api);
  // media (v2): restarts jobs a previous page left unfinished
  const media = createMediaService(
    { analyze: timings.reported('media', mediaVision.analyze), analyzeFrame: timings.reported('media', mediaVision.analyzeFrame) },
    // the formats option: strict mode refuses a WebP at POST, as the face endpoints do
    { storageName: api.storageName, storageTimeoutMs: api.storageTimeoutMs, formats: env.formats },
  );

  // recognition: galleries in IndexedDB, searched through an in-memory index kept in step across tabs
  const galleries = await galleriesOpening;
  // the search index (matrices, reopen) lives in its own worker: the page's thread stays free
  const searchIndex = new RemoteSearchIndex(galleries);

  const services: Services = {
    ...unimplementedServices(),
    detect: ({ params }) => detect(detectVision, params),
    ...recognitionServices(visionFor('recognition'), recognitionStore(galleries, searchIndex)),
    ...media.services(),
  };
  // gallery files and browsing: typed calls only (no Kairos route), over the same store
  const tools = galleryTools(galleries);
  // sync: starts in the background (offline is a state, not an error); only with the option
  const sync: Sync | undefined = options.sync
    ? await startSync(options.sync, { store: galleries, appId: api.appId, storageName: api.storageName, timeoutMs: api.storageTimeoutMs })
    : undefined;
  // erasure: its service side is the sync's outbox
  const privacy = privacyTools(galleries, sync && ((appId, gallery, subject) => sync.erasure(appId, gallery, subject)));

  /** Validates `request`, runs `service` as the call's account; errors become the family's error body. */
  const answer = async <S extends z.ZodType, T>(
    schema: S,
    service: (c: ServiceCall<z.output<S>>) => Promise<T>,
    family: 'face' | 'emotion',
    request: unknown,
    call: CallOptions,
  ): Promise<T | FaceErrorBody | EmotionErrorBody> => {
    const run = async () => {
      const params = parseRequest(schema, request, { style: family });
      return service({ appId: call.appId ?? api.appId, storeImage: call.storeImage ?? true, signal: call.signal, onProgress: call.onProgress, params });
    };
    const result = await toResult(() => (call.signal ? raceAbort(run(), call.signal) : run()));
    if (result.ok) return result.value;
    return family === 'emotion' ? emotionErrorBody(result.error) : faceErrorBody(result.error);
  };

  /** A typed method of an endpoint: its service, as the default account, errors as the interface's bodies. */
  const typed = <K extends ServiceName>(name: K, family: 'face' | 'emotion') =>
    (request: unknown = {}, call: CallOptions = {}): Promise<ServiceResults[K] | FaceErrorBody | EmotionErrorBody> =>
      answer(REQUEST_SCHEMAS[name], services[name] as (c: ServiceCall<unknown>) => Promise<ServiceResults[K]>, family, request, call);

  /** A typed gallery tool: errors as face error bodies, like the gallery endpoints'. */
  const tool = <S extends z.ZodType, T>(schema: S, service: (c: ServiceCall<z.output<S>>) => Promise<T>) =>
    (request: unknown, call: CallOptions = {}) => answer(schema, service, 'face', request, call) as Promise<T | FaceErrorBody>;

  /** A gallery tool whose successful calls go in the audit log. */
  const audited =
    <P, T extends { gallery_name: string }>(event: 'export' | 'import', service: (c: ServiceCall<P>) => Promise<T>) =>
    async (call: ServiceCall<P>): Promise<T> => {
      const result = await service(call);
      await galleries.audit.note([{ at: Date.now(), appId: call.appId, event, gallery: result.gallery_name }]);
      return result;
    };
  const auditLog = tool(AuditLogRequestSchema, privacy.auditLog);

  // retention runs by itself: at start and every hour (expired templates must go even if the app never asks)
  const applyRetention = tool(ApplyRetentionRequestSchema, privacy.applyRetention);
  const sweep = () => void applyRetention({}).catch(() => {});
  sweep();
  const retentionTimer = setInterval(sweep, RETENTION_SWEEP_MS);

  return {
    backend,
    appId: api.appId,
    storageName: api.storageName,
    media,
    detect: typed('detect', 'face') as Engine['detect'],
    enroll: typed('enroll', 'face') as Engine['enroll'],
    verify: typed('verify', 'face') as Engine['verify'],
    recognize: typed('recognize', 'face') as Engine['recognize'],
    galleryListAll: typed('galleryListAll', 'face') as Engine['galleryListAll'],
    galleryView: typed('galleryView', 'face') as Engine['galleryView'],
    galleryViewSubject: typed('galleryViewSubject', 'face') as Engine['galleryViewSubject'],
    galleryRemove: typed('galleryRemove', 'face') as Engine['galleryRemove'],
    galleryRemoveSubject: typed('galleryRemoveSubject', 'face') as Engine['galleryRemoveSubject'],
    mediaPost: typed('mediaPost', 'emotion') as Engine['mediaPost'],
    mediaGet: typed('mediaGet', 'emotion') as Engine['mediaGet'],
    mediaDelete: typed('mediaDelete', 'emotion') as Engine['mediaDelete'],
    analyticsGet: typed('analyticsGet', 'emotion') as Engine['analyticsGet'],
    exportGallery: tool(ExportGalleryRequestSchema, audited('export', tools.exportGallery)),
    importGallery: tool(ImportGalleryRequestSchema, audited('import', tools.importGallery)),
    auditLog: (request = {}, o) => auditLog(request, o),
    templateImage: tool(TemplateImageRequestSchema, tools.templateImage),
    forget: tool(ForgetRequestSchema, privacy.forget),
    galleryOptions: tool(GalleryOptionsRequestSchema, privacy.galleryOptions),
    setGalleryOptions: tool(SetGalleryOptionsRequestSchema, privacy.setGalleryOptions),
    applyRetention: (request = {}, o) => applyRetention(request, o),
    erasureStatus: tool(ForgetRequestSchema, privacy.erasureStatus),
    subjectTemplates: tool(SubjectTemplatesRequestSchema, tools.subjectTemplates),
    warmUp: async () => {
      const begun = performance.now();
      const done = await vision.api.warmUp();
      return { ...done, ms: performance.now() - begun };
    },
    watch: (source, o) => watch({ vision: vision.api, closed: closing.signal, ...galleryMatcher(recognitionStore(galleries, searchIndex), api.appId) }, source, o),
    diagnostics: {
      modelLoads: () => vision.api.modelLoads(),
      modelRuns: () => vision.api.modelRuns(),
      onTimings: (listener) => timings.subscribe(listener),
      startupMs: performance.now() - started,
      // asked of the worker each time: a WebGPU backend may since have fallen back to WASM
      platform: async () => platformInfo(await vision.api.backendInfo()),
    },
    handle: (request, o) => handleRequest(request, services, { credentials: api.credentials, ...o }),
    syncStatus: () => sync?.status() ?? DISABLED_STATUS,
    onSyncStatus: (listener) => sync?.subscribe(listener) ?? (() => {}),
    syncNow: async () => (sync ? sync.syncNow() : DISABLED_STATUS),
    close: () => {
      clearInterval(retentionTimer);
      sync?.close();
      closing.abort();
      void media.close();
      searchIndex.close();
      galleries.close();
      vision.terminate();
    },
  };
}
