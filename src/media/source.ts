// The `source` of POST /v2/media (pure parts): what kind of media the bytes hold (by magic
// bytes only), the media_info.file name, and the limits.
import { EngineError } from '../errors.ts';
import { FORMAT_MIME, FORMAT_NAMES, IMAGE_FORMATS, sniffImageType, sniffOtherFormat, type ImageFormat } from '../intake/sniff.ts';
import type { MediaType } from './schema.ts';

/** Largest accepted media file (upload or download): 512 MiB. */
export const MAX_MEDIA_BYTES = 512 * 1024 * 1024;
/** Time allowed for downloading a source URL. */
export const MEDIA_FETCH_TIMEOUT_MS = 120_000;
/** How many bytes the sniffer needs. */
export const SNIFF_BYTES = 64;

export interface MediaKind {
  type: MediaType;
  mimeType: string;
}

const ascii = (b: Uint8Array, at: number, n: number) => String.fromCharCode(...b.subarray(at, at + n));

/**
 * Images: every still format intake knows (JPEG, PNG, WebP, AVIF, GIF, BMP); the engine's
 * `formats` option then decides in the vision worker, as for the face endpoints. Videos:
 * WebM/Matroska (VP8, VP9, AV1) and ISO media, i.e. MP4/MOV (H.264, AV1) — whatever
 * Chromium's <video> then decodes. Anything else is error 5000 naming what was sent when it can.
 */
export function sniffMedia(b: Uint8Array, formats: readonly ImageFormat[] = IMAGE_FORMATS): MediaKind {
  const image = sniffImageType(b);
  // strict mode refuses at POST, as the face endpoints do, not later as a failed job
  if (image && !formats.includes(image)) {
    throw new EngineError('IMAGE_DECODE', `bad image format: ${FORMAT_NAMES[image]} images are not accepted; send ${formats.map((f) => FORMAT_NAMES[f]).join(', ')}`);
  }
  if (image) return { type: 'image', mimeType: FORMAT_MIME[image] };
  if (b.length >= 4 && b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) {
    const head = ascii(b, 0, Math.min(b.length, SNIFF_BYTES));
    return { type: 'video', mimeType: head.includes('matroska') ? 'video/x-matroska' : 'video/webm' };
  }
  if (b.length >= 12 && ascii(b, 4, 4) === 'ftyp') {
    const brand = ascii(b, 8, 4);
    if (!/^(avi[fs]|heic|heix|hevc|hevx|heim|heis|mif1|msf1)$/.test(brand)) {
      return { type: 'video', mimeType: brand === 'qt  ' ? 'video/quicktime' : 'video/mp4' };
    }
  }
  if (b.length === 0) throw new EngineError('IMAGE_DECODE', 'the media file is empty (0 bytes)');
  const other = sniffOtherFormat(b);
  throw new EngineError(
    'IMAGE_DECODE',
    `unsupported media format${other ? ` (${other})` : ''}: send an image (JPEG, PNG, WebP, AVIF, GIF, BMP) or a WebM (VP8/VP9/AV1) or MP4 (H.264) video`,
  );
}

export function checkMediaSize(bytes: number): void {
  if (bytes === 0) throw new EngineError('IMAGE_DECODE', 'the media file is empty (0 bytes)');
  if (bytes > MAX_MEDIA_BYTES) {
    throw new EngineError('IMAGE_DECODE', `the media file is too large: ${(bytes / 2 ** 20).toFixed(1)} MB; the limit is ${MAX_MEDIA_BYTES / 2 ** 20} MB`);
  }
}

/** media_info.file: the uploaded file's name, else the URL's last path segment, else "media". */
export function mediaFileName(source: Blob | string): string {
  if (typeof source !== 'string') return typeof File !== 'undefined' && source instanceof File && source.name ? source.name : 'media';
  const s = source.trim();
  if (/^https?:\/\//i.test(s)) {
    try {
      const segment = new URL(s).pathname.split('/').filter(Boolean).pop();
      return segment ? decodeURIComponent(segment) : 'media';
    } catch {
      return 'media';
    }
  }
  return 'media';
}
