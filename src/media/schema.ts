// The emotion analysis (v2) shapes as this engine produces them, as zod schemas: the media
// object, the status replies, the analytics object — each a stricter form of the loose
// contract in src/api/schemas.ts (allowed values and ranges, docs/emotion.md) — and the job
// records kept in IndexedDB. Types are inferred from the schemas.
import { z } from 'zod';
import { NAMED_LANDMARKS } from '../vision/face-mesh.ts';
import { UNKNOWN } from '../api/field-audit.ts';
import { AGE_GROUPS, GENDER_CODE, GENDERS, GLASSES_CODE, GLASSES_VALUES, TIMESTAMP_PATTERN } from './metrics.ts';

// ---------------------------------------------------------------- states

export const MEDIA_STATUS = {
  processing: { status_code: 2, status_message: 'Processing' },
  notFound: { status_code: 3, status_message: 'Error. Media record not found.' },
  complete: { status_code: 4, status_message: 'Complete' },
  /** the delete reply sends the code as a string */
  deleted: { status_code: '5', status_message: 'Deleted' },
} as const;

/** A job that failed after it was accepted: code 3, message "Error. <reason>". */
export const FAILED_STATUS_CODE = 3;

// ---------------------------------------------------------------- media object

const int = z.number().int();
const percent = z.number().min(0).max(100);
/** a measurement 0–100, or -1 where none could be made (docs/emotion.md, unknown values) */
const percentOrUnknown = percent.or(z.literal(UNKNOWN.number));
const timestamp = z.string().regex(TIMESTAMP_PATTERN);

export const EmotionsSchema = z.object({
  anger: percentOrUnknown,
  disgust: percentOrUnknown,
  fear: percentOrUnknown,
  joy: percentOrUnknown,
  sadness: percentOrUnknown,
  surprise: percentOrUnknown,
});

const LANDMARK_NAMES = NAMED_LANDMARKS.map(([name]) => name) as [string, ...string[]];
export const LandmarkSchema = z
  .partialRecord(z.enum(LANDMARK_NAMES), z.object({ x: int, y: int }))
  .refine((o) => Object.keys(o).length === 1, 'one landmark per object');
/** All 49, in the contract's order. */
export const LandmarksSchema = z
  .array(LandmarkSchema)
  .length(LANDMARK_NAMES.length)
  .refine((list) => list.every((l, i) => Object.keys(l)[0] === LANDMARK_NAMES[i]), 'the 49 landmark names in order');

export const MediaPersonSchema = z.object({
  person_id: z.string().min(1),
  appearance: z.object({ glasses: z.enum(GLASSES_VALUES) }),
  demographics: z.object({ age_group: z.enum([...AGE_GROUPS, UNKNOWN.string]), gender: z.enum([...GENDERS, UNKNOWN.string]) }),
  /** metres */
  distance: z.number().min(0),
  emotions: EmotionsSchema,
  face: z.object({ x: int.min(0), y: int.min(0), width: int.min(0), height: int.min(0) }),
  /** degrees */
  pose: z.object({ pitch: z.number().min(-180).max(180), roll: z.number().min(-180).max(180), yaw: z.number().min(-180).max(180) }),
  tracking: z.object({
    attention: percent,
    blink: z.enum(['yes', 'no']),
    /** seconds */
    dwell: z.number().min(0),
    glances: int.min(0),
  }),
  start_time: timestamp,
  end_time: timestamp,
  landmarks: LandmarksSchema.optional(),
});
export type MediaPerson = z.infer<typeof MediaPersonSchema>;

export const MediaFrameSchema = z.object({ time: int.min(0), people: z.array(MediaPersonSchema) });
export type MediaFrame = z.infer<typeof MediaFrameSchema>;

export const MediaTypeSchema = z.enum(['image', 'video']);
export type MediaType = z.infer<typeof MediaTypeSchema>;

export const MediaInfoSchema = z.object({
  file: z.string(),
  /** seconds (0 for an image) */
  length: z.number().min(0),
  mime_type: z.string().min(1),
  type: MediaTypeSchema,
});
export type MediaInfo = z.infer<typeof MediaInfoSchema>;

export const CompleteMediaSchema = z.object({
  id: z.string().min(1),
  /** seconds */
  length: z.number().min(0),
  media_info: MediaInfoSchema,
  status_code: z.literal(MEDIA_STATUS.complete.status_code),
  status_message: z.literal(MEDIA_STATUS.complete.status_message),
  frames: z.array(MediaFrameSchema),
});
export type CompleteMedia = z.infer<typeof CompleteMediaSchema>;

export const ProcessingReplySchema = z.object({
  id: z.string().min(1),
  status_code: z.literal(MEDIA_STATUS.processing.status_code),
  status_message: z.literal(MEDIA_STATUS.processing.status_message),
});
export const NotFoundReplySchema = z.object({
  id: z.string(),
  status_code: z.literal(MEDIA_STATUS.notFound.status_code),
  status_message: z.literal(MEDIA_STATUS.notFound.status_message),
});
export const FailedReplySchema = z.object({
  id: z.string().min(1),
  status_code: z.literal(FAILED_STATUS_CODE),
  status_message: z.string().startsWith('Error. '),
});
export const DeletedReplySchema = z.object({
  id: z.string().min(1),
  status_code: z.literal(MEDIA_STATUS.deleted.status_code),
  status_message: z.literal(MEDIA_STATUS.deleted.status_message),
});
export type StatusReply = { id: string; status_code: number | string; status_message: string };

// ---------------------------------------------------------------- analytics

export const ImpressionSchema = z.object({
  /** the person_id */
  id: z.string().min(1),
  appearance: z.object({ glasses: z.union(Object.values(GLASSES_CODE).map((c) => z.literal(c))) }),
  average_emotion: EmotionsSchema,
  demographics: z.object({ age_group: z.enum([...AGE_GROUPS, UNKNOWN.string]), gender: z.union(Object.values(GENDER_CODE).map((c) => z.literal(c))) }),
  /** seconds from the first to the last sighting, plus one sampling interval */
  duration: z.number().min(0),
  emotion_score: z.object({ negative: percentOrUnknown, neutral: percentOrUnknown, positive: percentOrUnknown }),
  tracking: z.object({ attention: percent, dwell: z.number().min(0), glances: int.min(0) }),
});
export type Impression = z.infer<typeof ImpressionSchema>;

export const AnalyticsSchema = z.object({
  id: z.string().min(1),
  media_info: z.object({ filename: z.string(), length: z.number().min(0), mime_type: z.string().min(1), type: MediaTypeSchema }),
  impressions: z.array(ImpressionSchema),
});
export type Analytics = z.infer<typeof AnalyticsSchema>;

// ---------------------------------------------------------------- stored jobs

export const JobStateSchema = z.enum(['queued', 'processing', 'complete', 'failed']);
export type JobState = z.infer<typeof JobStateSchema>;

export const JobRecordSchema = z.object({
  appId: z.string(),
  id: z.string(),
  state: JobStateSchema,
  /** epoch ms of the POST: start_time/end_time count from here; also the queue order */
  createdAt: z.number(),
  /** tie-break of the queue order within one millisecond */
  seq: z.number(),
  landmarks: z.boolean(),
  /** sampled frames per second of video (fixed at POST so a resumed job samples the same) */
  sampleFps: z.number().positive(),
  /** smallest face searched, as a fraction of the frame's shorter side */
  minHeadScale: z.number().positive(),
  /** media_info.file */
  file: z.string(),
  /** known once the source bytes are (at POST for uploads, after the download for URLs) */
  mimeType: z.string().optional(),
  type: MediaTypeSchema.optional(),
  /** how many times processing started (a job that keeps killing its tab is failed after a few) */
  attempts: z.number().int().min(0),
  error: z.object({ code: z.number().int(), message: z.string() }).optional(),
  finishedAt: z.number().optional(),
});
export type JobRecord = z.infer<typeof JobRecordSchema>;

/** The job's input: the uploaded/downloaded bytes, or the URL still to download. */
export const SourceRecordSchema = z.object({
  appId: z.string(),
  id: z.string(),
  blob: z.instanceof(Blob).optional(),
  url: z.string().optional(),
});
export type SourceRecord = z.infer<typeof SourceRecordSchema>;

/**
 * `sources` value in IndexedDB: the bytes and their MIME type, a form every engine's IndexedDB
 * accepts (WebKit refuses Blobs). Records written before this form carry `blob` and are read
 * as they are.
 */
export const StoredSourceRecordSchema = z.object({
  appId: z.string(),
  id: z.string(),
  bytes: z.instanceof(ArrayBuffer).optional(),
  type: z.string().optional(),
  url: z.string().optional(),
  /** the older form */
  blob: z.instanceof(Blob).optional(),
});
export type StoredSourceRecord = z.infer<typeof StoredSourceRecordSchema>;

export const ResultRecordSchema = z.object({ appId: z.string(), id: z.string(), media: CompleteMediaSchema });
export type ResultRecord = z.infer<typeof ResultRecordSchema>;
