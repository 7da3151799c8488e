// Where to run the detector: the whole frame, then finer overlapping tiles until faces as
// small as minHeadScale can be found (pure).
import type { View } from './geometry.ts';

export interface TilingOptions {
  /** smallest face height to find, in image pixels */
  minFace: number;
  /** smallest face the detector finds reliably, as a fraction of its view's side */
  detectorMinFraction: number;
  /** tiles of one level overlap by this fraction of their side, so a face up to this size fits wholly in one */
  overlap: number;
  /** in-plane rotations to search (radians), 0 always included first */
  angles?: readonly number[];
  /**
   * Also search the whole frame shrunk into a view this much larger than it, so a face that
   * fills a tight crop is seen with the margin detectors expect (1 = no such view).
   */
  zoomOut?: number;
}

/** Side of the view at each pyramid level: whole frame first, halving down to the finest needed. */
export function pyramidSizes(width: number, height: number, o: TilingOptions): number[] {
  const whole = Math.max(width, height);
  const finest = o.minFace / o.detectorMinFraction;
  const sizes = [whole];
  let size = whole;
  while (size > finest * 1.05) {
    size = Math.max(size / 2, finest);
    // a tile larger than the short side adds nothing over the previous level's coverage
    sizes.push(size);
  }
  return sizes;
}

/** Start positions of n tiles of side `size` spread evenly over `extent`, overlapping by at least `overlap`. */
function positions(extent: number, size: number, overlap: number): number[] {
  if (size >= extent) return [extent / 2];
  const step = size * (1 - overlap);
  const n = Math.ceil((extent - size) / step) + 1;
  const stride = (extent - size) / (n - 1);
  return Array.from({ length: n }, (_, i) => size / 2 + i * stride);
}

export function planViews(width: number, height: number, o: TilingOptions): View[] {
  const angles = o.angles?.length ? o.angles : [0];
  const views: View[] = [];
  for (const angle of angles) {
    if ((o.zoomOut ?? 1) > 1) views.push({ cx: width / 2, cy: height / 2, size: Math.max(width, height) * o.zoomOut!, angle });
    for (const size of pyramidSizes(width, height, o)) {
      for (const cy of positions(height, size, o.overlap)) {
        for (const cx of positions(width, size, o.overlap)) views.push({ cx, cy, size, angle });
      }
    }
  }
  return views;
}
