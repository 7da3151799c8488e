// Request and response shapes of every endpoint of the interface, as zod schemas (types are
// inferred from them, never written twice). Request schemas describe the JSON form of a
// request; form bodies and query strings are coerced to it by the router (router.ts), and
// every zod issue becomes an error code in validate.ts (the only mapping place).
//
// Limits decided here (docs/api.md):
//   ids (gallery_name, subject_id, face_id, media id): 1–256 characters, no control characters
//   minHeadScale .015–.5 · threshold 0–1 · max_num_results integer ≥ 1 · multiple_faces boolean
//   selector ≤ 256 characters · timeout (v2/media) 0–60 seconds · landmarks 0/1/true/false
import { z } from 'zod';
import { AttributesSchema, DetectRequestSchema, DetectResponseSchema } from './detect-schema.ts';
import { IdSchema, ImageSchema, MaxNumResultsSchema, LandmarksSchema, MediaTimeoutSchema, MinHeadScaleSchema, MultipleFacesSchema, SelectorSchema, SourceSchema, ThresholdSchema } from './params.ts';

export * from './params.ts';

// ---------------------------------------------------------------- face recognition requests

export { DetectRequestSchema };
export type { DetectRequest } from './detect-schema.ts';

/**
 * A consent record (BIPA: written consent before collection; GDPR Art. 9(2)(a)): who gave it,
 * when, for what purpose, and which version of the consent text they saw. Stored with every
 * template of the enroll (attributes.consent), so it travels with the subject (gallery files,
 * sync — inside the ciphertext when encrypted) and is removed with it.
 */
export const ConsentSchema = z.object({
  given_by: z.string().min(1).max(256),
  /** ISO 8601 date-time, e.g. 2026-11-27T09:30:00Z */
  given_at: z.iso.datetime({ offset: true }),
  purpose: z.string().min(1).max(1000),
  text_version: z.string().min(1).max(256),
});
export type Consent = z.infer<typeof ConsentSchema>;

export const EnrollRequestSchema = z.object({
  image: ImageSchema,
  subject_id: IdSchema,
  gallery_name: IdSchema,
  minHeadScale: MinHeadScaleSchema.optional(),
  multiple_faces: MultipleFacesSchema.optional(),
  selector: SelectorSchema.optional(),
  /** required by galleries with requireConsent (else 1002) */
  consent: ConsentSchema.optional(),
});
export type EnrollRequest = z.infer<typeof EnrollRequestSchema>;

export const VerifyRequestSchema = z.object({
  image: ImageSchema,
  subject_id: IdSchema,
  gallery_name: IdSchema,
  selector: SelectorSchema.optional(),
});
export type VerifyRequest = z.infer<typeof VerifyRequestSchema>;

export const RecognizeRequestSchema = z.object({
  image: ImageSchema,
  gallery_name: IdSchema,
  minHeadScale: MinHeadScaleSchema.optional(),
  threshold: ThresholdSchema.optional(),
  max_num_results: MaxNumResultsSchema.optional(),
  selector: SelectorSchema.optional(),
});
export type RecognizeRequest = z.infer<typeof RecognizeRequestSchema>;

export const GalleryListAllRequestSchema = z.object({});
export type GalleryListAllRequest = z.infer<typeof GalleryListAllRequestSchema>;

export const GalleryViewRequestSchema = z.object({ gallery_name: IdSchema });
export type GalleryViewRequest = z.infer<typeof GalleryViewRequestSchema>;

export const GalleryViewSubjectRequestSchema = z.object({ gallery_name: IdSchema, subject_id: IdSchema });
export type GalleryViewSubjectRequest = z.infer<typeof GalleryViewSubjectRequestSchema>;

export const GalleryRemoveRequestSchema = z.object({ gallery_name: IdSchema });
export type GalleryRemoveRequest = z.infer<typeof GalleryRemoveRequestSchema>;

export const GalleryRemoveSubjectRequestSchema = z.object({
  gallery_name: IdSchema,
  subject_id: IdSchema,
  face_id: IdSchema.optional(),
});
export type GalleryRemoveSubjectRequest = z.infer<typeof GalleryRemoveSubjectRequestSchema>;

// ---------------------------------------------------------------- emotion analysis requests

export const MediaPostRequestSchema = z.object({
  source: SourceSchema,
  landmarks: LandmarksSchema.optional(),
  timeout: MediaTimeoutSchema.optional(),
});
export type MediaPostRequest = z.output<typeof MediaPostRequestSchema>;
export type MediaPostInput = z.input<typeof MediaPostRequestSchema>;

/** GET/DELETE /v2/media/{id} and GET /v2/analytics/{id}: the id from the path. */
export const MediaIdRequestSchema = z.object({ id: IdSchema });
export type MediaIdRequest = z.infer<typeof MediaIdRequestSchema>;

// ---------------------------------------------------------------- responses

const int = z.number().int();

export const EnrollTransactionSchema = z.object({
  status: z.string(),
  topLeftX: int,
  topLeftY: int,
  width: int,
  height: int,
  gallery_name: z.string(),
  subject_id: z.string(),
  timestamp: z.string().regex(/^\d+$/),
  quality: z.number(),
  confidence: z.number(),
  face_id: int,
});
export const EnrollResponseSchema = z.object({
  face_id: z.string(),
  images: z.array(z.object({ attributes: AttributesSchema, transaction: EnrollTransactionSchema })),
});
export type EnrollResponse = z.infer<typeof EnrollResponseSchema>;

export const VerifyTransactionSchema = z.object({
  status: z.string(),
  subject_id: z.string(),
  gallery_name: z.string(),
  quality: z.number(),
  confidence: z.number(),
  width: int,
  height: int,
  topLeftX: int,
  topLeftY: int,
  liveness: z.number().optional(),
});
export const VerifyResponseSchema = z.object({ images: z.array(z.object({ transaction: VerifyTransactionSchema })) });
export type VerifyResponse = z.infer<typeof VerifyResponseSchema>;

export const RecognizeCandidateSchema = z.object({
  subject_id: z.string(),
  confidence: z.number(),
  enrollment_timestamp: z.string().regex(/^\d+$/),
});
export const RecognizeTransactionSchema = z.object({
  status: z.string(),
  width: int,
  height: int,
  topLeftX: int,
  topLeftY: int,
  gallery_name: z.string(),
  face_id: int,
  confidence: z.number().optional(),
  subject_id: z.string().optional(),
  quality: z.number().optional(),
  liveness: z.number().optional(),
  message: z.string().optional(),
});
export const RecognizeResponseSchema = z.object({
  images: z.array(z.object({ transaction: RecognizeTransactionSchema, candidates: z.array(RecognizeCandidateSchema).optional() })),
});
export type RecognizeResponse = z.infer<typeof RecognizeResponseSchema>;

export { DetectResponseSchema };
export type { DetectResponse } from './detect-schema.ts';

export const GalleryListAllResponseSchema = z.object({ status: z.literal('Complete'), gallery_ids: z.array(z.string()) });
export type GalleryListAllResponse = z.infer<typeof GalleryListAllResponseSchema>;

export const GalleryViewResponseSchema = z.object({ status: z.string(), subject_ids: z.array(z.string()) });
export type GalleryViewResponse = z.infer<typeof GalleryViewResponseSchema>;

export const GalleryViewSubjectResponseSchema = z.object({
  status: z.string(),
  face_ids: z.array(z.object({ face_id: z.string(), enrollment_timestamp: z.string().regex(/^\d+$/) })),
});
export type GalleryViewSubjectResponse = z.infer<typeof GalleryViewSubjectResponseSchema>;

export const GalleryRemoveResponseSchema = z.object({ status: z.literal('Complete'), message: z.string() });
export type GalleryRemoveResponse = z.infer<typeof GalleryRemoveResponseSchema>;

const emotionsShape = {
  anger: z.number(),
  disgust: z.number(),
  fear: z.number(),
  joy: z.number(),
  sadness: z.number(),
  surprise: z.number(),
};

export const MediaPersonSchema = z.object({
  person_id: z.string(),
  appearance: z.object({ glasses: z.string() }),
  demographics: z.object({ age_group: z.string(), gender: z.string() }),
  distance: z.number(),
  emotions: z.object(emotionsShape),
  face: z.object({ x: int, y: int, width: int, height: int }),
  pose: z.object({ pitch: z.number(), roll: z.number(), yaw: z.number() }),
  tracking: z.object({ attention: z.number(), blink: z.string(), dwell: z.number(), glances: int }),
  start_time: z.string(),
  end_time: z.string(),
  landmarks: z.array(z.record(z.string(), z.object({ x: int, y: int }))).optional(),
});
export type MediaPerson = z.infer<typeof MediaPersonSchema>;

export const MediaObjectSchema = z.object({
  id: z.string(),
  length: z.number(),
  media_info: z.object({ file: z.string(), length: z.number(), mime_type: z.string(), type: z.string() }),
  status_code: z.union([int, z.string()]),
  status_message: z.string(),
  frames: z.array(z.object({ time: z.number(), people: z.array(MediaPersonSchema) })),
});
export type MediaObject = z.infer<typeof MediaObjectSchema>;

/** POST /v2/media still processing (HTTP 202), DELETE /v2/media/{id} (status_code "5"), unknown id (3). */
export const MediaStatusSchema = z.object({ id: z.string(), status_code: z.union([int, z.string()]), status_message: z.string() });
export type MediaStatus = z.infer<typeof MediaStatusSchema>;

export const AnalyticsObjectSchema = z.object({
  id: z.string(),
  media_info: z.object({ filename: z.string(), length: z.number(), mime_type: z.string(), type: z.string() }),
  impressions: z.array(
    z.object({
      id: z.string(),
      appearance: z.object({ glasses: int }),
      average_emotion: z.object(emotionsShape),
      demographics: z.object({ age_group: z.string(), gender: int }),
      duration: z.number(),
      emotion_score: z.object({ negative: z.number(), neutral: z.number(), positive: z.number() }),
      tracking: z.object({ attention: z.number(), dwell: z.number(), glances: z.number() }),
    }),
  ),
});
export type AnalyticsObject = z.infer<typeof AnalyticsObjectSchema>;
