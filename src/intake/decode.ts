// Encoded bytes → an upright ImageBitmap. Worker-safe (createImageBitmap only, no DOM);
// Chromium applies EXIF orientation with imageOrientation 'from-image'.
import { EngineError } from '../errors.ts';
import { errorText, raceAbort, withTimeout } from './abort.ts';
import type { Orientation } from './exif.ts';
import { inspectImage } from './inspect.ts';
import { DECODE_TIMEOUT_MS } from './limits.ts';
import { ACCEPTED_FORMATS, FORMAT_MIME, FORMAT_NAMES, type ImageFormat } from './sniff.ts';

export interface DecodedImage {
  /** upright pixels; the receiver owns it and should close() it when done */
  bitmap: ImageBitmap;
  /** upright size (EXIF rotation applied): the size every coordinate refers to */
  width: number;
  height: number;
  format: ImageFormat;
  /** EXIF orientation found in the file (already applied to `bitmap`); 1 when absent */
  orientation: Orientation;
  byteLength: number;
}

export interface DecodeOptions {
  /** formats to accept; default ACCEPTED_FORMATS (every still format the browser decodes) */
  formats?: readonly ImageFormat[];
  signal?: AbortSignal;
  timeoutMs?: number;
  /**
   * the same bytes as a Blob (an upload as it came): decoded as it is instead of from a copy
   * (~1 ms a photo; the browser sniffs the format from the bytes, not the Blob's type)
   */
  source?: Blob;
}

export async function decodeImage(bytes: Uint8Array, opts: DecodeOptions = {}): Promise<DecodedImage> {
  const info = inspectImage(bytes, opts.formats ?? ACCEPTED_FORMATS);
  const name = FORMAT_NAMES[info.format];
  const timeoutMs = opts.timeoutMs ?? DECODE_TIMEOUT_MS;
  const { signal, timedOut } = withTimeout(opts.signal, timeoutMs);
  const blob = opts.source ?? new Blob([bytes as Uint8Array<ArrayBuffer>], { type: FORMAT_MIME[info.format] });
  const pending = createImageBitmap(blob, { imageOrientation: 'from-image' });
  let bitmap: ImageBitmap;
  try {
    bitmap = await raceAbort(pending, signal);
  } catch (e) {
    pending.then((late) => late.close(), () => {});
    if (opts.signal?.aborted) throw opts.signal.reason;
    if (timedOut()) throw new EngineError('IMAGE_DECODE', `the ${name} image could not be decoded within ${timeoutMs / 1000} s`);
    throw new EngineError('IMAGE_DECODE', `the ${name} image could not be decoded: ${errorText(e)}`);
  }
  if (bitmap.width === 0 || bitmap.height === 0) {
    bitmap.close();
    throw new EngineError('IMAGE_DECODE', `the ${name} image decoded to an empty bitmap`);
  }
  return { bitmap, width: bitmap.width, height: bitmap.height, format: info.format, orientation: info.orientation, byteLength: info.byteLength };
}
