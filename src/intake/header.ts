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

function gifHeader(b: Uint8Array): ImageHeader | undefined {
  if (b.length < 13) return undefined;
  // completeness of GIF data is not checked: Chromium shows whatever frames arrived
  return { width: u16le(b, 6), height: u16le(b, 8), complete: b.length > 13 };
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
    case 'gif':
      return gifHeader(bytes);
    case 'bmp':
      return bmpHeader(bytes);
  }
}
