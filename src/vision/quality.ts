// Face quality score 0..1 (pure). Documented in docs/detection.md.

export interface QualityInputs {
  /** variance of the Laplacian of the 64x64 grayscale face crop (0..255 levels) */
  sharpness: number;
  /** pixels between the eye centres */
  eyeDistance: number;
  yaw: number;
  pitch: number;
  /** detector score 0..1 */
  score: number;
}

const clamp01 = (v: number) => Math.min(1, Math.max(0, v));

/**
 * quality = 0.35·sharp + 0.25·size + 0.25·pose + 0.15·score, each term in 0..1:
 * sharp = varLaplacian / 400 (capped), size = eyeDistance / 64 (64 px between the eyes is
 * the usual minimum for recognition), pose = 1 − max(|yaw|, |pitch|) / 45°.
 */
export function faceQuality(q: QualityInputs): number {
  const sharp = clamp01(q.sharpness / 400);
  const size = clamp01(q.eyeDistance / 64);
  const pose = clamp01(1 - Math.max(Math.abs(q.yaw), Math.abs(q.pitch)) / 45);
  return 0.35 * sharp + 0.25 * size + 0.25 * pose + 0.15 * clamp01(q.score);
}

/** Variance of the 4-neighbour Laplacian over a grayscale image (values 0..255). */
export function laplacianVariance(gray: ArrayLike<number>, width: number, height: number): number {
  let sum = 0;
  let sumSq = 0;
  let n = 0;
  for (let y = 1; y < height - 1; y++) {
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      const v = gray[i - 1]! + gray[i + 1]! + gray[i - width]! + gray[i + width]! - 4 * gray[i]!;
      sum += v;
      sumSq += v * v;
      n++;
    }
  }
  if (n === 0) return 0;
  const mean = sum / n;
  return sumSq / n - mean * mean;
}
