// Cuts square, possibly rotated views out of a decoded image with OffscreenCanvas (one
// canvas per output size, reused), or out of a camera frame's YUV planes in JS, returning RGBA
// pixels.
import { cropToImage, imageToCrop, type View } from '../vision/geometry.ts';
import { mirrorIntoPad, type PadFill } from '../vision/mirror-pad.ts';
import { sampleRgba, YuvImage } from '../vision/yuv-image.ts';

/** What the pipeline analyses: anything a canvas draws, or a live camera frame's planes. */
export type FrameImage = (CanvasImageSource & { width: number; height: number }) | YuvImage;

/** a detector pass may be drawn into a kept canvas up to this many times its own area (frameContext) */
const FRAME_SLACK = 2;
/** a new pass canvas's sides are rounded up to this */
const FRAME_STEP = 64;
/** pass canvases kept (a photo runs up to ~5 passes; the largest of a 12 MP photo is ~5 MB; with 6 kept, photos of three sizes in turn made Firefox create them anew) */
const KEPT_FRAMES = 8;

function newContext(width: number, height: number): OffscreenCanvasRenderingContext2D {
  const ctx = new OffscreenCanvas(width, height).getContext('2d', { willReadFrequently: true })!;
  ctx.imageSmoothingEnabled = true;
  ctx.imageSmoothingQuality = 'high';
  return ctx;
}

/** a pass canvas for width × height: sides rounded up to FRAME_STEP, unless that would not fit FRAME_SLACK */
function newFrame(width: number, height: number): OffscreenCanvasRenderingContext2D {
  const w = Math.ceil(width / FRAME_STEP) * FRAME_STEP;
  const h = Math.ceil(height / FRAME_STEP) * FRAME_STEP;
  return w * h <= FRAME_SLACK * width * height ? newContext(w, h) : newContext(width, height);
}

export class CropRenderer {
  private readonly contexts = new Map<number, OffscreenCanvasRenderingContext2D>();

  /**
   * Canvases for the detector passes, reused across passes and photos, least recently used first.
   * Pass sizes change with every photo, and a new canvas per size cost ~1.3 ms a photo in Chromium
   * (three passes of a 1.3 MP photo: 4.3 ms against 3.0 drawn into canvases already there); but a
   * pass drawn into a canvas far larger than itself costs Firefox in proportion to the canvas (a
   * 640×480 photo's 160×144 pass: 2.7 ms in a 1536×1024 canvas left by a 12 MP photo, 0.24 ms in
   * its own size; Chromium 0.12 either way). So a pass takes a kept canvas at most FRAME_SLACK times
   * its area, or a new one (sides rounded up to FRAME_STEP px, so similar photos share it).
   */
  private readonly frames: OffscreenCanvasRenderingContext2D[] = [];

  private context(size: number): OffscreenCanvasRenderingContext2D {
    let ctx = this.contexts.get(size);
    if (!ctx) {
      ctx = newContext(size, size);
      this.contexts.set(size, ctx);
    }
    return ctx;
  }

  private frameContext(width: number, height: number): OffscreenCanvasRenderingContext2D {
    const area = (c: OffscreenCanvasRenderingContext2D) => c.canvas.width * c.canvas.height;
    const fits = this.frames.filter((c) => c.canvas.width >= width && c.canvas.height >= height && area(c) <= FRAME_SLACK * width * height);
    const ctx = fits.reduce<OffscreenCanvasRenderingContext2D | undefined>((best, c) => (!best || area(c) < area(best) ? c : best), undefined) ?? newFrame(width, height);
    const at = this.frames.indexOf(ctx);
    if (at >= 0) this.frames.splice(at, 1);
    this.frames.push(ctx);
    if (this.frames.length > KEPT_FRAMES) this.frames.shift();
    return ctx;
  }

  /**
   * RGBA pixels of the whole image scaled by `scale` into a width x height frame at (pad, pad);
   * the rest is black, except that a mirrored `fill` reflects the image's edges into the pad
   * (a face cut by the edge then shows whole, its visible half mirrored: docs/detection.md).
   */
  /** The frame scaled by `scale` into width × height (`pad` px each side; from input row `top` on: a strip of the pass). */
  renderScaled(source: FrameImage, scale: number, width: number, height: number, pad = 0, fill: PadFill = 'black', top = 0): Uint8ClampedArray {
    let pixels: Uint8ClampedArray;
    if (source instanceof YuvImage) {
      pixels = new Uint8ClampedArray(width * height * 4);
      sampleRgba(source, [1 / scale, 0, 0, 1 / scale, -pad / scale, (top - pad) / scale], pixels, { x: 0, y: 0, width, height, stride: width });
    } else {
      const ctx = this.frameContext(width, height);
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.fillStyle = '#000';
      ctx.fillRect(0, 0, width, height);
      ctx.setTransform(scale, 0, 0, scale, pad, pad - top);
      ctx.drawImage(source, 0, 0);
      pixels = ctx.getImageData(0, 0, width, height).data;
    }
    // mirrored in the read-back pixels, not with 8 more drawImage calls of the source: a 192×160
    // pass took 0.7 ms against 1.3 (Chromium, 640×480 and 1920×1440 sources)
    if (fill === 'mirror' && pad > 0) {
      const edge = (n: number, limit: number) => Math.min(limit, Math.max(pad + 1, Math.round(pad + n * scale)));
      mirrorIntoPad(pixels, width, height, { x0: pad, y0: pad, x1: edge(source.width, width), y1: edge(source.height, height) });
    }
    return pixels;
  }

  /** RGBA pixels of `view` rendered at outSize x outSize; outside the image is black. */
  render(source: FrameImage, view: View, outSize: number): Uint8ClampedArray {
    if (source instanceof YuvImage) {
      const pixels = new Uint8ClampedArray(outSize * outSize * 4);
      sampleRgba(source, cropToImage(view, outSize), pixels, { x: 0, y: 0, width: outSize, height: outSize, stride: outSize });
      return pixels;
    }
    const ctx = this.context(outSize);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = '#000';
    ctx.fillRect(0, 0, outSize, outSize);
    ctx.setTransform(...imageToCrop(view, outSize));
    ctx.drawImage(source, 0, 0);
    return ctx.getImageData(0, 0, outSize, outSize).data;
  }
}
