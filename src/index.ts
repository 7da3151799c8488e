// The library's one public entry.
export { createEngine, type CallOptions, type Engine, type EngineOptions, type WarmUpReport } from './engine/engine.ts';
export * from './api/detect-schema.ts';
export * from './api/schemas.ts';
export type { EmotionErrorBody, FaceErrorBody } from './api/error-body.ts';
export { ERRORS, EngineError, UnsupportedEnvironmentError, type EngineFailure } from './errors.ts';
export type { BackendInfo } from './worker/ort-backend.ts';
// gallery files (engine.exportGallery / importGallery) and diagnostics (engine.diagnostics)
export { GALLERY_FILE_FORMAT, GALLERY_FILE_VERSION, GalleryFileSchema, type GalleryFile } from './store/gallery-file.ts';
export type { AnalysisKind, EngineDiagnostics, TimingsEvent, TimingsListener } from './engine/diagnostics.ts';
export type { PlatformInfo } from './engine/platform.ts';
export type { ImageTimings } from './worker/image-analysis.ts';
export type { ModelLoad, ModelWarmUp } from './worker/model-registry.ts';
// the request surface: router, shims, services contract, configuration
export { DEMO_CREDENTIALS, DEFAULT_STORAGE_NAME, type ApiOptionsInput, type Credential } from './api/options.ts';
export { createRequestHandler, handleRequest, ROUTES, type HandleOptions, type RequestHandler, type RouterOptions } from './api/router.ts';
export { DEFAULT_BASE_URLS, type ShimOptions } from './api/base-url.ts';
export { installFetchShim, type Shim } from './api/fetch-shim.ts';
export { installXhrShim } from './api/xhr-shim.ts';
export { installShims } from './api/shims.ts';
export {
  MUTATING_SERVICES,
  REQUEST_SCHEMAS,
  unimplementedServices,
  type EngineProgress,
  type ServiceCall,
  type ServiceInput,
  type ServiceName,
  type ServiceParams,
  type ServiceResults,
  type Services,
} from './api/services.ts';
// image formats: the default accepts every still format the browser decodes; KAIROS_FORMATS is the strict contract
export { IMAGE_FORMATS, KAIROS_FORMATS, type ImageFormat } from './intake/sniff.ts';
// the typed API's `image`: encoded (URL, base64, Blob) or decoded (ImageBitmap, <img>, …): docs/intake.md
export { ImageSourceSchema, type ImageSource } from './intake/image-input.ts';
export { DECODED_KINDS, type DecodedImageInput, type DecodedKind } from './intake/decoded-input.ts';
// live video (engine.watch): docs/live.md
export type { LiveWatch, WatchCallOptions } from './live/watch.ts';
export type { WatchSource } from './live/frame-source.ts';
export { LIVE_ANALYSES, type LiveAnalyses, type LiveEmotions, type LiveFace, type LiveFrame, type WatchOptionsInput } from './live/options.ts';
// team galleries (createEngine({ sync }), engine.syncStatus()): docs/sync.md
export type { SyncFailure, SyncFailureCode, SyncOptionsInput, SyncStatus, SyncStatusListener } from './sync/index.ts';
export type { ErasureStatus, ForgetRequest, ForgetResult } from './service/privacy.ts';
