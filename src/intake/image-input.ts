// The accepted `image` value and the pure reading of an image string: an http(s) URL, or
// base64 (standard or URL-safe alphabet, padded or not, with whitespace/newlines, with or
// without a `data:...;base64,` prefix).
import { z } from 'zod';
import { EngineError } from '../errors.ts';
import { DecodedImageInputSchema } from './decoded-input.ts';
import { checkEncodedSize, checkUrlLength, MAX_ENCODED_BYTES } from './limits.ts';

/** A URL or base64 string (JSON bodies), or a Blob/File (uploads). */
export const ImageInputSchema = z.union([z.string(), z.instanceof(Blob)]);
export type ImageInput = z.infer<typeof ImageInputSchema>;

/**
 * The `image` of the typed API (engine.detect / enroll / verify / recognize): an encoded photo as
 * above, or a decoded one (ImageBitmap, <img>, <canvas>, OffscreenCanvas, <video>, VideoFrame,
 * ImageData: decoded-input.ts). HTTP bodies can only carry the encoded kinds.
 */
export const ImageSourceSchema = z.union([z.string(), z.instanceof(Blob), DecodedImageInputSchema]);
export type ImageSource = z.infer<typeof ImageSourceSchema>;

export type ParsedImageString = { kind: 'url'; url: string } | { kind: 'bytes'; bytes: Uint8Array };

/** Validates an untrusted `image` parameter: absent → 1002, wrong type → 1003. */
export function parseImageInput(value: unknown): ImageInput {
  if (value === undefined || value === null) throw new EngineError('MISSING_PARAMETER', 'the image parameter is missing');
  const parsed = ImageInputSchema.safeParse(value);
  if (!parsed.success) throw new EngineError('INVALID_PARAMETER', 'image must be a URL, a base64 string or a file');
  return parsed.data;
}

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\//i;
const DATA_URL = /^data:([^,]*),/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function parseImageString(input: string): ParsedImageString {
  const s = input.trim();
  if (s === '') throw new EngineError('MISSING_PARAMETER', 'the image parameter is empty');

  const scheme = SCHEME.exec(s)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if (scheme !== 'http' && scheme !== 'https') {
      throw new EngineError('INVALID_PARAMETER', `image URLs must use http or https, not ${scheme}:`);
    }
    checkUrlLength(s);
    let url: URL;
    try {
      url = new URL(s);
    } catch {
      throw new EngineError('INVALID_PARAMETER', 'the image URL is not a valid URL');
    }
    return { kind: 'url', url: url.href };
  }

  let payload = s;
  if (/^data:/i.test(s)) {
    const meta = DATA_URL.exec(s)?.[1];
    if (meta === undefined) throw new EngineError('IMAGE_DECODE', 'the image data: URL has no comma before its data');
    if (!/;base64$/i.test(meta.trim())) throw new EngineError('IMAGE_DECODE', 'the image data: URL must be base64-encoded (";base64,")');
    payload = s.slice(s.indexOf(',') + 1);
  }
  return { kind: 'bytes', bytes: decodeBase64(payload) };
}

const LOOKUP = (() => {
  const t = new Int16Array(128).fill(-1);
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  for (let i = 0; i < abc.length; i++) t[abc.charCodeAt(i)] = i;
  t['-'.charCodeAt(0)] = 62; // URL-safe alphabet
  t['_'.charCodeAt(0)] = 63;
  return t;
})();

/** Forgiving base64 → bytes; not base64 at all → 5000 (the string is neither a URL nor an image). */
export function decodeBase64(text: string): Uint8Array {
  const clean = text.replace(/\s+/g, '').replace(/-/g, '+').replace(/_/g, '/');
  const invalid = () =>
    new EngineError('IMAGE_DECODE', 'the image could not be decoded: it is neither an http(s) URL nor valid base64');
  if (!BASE64.test(clean)) throw invalid();
  const body = clean.replace(/=+$/, '');
  if (body.length % 4 === 1) throw invalid();
  if (clean.length % 4 !== 0 && clean.length !== body.length) throw invalid(); // padding in the wrong place
  const outLength = Math.floor((body.length * 3) / 4);
  if (outLength > MAX_ENCODED_BYTES) {
    checkEncodedSize(outLength);
  }
  const out = new Uint8Array(outLength);
  let o = 0;
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < body.length; i++) {
    acc = (acc << 6) | LOOKUP[body.charCodeAt(i)]!;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
      acc &= (1 << bits) - 1;
    }
  }
  return out;
}
