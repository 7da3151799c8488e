// Cuts square, possibly rotated views out of a decoded image with OffscreenCanvas (one
// canvas per output size, reused), returning RGBA pixels.
import { imageToCrop, type View } from '../vision/geometry.ts';

function newContext(width: number, height: number): OffscreenCanvasRenderingContext2D {
  const ctx = new OffscreenCanvas(width, height).getContext('2d', { willReadFrequently: true })!;
  ctx.imageSmoothingEnabled = true;
  ctx.imageSmoothingQuality = 'high';
  return ctx;
}

export class CropRenderer {
  private readonly contexts = new Map<number, OffscreenCanvasRenderingContext2D>();

  private readonly frames = new Map<string, OffscreenCanvasRenderingContext2D>();

  private context(size: number): OffscreenCanvasRenderingContext2D {
    let ctx = this.contexts.get(size);
    if (!ctx) {
      ctx = newContext(size, size);
      this.contexts.set(size, ctx);
    }
    return ctx;
  }

  /** RGBA pixels of the whole image scaled by `scale` into the top-left of a width x height canvas; the rest is black. */
  renderScaled(source: CanvasImageSource, scale: number, width: number, height: number): Uint8ClampedArray {
    const key = `${width}x${height}`;
    let ctx = this.frames.get(key);
    if (!ctx) {
      // frame sizes vary with the image: keep only the latest few
      if (this.frames.size >= 4) this.frames.delete(this.frames.keys().next().value!);
      ctx = newContext(width, height);
      this.frames.set(key, ctx);
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = '#000';
    ctx.fillRect(0, 0, width, height);
    ctx.setTransform(scale, 0, 0, scale, 0, 0);
    ctx.drawImage(source, 0, 0);
    return ctx.getImageData(0, 0, width, height).data;
  }

  /** RGBA pixels of `view` rendered at outSize x outSize; outside the image is black. */
  render(source: CanvasImageSource, view: View, outSize: number): Uint8ClampedArray {
    const ctx = this.context(outSize);
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = '#000';
    ctx.fillRect(0, 0, outSize, outSize);
    ctx.setTransform(...imageToCrop(view, outSize));
    ctx.drawImage(source, 0, 0);
    return ctx.getImageData(0, 0, outSize, outSize).data;
  }
}
