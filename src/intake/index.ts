// Image intake shared by every endpoint: Blob/File, base64 (with or without a data: prefix)
// or an http(s) URL → validated, upright, decoded image. See docs/intake.md.
import { EngineError } from '../errors.ts';
import { errorText } from './abort.ts';
import { decodeImage, type DecodedImage, type DecodeOptions } from './decode.ts';
import { fetchImageBytes, type FetchLike } from './fetch-image.ts';
import { parseImageInput, parseImageString, type ImageInput } from './image-input.ts';
import { checkEncodedSize } from './limits.ts';

export { decodeImage, type DecodedImage, type DecodeOptions } from './decode.ts';
export { readJpegOrientation, type Orientation } from './exif.ts';
export { fetchImageBytes, type FetchImageOptions, type FetchLike } from './fetch-image.ts';
export { readImageHeader, type ImageHeader } from './header.ts';
export {
  ImageInputSchema,
  ImageSourceSchema,
  parseImageInput,
  parseImageString,
  type ImageInput,
  type ImageSource,
  type ParsedImageString,
} from './image-input.ts';
export {
  DECODED_KINDS,
  DecodedImageInputSchema,
  decodedKind,
  isDecodedImageInput,
  isTransferredImage,
  transferableImage,
  type DecodedImageInput,
  type DecodedKind,
  type TransferredImage,
} from './decoded-input.ts';
export { encodeBitmap, receiveDecodedImage, STORED_COPY, type ReceivedImage } from './decoded-bitmap.ts';
export { inspectImage, type ImageInfo } from './inspect.ts';
export * from './limits.ts';
export { ACCEPTED_FORMATS, IMAGE_FORMATS, KAIROS_FORMATS, sniffImageType, type ImageFormat } from './sniff.ts';

export interface LoadOptions {
  /** the page's original network fetch (not a shimmed window.fetch); used only for URLs */
  fetch: FetchLike;
  signal?: AbortSignal;
  fetchTimeoutMs?: number;
}

export interface IntakeOptions extends LoadOptions {
  formats?: DecodeOptions['formats'];
  decodeTimeoutMs?: number;
}

/** The encoded bytes of any accepted input (a Uint8Array passes through, e.g. after a worker transfer). */
export async function loadImageBytes(input: ImageInput | Uint8Array, opts: LoadOptions): Promise<Uint8Array> {
  opts.signal?.throwIfAborted();
  if (input instanceof Uint8Array) return input;
  const image = parseImageInput(input);
  if (image instanceof Blob) {
    checkEncodedSize(image.size);
    try {
      return new Uint8Array(await image.arrayBuffer());
    } catch (e) {
      throw new EngineError('IMAGE_DECODE', `the uploaded file could not be read: ${errorText(e)}`);
    }
  }
  const parsed = parseImageString(image);
  if (parsed.kind === 'bytes') return parsed.bytes;
  return fetchImageBytes(parsed.url, { fetch: opts.fetch, signal: opts.signal, timeoutMs: opts.fetchTimeoutMs });
}

/**
 * Any accepted input → upright decoded image and the encoded bytes it came from, or an
 * EngineError (1002/1003/1004/5000/5001/5002). An upload (Blob) is decoded as it is, not from a
 * copy of its bytes.
 */
export async function intakeImage(input: ImageInput | Uint8Array, opts: IntakeOptions): Promise<DecodedImage & { bytes: Uint8Array }> {
  const bytes = await loadImageBytes(input, opts);
  const source = input instanceof Blob ? input : undefined;
  const image = await decodeImage(bytes, { formats: opts.formats, signal: opts.signal, timeoutMs: opts.decodeTimeoutMs, source });
  return { ...image, bytes };
}
