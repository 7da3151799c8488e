// Face alignment for the embedding models: the similarity transform (scale, rotation,
// translation) from landmarks to each model's canonical crop, expressed as a View (pure).
import type { Point, View } from './geometry.ts';

/**
 * Least-squares similarity transform mapping `from` (image points) onto `to` (crop points)
 * of a square crop of side outSize, returned as the View that renders that crop.
 */
export function similarityView(from: readonly Point[], to: readonly Point[], outSize: number): View {
  const n = from.length;
  const mean = (ps: readonly Point[]) => ({ x: ps.reduce((s, p) => s + p.x, 0) / n, y: ps.reduce((s, p) => s + p.y, 0) / n });
  const mf = mean(from);
  const mt = mean(to);
  // crop = a·R·(p − mf) + mt with a·R = [[c, −s], [s, c]] (closed form for 2-D similarity)
  let num1 = 0;
  let num2 = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    const px = from[i]!.x - mf.x;
    const py = from[i]!.y - mf.y;
    const qx = to[i]!.x - mt.x;
    const qy = to[i]!.y - mt.y;
    num1 += px * qx + py * qy;
    num2 += px * qy - py * qx;
    den += px * px + py * py;
  }
  const c = num1 / den;
  const s = num2 / den;
  const scale = Math.hypot(c, s);
  const rotation = Math.atan2(s, c); // image → crop rotation; the view's angle is its opposite
  // the image point that lands on the crop centre
  const dx = outSize / 2 - mt.x;
  const dy = outSize / 2 - mt.y;
  const inv = 1 / (scale * scale);
  const cx = mf.x + inv * (c * dx + s * dy);
  const cy = mf.y + inv * (-s * dx + c * dy);
  return { cx, cy, size: outSize / scale, angle: -rotation };
}

/**
 * ArcFace's reference positions of the eyes, nose tip and mouth corners in a 112x112 crop
 * (the subject's left eye is on the image's right), used by MobileFaceNet-style models.
 */
export const ARCFACE_112: readonly Point[] = [
  { x: 73.53, y: 51.5 }, // subject's left eye
  { x: 38.29, y: 51.7 }, // subject's right eye
  { x: 56.03, y: 71.74 }, // nose tip
  { x: 70.73, y: 92.2 }, // subject's left mouth corner
  { x: 41.55, y: 92.37 }, // subject's right mouth corner
];

/**
 * face-api's (dlib-style) crop, made rotation-invariant: a square of side
 * mean(eye→mouth distance) / 0.45 whose reference point (the mean of both eye centres and the
 * mouth centre) sits at 50% across and 43% down, turned so the eyes are level.
 */
export function dlibView(leftEye: Point, rightEye: Point, mouth: Point): View {
  const eyeToMouth = (Math.hypot(mouth.x - leftEye.x, mouth.y - leftEye.y) + Math.hypot(mouth.x - rightEye.x, mouth.y - rightEye.y)) / 2;
  const size = eyeToMouth / 0.45;
  const ref = { x: (leftEye.x + rightEye.x + mouth.x) / 3, y: (leftEye.y + rightEye.y + mouth.y) / 3 };
  const angle = Math.atan2(leftEye.y - rightEye.y, leftEye.x - rightEye.x);
  // the crop centre is 7% of the side below the reference point, in the face's own frame
  const down = 0.07 * size;
  return { cx: ref.x - Math.sin(angle) * down, cy: ref.y + Math.cos(angle) * down, size, angle };
}

/** Mirrors an NHWC tensor left-right (for flip test-time augmentation). */
export function flipHorizontal(data: Float32Array, size: number, channels: number): Float32Array {
  const out = new Float32Array(data.length);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const src = (y * size + x) * channels;
      const dst = (y * size + (size - 1 - x)) * channels;
      for (let c = 0; c < channels; c++) out[dst + c] = data[src + c]!;
    }
  }
  return out;
}

export function l2Normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum) || 1;
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! / norm;
  return out;
}
