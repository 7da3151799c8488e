// A live camera frame (VideoFrame) as its YUV planes, copied without conversion: 0.15 ms for a
// 640×480 I420 frame in Chromium against ~4 ms for createImageBitmap(frame), which was paid on
// every frame before any model ran (docs/benchmarks.md, live video).
import { BT601, BT709, YuvImage, type Plane, type YuvColour } from '../vision/yuv-image.ts';

/** Copies frames into one reused buffer: a live session handles one frame at a time. */
export class VideoFramePlanes {
  private buffer = new Uint8Array(0);

  /**
   * The frame's visible part as a YuvImage of at most `maxSide` logical pixels a side, or
   * undefined when its layout is not one the sampler reads (RGB formats, non-square pixels, a
   * colour matrix other than BT.601/709, a copy the browser refuses): then createImageBitmap
   * converts it.
   */
  async of(frame: VideoFrame, maxSide: number): Promise<YuvImage | undefined> {
    const rect = frame.visibleRect;
    const colour = colourOf(frame.colorSpace);
    if (!rect || !colour || !(frame.format === 'I420' || frame.format === 'I420A' || frame.format === 'NV12')) return undefined;
    if (frame.displayWidth !== rect.width || frame.displayHeight !== rect.height) return undefined;
    const size = frame.allocationSize({ rect });
    if (this.buffer.length < size) this.buffer = new Uint8Array(size);
    let layout: PlaneLayout[];
    try {
      layout = await frame.copyTo(this.buffer, { rect });
    } catch {
      // e.g. a visible rectangle at odd offsets, which 4:2:0 planes cannot be cut at
      return undefined;
    }
    const width = rect.width;
    const height = rect.height;
    const chroma = { width: Math.ceil(width / 2), height: Math.ceil(height / 2) };
    const y: Plane = { data: this.buffer, offset: layout[0]!.offset, stride: layout[0]!.stride, step: 1, width, height };
    const planes =
      frame.format === 'NV12'
        ? {
            y,
            u: { data: this.buffer, offset: layout[1]!.offset, stride: layout[1]!.stride, step: 2, ...chroma },
            v: { data: this.buffer, offset: layout[1]!.offset + 1, stride: layout[1]!.stride, step: 2, ...chroma },
          }
        : {
            y,
            u: { data: this.buffer, offset: layout[1]!.offset, stride: layout[1]!.stride, step: 1, ...chroma },
            v: { data: this.buffer, offset: layout[2]!.offset, stride: layout[2]!.stride, step: 1, ...chroma },
          };
    const scale = Math.min(1, maxSide / Math.max(width, height));
    return new YuvImage(Math.round(width * scale), Math.round(height * scale), planes, 1 / scale, colour);
  }
}

/** The frame's YUV → RGB conversion, when it is one the sampler knows (no colour space said: BT.601 video range, as Chromium assumes for cameras). */
function colourOf(space: VideoColorSpace | undefined): YuvColour | undefined {
  const fullRange = space?.fullRange ?? false;
  switch (space?.matrix ?? 'smpte170m') {
    case 'bt709':
      return { ...BT709, fullRange };
    case 'smpte170m':
    case 'bt470bg':
      return { ...BT601, fullRange };
    default:
      return undefined;
  }
}
