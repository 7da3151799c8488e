// Which image format a byte string holds, decided by its magic bytes only (never by a file
// name or a declared MIME type), and which formats the engine accepts.

/** Formats the engine knows how to check (header, completeness) and Chromium decodes. */
export const IMAGE_FORMATS = ['jpeg', 'png', 'webp', 'avif', 'gif', 'bmp'] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];

/**
 * Accepted by default: every still format the browser decodes (GIF: its first frame), because
 * users of a page bring phone WebP/AVIF as often as JPEG. Callers who want the Kairos contract
 * exactly pass `formats: KAIROS_FORMATS`.
 */
export const ACCEPTED_FORMATS: readonly ImageFormat[] = IMAGE_FORMATS;

/** The service contract's formats: the strict mode. */
export const KAIROS_FORMATS: readonly ImageFormat[] = ['jpeg', 'png'];

export const FORMAT_NAMES: Record<ImageFormat, string> = { jpeg: 'JPEG', png: 'PNG', webp: 'WebP', avif: 'AVIF', gif: 'GIF', bmp: 'BMP' };

export const FORMAT_MIME: Record<ImageFormat, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  gif: 'image/gif',
  bmp: 'image/bmp',
};

const startsWith = (b: Uint8Array, sig: readonly number[], at = 0) =>
  b.length >= at + sig.length && sig.every((v, i) => b[at + i] === v);

const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** BITMAPINFOHEADER sizes seen in real BMPs (core, info, v2..v5) */
const BMP_DIB_SIZES = new Set([12, 40, 52, 56, 64, 108, 124]);

/** ISO-BMFF brands of AVIF stills and sequences (HEIC shares the `mif1`/`msf1` majors). */
const AVIF_BRANDS = new Set(['avif', 'avis']);

/** The major brand and the compatible brands of an ISO-BMFF `ftyp` box at offset 0. */
export function ftypBrands(b: Uint8Array): string[] | undefined {
  if (b.length < 12 || !startsWith(b, ascii('ftyp'), 4)) return undefined;
  const size = ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
  const end = Math.min(b.length, Math.max(12, size));
  const brands = [String.fromCharCode(...b.subarray(8, 12))];
  for (let p = 16; p + 4 <= end; p += 4) brands.push(String.fromCharCode(...b.subarray(p, p + 4)));
  return brands;
}

export function sniffImageType(b: Uint8Array): ImageFormat | undefined {
  if (startsWith(b, [0xff, 0xd8, 0xff])) return 'jpeg';
  const brands = ftypBrands(b);
  // AVIF by its major brand, or a generic `mif1` still that lists avif among its compatible brands
  if (brands && (AVIF_BRANDS.has(brands[0]!) || (/^m[is]f1$/.test(brands[0]!) && brands.some((x) => AVIF_BRANDS.has(x))))) return 'avif';
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
