// Cosine similarity of two face embeddings → the 0..1 `confidence` users of the original
// service expect (pure). Piecewise linear through anchor points fitted by
// `npm run eval:recognition` on every same/different pair of ../shared/data/faces
// (docs/accuracy.md): different people mostly under 0.3, the same person mostly over 0.8,
// and 0.60 at the similarity where the false accept rate is 0.1%.

export interface CalibrationAnchor {
  similarity: number;
  confidence: number;
}

/** Fitted for faceapi-recognition (int8 convolutions) with flip TTA (see docs/accuracy.md). */
export const CALIBRATION: readonly CalibrationAnchor[] = [
  { similarity: -1, confidence: 0 },
  { similarity: 0.84, confidence: 0.1 }, // median of different-person pairs
  { similarity: 0.914, confidence: 0.3 }, // their 99th percentile
  { similarity: 0.928, confidence: 0.6 }, // false accept rate 0.1%
  { similarity: 0.96, confidence: 0.9 }, // median of same-person pairs
  { similarity: 1, confidence: 1 },
];

export function similarityToConfidence(similarity: number, anchors: readonly CalibrationAnchor[] = CALIBRATION): number {
  if (!(similarity > anchors[0]!.similarity)) return anchors[0]!.confidence;
  for (let i = 1; i < anchors.length; i++) {
    const a = anchors[i - 1]!;
    const b = anchors[i]!;
    if (similarity <= b.similarity) {
      return a.confidence + ((similarity - a.similarity) / (b.similarity - a.similarity)) * (b.confidence - a.confidence);
    }
  }
  return anchors[anchors.length - 1]!.confidence;
}

export function cosine(a: Float32Array | readonly number[], b: Float32Array | readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / (Math.sqrt(na * nb) || 1);
}
