// The embedding the engine ships, chosen by `npm run eval:recognition` (docs/accuracy.md).
import type { EmbeddingModelId } from '../worker/face-analyzer.ts';

export const EMBEDDING = {
  model: 'faceapi-recognition' as EmbeddingModelId,
  /** mirror-image test-time augmentation: +2% TAR at FAR 1% for one more model run */
  flip: true,
  /** stored with every template so a model change can re-embed: model and preprocessing */
  id: 'faceapi-recognition@1.7.15+flip',
  /** floats per embedding: what a gallery file's templates must have to be imported */
  dim: 128,
} as const;

export const RECOGNIZE_DEFAULTS = { threshold: 0.6, maxNumResults: 10 } as const;
