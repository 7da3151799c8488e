// Worker side of decoded inputs (decoded-input.ts): what the page transferred → the upright
// ImageBitmap the pipeline reads, and the JPEG copy made only when the photo is to be stored.
import { EngineError } from '../errors.ts';
import { errorText } from './abort.ts';
import { decodedKind, type TransferredImage } from './decoded-input.ts';
import { checkDimensions } from './limits.ts';

export interface ReceivedImage {
  /** upright pixels (a decoded input is already oriented: nothing is rotated again); the receiver closes it */
  bitmap: ImageBitmap;
  width: number;
  height: number;
  /** what crossed from the page */
  format: 'ImageBitmap' | 'VideoFrame' | 'ImageData';
}

/** The stored copy of a decoded input: JPEG (a 12 MP PNG would be ~20 MB and several times slower to encode). */
export const STORED_COPY = { type: 'image/jpeg', quality: 0.92 } as const;

/** Takes ownership of `image` (a VideoFrame is closed here; the bitmap returned is the caller's). */
export async function receiveDecodedImage(image: TransferredImage): Promise<ReceivedImage> {
  const format = decodedKind(image) as ReceivedImage['format'];
  let bitmap: ImageBitmap;
  if (format === 'ImageBitmap') {
    bitmap = image as ImageBitmap;
  } else {
    try {
      bitmap = await createImageBitmap(image as VideoFrame | ImageData);
    } catch (e) {
      throw new EngineError('IMAGE_DECODE', `the image could not be read: the ${format} could not be converted (${errorText(e)})`);
    } finally {
      if (format === 'VideoFrame') (image as VideoFrame).close();
    }
  }
  try {
    if (bitmap.width === 0 || bitmap.height === 0) throw new EngineError('IMAGE_DECODE', `the image could not be read: the ${format} has no pixels`);
    checkDimensions(bitmap.width, bitmap.height);
    requireReadable(bitmap);
  } catch (e) {
    bitmap.close();
    throw e;
  }
  return { bitmap, width: bitmap.width, height: bitmap.height, format };
}

/**
 * A picture from another origin shown without CORS (an <img> without `crossorigin`, a canvas it
 * was drawn on) can be copied but not read: say so now, as 5000, rather than fail inside the
 * detector. One pixel drawn and read: well under a millisecond.
 */
function requireReadable(bitmap: ImageBitmap): void {
  const probe = new OffscreenCanvas(1, 1).getContext('2d', { willReadFrequently: true })!;
  probe.drawImage(bitmap, 0, 0, 1, 1, 0, 0, 1, 1);
  try {
    probe.getImageData(0, 0, 1, 1);
  } catch (e) {
    throw new EngineError(
      'IMAGE_DECODE',
      `the image could not be read: its pixels come from another origin without CORS permission (give the <img> crossorigin="anonymous" and serve it with CORS) (${errorText(e)})`,
    );
  }
}

/** The stored copy of a decoded picture (STORED_COPY), as bytes. */
export async function encodeBitmap(bitmap: ImageBitmap): Promise<{ bytes: Uint8Array; mimeType: string }> {
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  canvas.getContext('2d')!.drawImage(bitmap, 0, 0);
  const blob = await canvas.convertToBlob(STORED_COPY);
  return { bytes: new Uint8Array(await blob.arrayBuffer()), mimeType: blob.type };
}
