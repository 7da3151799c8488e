// Live camera frames read as YUV planes (src/worker/video-frame-planes.ts + the YUV sampler in
// CropRenderer) must give the crops Chromium's own conversion gives (createImageBitmap of the
// same VideoFrame, cropped by canvas): same place, same colours, same scale.
import { describe, expect, it } from 'vitest';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import hamiltonUrl from '../../../shared/data/video/short_hamilton_clip.mp4?url';
import { CropRenderer } from '../../src/worker/crop-renderer.ts';
import { VideoFramePlanes } from '../../src/worker/video-frame-planes.ts';
import { videoFrames } from './helpers/video-frames.ts';

const W = 640;
const H = 480;
const BT601_VIDEO: VideoColorSpaceInit = { matrix: 'smpte170m', primaries: 'smpte170m', transfer: 'smpte170m', fullRange: false };

/** The photo covering a 640×480 frame, as RGBA. */
async function photoRgba(): Promise<Uint8ClampedArray> {
  const bitmap = await createImageBitmap(await (await fetch(obamaUrl)).blob());
  const ctx = new OffscreenCanvas(W, H).getContext('2d')!;
  const scale = Math.max(W / bitmap.width, H / bitmap.height);
  ctx.drawImage(bitmap, (W - bitmap.width * scale) / 2, (H - bitmap.height * scale) / 2, bitmap.width * scale, bitmap.height * scale);
  return ctx.getImageData(0, 0, W, H).data;
}

/** RGBA → BT.601 video-range Y and 2×2-averaged U, V (what a camera sends). */
function toYuv(rgba: Uint8ClampedArray) {
  const y = new Uint8Array(W * H);
  const u = new Uint8Array((W / 2) * (H / 2));
  const v = new Uint8Array((W / 2) * (H / 2));
  for (let j = 0; j < H; j++) {
    for (let i = 0; i < W; i++) {
      const k = (j * W + i) * 4;
      y[j * W + i] = Math.round(16 + (65.481 * rgba[k]! + 128.553 * rgba[k + 1]! + 24.966 * rgba[k + 2]!) / 255);
    }
  }
  for (let j = 0; j < H / 2; j++) {
    for (let i = 0; i < W / 2; i++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (const [dx, dy] of [[0, 0], [1, 0], [0, 1], [1, 1]]) {
        const k = ((2 * j + dy!) * W + 2 * i + dx!) * 4;
        r += rgba[k]! / 4;
        g += rgba[k + 1]! / 4;
        b += rgba[k + 2]! / 4;
      }
      u[j * (W / 2) + i] = Math.round(128 + (-37.797 * r - 74.203 * g + 112 * b) / 255);
      v[j * (W / 2) + i] = Math.round(128 + (112 * r - 93.786 * g - 18.214 * b) / 255);
    }
  }
  return { y, u, v };
}

function i420Frame({ y, u, v }: ReturnType<typeof toYuv>): VideoFrame {
  const data = new Uint8Array(y.length + u.length + v.length);
  data.set(y);
  data.set(u, y.length);
  data.set(v, y.length + u.length);
  return new VideoFrame(data, { format: 'I420', codedWidth: W, codedHeight: H, timestamp: 0, colorSpace: BT601_VIDEO });
}

function nv12Frame({ y, u, v }: ReturnType<typeof toYuv>): VideoFrame {
  const data = new Uint8Array(y.length + u.length + v.length);
  data.set(y);
  for (let k = 0; k < u.length; k++) {
    data[y.length + 2 * k] = u[k]!;
    data[y.length + 2 * k + 1] = v[k]!;
  }
  return new VideoFrame(data, { format: 'NV12', codedWidth: W, codedHeight: H, timestamp: 0, colorSpace: BT601_VIDEO });
}

/** Mean absolute difference per RGB channel value. */
function meanDifference(a: Uint8ClampedArray, b: Uint8ClampedArray): number {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < a.length; i += 4) {
    for (let c = 0; c < 3; c++) sum += Math.abs(a[i + c]! - b[i + c]!);
    n += 3;
  }
  return sum / n;
}

/** A face-mesh-like crop (rotated, 192 px), an upscaled small crop, and a detector-like whole-frame pass. */
const VIEWS = [
  { cx: 320, cy: 200, size: 260, angle: 0.15, out: 192 },
  { cx: 300, cy: 180, size: 60, angle: -0.3, out: 112 },
];

describe('VideoFramePlanes', () => {
  for (const [name, make] of [['I420', i420Frame], ['NV12', nv12Frame]] as const) {
    it(`${name}: crops and scaled passes match Chromium's own conversion of the frame`, async () => {
      const frame = make(toYuv(await photoRgba()));
      const crops = new CropRenderer();
      const planes = await new VideoFramePlanes().of(frame, Infinity);
      const bitmap = await createImageBitmap(frame);
      frame.close();
      expect(planes).toBeDefined();
      expect([planes!.width, planes!.height]).toEqual([W, H]);
      for (const { out, ...view } of VIEWS) {
        const d = meanDifference(crops.render(planes!, view, out), crops.render(bitmap, view, out));
        // measured 0.4 (the 192-px crop) and 0.9 (the upscaled one: bilinear against canvas' cubic)
        expect(d, `view ${JSON.stringify(view)}`).toBeLessThan(1.5);
      }
      // a misplaced sample (a pixel or more off) would show as a larger difference on the photo
      const shifted = { ...VIEWS[0]!, cx: VIEWS[0]!.cx + 2 };
      const { out } = VIEWS[0]!;
      expect(meanDifference(crops.render(planes!, shifted, out), crops.render(bitmap, VIEWS[0]!, out))).toBeGreaterThan(
        meanDifference(crops.render(planes!, VIEWS[0]!, out), crops.render(bitmap, VIEWS[0]!, out)),
      );
      const pass = { scale: 0.2, width: 144, height: 112, pad: 8 };
      expect(meanDifference(crops.renderScaled(planes!, pass.scale, pass.width, pass.height, pass.pad), crops.renderScaled(bitmap, pass.scale, pass.width, pass.height, pass.pad))).toBeLessThan(3);
      bitmap.close();
    });
  }

  it('scales a frame larger than maxSide down, as createImageBitmap with a resize does', async () => {
    const frame = i420Frame(toYuv(await photoRgba()));
    const crops = new CropRenderer();
    const planes = await new VideoFramePlanes().of(frame, 320);
    const bitmap = await createImageBitmap(frame, { resizeWidth: 320, resizeHeight: 240, resizeQuality: 'medium' });
    frame.close();
    expect([planes!.width, planes!.height]).toEqual([320, 240]);
    const view = { cx: 160, cy: 100, size: 130, angle: 0.15 };
    expect(meanDifference(crops.render(planes!, view, 192), crops.render(bitmap, view, 192))).toBeLessThan(3);
    bitmap.close();
  });

  it('leaves RGB frames to createImageBitmap', async () => {
    const canvas = new OffscreenCanvas(64, 48);
    canvas.getContext('2d')!.fillRect(0, 0, 64, 48);
    const frame = new VideoFrame(canvas, { timestamp: 0 });
    expect(await new VideoFramePlanes().of(frame, Infinity)).toBeUndefined();
    frame.close();
  });

  it('reads a decoded video frame (the live tests take this path)', async () => {
    for await (const frame of videoFrames(hamiltonUrl, 1, 8, 9)) {
      const planes = await new VideoFramePlanes().of(frame, Infinity);
      expect(planes, `format ${frame.format}`).toBeDefined();
      expect(planes!.width).toBe(frame.displayWidth);
      frame.close();
    }
  });
});
