// The request parameters shared by several endpoints, as zod schemas with the limits decided
// for this engine (docs/api.md). Custom issues carry `params.kairos`, the error kind
// validate.ts reports for them.
import { z } from 'zod';
import { ImageSourceSchema } from '../intake/image-input.ts';

export const MIN_HEAD_SCALE = { min: 0.015, max: 0.5, default: 0.015 } as const;
export const MAX_ID_LENGTH = 256;
export const MAX_SELECTOR_LENGTH = 256;
export const THRESHOLD = { min: 0, max: 1, default: 0.6 } as const;
export const MAX_NUM_RESULTS_DEFAULT = 10;
export const MEDIA_TIMEOUT = { min: 0, max: 60, default: 10 } as const;

/** Marks a custom zod issue with the error kind validate.ts reports for it. */
const as = (kairos: 'BAD_CHARACTERS' | 'MISSING_PARAMETER', message: string) => ({ message, params: { kairos } });

const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** A client-chosen identifier: 1–256 characters without control characters. */
export const IdSchema = z
  .string({ error: 'expected a string' })
  .min(1, { error: 'must not be empty' })
  .max(MAX_ID_LENGTH, { error: `must be at most ${MAX_ID_LENGTH} characters long` })
  .refine((s) => !CONTROL_CHARACTERS.test(s), as('BAD_CHARACTERS', 'contains control characters'));

/**
 * A photo: URL, base64 (optionally a data: URL) or an uploaded file; in typed calls also a decoded
 * image (ImageSourceSchema — an HTTP body cannot carry one). Empty counts as missing.
 */
export const ImageSchema = z
  .union(ImageSourceSchema.options, {
    error: 'expected a URL, a base64 string, a file, or (typed calls) an ImageBitmap, <img>, <canvas>, OffscreenCanvas, <video>, VideoFrame or ImageData',
  })
  .refine((v) => typeof v !== 'string' || v.trim() !== '', as('MISSING_PARAMETER', 'is empty'));

export const MinHeadScaleSchema = z
  .number({ error: `expected a number from ${MIN_HEAD_SCALE.min} to ${MIN_HEAD_SCALE.max}` })
  .min(MIN_HEAD_SCALE.min, { error: `must be from ${MIN_HEAD_SCALE.min} to ${MIN_HEAD_SCALE.max}` })
  .max(MIN_HEAD_SCALE.max, { error: `must be from ${MIN_HEAD_SCALE.min} to ${MIN_HEAD_SCALE.max}` });

export const ThresholdSchema = z
  .number({ error: 'expected a number from 0 to 1' })
  .min(THRESHOLD.min, { error: 'must be from 0 to 1' })
  .max(THRESHOLD.max, { error: 'must be from 0 to 1' });

export const MaxNumResultsSchema = z
  .number({ error: 'expected an integer of at least 1' })
  .int({ error: 'expected an integer of at least 1' })
  .min(1, { error: 'must be at least 1' });

export const SelectorSchema = z
  .string({ error: 'expected a string' })
  .max(MAX_SELECTOR_LENGTH, { error: `must be at most ${MAX_SELECTOR_LENGTH} characters long` });

export const MultipleFacesSchema = z.boolean({ error: 'expected true or false' });

/** /v2/media `source`: a URL or an uploaded file; empty counts as missing. */
export const SourceSchema = z
  .union([z.string(), z.instanceof(Blob)], { error: 'expected a URL or a file' })
  .refine((v) => typeof v !== 'string' || v.trim() !== '', as('MISSING_PARAMETER', 'is empty'));

/** `landmarks`: 1 returns feature points; 0/1, "0"/"1" and booleans are accepted. */
export const LandmarksSchema = z
  .union([z.boolean(), z.literal(0), z.literal(1), z.enum(['0', '1', 'true', 'false'])], { error: 'expected 0 or 1' })
  .transform((v) => v === true || v === 1 || v === '1' || v === 'true');

export const MediaTimeoutSchema = z
  .number({ error: `expected a number of seconds from ${MEDIA_TIMEOUT.min} to ${MEDIA_TIMEOUT.max}` })
  .min(MEDIA_TIMEOUT.min, { error: `must be from ${MEDIA_TIMEOUT.min} to ${MEDIA_TIMEOUT.max} seconds` })
  .max(MEDIA_TIMEOUT.max, { error: `must be from ${MEDIA_TIMEOUT.min} to ${MEDIA_TIMEOUT.max} seconds` });

