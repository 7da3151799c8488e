// EXIF Orientation of a JPEG (APP1 "Exif", TIFF header in either byte order), read without
// decoding. Chromium applies it when decoding (imageOrientation: 'from-image'); we read it to
// report it and to know that the decoded bitmap's axes may be swapped against the stored ones.
import { scanJpeg } from './header.ts';

/** 1 = upright; 5..8 swap width and height (6 = rotate 90° clockwise to display) */
export type Orientation = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;

const ORIENTATION_TAG = 0x0112;
const TYPE_SHORT = 3;

interface OrientationEntry {
  /** absolute offset of the 2-byte value */
  offset: number;
  littleEndian: boolean;
}

function findOrientationEntry(b: Uint8Array): OrientationEntry | undefined {
  for (const seg of scanJpeg(b).segments) {
    if (seg.marker !== 0xe1 || seg.length < 14) continue;
    const s = seg.offset;
    // "Exif\0\0"
    if (b[s] !== 0x45 || b[s + 1] !== 0x78 || b[s + 2] !== 0x69 || b[s + 3] !== 0x66 || b[s + 4] !== 0 || b[s + 5] !== 0) continue;
    const tiff = s + 6;
    const end = seg.offset + seg.length;
    const le = b[tiff] === 0x49 && b[tiff + 1] === 0x49;
    const be = b[tiff] === 0x4d && b[tiff + 1] === 0x4d;
    if (!le && !be) continue;
    const u16 = (p: number) => (le ? b[p]! | (b[p + 1]! << 8) : (b[p]! << 8) | b[p + 1]!);
    const u32 = (p: number) =>
      (le ? b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24) : (b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;
    if (u16(tiff + 2) !== 42) continue;
    const ifd = tiff + u32(tiff + 4);
    if (ifd + 2 > end) continue;
    const count = u16(ifd);
    for (let i = 0; i < count; i++) {
      const entry = ifd + 2 + i * 12;
      if (entry + 12 > end) break;
      if (u16(entry) === ORIENTATION_TAG && u16(entry + 2) === TYPE_SHORT) return { offset: entry + 8, littleEndian: le };
    }
  }
  return undefined;
}

/** The EXIF Orientation of a JPEG; undefined when absent or not 1..8. */
export function readJpegOrientation(bytes: Uint8Array): Orientation | undefined {
  const e = findOrientationEntry(bytes);
  if (!e) return undefined;
  const v = e.littleEndian ? bytes[e.offset]! | (bytes[e.offset + 1]! << 8) : (bytes[e.offset]! << 8) | bytes[e.offset + 1]!;
  return v >= 1 && v <= 8 ? (v as Orientation) : undefined;
}

/** A copy with the Orientation tag rewritten (tests use it to see the stored pixels); undefined if there is no tag. */
export function withJpegOrientation(bytes: Uint8Array, orientation: Orientation): Uint8Array | undefined {
  const e = findOrientationEntry(bytes);
  if (!e) return undefined;
  const copy = bytes.slice();
  copy[e.offset] = e.littleEndian ? orientation : 0;
  copy[e.offset + 1] = e.littleEndian ? 0 : orientation;
  return copy;
}

/** Whether this orientation swaps width and height on display. */
export const swapsAxes = (o: Orientation) => o >= 5;
