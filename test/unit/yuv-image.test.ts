// Crops sampled from YUV planes (src/vision/yuv-image.ts): colours, geometry, mipmaps, layouts.
import { describe, expect, it } from 'vitest';
import { BT601, halvePlanes, sampleRgba, YuvImage, type Plane } from '../../src/vision/yuv-image.ts';

/** I420 planes of a w×h frame whose Y, U and V come from functions of the luma pixel / chroma pixel. */
function i420(w: number, h: number, y: (x: number, y: number) => number, u: (x: number, y: number) => number, v: (x: number, y: number) => number) {
  const cw = w / 2;
  const ch = h / 2;
  const data = new Uint8Array(w * h + 2 * cw * ch);
  for (let j = 0; j < h; j++) for (let i = 0; i < w; i++) data[j * w + i] = y(i, j);
  for (let j = 0; j < ch; j++) {
    for (let i = 0; i < cw; i++) {
      data[w * h + j * cw + i] = u(i, j);
      data[w * h + cw * ch + j * cw + i] = v(i, j);
    }
  }
  const plane = (offset: number, stride: number, width: number, height: number): Plane => ({ data, offset, stride, step: 1, width, height });
  return { y: plane(0, w, w, h), u: plane(w * h, cw, cw, ch), v: plane(w * h + cw * ch, cw, cw, ch) };
}

/** The same picture with U and V interleaved (NV12). */
function asNv12(p: ReturnType<typeof i420>) {
  const { y, u, v } = p;
  const data = new Uint8Array(y.width * y.height + 2 * u.width * u.height);
  data.set(y.data.subarray(0, y.width * y.height));
  const base = y.width * y.height;
  for (let k = 0; k < u.width * u.height; k++) {
    data[base + 2 * k] = u.data[u.offset + k]!;
    data[base + 2 * k + 1] = v.data[v.offset + k]!;
  }
  return {
    y: { ...y, data },
    u: { data, offset: base, stride: 2 * u.width, step: 2, width: u.width, height: u.height },
    v: { data, offset: base + 1, stride: 2 * u.width, step: 2, width: u.width, height: u.height },
  };
}

const whole = (w: number, h: number) => ({ x: 0, y: 0, width: w, height: h, stride: w });
const identity = [1, 0, 0, 1, 0, 0] as [number, number, number, number, number, number];
const pixel = (rgba: Uint8ClampedArray, w: number, x: number, y: number) => [...rgba.subarray((y * w + x) * 4, (y * w + x) * 4 + 4)];

describe('sampleRgba', () => {
  it('converts BT.601 video-range colours as a decoder does', () => {
    // Y 16 / 235 with neutral chroma are black / white; Y 81, U 90, V 240 is pure red
    const cases = [
      { yuv: [16, 128, 128], rgb: [0, 0, 0] },
      { yuv: [235, 128, 128], rgb: [255, 255, 255] },
      { yuv: [81, 90, 240], rgb: [255, 0, 0] },
      { yuv: [145, 54, 34], rgb: [0, 255, 0] },
    ];
    for (const { yuv, rgb } of cases) {
      const image = new YuvImage(4, 4, i420(4, 4, () => yuv[0]!, () => yuv[1]!, () => yuv[2]!), 1, BT601);
      const out = new Uint8ClampedArray(4 * 4 * 4);
      sampleRgba(image, identity, out, whole(4, 4));
      const [r, g, b, a] = pixel(out, 4, 1, 1);
      expect(Math.abs(r! - rgb[0]!) + Math.abs(g! - rgb[1]!) + Math.abs(b! - rgb[2]!), `${yuv} → ${[r, g, b]}`).toBeLessThanOrEqual(6);
      expect(a).toBe(255);
    }
  });

  it('keeps pixel centres where they are: an identity view reproduces the luma exactly', () => {
    const planes = i420(16, 8, (x, y) => 16 + x * 10 + y, () => 128, () => 128);
    const out = new Uint8ClampedArray(16 * 8 * 4);
    sampleRgba(new YuvImage(16, 8, planes, 1, { ...BT601, fullRange: true }), identity, out, whole(16, 8));
    for (const [x, y] of [[0, 0], [5, 3], [15, 7]] as const) expect(pixel(out, 16, x, y)[0]).toBe(16 + x * 10 + y);
  });

  it('shifts and scales: a view at half scale reads every other 2×2 block', () => {
    const planes = i420(16, 16, (x) => (x < 8 ? 40 : 200), () => 128, () => 128);
    const out = new Uint8ClampedArray(8 * 8 * 4);
    sampleRgba(new YuvImage(16, 16, planes, 1, { ...BT601, fullRange: true }), [2, 0, 0, 2, 0, 0], out, whole(8, 8));
    expect(pixel(out, 8, 1, 4)[0]).toBe(40);
    expect(pixel(out, 8, 6, 4)[0]).toBe(200);
  });

  it('paints black outside the image and leaves the output outside the rectangle alone', () => {
    const planes = i420(8, 8, () => 200, () => 128, () => 128);
    const out = new Uint8ClampedArray(12 * 12 * 4).fill(7);
    // the image shifted 4 px right and down, drawn into a 10×10 rectangle of a 12×12 output
    sampleRgba(new YuvImage(8, 8, planes, 1, { ...BT601, fullRange: true }), [1, 0, 0, 1, -4, -4], out, { x: 0, y: 0, width: 10, height: 10, stride: 12 });
    expect(pixel(out, 12, 1, 1)).toEqual([0, 0, 0, 255]);
    expect(pixel(out, 12, 6, 6)).toEqual([200, 200, 200, 255]);
    expect(pixel(out, 12, 11, 11)).toEqual([7, 7, 7, 7]);
  });

  it('reads NV12 (interleaved chroma) as it reads I420', () => {
    const planes = i420(32, 16, (x, y) => (x * 7 + y * 3) & 255, (x, y) => 60 + x * 3 + y, (x, y) => 200 - x * 2 - y);
    const a = new Uint8ClampedArray(20 * 20 * 4);
    const b = new Uint8ClampedArray(20 * 20 * 4);
    const rotated: [number, number, number, number, number, number] = [0.9, 0.3, -0.3, 0.9, 6, 1];
    sampleRgba(new YuvImage(32, 16, planes, 1), rotated, a, whole(20, 20));
    sampleRgba(new YuvImage(32, 16, asNv12(planes), 1), rotated, b, whole(20, 20));
    expect([...b]).toEqual([...a]);
  });

  it('samples a scaled-down frame (planeScale) as the full one seen at that scale', () => {
    const planes = i420(64, 64, (x, y) => 16 + ((x >> 3) + (y >> 3)) * 12, () => 128, () => 128);
    const full = new Uint8ClampedArray(16 * 16 * 4);
    const scaled = new Uint8ClampedArray(16 * 16 * 4);
    // the same 16×16 output: 4 full-frame pixels per output pixel, or 2 logical pixels of a half-size frame
    sampleRgba(new YuvImage(64, 64, planes, 1), [4, 0, 0, 4, 0, 0], full, whole(16, 16));
    sampleRgba(new YuvImage(32, 32, planes, 2), [2, 0, 0, 2, 0, 0], scaled, whole(16, 16));
    expect([...scaled]).toEqual([...full]);
  });
});

describe('mipmaps', () => {
  it('halvePlanes averages 2×2 blocks, U and V in one buffer', () => {
    const planes = i420(4, 4, (x, y) => (x + y) * 10, (x) => 100 + x * 20, () => 50);
    const half = halvePlanes(planes);
    expect([...half.y.data]).toEqual([10, 30, 30, 50]);
    expect(half.u.data).toBe(half.v.data);
    expect(half.u.data[half.u.offset]).toBe(110);
    expect(half.v.data[half.v.offset]).toBe(50);
  });

  it('a 4× downscale reads the averaged level, not every fourth pixel (no aliasing of a fine pattern)', () => {
    // one-pixel stripes: point sampling would give all-dark or all-light, averaging gives grey
    const planes = i420(64, 64, (x) => (x % 2 ? 235 : 16), () => 128, () => 128);
    const out = new Uint8ClampedArray(16 * 16 * 4);
    sampleRgba(new YuvImage(64, 64, planes, 1), [4, 0, 0, 4, 0, 0], out, whole(16, 16));
    const reds = Array.from({ length: 16 }, (_, i) => pixel(out, 16, i, 8)[0]!);
    for (const r of reds) expect(Math.abs(r - 128)).toBeLessThan(12);
  });

  it('a level given reads that level: level 0 samples the full-resolution stripes, as a canvas at its default smoothing', () => {
    const planes = i420(64, 64, (x) => (x % 2 ? 235 : 16), () => 128, () => 128);
    const out = new Uint8ClampedArray(16 * 16 * 4);
    sampleRgba(new YuvImage(64, 64, planes, 1), [4, 0, 0, 4, 0, 0], out, whole(16, 16), 0);
    // output centres land between a dark and a light column: half of each, not the stripes' mean of a 4×4 area
    const reds = Array.from({ length: 16 }, (_, i) => pixel(out, 16, i, 8)[0]!);
    expect(new Set(reds).size).toBe(1);
    const averaged = new Uint8ClampedArray(16 * 16 * 4);
    sampleRgba(new YuvImage(64, 64, planes, 1), [4.4, 0, 0, 4, 0, 0], averaged, whole(16, 16));
    const point = new Uint8ClampedArray(16 * 16 * 4);
    sampleRgba(new YuvImage(64, 64, planes, 1), [4.4, 0, 0, 4, 0, 0], point, whole(16, 16), 0);
    const spread = (rgba: Uint8ClampedArray) => {
      const r = Array.from({ length: 14 }, (_, i) => pixel(rgba, 16, i, 8)[0]!);
      return Math.max(...r) - Math.min(...r);
    };
    // off the half-pixel grid, level 0 shows the stripes (aliasing) where the averaged level does not
    expect(spread(point)).toBeGreaterThan(100);
    expect(spread(averaged)).toBeLessThan(40);
  });
});

describe('YuvImage', () => {
  it('refuses U and V planes of different layouts', () => {
    const planes = i420(8, 8, () => 0, () => 0, () => 0);
    expect(() => new YuvImage(8, 8, { ...planes, v: { ...planes.v, stride: 8 } }, 1)).toThrow(/U and V/);
  });
});
