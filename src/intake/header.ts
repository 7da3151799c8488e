// Stored dimensions and completeness of an encoded image, read from its bytes alone (no
// decode), so size limits apply before any pixel buffer exists and truncated files are
// refused instead of being decoded half grey.
import type { ImageFormat } from './sniff.ts';

export interface ImageHeader {
  /** as stored, before any EXIF rotation */
  width: number;
  height: number;
  /** false when the data visibly ends early (no JPEG EOI after the scan, no PNG IEND, short RIFF/BMP) */
  complete: boolean;
}

export interface JpegSegment {
  marker: number;
  /** offset of the payload (after the 2 length bytes) */
  offset: number;
  length: number;
}

export interface JpegScan {
  /** marker segments from SOI up to and including the first SOS */
  segments: JpegSegment[];
  /** offset of the entropy-coded data after the first SOS header, if one was reached */
  scanStart?: number;
}

const u16be = (b: Uint8Array, p: number) => (b[p]! << 8) | b[p + 1]!;
const u32be = (b: Uint8Array, p: number) => ((b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;
const u16le = (b: Uint8Array, p: number) => b[p]! | (b[p + 1]! << 8);
const u24le = (b: Uint8Array, p: number) => b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16);
const u32le = (b: Uint8Array, p: number) => (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
const i32le = (b: Uint8Array, p: number) => b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24);
const tag = (b: Uint8Array, p: number) => String.fromCharCode(b[p]!, b[p + 1]!, b[p + 2]!, b[p + 3]!);

/** Walks JPEG marker segments; stops quietly at the first SOS, EOI or anything malformed. */
export function scanJpeg(b: Uint8Array): JpegScan {
  const segments: JpegSegment[] = [];
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return { segments };
  let p = 2;
  while (p < b.length) {
    if (b[p] !== 0xff) return { segments };
    while (p < b.length && b[p] === 0xff) p++; // fill bytes
    if (p >= b.length) return { segments };
    const marker = b[p++]!;
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) continue; // standalone markers
    if (marker === 0xd9) return { segments };
    if (p + 2 > b.length) return { segments };
    const length = u16be(b, p) - 2;
    if (length < 0 || p + 2 + length > b.length) return { segments };
    segments.push({ marker, offset: p + 2, length });
    p += 2 + length;
    if (marker === 0xda) return { segments, scanStart: p };
  }
  return { segments };
}

/** SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC) */
const isSof = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;

function jpegHeader(b: Uint8Array): ImageHeader | undefined {
  const { segments, scanStart } = scanJpeg(b);
  const sof = segments.find((s) => isSof(s.marker));
  if (!sof || sof.length < 6) return undefined;
  const height = u16be(b, sof.offset + 1);
  const width = u16be(b, sof.offset + 3);
  // Byte stuffing (FF 00) means FF D9 inside the scan data can only be the real EOI.
  let complete = false;
  if (scanStart !== undefined) {
    for (let i = b.length - 2; i >= scanStart; i--) {
      if (b[i] === 0xff && b[i + 1] === 0xd9) {
        complete = true;
        break;
      }
    }
  }
  return { width, height, complete };
}

function pngHeader(b: Uint8Array): ImageHeader | undefined {
  if (b.length < 33 || u32be(b, 8) !== 13 || tag(b, 12) !== 'IHDR') return undefined;
  const width = u32be(b, 16);
  const height = u32be(b, 20);
  let p = 8;
  let sawData = false;
  let complete = false;
  while (p + 12 <= b.length) {
    const length = u32be(b, p);
    const type = tag(b, p + 4);
    if (p + 12 + length > b.length) break;
    if (type === 'IDAT') sawData = true;
    if (type === 'IEND') {
      complete = sawData;
      break;
    }
    p += 12 + length;
  }
  return { width, height, complete };
}

function webpHeader(b: Uint8Array): ImageHeader | undefined {
  if (b.length < 30) return undefined;
  const complete = b.length >= 8 + u32le(b, 4);
  switch (tag(b, 12)) {
    case 'VP8 ':
      if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return undefined;
      return { width: u16le(b, 26) & 0x3fff, height: u16le(b, 28) & 0x3fff, complete };
    case 'VP8L': {
      if (b[20] !== 0x2f) return undefined;
      const bits = u32le(b, 21);
      return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1, complete };
    }
    case 'VP8X':
      return { width: u24le(b, 24) + 1, height: u24le(b, 27) + 1, complete };
    default:
      return undefined;
  }
}

/**
 * AVIF (ISO-BMFF): the top-level boxes must all fit in the data and include the media data
 * (`mdat`); the size is the largest image spatial extent (`ispe`) in `meta` — the primary image,
 * not its thumbnail or alpha plane.
 */
function avifHeader(b: Uint8Array): ImageHeader | undefined {
  let p = 0;
  let meta: [number, number] | undefined;
  let sawData = false;
  let complete = true;
  while (p + 8 <= b.length) {
    let size = u32be(b, p);
    const type = tag(b, p + 4);
    let header = 8;
    if (size === 1) {
      if (p + 16 > b.length) return undefined;
      size = u32be(b, p + 8) * 2 ** 32 + u32be(b, p + 12);
      header = 16;
    } else if (size === 0) size = b.length - p; // runs to the end of the file
    if (size < header) return undefined;
    if (p + size > b.length) complete = false;
    if (type === 'meta') meta = [p + header, Math.min(b.length, p + size)];
    if (type === 'mdat') sawData = true;
    if (p + size > b.length) break;
    p += size;
  }
  if (!meta) return undefined;
  let width = 0;
  let height = 0;
  for (let i = meta[0]; i + 16 <= meta[1]; i++) {
    if (b[i] !== 0x69 || tag(b, i) !== 'ispe') continue; // 'i'
    const w = u32be(b, i + 8);
    const h = u32be(b, i + 12);
    if (w * h > width * height) [width, height] = [w, h];
  }
  if (width === 0 || height === 0) return undefined;
  return { width, height, complete: complete && sawData };
}

/** Offset after a chain of GIF data sub-blocks starting at p, or undefined when the data ends first. */
function gifSubBlocks(b: Uint8Array, p: number): number | undefined {
  while (p < b.length) {
    const n = b[p]!;
    if (n === 0) return p + 1;
    p += 1 + n;
  }
  return undefined;
}

/**
 * GIF: complete when the first image (the frame the engine decodes) and its LZW data end
 * inside the bytes; Chromium would otherwise show a partly drawn first frame.
 */
function gifHeader(b: Uint8Array): ImageHeader | undefined {
  if (b.length < 13) return undefined;
  const header = { width: u16le(b, 6), height: u16le(b, 8) };
  let p = 13 + (b[10]! & 0x80 ? 3 << ((b[10]! & 7) + 1) : 0);
  while (p < b.length) {
    const block = b[p]!;
    if (block === 0x21) {
      const next = gifSubBlocks(b, p + 2);
      if (next === undefined) break;
      p = next;
    } else if (block === 0x2c) {
      if (p + 11 > b.length) break;
      const packed = b[p + 9]!;
      const data = p + 10 + (packed & 0x80 ? 3 << ((packed & 7) + 1) : 0) + 1; // + LZW minimum code size
      return { ...header, complete: gifSubBlocks(b, data) !== undefined };
    } else break; // trailer or garbage before any image
  }
  return { ...header, complete: false };
}

function bmpHeader(b: Uint8Array): ImageHeader | undefined {
  if (b.length < 26) return undefined;
  const fileSize = u32le(b, 2);
  const dataOffset = u32le(b, 10);
  const complete = b.length > dataOffset && (fileSize === 0 || b.length >= fileSize);
  if (u32le(b, 14) === 12) return { width: u16le(b, 18), height: u16le(b, 20), complete };
  return { width: Math.abs(i32le(b, 18)), height: Math.abs(i32le(b, 22)), complete };
}

/** undefined when the header itself is missing or unreadable */
export function readImageHeader(bytes: Uint8Array, format: ImageFormat): ImageHeader | undefined {
  switch (format) {
    case 'jpeg':
      return jpegHeader(bytes);
    case 'png':
      return pngHeader(bytes);
    case 'webp':
      return webpHeader(bytes);
    case 'avif':
      return avifHeader(bytes);
    case 'gif':
      return gifHeader(bytes);
    case 'bmp':
      return bmpHeader(bytes);
  }
}
