// Which image format a byte string holds, decided by its magic bytes only (never by a file
// name or a declared MIME type), and which formats the engine accepts.

/** Formats the engine knows how to check (header, completeness) and Chromium decodes. */
export type ImageFormat = 'jpeg' | 'png' | 'webp' | 'gif' | 'bmp';

export const IMAGE_FORMATS: readonly ImageFormat[] = ['jpeg', 'png', 'webp', 'gif', 'bmp'];

/**
 * Accepted by default: the service contract's JPG and PNG. WebP, GIF (first frame) and BMP
 * are recognised and rejected with 5000 unless a caller opts in via `formats`.
 */
export const ACCEPTED_FORMATS: readonly ImageFormat[] = ['jpeg', 'png'];

export const FORMAT_NAMES: Record<ImageFormat, string> = { jpeg: 'JPEG', png: 'PNG', webp: 'WebP', gif: 'GIF', bmp: 'BMP' };

export const FORMAT_MIME: Record<ImageFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  bmp: 'image/bmp',
};

const startsWith = (b: Uint8Array, sig: readonly number[], at = 0) =>
  b.length >= at + sig.length && sig.every((v, i) => b[at + i] === v);

const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** BITMAPINFOHEADER sizes seen in real BMPs (core, info, v2..v5) */
const BMP_DIB_SIZES = new Set([12, 40, 52, 56, 64, 108, 124]);

export function sniffImageType(b: Uint8Array): ImageFormat | undefined {
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(b, ascii('RIFF')) && startsWith(b, ascii('WEBP'), 8)) return 'webp';
  if (startsWith(b, ascii('GIF87a')) || startsWith(b, ascii('GIF89a'))) return 'gif';
  if (startsWith(b, ascii('BM')) && b.length >= 18) {
    const dib = b[14]! | (b[15]! << 8) | (b[16]! << 16) | (b[17]! << 24);
    if (BMP_DIB_SIZES.has(dib)) return 'bmp';
  }
  return undefined;
}

/** Names a few formats we never accept, so the error can say what was sent (e.g. an iPhone HEIC). */
export function sniffOtherFormat(b: Uint8Array): string | undefined {
  if (startsWith(b, ascii('ftyp'), 4)) {
    const brand = String.fromCharCode(...b.subarray(8, 12));
    if (/^avi[fs]$/.test(brand)) return 'AVIF';
    if (/^(heic|heix|hevc|hevx|heim|heis|mif1|msf1)$/.test(brand)) return 'HEIC/HEIF';
    return 'an ISO media (MP4/MOV) file';
  }
  if (startsWith(b, [0x49, 0x49, 0x2a, 0x00]) || startsWith(b, [0x4d, 0x4d, 0x00, 0x2a])) return 'TIFF';
  if (startsWith(b, ascii('%PDF'))) return 'PDF';
  if (startsWith(b, [0x1a, 0x45, 0xdf, 0xa3])) return 'a WebM/Matroska video';
  const head = new TextDecoder().decode(b.subarray(0, 256)).trimStart().toLowerCase();
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg'))) return 'SVG';
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) return 'an HTML page';
  return undefined;
}
