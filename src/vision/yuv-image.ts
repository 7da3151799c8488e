// A camera frame kept as its Y, U and V planes (I420 or NV12: what VideoFrame.copyTo gives
// without converting), and crops sampled from them straight into RGBA (pure). For live video:
// turning a 640×480 camera frame into an ImageBitmap cost ~4 ms in Chromium (every frame, on the
// worker's one thread) and each canvas crop of it ~1.5 ms, where sampling a 192×192 crop here
// reads 37k pixels (docs/benchmarks.md, live video).
import type { Affine } from './geometry.ts';

/** One plane's samples: `step` is 1 for a planar plane, 2 for NV12's interleaved U and V. */
export interface Plane {
  data: Uint8Array;
  offset: number;
  stride: number;
  step: number;
  width: number;
  height: number;
}

/** YUV → RGB: the matrix's Kr and Kb, and whether Y spans 0–255 (full) or 16–235 (video range). */
export interface YuvColour {
  kr: number;
  kb: number;
  fullRange: boolean;
}

/** BT.601 in video range: webcams and most SD/HD camera frames that say nothing else. */
export const BT601: YuvColour = { kr: 0.299, kb: 0.114, fullRange: false };
export const BT709: YuvColour = { kr: 0.2126, kb: 0.0722, fullRange: false };

/** Coefficients for r = yk·(Y−y0) + rv·V', g = yk·(Y−y0) − gu·U' − gv·V', b = yk·(Y−y0) + bu·U' (U', V' centred on 128). */
function coefficients({ kr, kb, fullRange }: YuvColour) {
  const kg = 1 - kr - kb;
  const c = fullRange ? 1 : 255 / 224;
  return {
    y0: fullRange ? 0 : 16,
    yk: fullRange ? 1 : 255 / 219,
    rv: c * 2 * (1 - kr),
    gu: (c * 2 * (1 - kb) * kb) / kg,
    gv: (c * 2 * (1 - kr) * kr) / kg,
    bu: c * 2 * (1 - kb),
  };
}

/** Writes plane `p` halved (each sample the mean of 2×2; odd edges repeat) into `out` from `at`, `width` × `height`. */
function halveInto(p: Plane, out: Uint8Array, at: number, width: number, height: number): void {
  const { data: src, offset, stride, step } = p;
  for (let y = 0; y < height; y++) {
    const r0 = offset + 2 * y * stride;
    const r1 = offset + Math.min(2 * y + 1, p.height - 1) * stride;
    for (let x = 0; x < width; x++) {
      const c0 = 2 * x * step;
      const c1 = Math.min(2 * x + 1, p.width - 1) * step;
      out[at + y * width + x] = (src[r0 + c0]! + src[r0 + c1]! + src[r1 + c0]! + src[r1 + c1]! + 2) >> 2;
    }
  }
}

/** Planes at half the width and height (a mipmap level), U and V sharing one buffer as the sampler expects. */
export function halvePlanes({ y, u, v }: { y: Plane; u: Plane; v: Plane }): { y: Plane; u: Plane; v: Plane } {
  const half = (p: Plane) => ({ width: Math.max(1, p.width >> 1), height: Math.max(1, p.height >> 1) });
  const ys = half(y);
  const cs = half(u);
  const luma = new Uint8Array(ys.width * ys.height);
  const chroma = new Uint8Array(2 * cs.width * cs.height);
  halveInto(y, luma, 0, ys.width, ys.height);
  halveInto(u, chroma, 0, cs.width, cs.height);
  halveInto(v, chroma, cs.width * cs.height, cs.width, cs.height);
  return {
    y: { data: luma, offset: 0, stride: ys.width, step: 1, ...ys },
    u: { data: chroma, offset: 0, stride: cs.width, step: 1, ...cs },
    v: { data: chroma, offset: cs.width * cs.height, stride: cs.width, step: 1, ...cs },
  };
}

/**
 * A frame of `width` × `height` logical pixels (the size the analysis sees: the camera's frame,
 * possibly scaled down) over planes of `planeScale` luma samples per logical pixel; chroma at
 * half the luma resolution both ways (4:2:0). Mipmap levels are made on first use.
 */
export class YuvImage {
  private readonly levels: { y: Plane; u: Plane; v: Plane }[];

  constructor(
    readonly width: number,
    readonly height: number,
    planes: { y: Plane; u: Plane; v: Plane },
    readonly planeScale: number,
    readonly colour: YuvColour = BT601,
  ) {
    const { u, v } = planes;
    if (u.data !== v.data || u.stride !== v.stride || u.step !== v.step || u.width !== v.width || u.height !== v.height) {
      throw new Error('YuvImage: the U and V planes must share one buffer and layout');
    }
    this.levels = [planes];
  }

  /** The planes halved `k` times. */
  level(k: number): { y: Plane; u: Plane; v: Plane } {
    for (let i = this.levels.length; i <= k; i++) {
      this.levels.push(halvePlanes(this.levels[i - 1]!));
    }
    return this.levels[k]!;
  }

  /** The deepest useful mipmap level for a sampling that covers `footprint` logical pixels per output pixel. */
  levelFor(footprint: number): number {
    const planePixels = footprint * this.planeScale;
    let k = 0;
    while (planePixels >= 2 ** (k + 1) && Math.min(this.levels[0]!.y.width, this.levels[0]!.y.height) >> (k + 1) >= 2) k++;
    return k;
  }
}

/** Where the sampled rectangle lands in the output, and the output's row length in pixels. */
export interface OutputRect {
  x: number;
  y: number;
  width: number;
  height: number;
  stride: number;
}

/**
 * Fills `out` (RGBA) over `rect` with the image seen through `toImage` (output pixel → logical
 * image pixel, as geometry's cropToImage gives it): bilinear from the mipmap level that suits the
 * scale, or from `level` when given; points outside the image are black. Pixels of `out` outside
 * `rect` are left as they are.
 */
export function sampleRgba(image: YuvImage, toImage: Affine, out: Uint8ClampedArray, rect: OutputRect, level?: number): void {
  const [a, b, c, d, e, f] = toImage;
  const k = level ?? image.levelFor(Math.sqrt(Math.abs(a * d - b * c)));
  const { y: lp, u: up, v: vp } = image.level(k);
  // logical pixel → this level's luma plane coordinates (pixel centres); chroma at half of them
  const ls = image.planeScale / 2 ** k;
  const { y0, yk, rv, gu, gv, bu } = coefficients(image.colour);
  const w = image.width;
  const h = image.height;
  // the planes read inline, not through a bilinear(plane, x, y) helper: a 192-px crop in Chromium
  // took 0.93–1.0 ms against 1.2–1.8 with three calls a pixel; U and V share their layout (checked
  // in YuvImage)
  const { data: ld, offset: lo, stride: lstride } = lp;
  const lmaxX = lp.width - 1;
  const lmaxY = lp.height - 1;
  const { data: cd, stride: cstride, step: cstep } = up;
  const uo = up.offset;
  const vo = vp.offset;
  const cmaxX = up.width - 1;
  const cmaxY = up.height - 1;
  for (let j = 0; j < rect.height; j++) {
    let o = ((rect.y + j) * rect.stride + rect.x) * 4;
    // the centre of output pixel (0, j) in logical pixels, then one step right per pixel
    let x = a * 0.5 + c * (j + 0.5) + e;
    let y = b * 0.5 + d * (j + 0.5) + f;
    for (let i = 0; i < rect.width; i++, x += a, y += b, o += 4) {
      out[o + 3] = 255;
      if (x < 0 || y < 0 || x >= w || y >= h) {
        out[o] = out[o + 1] = out[o + 2] = 0;
        continue;
      }
      const px = x * ls - 0.5;
      const py = y * ls - 0.5;
      const xc = px < 0 ? 0 : px > lmaxX ? lmaxX : px;
      const yc = py < 0 ? 0 : py > lmaxY ? lmaxY : py;
      const x0 = xc | 0;
      const yi = yc | 0;
      const fx = xc - x0;
      const r0 = lo + yi * lstride + x0;
      const dx = x0 < lmaxX ? 1 : 0;
      const r1 = yi < lmaxY ? r0 + lstride : r0;
      const top = ld[r0]! + (ld[r0 + dx]! - ld[r0]!) * fx;
      const lum = yk * (top + (ld[r1]! + (ld[r1 + dx]! - ld[r1]!) * fx - top) * (yc - yi) - y0);
      const qx = px * 0.5 - 0.25;
      const qy = py * 0.5 - 0.25;
      const cx = qx < 0 ? 0 : qx > cmaxX ? cmaxX : qx;
      const cy = qy < 0 ? 0 : qy > cmaxY ? cmaxY : qy;
      const cx0 = cx | 0;
      const cy0 = cy | 0;
      const gx = cx - cx0;
      const gy = cy - cy0;
      const c0 = cy0 * cstride + cx0 * cstep;
      const cdx = cx0 < cmaxX ? cstep : 0;
      const c1 = cy0 < cmaxY ? c0 + cstride : c0;
      const uTop = cd[uo + c0]! + (cd[uo + c0 + cdx]! - cd[uo + c0]!) * gx;
      const cu = uTop + (cd[uo + c1]! + (cd[uo + c1 + cdx]! - cd[uo + c1]!) * gx - uTop) * gy - 128;
      const vTop = cd[vo + c0]! + (cd[vo + c0 + cdx]! - cd[vo + c0]!) * gx;
      const cv = vTop + (cd[vo + c1]! + (cd[vo + c1 + cdx]! - cd[vo + c1]!) * gx - vTop) * gy - 128;
      out[o] = (lum + rv * cv + 0.5) | 0;
      out[o + 1] = (lum - gu * cu - gv * cv + 0.5) | 0;
      out[o + 2] = (lum + bu * cu + 0.5) | 0;
    }
  }
}
