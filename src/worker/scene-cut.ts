// Camera cuts in a live stream: a followed face's crop lands on whatever is at its old place
// after a cut, and its box overlaps its old one, so neither the follower nor the tracker's
// overlap rule notices. A 32×24 grey thumbnail of each frame, compared with the previous one,
// does: the mean absolute difference (0–255) jumps at a cut and stays low under camera motion.
import { sampleRgba, YuvImage } from '../vision/yuv-image.ts';
import type { FrameImage } from './crop-renderer.ts';

const W = 32;
const H = 24;

export class SceneCutDetector {
  private readonly ctx = new OffscreenCanvas(W, H).getContext('2d', { willReadFrequently: true })!;
  private previous: Float32Array | undefined;

  /** Mean absolute grey difference from the previous frame (0 for the first). */
  difference(image: FrameImage): number {
    const rgba = image instanceof YuvImage ? sampledThumbnail(image) : this.canvasThumbnail(image);
    const grey = new Float32Array(W * H);
    for (let i = 0; i < grey.length; i++) grey[i] = 0.299 * rgba[i * 4]! + 0.587 * rgba[i * 4 + 1]! + 0.114 * rgba[i * 4 + 2]!;
    const before = this.previous;
    this.previous = grey;
    if (!before) return 0;
    let sum = 0;
    for (let i = 0; i < grey.length; i++) sum += Math.abs(grey[i]! - before[i]!);
    return sum / grey.length;
  }

  private canvasThumbnail(image: CanvasImageSource): Uint8ClampedArray {
    this.ctx.drawImage(image, 0, 0, W, H);
    return this.ctx.getImageData(0, 0, W, H).data;
  }
}

/**
 * The thumbnail from a camera frame's planes as the canvas makes it at its default smoothing:
 * bilinear at each cell's centre from the full-resolution planes (level 0), not a cell's mean,
 * since the cut threshold was measured on that (Hamilton clip at 10 fps: 28.4 against the
 * canvas' 28.8 at its cut into the medium shot, 2.4–22 within shots, as there).
 */
function sampledThumbnail(image: YuvImage): Uint8ClampedArray {
  const rgba = new Uint8ClampedArray(W * H * 4);
  sampleRgba(image, [image.width / W, 0, 0, image.height / H, 0, 0], rgba, { x: 0, y: 0, width: W, height: H, stride: W }, 0);
  return rgba;
}
