// The smallest face a request looks for. Kairos' minHeadScale defaults to .015; without it the
// detector leaves out passes for faces over 8× smaller than every face it found (fast on
// portraits), and a caller who sets it gets every pass down to it (docs/detection.md).
import { MIN_HEAD_SCALE } from '../api/detect-schema.ts';
import type { ImageAnalysisOptions } from '../worker/image-analysis.ts';

export function headScaleOptions(requested: number | undefined): Pick<ImageAnalysisOptions, 'minHeadScale' | 'searchEveryScale'> {
  return { minHeadScale: requested ?? MIN_HEAD_SCALE.default, searchEveryScale: requested !== undefined };
}
