// The face detectors the engine can run, as data (pure).
import type { AnchorSpec } from './anchors.ts';

export interface DetectorSpec {
  model: string;
  anchors: AnchorSpec;
  /** output pairs [scores, regressors] in anchor order, or one combined [logit + 16] output */
  outputs: { scores: string; regressors: string }[] | { combined: string };
  /** smallest face found reliably, as a fraction of the input side (measured, see docs/detection.md) */
  minFaceFraction: number;
  /**
   * the graph runs on any input whose sides are multiples of this stride (its largest), so a
   * whole frame can be searched in one run instead of tiles (docs/detection.md)
   */
  anySizeStride?: number;
}

export const DETECTORS = {
  'blazeface-front': {
    model: 'blazeface-front',
    anchors: { inputSize: 128, layers: [{ stride: 8, anchorsPerCell: 2 }, { stride: 16, anchorsPerCell: 6 }] },
    outputs: [
      { scores: 'scores_fine', regressors: 'boxes_fine' },
      { scores: 'scores_coarse', regressors: 'boxes_coarse' },
    ],
    minFaceFraction: 0.1,
    anySizeStride: 16,
  },
  'blazeface-back': {
    model: 'blazeface-back',
    anchors: { inputSize: 256, layers: [{ stride: 16, anchorsPerCell: 2 }, { stride: 32, anchorsPerCell: 6 }] },
    outputs: [
      { scores: 'scores_fine', regressors: 'boxes_fine' },
      { scores: 'scores_coarse', regressors: 'boxes_coarse' },
    ],
    minFaceFraction: 0.08,
  },
  'facemesh-detection-full': {
    model: 'facemesh-detection-full',
    anchors: { inputSize: 192, layers: [{ stride: 4, anchorsPerCell: 1 }] },
    outputs: { combined: 'Identity:0' },
    minFaceFraction: 0.06,
  },
} as const satisfies Record<string, DetectorSpec>;

export type DetectorId = keyof typeof DETECTORS;
