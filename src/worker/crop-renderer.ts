// Cuts square, possibly rotated views out of a decoded image with OffscreenCanvas (one
// canvas per output size, reused), or out of a camera frame's YUV planes in JS, returning RGBA
// pixels.
import { cropToImage, imageToCrop, type View } from '../vision/geometry.ts';
import { mirrorIntoPad, type PadFill } from '../vision/mirror-pad.ts';
import { sampleRgba, YuvImage } from '../vision/yuv-image.ts';

/** What the pipeline analyses: anything a canvas draws, or a live camera frame's planes. */
export type FrameImage = (CanvasImageSource & { width: number; height: number }) | YuvImage;

function newContext(width: number, height: number): OffscreenCanvasRenderingContext2D {
  const ctx = new OffscreenCanvas(width, height).getContext('2d', { willReadFrequently: true })!;
  ctx.imageSmoothingEnabled = true;
  ctx.imageSmoothingQuality = 'high';
  return ctx;
}

export class CropRenderer {
  private readonly contexts = new Map<number, OffscreenCanvasRenderingContext2D>();

  /**
   * One canvas for every detector pass, grown as needed and read back only where a pass draws:
   * pass sizes change with every photo, and a new canvas per size cost ~1.3 ms a photo (three
   * passes of a 1.3 MP photo: 4.3 ms against 3.0 drawn into canvases already there).
   */
  private frame: OffscreenCanvasRenderingContext2D | undefined;

  private context(size: number): OffscreenCanvasRenderingContext2D {
    let ctx = this.contexts.get(size);
    if (!ctx) {
      ctx = newContext(size, size);
      this.contexts.set(size, ctx);
    }
    return ctx;
  }

  private frameContext(width: number, height: number): OffscreenCanvasRenderingContext2D {
    const canvas = this.frame?.canvas;
    if (!canvas || canvas.width < width || canvas.height < height) {
      // grown in steps of 256 px so a run of similar photos resizes it once
      const step = (n: number, have = 0) => Math.max(have, Math.ceil(n / 256) * 256);
      this.frame = newContext(step(width, canvas?.width), step(height, canvas?.height));
    }
    return this.frame!;
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
