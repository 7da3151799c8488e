// Camera cuts in a live stream: a followed face's crop lands on whatever is at its old place
// after a cut, and its box overlaps its old one, so neither the follower nor the tracker's
// overlap rule notices. A 32×24 grey thumbnail of each frame, compared with the previous one,
// does: the mean absolute difference (0–255) jumps at a cut and stays low under camera motion.
import { greyThumbnail, YuvImage } from '../vision/yuv-image.ts';
import type { FrameImage } from './crop-renderer.ts';

const W = 32;
const H = 24;

export class SceneCutDetector {
  private readonly ctx = new OffscreenCanvas(W, H).getContext('2d', { willReadFrequently: true })!;
  private previous: Float32Array | undefined;

  /** Mean absolute grey difference from the previous frame (0 for the first). */
  difference(image: FrameImage): number {
    const grey = image instanceof YuvImage ? greyThumbnail(image, W, H) : this.canvasThumbnail(image);
    const before = this.previous;
    this.previous = grey;
    if (!before) return 0;
    let sum = 0;
    for (let i = 0; i < grey.length; i++) sum += Math.abs(grey[i]! - before[i]!);
    return sum / grey.length;
  }

  private canvasThumbnail(image: CanvasImageSource): Float32Array {
    this.ctx.drawImage(image, 0, 0, W, H);
    const rgba = this.ctx.getImageData(0, 0, W, H).data;
    const grey = new Float32Array(W * H);
    for (let i = 0; i < grey.length; i++) grey[i] = 0.299 * rgba[i * 4]! + 0.587 * rgba[i * 4 + 1]! + 0.114 * rgba[i * 4 + 2]!;
    return grey;
  }
}
