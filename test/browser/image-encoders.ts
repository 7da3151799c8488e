// Test fixtures made in the browser from a real photo, so no binary is committed: BMP and GIF
// by tiny encoders written here (Chromium's canvas encodes neither), AVIF by Chromium's own AV1
// encoder (WebCodecs) wrapped in a minimal AVIF (HEIF) container.
import { concatBytes } from '../../src/bytes.ts';

/** The RGBA pixels of a decoded image, optionally scaled to `width`. */
export function rgbaOf(bitmap: ImageBitmap, width = bitmap.width): ImageData {
  const height = Math.round((bitmap.height * width) / bitmap.width);
  const ctx = new OffscreenCanvas(width, height).getContext('2d')!;
  ctx.drawImage(bitmap, 0, 0, width, height);
  return ctx.getImageData(0, 0, width, height);
}

/** 24-bit BI_RGB BMP, bottom-up rows padded to 4 bytes (the most common BMP layout). */
export function encodeBmp(img: ImageData): Uint8Array<ArrayBuffer> {
  const { width, height, data } = img;
  const stride = (width * 3 + 3) & ~3;
  const out = new Uint8Array(54 + stride * height);
  const v = new DataView(out.buffer);
  out.set([0x42, 0x4d]);
  v.setUint32(2, out.length, true);
  v.setUint32(10, 54, true);
  v.setUint32(14, 40, true);
  v.setInt32(18, width, true);
  v.setInt32(22, height, true); // positive: bottom-up
  v.setUint16(26, 1, true);
  v.setUint16(28, 24, true);
  v.setUint32(34, stride * height, true);
  for (let y = 0; y < height; y++) {
    const row = 54 + (height - 1 - y) * stride;
    for (let x = 0; x < width; x++) {
      const s = (y * width + x) * 4;
      out[row + x * 3] = data[s + 2]!; // BGR
      out[row + x * 3 + 1] = data[s + 1]!;
      out[row + x * 3 + 2] = data[s]!;
    }
  }
  return out;
}

/** A 256-colour palette by popularity of 4-bit-per-channel bins, and each pixel's nearest entry. */
function palettize(img: ImageData): { palette: number[][]; indices: Uint8Array } {
  const counts = new Map<number, { n: number; r: number; g: number; b: number }>();
  const { data } = img;
  for (let i = 0; i < data.length; i += 4) {
    const key = ((data[i]! >> 4) << 8) | ((data[i + 1]! >> 4) << 4) | (data[i + 2]! >> 4);
    const c = counts.get(key) ?? { n: 0, r: 0, g: 0, b: 0 };
    c.n++;
    c.r += data[i]!;
    c.g += data[i + 1]!;
    c.b += data[i + 2]!;
    counts.set(key, c);
  }
  const palette = [...counts.values()]
    .sort((a, b) => b.n - a.n)
    .slice(0, 256)
    .map((c) => [Math.round(c.r / c.n), Math.round(c.g / c.n), Math.round(c.b / c.n)]);
  while (palette.length < 256) palette.push([0, 0, 0]);
  const nearest = new Map<number, number>();
  const indices = new Uint8Array(data.length / 4);
  for (let i = 0; i < indices.length; i++) {
    const r = data[i * 4]!, g = data[i * 4 + 1]!, b = data[i * 4 + 2]!;
    const key = (r << 16) | (g << 8) | b;
    let best = nearest.get(key);
    if (best === undefined) {
      let bestD = Infinity;
      for (let p = 0; p < 256; p++) {
        const [pr, pg, pb] = palette[p]!;
        const d = (r - pr!) ** 2 + (g - pg!) ** 2 + (b - pb!) ** 2;
        if (d < bestD) [bestD, best] = [d, p];
      }
      nearest.set(key, best!);
    }
    indices[i] = best!;
  }
  return { palette, indices };
}

/**
 * LZW data of 8-bit indices without compression: every pixel is a 9-bit literal code and a
 * clear code comes before the decoder's table would reach 512 entries (so widths never grow).
 */
function lzwLiterals(indices: Uint8Array): Uint8Array {
  const CLEAR = 256, END = 257, PER_CLEAR = 250;
  const bytes: number[] = [];
  let acc = 0, bits = 0;
  const put = (code: number) => {
    acc |= code << bits;
    bits += 9;
    while (bits >= 8) {
      bytes.push(acc & 0xff);
      acc >>>= 8;
      bits -= 8;
    }
  };
  for (let i = 0; i < indices.length; i++) {
    if (i % PER_CLEAR === 0) put(CLEAR);
    put(indices[i]!);
  }
  put(END);
  if (bits > 0) bytes.push(acc & 0xff);
  return new Uint8Array(bytes);
}

const u16le = (v: number) => [v & 0xff, v >> 8];


function gifFrame(indices: Uint8Array, width: number, height: number): Uint8Array {
  const lzw = lzwLiterals(indices);
  const parts: ArrayLike<number>[] = [[0x2c, ...u16le(0), ...u16le(0), ...u16le(width), ...u16le(height), 0, 8]];
  for (let p = 0; p < lzw.length; p += 255) {
    const block = lzw.subarray(p, p + 255);
    parts.push([block.length], block);
  }
  parts.push([0]);
  return concatBytes(parts);
}

/**
 * GIF89a with a global 256-colour palette. `frames` > 1 appends blank (palette entry 0) frames
 * after the photo, making an animated GIF whose first frame alone holds the face.
 */
export function encodeGif(img: ImageData, frames = 1): Uint8Array<ArrayBuffer> {
  const { palette, indices } = palettize(img);
  const parts: ArrayLike<number>[] = [[...new TextEncoder().encode('GIF89a'), ...u16le(img.width), ...u16le(img.height), 0xf7, 0, 0], palette.flat()];
  parts.push(gifFrame(indices, img.width, img.height));
  for (let f = 1; f < frames; f++) {
    // graphic control: 0.5 s delay before each next frame, which replaces the photo entirely
    parts.push([0x21, 0xf9, 4, 0b1000, ...u16le(50), 0, 0]);
    parts.push(gifFrame(new Uint8Array(indices.length), img.width, img.height));
  }
  parts.push([0x3b]);
  return concatBytes(parts);
}

// ---------------------------------------------------------------- AVIF

const u16be = (v: number) => [(v >>> 8) & 0xff, v & 0xff];
const u32be = (v: number) => [(v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff];
const fourcc = (s: string) => [...new TextEncoder().encode(s)];
const box = (type: string, ...payload: number[][]) => {
  const body = payload.flat();
  return [...u32be(8 + body.length), ...fourcc(type), ...body];
};
const fullBox = (type: string, version: number, flags: number, ...payload: number[][]) =>
  box(type, [version, (flags >> 16) & 0xff, (flags >> 8) & 0xff, flags & 0xff], ...payload);

/** One AV1 key frame of the image by WebCodecs, and its av1C configuration record. */
async function av1KeyFrame(img: ImageData): Promise<{ data: Uint8Array; av1C: Uint8Array }> {
  // seq_profile 0, level 4.0 (seq_level_idx 8), main tier, 8-bit, 4:2:0
  const codec = 'av01.0.08M.08';
  const chunks: Uint8Array[] = [];
  let description: Uint8Array | undefined;
  let failure: unknown;
  const encoder = new VideoEncoder({
    output: (chunk, meta) => {
      const data = new Uint8Array(chunk.byteLength);
      chunk.copyTo(data);
      chunks.push(data);
      const d = meta?.decoderConfig?.description;
      if (d) description = new Uint8Array(ArrayBuffer.isView(d) ? d.buffer.slice(d.byteOffset, d.byteOffset + d.byteLength) : d);
    },
    error: (e) => (failure = e),
  });
  encoder.configure({ codec, width: img.width, height: img.height, bitrate: 8_000_000, framerate: 1 });
  const frame = new VideoFrame(await createImageBitmap(img), { timestamp: 0 });
  encoder.encode(frame, { keyFrame: true });
  frame.close();
  await encoder.flush();
  encoder.close();
  if (failure) throw failure;
  if (chunks.length !== 1) throw new Error(`expected one AV1 chunk, got ${chunks.length}`);
  // av1C: marker|version, profile|level, tier|high_bitdepth|twelve_bit|mono|subsampling x,y|position
  const av1C = description && description.length >= 4 ? description : new Uint8Array([0x81, (0 << 5) | 8, 0b0000_1100, 0]);
  return { data: chunks[0]!, av1C };
}

/** True when this browser can encode AV1 (needed for the AVIF fixture). */
export async function canEncodeAv1(): Promise<boolean> {
  if (typeof VideoEncoder === 'undefined') return false;
  const r = await VideoEncoder.isConfigSupported({ codec: 'av01.0.08M.08', width: 640, height: 480 });
  return r.supported === true;
}

/**
 * A still AVIF: ftyp, meta (hdlr pict, pitm, iloc, iinf with one av01 item, iprp with ispe,
 * pixi and av1C), then mdat with the AV1 key frame.
 */
export async function encodeAvif(img: ImageData): Promise<Uint8Array<ArrayBuffer>> {
  const { data, av1C } = await av1KeyFrame(img);
  const ftyp = box('ftyp', fourcc('avif'), u32be(0), fourcc('avif'), fourcc('mif1'), fourcc('miaf'));
  const meta = (offset: number) =>
    fullBox(
      'meta', 0, 0,
      fullBox('hdlr', 0, 0, u32be(0), fourcc('pict'), u32be(0), u32be(0), u32be(0), [0]),
      fullBox('pitm', 0, 0, u16be(1)),
      // offset_size 4, length_size 4, base_offset_size 0; one item with one extent
      fullBox('iloc', 0, 0, [0x44, 0x00], u16be(1), u16be(1), u16be(0), u16be(1), u32be(offset), u32be(data.length)),
      fullBox('iinf', 0, 0, u16be(1), fullBox('infe', 2, 0, u16be(1), u16be(0), fourcc('av01'), [0])),
      box(
        'iprp',
        box(
          'ipco',
          fullBox('ispe', 0, 0, u32be(img.width), u32be(img.height)),
          fullBox('pixi', 0, 0, [3, 8, 8, 8]),
          box('av1C', [...av1C]),
        ),
        // item 1: ispe (1), pixi (2), av1C (3, essential)
        fullBox('ipma', 0, 0, u32be(1), u16be(1), [3, 1, 2, 0x80 | 3]),
      ),
    );
  const metaLength = meta(0).length;
  const offset = ftyp.length + metaLength + 8;
  return concatBytes([ftyp, meta(offset), [...u32be(8 + data.length), ...fourcc('mdat')], data]);
}
