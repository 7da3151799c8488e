// The endpoint services the router dispatches to: one method per endpoint, each receiving
// validated parameters and the caller's account. A service returns the success body of the
// interface or throws an EngineError (which becomes the error body); anything else it throws
// is a bug and is answered 502/3001 by the router.
import type { z } from 'zod';
import { EngineError } from '../errors.ts';
import { notImplementedFailure } from './error-body.ts';
import {
  DetectRequestSchema,
  EnrollRequestSchema,
  GalleryListAllRequestSchema,
  GalleryRemoveRequestSchema,
  GalleryRemoveSubjectRequestSchema,
  GalleryViewRequestSchema,
  GalleryViewSubjectRequestSchema,
  MediaIdRequestSchema,
  MediaPostRequestSchema,
  RecognizeRequestSchema,
  VerifyRequestSchema,
  type AnalyticsObject,
  type DetectResponse,
  type EnrollResponse,
  type GalleryListAllResponse,
  type GalleryRemoveResponse,
  type GalleryViewResponse,
  type GalleryViewSubjectResponse,
  type MediaObject,
  type MediaStatus,
  type RecognizeResponse,
  type VerifyResponse,
} from './schemas.ts';

/** Progress of long work (media analysis): a stage name and, when known, the fraction done. */
export interface EngineProgress {
  stage: string;
  /** 0..1 when known */
  fraction?: number;
}

/** What every service method receives. */
export interface ServiceCall<P> {
  /** the authenticated account: all stored data (galleries, media) is partitioned by it */
  appId: string;
  /** false when the request carried `store_image: false`: keep no copy of the image */
  storeImage: boolean;
  /** aborted when the caller gives up (fetch/XHR abort, typed call's signal) */
  signal?: AbortSignal;
  /** progress of long work, when the caller asked for it */
  onProgress?: (progress: EngineProgress) => void;
  /** the validated parameters (body, query and path ids merged) */
  params: P;
}

/** Each endpoint's request schema, keyed by service name (the typed API and the router share it). */
export const REQUEST_SCHEMAS = {
  detect: DetectRequestSchema,
  enroll: EnrollRequestSchema,
  verify: VerifyRequestSchema,
  recognize: RecognizeRequestSchema,
  galleryListAll: GalleryListAllRequestSchema,
  galleryView: GalleryViewRequestSchema,
  galleryViewSubject: GalleryViewSubjectRequestSchema,
  galleryRemove: GalleryRemoveRequestSchema,
  galleryRemoveSubject: GalleryRemoveSubjectRequestSchema,
  mediaPost: MediaPostRequestSchema,
  mediaGet: MediaIdRequestSchema,
  mediaDelete: MediaIdRequestSchema,
  analyticsGet: MediaIdRequestSchema,
} as const;

export type ServiceName = keyof typeof REQUEST_SCHEMAS;
/** Validated parameters of a service. */
export type ServiceParams<K extends ServiceName> = z.output<(typeof REQUEST_SCHEMAS)[K]>;
/** Parameters as a caller writes them (before defaults and transforms). */
export type ServiceInput<K extends ServiceName> = z.input<(typeof REQUEST_SCHEMAS)[K]>;

/** Success bodies. */
export interface ServiceResults {
  detect: DetectResponse;
  enroll: EnrollResponse;
  verify: VerifyResponse;
  recognize: RecognizeResponse;
  galleryListAll: GalleryListAllResponse;
  galleryView: GalleryViewResponse;
  galleryViewSubject: GalleryViewSubjectResponse;
  galleryRemove: GalleryRemoveResponse;
  galleryRemoveSubject: GalleryRemoveResponse;
  /** the media object when complete (HTTP 200); `{id, status_code: 2, status_message}` when still processing (HTTP 202) */
  mediaPost: MediaObject | MediaStatus;
  /** the media object, or `{id, status_code: 3, status_message}` for an unknown id */
  mediaGet: MediaObject | MediaStatus;
  /** `{id, status_code: "5", status_message: "Deleted"}` */
  mediaDelete: MediaStatus;
  /** the analytics object, or `{id, status_code: 3, status_message}` for an unknown id */
  analyticsGet: AnalyticsObject | MediaStatus;
}

export type Services = { [K in ServiceName]: (call: ServiceCall<ServiceParams<K>>) => Promise<ServiceResults[K]> };

/** Services that change stored data: never called unless the request is authenticated and valid. */
export const MUTATING_SERVICES: readonly ServiceName[] = ['enroll', 'galleryRemove', 'galleryRemoveSubject', 'mediaPost', 'mediaDelete'];

/** Method and path of each service (for messages and docs). */
export const ENDPOINT_NAMES: Readonly<Record<ServiceName, string>> = {
  detect: 'POST /detect',
  enroll: 'POST /enroll',
  verify: 'POST /verify',
  recognize: 'POST /recognize',
  galleryListAll: 'POST /gallery/list_all',
  galleryView: 'POST /gallery/view',
  galleryViewSubject: 'POST /gallery/view_subject',
  galleryRemove: 'POST /gallery/remove',
  galleryRemoveSubject: 'POST /gallery/remove_subject',
  mediaPost: 'POST /v2/media',
  mediaGet: 'GET /v2/media/{id}',
  mediaDelete: 'DELETE /v2/media/{id}',
  analyticsGet: 'GET /v2/analytics/{id}',
};

/** A service for an endpoint not built yet: answers 502 + 3001 "… is not implemented yet". */
export function notImplemented(name: ServiceName): () => Promise<never> {
  return async () => {
    const f = notImplementedFailure(ENDPOINT_NAMES[name]);
    throw new EngineError(f.kind, f.message);
  };
}

/** Every service answering "not implemented yet"; the engine overrides the ones it has. */
export function unimplementedServices(): Services {
  const entries = (Object.keys(REQUEST_SCHEMAS) as ServiceName[]).map((name) => [name, notImplemented(name)]);
  return Object.fromEntries(entries) as Services;
}
