// Raw detector outputs → scored face candidates, and non-maximum suppression (pure).
import type { Box, Point } from './geometry.ts';
import { iou, overlapOfSmaller } from './geometry.ts';

/** BlazeFace keypoints, in the detector's order (left/right as seen in the image). */
export const DETECTOR_KEYPOINTS = ['eyeA', 'eyeB', 'nose', 'mouth', 'earA', 'earB'] as const;

export interface Candidate {
  box: Box;
  score: number;
  /** 6 keypoints: the eye on the image's left, the other eye, nose tip, mouth centre, ears */
  keypoints: Point[];
  /** rotation (radians) of the view the face was found in; 0 for upright search */
  angle?: number;
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/**
 * Decodes one detector run: `scores` holds a logit per anchor, `regressors` 16 values per
 * anchor (box centre offset, size, 6 keypoint offsets, all in input pixels).
 */
export function decodeCandidates(
  scores: Float32Array,
  regressors: Float32Array,
  anchors: readonly Point[],
  minScore: number,
): Candidate[] {
  const out: Candidate[] = [];
  const minLogit = Math.log(minScore / (1 - minScore));
  for (let i = 0; i < anchors.length; i++) {
    const logit = scores[i]!;
    if (!(logit >= minLogit)) continue;
    const r = i * 16;
    const a = anchors[i]!;
    const cx = a.x + regressors[r]!;
    const cy = a.y + regressors[r + 1]!;
    const w = regressors[r + 2]!;
    const h = regressors[r + 3]!;
    const keypoints: Point[] = [];
    for (let k = 0; k < 6; k++) keypoints.push({ x: a.x + regressors[r + 4 + 2 * k]!, y: a.y + regressors[r + 5 + 2 * k]! });
    out.push({ box: { x: cx - w / 2, y: cy - h / 2, width: w, height: h }, score: sigmoid(logit), keypoints });
  }
  return out;
}

/**
 * Weighted non-maximum suppression: each kept face is the score-weighted mean of the
 * candidates it suppresses (steadier boxes than plain NMS, as in MediaPipe).
 * Two candidates are the same face when IoU > iouThreshold or one mostly lies inside the other.
 */
export function weightedNms(candidates: readonly Candidate[], iouThreshold = 0.3, containThreshold = 0.75): Candidate[] {
  const remaining = [...candidates].sort((a, b) => b.score - a.score);
  const kept: Candidate[] = [];
  while (remaining.length > 0) {
    const best = remaining[0]!;
    const group: Candidate[] = [];
    for (let i = remaining.length - 1; i >= 0; i--) {
      const c = remaining[i]!;
      if (c === best || iou(best.box, c.box) > iouThreshold || overlapOfSmaller(best.box, c.box) > containThreshold) {
        group.push(c);
        remaining.splice(i, 1);
      }
    }
    kept.push(mergeGroup(best, group));
  }
  return kept;
}

function mergeGroup(best: Candidate, group: Candidate[]): Candidate {
  // only candidates of similar size are blended; a much larger/smaller one only votes by being suppressed
  const similar = group.filter((c) => iou(best.box, c.box) > 0.5);
  const total = similar.reduce((s, c) => s + c.score, 0);
  const avg = (f: (c: Candidate) => number) => similar.reduce((s, c) => s + f(c) * c.score, 0) / total;
  return {
    score: best.score,
    box: { x: avg((c) => c.box.x), y: avg((c) => c.box.y), width: avg((c) => c.box.width), height: avg((c) => c.box.height) },
    keypoints: best.keypoints.map((_, k) => ({ x: avg((c) => c.keypoints[k]!.x), y: avg((c) => c.keypoints[k]!.y) })),
  };
}

/**
 * Faces that came out of separate detections but are one face (their boxes overlap by IoU above
 * `iouThreshold`, or one lies mostly inside the other): all but the best scored become undefined
 * (pure; order kept). The detector's candidates are merged before the mesh; two of them on one
 * face — e.g. a face cut by the edge, found in the frame and whole in the mirrored pad — can still
 * give two mesh boxes on it.
 */
export function withoutDuplicateFaces<T>(faces: readonly (T | undefined)[], box: (face: T) => Box, score: (face: T) => number, iouThreshold = 0.5, containThreshold = 0.75): (T | undefined)[] {
  const order = faces.flatMap((f, i) => (f === undefined ? [] : [i])).sort((a, b) => score(faces[b]!) - score(faces[a]!));
  const kept: Box[] = [];
  const out = [...faces];
  for (const i of order) {
    const b = box(faces[i]!);
    if (kept.some((k) => iou(k, b) > iouThreshold || overlapOfSmaller(k, b) > containThreshold)) out[i] = undefined;
    else kept.push(b);
  }
  return out;
}
