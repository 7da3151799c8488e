// The /detect request and response shapes of the Kairos interface, as zod schemas
// (types are inferred from them, never written twice).
import { z } from 'zod';
import { UNKNOWN } from './field-audit.ts';
import { ImageSchema, MIN_HEAD_SCALE, MinHeadScaleSchema, SelectorSchema } from './params.ts';

export { MIN_HEAD_SCALE };

const int = z.number().int();
const fraction = z.number().min(0).max(1);

export const DetectRequestSchema = z.object({
  image: ImageSchema,
  minHeadScale: MinHeadScaleSchema.optional(),
  selector: SelectorSchema.optional(),
});
export type DetectRequest = z.infer<typeof DetectRequestSchema>;

export const GenderSchema = z.object({
  type: z.enum(['M', 'F']),
  maleConfidence: fraction,
  femaleConfidence: fraction,
});

export const AttributesSchema = z.object({
  age: int.min(0),
  gender: GenderSchema,
  asian: fraction,
  black: fraction,
  /** not measured by any model here: always UNKNOWN.number (-1), see docs/api.md */
  hispanic: fraction.or(z.literal(UNKNOWN.number)),
  white: fraction,
  other: fraction,
  lips: z.enum(['Together', 'Apart']).optional(),
  glasses: z.string().optional(),
  liveness: fraction.optional(),
});
export type Attributes = z.infer<typeof AttributesSchema>;

export const DetectFaceSchema = z.object({
  topLeftX: int,
  topLeftY: int,
  width: int.min(0),
  height: int.min(0),
  chinTipX: int,
  chinTipY: int,
  rightEyeCenterX: int,
  rightEyeCenterY: int,
  leftEyeCenterX: int,
  leftEyeCenterY: int,
  eyeDistance: int.min(0),
  yaw: int,
  pitch: int,
  roll: int,
  confidence: fraction,
  quality: z.number(),
  face_id: int.min(1),
  attributes: AttributesSchema,
});
export type DetectFace = z.infer<typeof DetectFaceSchema>;

export const DetectImageSchema = z.object({
  status: z.literal('Complete'),
  width: int,
  height: int,
  file: z.string(),
  faces: z.array(DetectFaceSchema),
});

export const DetectResponseSchema = z.object({ images: z.array(DetectImageSchema) });
export type DetectResponse = z.infer<typeof DetectResponseSchema>;
