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

/** One run of a fully convolutional detector over the whole frame, scaled. */
export interface FramePass {
  /** input pixels per image pixel */
  scale: number;
  /** input size: the scaled frame rounded up to the detector's stride (padding is black), plus 2 × pad */
  width: number;
  height: number;
  /** input pixels added on every side of the frame (its edges mirrored into them): a face cut by the edge is completed there (docs/detection.md) */
  pad?: number;
  /**
   * a horizontal strip of the scaled frame (splitPass): input rows [top, top + height) of it, and
   * whether a candidate touching its upper / lower side may be a face the strip cuts
   */
  strip?: { top: number; cutAbove: boolean; cutBelow: boolean };
}

/**
 * An unpadded pass as `parts` horizontal strips that overlap by `overlap` input rows, for runs on
 * several runtimes at once (pure). A face up to `overlap` high lies wholly inside one strip, so
 * candidates touching a cut side are left to the strip that holds them whole (or to the coarser
 * passes, which see faces that large anyway). Heights stay multiples of `stride`.
 */
export function splitPass(pass: FramePass, parts: number, overlap: number, stride: number): FramePass[] {
  if (parts < 2 || pass.pad) return [pass];
  const height = Math.ceil((pass.height + (parts - 1) * overlap) / parts / stride) * stride;
  // strips mostly overlapping would run nearly the whole pass twice over
  if (height > 0.75 * pass.height) return [pass];
  const strips: FramePass[] = [];
  for (let i = 0; i < parts; i++) {
    const top = Math.min(i * (height - overlap), pass.height - height);
    strips.push({ ...pass, height, strip: { top, cutAbove: top > 0, cutBelow: top + height < pass.height } });
  }
  return strips;
}

/** The pass with `pad` input pixels added on every side (the frame drawn at (pad, pad)). */
export function paddedPass(pass: FramePass, pad: number): FramePass {
  return pad > 0 ? { ...pass, width: pass.width + 2 * pad, height: pass.height + 2 * pad, pad } : pass;
}

/** The whole frame as one pass at the detector's nominal size (its longer side `nominal`), for large faces. */
export function wholeFramePass(width: number, height: number, nominal: number, stride: number): FramePass {
  const scale = nominal / Math.max(width, height);
  const side = (n: number) => Math.max(stride, Math.ceil((n * scale) / stride) * stride);
  return { scale, width: side(width), height: side(height) };
}

export interface FramePassOptions {
  /** smallest face height to find, in image pixels */
  minFace: number;
  /** the detector's trained input side; the whole frame at this size is searched separately */
  nominal: number;
  /** smallest face it finds reliably, as a fraction of `nominal` */
  detectorMinFraction: number;
  /** input sides must be multiples of this */
  stride: number;
  /** scale step between passes: 2 gives every face two chances at neighbouring scales (with 4, two faces of groups/stock-group-1.jpg were missed) */
  levelRatio?: number;
  /** a pass whose scale is within this factor of the whole-frame view's is left out (default 1.1) */
  wholeViewMargin?: number;
}

/**
 * The frame passes that, with the whole frame at the nominal size, find every face down to
 * `minFace`: the finest makes that face the detector's smallest, each next one is `levelRatio`
 * coarser, until the nominal whole-frame view covers the rest (pure). Replaces overlapping
 * tiles: no pixel is looked at twice at one scale, and it is one run per level.
 */
export function planFramePasses(width: number, height: number, o: FramePassOptions): FramePass[] {
  const ratio = o.levelRatio ?? 2;
  const wholeScale = o.nominal / Math.max(width, height);
  const passes: FramePass[] = [];
  // a level within 10% of the whole-frame view adds nothing (as in pyramidSizes)
  const margin = o.wholeViewMargin ?? 1.1;
  for (let scale = (o.detectorMinFraction * o.nominal) / o.minFace; scale > wholeScale * margin; scale /= ratio) {
    const side = (n: number) => Math.max(o.stride, Math.ceil((n * scale) / o.stride) * o.stride);
    passes.push({ scale, width: side(width), height: side(height) });
  }
  return passes;
}
