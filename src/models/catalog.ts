// Which model runs for what: the model choices several layers share. The worker runs them, the
// services and the sync store their ids with templates, media and live follow faces with them,
// capabilities.ts tells apps what they load. The bottom layer of src/ (docs/architecture.md):
// it imports nothing of src/, so every layer can read it (test/unit/layers.test.ts).
import { z } from 'zod';

/** Face embedding models of public/models (only EMBEDDING.model is shipped; the others are for `npm run eval:recognition`). */
export const EMBEDDING_MODELS = ['faceapi-recognition', 'mobilefacenet', 'faceres'] as const;
export type EmbeddingModelId = (typeof EMBEDDING_MODELS)[number];

/** Models that give age (years) and a male probability: FaceRes (~0.65× GEAR's cost) or face-api's AgeGenderNet (~0.2×). */
export const AGE_GENDER_MODELS = ['faceres', 'faceapi-age-gender'] as const;
export type AgeGenderModelId = (typeof AGE_GENDER_MODELS)[number];

/** The emotion classifiers, the default first (engine.watch's `emotionModel` option is validated against this). */
export const EmotionModelIdSchema = z.enum(['faceapi-expression', 'emotion']);
export type EmotionModelId = z.infer<typeof EmotionModelIdSchema>;

/** The face detector of the image pipeline (/detect, the face calls, engine.watch): `DETECTION.detector` in src/worker/image-analysis.ts. */
export const DETECTOR_MODEL = 'blazeface-front';

/** The embedding the engine ships, chosen by `npm run eval:recognition` (docs/accuracy.md). */
export const EMBEDDING = {
  model: 'faceapi-recognition' as EmbeddingModelId,
  /** mirror-image test-time augmentation: +2% TAR at FAR 1% for one more model run */
  flip: true,
  /** stored with every template so a model change can re-embed: model and preprocessing */
  id: 'faceapi-recognition@1.7.15+flip',
  /** floats per embedding: what a gallery file's templates must have to be imported */
  dim: 128,
} as const;

/** The embedding model whose vectors the media tracker compares (src/media/people.ts). */
export const TRACKING_EMBEDDING = 'faceapi-recognition' satisfies EmbeddingModelId;

/** Which classifier gives the 7 emotions unless a call names one (chosen by `npm run eval`, docs/accuracy.md). */
export const DEFAULT_EMOTION_MODEL: EmotionModelId = 'faceapi-expression';

/** How age, gender and race are estimated; the shipped values are chosen by `npm run eval:attributes` (docs/accuracy.md). */
export interface DemographicsSettings {
  /** side of GEAR's input crop (it takes any size; cost grows with the square) */
  gearInputSize: number;
  /** a smaller side trims the crop's margin and keeps the face at GEAR's nominal pixel scale, rather than shrinking it */
  gearKeepScale?: boolean;
  /** a second age and gender model: its age is averaged with GEAR's, its gender replaces GEAR's (the weaker), or none */
  ageGender: AgeGenderModelId | 'none';
  /** the age is the second model's alone, GEAR's not averaged in */
  secondModelAge?: boolean;
  /** side of FaceRes's input crop when it is the second model (it takes any size) */
  faceresInputSize: number;
}

/**
 * GEAR gives only the ethnicity (no other model has it), on a 176-px crop of its usual field of
 * view (−21% of its cost; labelled ethnicity 44/58 against 43/58 at 198 px); age and gender are
 * AgeGenderNet's alone: its age falls in the public age range of 44 of 70 labelled faces, the mean
 * with GEAR's 41, GEAR's alone 37 (`npm run eval:attributes`, docs/accuracy.md).
 */
export const DEMOGRAPHICS: DemographicsSettings = { gearInputSize: 176, ageGender: 'faceapi-age-gender', secondModelAge: true, faceresInputSize: 224 };

/**
 * GEAR as two parts, for two runtimes (a one-thread page's worker and its model peer): `head` is
 * GEAR's first three convolutions (unpadded, ~80% of its work) and runs on two overlapping row
 * windows of the crop, one on each runtime; `tail` is the rest, run on the two halves' rows joined.
 * Output row r of the head reads input rows 2r … 2r + 9, so each window gives `rowsEach` rows of
 * the whole crop's feature map. The answer is the whole model's, bit for bit
 * (test/unit/gear-split.test.ts); built by tools/convert-models from the shipped gear.onnx.
 */
export const GEAR_SPLIT = {
  head: 'gear-head',
  tail: 'gear-tail',
  /** the crop side the windows are for (DEMOGRAPHICS.gearInputSize); other sides run the whole model */
  inputSize: 176,
  /** input rows [start, end) of each half */
  windows: [
    [0, 92],
    [84, 176],
  ],
  /** feature-map rows each half gives (its whole output) */
  rowsEach: 42,
} as const;

/** The models demographics with these settings run (pure). */
export const demographicsModels = (settings: DemographicsSettings): string[] => (settings.ageGender === 'none' ? ['gear'] : ['gear', settings.ageGender]);
