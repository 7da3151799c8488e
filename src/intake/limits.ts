// The documented intake limits (docs/intake.md) and the pure checks that apply them. Every
// check runs on sizes known before decoding: the encoded byte count and the header dimensions.
import { EngineError } from '../errors.ts';

/** Largest encoded image (Blob, base64 payload or downloaded body): 25 MiB */
export const MAX_ENCODED_BYTES = 25 * 1024 * 1024;
/** Largest decoded image: 40 megapixels (a 160 MB RGBA bitmap) */
export const MAX_PIXELS = 40_000_000;
/** Longest side: keeps every later OffscreenCanvas within what browsers allocate */
export const MAX_SIDE = 16_384;
/** Shortest side: nothing smaller can hold a detectable face, so it is answered 5002 at once */
export const MIN_SIDE = 16;
/** Longest accepted image URL (characters) */
export const MAX_URL_LENGTH = 8_192;
/** Default time allowed for downloading an image URL */
export const FETCH_TIMEOUT_MS = 30_000;
/** Safety net: createImageBitmap is never awaited longer than this */
export const DECODE_TIMEOUT_MS = 30_000;

const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MB`;
const mp = (n: number) => `${(n / 1e6).toFixed(1)} MP`;

export function checkEncodedSize(byteLength: number, limit = MAX_ENCODED_BYTES): void {
  if (byteLength === 0) throw new EngineError('IMAGE_DECODE', 'the image is empty (0 bytes)');
  if (byteLength > limit) {
    throw new EngineError('IMAGE_DECODE', `the image is too large: ${mb(byteLength)}; the limit is ${mb(limit)}`);
  }
}

export function checkDimensions(width: number, height: number): void {
  if (width === 0 || height === 0) throw new EngineError('IMAGE_DECODE', `the image header gives an empty size (${width}x${height})`);
  if (width > MAX_SIDE || height > MAX_SIDE) {
    throw new EngineError('IMAGE_DECODE', `the image is too large: ${width}x${height} px; the longest side allowed is ${MAX_SIDE} px`);
  }
  if (width * height > MAX_PIXELS) {
    throw new EngineError(
      'IMAGE_DECODE',
      `the image is too large: ${width}x${height} px (${mp(width * height)}); the limit is ${mp(MAX_PIXELS)}, downscale it first`,
    );
  }
  if (width < MIN_SIDE || height < MIN_SIDE) {
    throw new EngineError('NO_FACES', `no faces found in the image: it is only ${width}x${height} px, a face needs at least ${MIN_SIDE}x${MIN_SIDE} px`);
  }
}

export function checkUrlLength(url: string): void {
  if (url.length > MAX_URL_LENGTH) {
    throw new EngineError('URL_TOO_LONG', `the image URL is ${url.length} characters long; the limit is ${MAX_URL_LENGTH}`);
  }
}
