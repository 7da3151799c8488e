// Cuts square, possibly rotated views out of a decoded image with OffscreenCanvas (one
// canvas per output size, reused), returning RGBA pixels.
import { imageToCrop, type View } from '../vision/geometry.ts';

export class CropRenderer {
  private readonly contexts = new Map<number, OffscreenCanvasRenderingContext2D>();

  private context(size: number): OffscreenCanvasRenderingContext2D {
    let ctx = this.contexts.get(size);
    if (!ctx) {
      ctx = new OffscreenCanvas(size, size).getContext('2d', { willReadFrequently: true })!;
      ctx.imageSmoothingEnabled = true;
      ctx.imageSmoothingQuality = 'high';
      this.contexts.set(size, ctx);
    }
    return ctx;
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
