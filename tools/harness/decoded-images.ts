// Page side: each decoded kind of picture the typed API takes, made from an encoded photo as a
// page using human or face-api would hold it (test/browser/decoded-inputs.test.ts, the engines
// flows, bench:inputs). A <video> shows the photo through a canvas capture stream.
import type { DecodedImageInput, DecodedKind } from '../../src/intake/decoded-input.ts';

function canvasOf(bitmap: ImageBitmap): HTMLCanvasElement {
  const canvas = Object.assign(document.createElement('canvas'), { width: bitmap.width, height: bitmap.height });
  canvas.getContext('2d')!.drawImage(bitmap, 0, 0);
  return canvas;
}

/** A playing <video> showing `bitmap`, once it has a current frame. */
async function videoOf(bitmap: ImageBitmap): Promise<HTMLVideoElement> {
  const video = Object.assign(document.createElement('video'), { muted: true, srcObject: canvasOf(bitmap).captureStream() });
  const shown = new Promise<void>((resolve) => video.requestVideoFrameCallback(() => resolve()));
  await video.play();
  await shown;
  return video;
}

/** `blob` decoded as `kind`; the caller closes an ImageBitmap or VideoFrame it gets. */
export async function decodedFrom(blob: Blob, kind: DecodedKind): Promise<DecodedImageInput> {
  if (kind === 'HTMLImageElement') {
    const img = new Image();
    img.src = URL.createObjectURL(blob);
    await img.decode();
    return img;
  }
  const bitmap = await createImageBitmap(blob);
  if (kind === 'ImageBitmap') return bitmap;
  try {
    switch (kind) {
      case 'HTMLCanvasElement':
        return canvasOf(bitmap);
      case 'OffscreenCanvas': {
        const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
        canvas.getContext('2d')!.drawImage(bitmap, 0, 0);
        return canvas;
      }
      case 'HTMLVideoElement':
        return await videoOf(bitmap);
      case 'VideoFrame':
        return new VideoFrame(bitmap, { timestamp: 0 });
      case 'ImageData':
        return canvasOf(bitmap).getContext('2d')!.getImageData(0, 0, bitmap.width, bitmap.height);
    }
  } finally {
    bitmap.close();
  }
}
