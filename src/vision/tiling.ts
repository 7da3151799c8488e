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
}

/** Side of the view at each pyramid level: whole frame first, halving down to the finest needed. */
export function pyramidSizes(width: number, height: number, o: TilingOptions): number[] {
  const whole = Math.max(width, height);
  const finest = o.minFace / o.detectorMinFraction;
  const sizes = [whole];
  let size = whole;
  // a level only 10% coarser than needed is close enough (measured: no recall lost on the dev set)
  while (size > finest * 1.1) {
    size = Math.max(size / 2, finest);
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

/**
 * The whole frame shrunk into a view `factor` times larger: a face that fills a tight crop
 * is then seen with the margin detectors expect. Searched only when nothing else was found.
 */
export function zoomedOutView(width: number, height: number, factor: number, angle = 0): View {
  return { cx: width / 2, cy: height / 2, size: Math.max(width, height) * factor, angle };
}

export function planViews(width: number, height: number, o: TilingOptions): View[] {
  const angles = o.angles?.length ? o.angles : [0];
  const views: View[] = [];
  for (const angle of angles) {
    for (const size of pyramidSizes(width, height, o)) {
      for (const cy of positions(height, size, o.overlap)) {
        for (const cx of positions(width, size, o.overlap)) views.push({ cx, cy, size, angle });
      }
    }
  }
  return views;
}
