// Decoded images the typed API takes besides encoded ones — what human and face-api users pass:
// which kinds there are, how each is recognised, and (page side) how each becomes what crosses
// to the vision worker without an encode: an ImageBitmap or VideoFrame (transferred) or an
// ImageData (its pixels copied once by postMessage). Worker-safe: DOM classes appear as types
// only, and kinds are told apart by their class tag (which also holds for elements of another
// frame, where `instanceof` fails). docs/intake.md, "Decoded inputs".
import { z } from 'zod';
import { EngineError } from '../errors.ts';
import { errorText } from './abort.ts';
import { checkDimensions } from './limits.ts';

export type DecodedImageInput = ImageBitmap | HTMLImageElement | HTMLCanvasElement | OffscreenCanvas | HTMLVideoElement | VideoFrame | ImageData;

export const DECODED_KINDS = ['ImageBitmap', 'HTMLImageElement', 'HTMLCanvasElement', 'OffscreenCanvas', 'HTMLVideoElement', 'VideoFrame', 'ImageData'] as const;
export type DecodedKind = (typeof DECODED_KINDS)[number];

/** What the page sends the worker: the three kinds that can cross without an encode. */
export type TransferredImage = ImageBitmap | VideoFrame | ImageData;

/** The kind of a decoded image, or undefined for anything else (strings, Blobs, other objects). */
export function decodedKind(value: unknown): DecodedKind | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const tag = Object.prototype.toString.call(value).slice(8, -1);
  return (DECODED_KINDS as readonly string[]).includes(tag) ? (tag as DecodedKind) : undefined;
}

export const isDecodedImageInput = (value: unknown): value is DecodedImageInput => decodedKind(value) !== undefined;

export const isTransferredImage = (value: unknown): value is TransferredImage => {
  const kind = decodedKind(value);
  return kind === 'ImageBitmap' || kind === 'VideoFrame' || kind === 'ImageData';
};

export const DecodedImageInputSchema = z.custom<DecodedImageInput>(isDecodedImageInput);

const unusable = (message: string) => new EngineError('IMAGE_DECODE', `the image could not be read: ${message}`);

/**
 * A decoded input → what is posted to the worker and what to transfer. The caller's object is
 * never taken: an ImageBitmap is copied (transferring it would empty the caller's), a VideoFrame
 * cloned (the clone shares the pixels); elements and canvases are snapshotted with
 * createImageBitmap — an <img> as shown (EXIF orientation applied, as for an encoded photo), a
 * <video> at its current frame. Unusable inputs → 5000 naming what is wrong; sizes past the
 * intake limits → 5000, under 16 px → 5002, as for encoded photos.
 */
export async function transferableImage(input: DecodedImageInput): Promise<{ image: TransferredImage; transfer: Transferable[] }> {
  const kind = decodedKind(input);
  switch (kind) {
    case 'ImageBitmap': {
      const bitmap = input as ImageBitmap;
      if (bitmap.width === 0 || bitmap.height === 0) throw unusable('the ImageBitmap is closed or was transferred (it has no pixels)');
      checkDimensions(bitmap.width, bitmap.height);
      const copy = await snapshot(bitmap, 'ImageBitmap');
      return { image: copy, transfer: [copy] };
    }
    case 'VideoFrame': {
      const frame = input as VideoFrame;
      let clone: VideoFrame;
      try {
        clone = frame.clone();
      } catch {
        throw unusable('the VideoFrame is closed');
      }
      try {
        checkDimensions(clone.displayWidth, clone.displayHeight);
      } catch (e) {
        clone.close();
        throw e;
      }
      return { image: clone, transfer: [clone] };
    }
    case 'ImageData': {
      const data = input as ImageData;
      if (data.data.length !== data.width * data.height * 4) throw unusable('the ImageData has no pixels (its buffer was transferred)');
      checkDimensions(data.width, data.height);
      return { image: data, transfer: [] };
    }
    case 'HTMLImageElement': {
      const img = input as HTMLImageElement;
      if (!img.complete) throw unusable('the <img> has not finished loading; await img.decode() or its load event first');
      if (img.naturalWidth === 0 || img.naturalHeight === 0) throw unusable('the <img> has no picture (no src, or it failed to load)');
      return bitmapOf(img, 'the <img>');
    }
    case 'HTMLCanvasElement':
    case 'OffscreenCanvas': {
      const canvas = input as HTMLCanvasElement | OffscreenCanvas;
      if (canvas.width === 0 || canvas.height === 0) throw unusable(`the canvas is ${canvas.width}x${canvas.height} px: it has nothing to analyse`);
      return bitmapOf(canvas, 'the canvas');
    }
    case 'HTMLVideoElement': {
      const video = input as HTMLVideoElement;
      // HAVE_CURRENT_DATA: a frame is there to copy
      if (video.readyState < 2) throw unusable(`the <video> has no current frame yet (readyState ${video.readyState}); wait for its loadeddata event`);
      if (video.videoWidth === 0 || video.videoHeight === 0) throw unusable('the <video> has no picture (audio only?)');
      return bitmapOf(video, 'the <video> frame');
    }
    default:
      throw new EngineError('INVALID_PARAMETER', 'image must be a URL, a base64 string, a file or a decoded image');
  }
}

async function bitmapOf(source: HTMLImageElement | HTMLCanvasElement | OffscreenCanvas | HTMLVideoElement, what: string) {
  const width = 'naturalWidth' in source ? source.naturalWidth : 'videoWidth' in source ? source.videoWidth : source.width;
  const height = 'naturalHeight' in source ? source.naturalHeight : 'videoHeight' in source ? source.videoHeight : source.height;
  checkDimensions(width, height);
  const bitmap = await snapshot(source, what);
  return { image: bitmap, transfer: [bitmap] };
}

async function snapshot(source: ImageBitmapSource, what: string): Promise<ImageBitmap> {
  try {
    return await createImageBitmap(source);
  } catch (e) {
    throw unusable(`${what} could not be copied (${errorText(e)})`);
  }
}
