// Image intake, the pure parts: string parsing, sniffing, headers, EXIF, limits, URL fetch
// (with a fake fetch), and what every file of ../shared/data/bad/ yields before decoding.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EngineError } from '../../src/errors.ts';
import { readJpegOrientation, withJpegOrientation } from '../../src/intake/exif.ts';
import { fetchImageBytes, type FetchLike } from '../../src/intake/fetch-image.ts';
import { readImageHeader, scanJpeg } from '../../src/intake/header.ts';
import { decodeBase64, ImageInputSchema, parseImageInput, parseImageString } from '../../src/intake/image-input.ts';
import { inspectImage } from '../../src/intake/inspect.ts';
import {
  checkDimensions,
  checkEncodedSize,
  MAX_ENCODED_BYTES,
  MAX_PIXELS,
  MAX_SIDE,
  MAX_URL_LENGTH,
  MIN_SIDE,
} from '../../src/intake/limits.ts';
import { IMAGE_FORMATS, KAIROS_FORMATS, sniffImageType, sniffOtherFormat } from '../../src/intake/sniff.ts';

const DATA = new URL('../../../shared/data/', import.meta.url);
const read = (path: string) => new Uint8Array(readFileSync(new URL(path, DATA)));

interface ManifestFile {
  path: string;
  kind: string;
  width: number | null;
  height: number | null;
  format: string | null;
}
const manifest = JSON.parse(readFileSync(new URL('manifest.json', DATA), 'utf8')) as { files: ManifestFile[] };
const stills = manifest.files.filter((f) => ['JPEG', 'PNG', 'WEBP'].includes(f.format ?? '') && f.kind !== 'bad');

/** The ErrCode an EngineError carries; rethrows anything else (a bug, not a refusal). */
function codeOf(work: () => unknown): number | undefined {
  try {
    work();
  } catch (e) {
    if (e instanceof EngineError) return e.failure.code;
    throw e;
  }
  return undefined;
}

async function rejection(work: Promise<unknown>): Promise<EngineError> {
  try {
    await work;
  } catch (e) {
    if (e instanceof EngineError) return e;
    throw e;
  }
  throw new Error('expected an EngineError');
}

const toBase64 = (b: Uint8Array) => Buffer.from(b).toString('base64');

/** A JPEG with an APP1 Exif segment (Orientation only) inserted after SOI, in either byte order. */
function withExif(jpeg: Uint8Array, orientation: number, littleEndian: boolean): Uint8Array {
  const tiff = new Uint8Array(26);
  const v = new DataView(tiff.buffer);
  tiff.set(littleEndian ? [0x49, 0x49] : [0x4d, 0x4d]);
  v.setUint16(2, 42, littleEndian);
  v.setUint32(4, 8, littleEndian);
  v.setUint16(8, 1, littleEndian); // one IFD entry
  v.setUint16(10, 0x0112, littleEndian);
  v.setUint16(12, 3, littleEndian); // SHORT
  v.setUint32(14, 1, littleEndian);
  v.setUint16(18, orientation, littleEndian);
  v.setUint32(22, 0, littleEndian); // no next IFD
  const payload = [...new TextEncoder().encode('Exif'), 0, 0, ...tiff];
  const segment = [0xff, 0xe1, (payload.length + 2) >> 8, (payload.length + 2) & 0xff, ...payload];
  return new Uint8Array([...jpeg.subarray(0, 2), ...segment, ...jpeg.subarray(2)]);
}

describe('parseImageString', () => {
  const obama = read('faces/obama/obama.jpg');
  const b64 = toBase64(obama);

  it('reads http(s) URLs, trimmed and normalised', () => {
    expect(parseImageString('https://example.com/a.jpg')).toEqual({ kind: 'url', url: 'https://example.com/a.jpg' });
    expect(parseImageString('  HTTP://Example.com/a b.jpg\n')).toEqual({ kind: 'url', url: 'http://example.com/a%20b.jpg' });
  });

  it('refuses other schemes (1003), over-long URLs (1004) and empty strings (1002)', () => {
    expect(codeOf(() => parseImageString('ftp://example.com/a.jpg'))).toBe(1003);
    expect(codeOf(() => parseImageString('file:///etc/passwd'))).toBe(1003);
    expect(codeOf(() => parseImageString('http://[::1'))).toBe(1003);
    const long = `https://example.com/${'a'.repeat(MAX_URL_LENGTH)}`;
    expect(codeOf(() => parseImageString(long))).toBe(1004);
    expect(codeOf(() => parseImageString(long.slice(0, MAX_URL_LENGTH)))).toBeUndefined();
    expect(codeOf(() => parseImageString(''))).toBe(1002);
    expect(codeOf(() => parseImageString(' \n\t'))).toBe(1002);
  });

  it('decodes base64 with or without a data: prefix, wrapped, URL-safe or unpadded', () => {
    const variants = [
      b64,
      `data:image/jpeg;base64,${b64}`,
      `DATA:image/png;name=x.png;BASE64,${b64}`,
      `data:;base64,${b64}`,
      b64.replace(/.{76}/g, '$&\r\n'),
      `  ${b64.replace(/.{64}/g, '$&\n')}  `,
      b64.replace(/\+/g, '-').replace(/\//g, '_'),
      b64.replace(/=+$/, ''),
    ];
    for (const v of variants) {
      const parsed = parseImageString(v);
      expect(parsed.kind).toBe('bytes');
      expect(parsed.kind === 'bytes' && Buffer.compare(Buffer.from(parsed.bytes), Buffer.from(obama))).toBe(0);
    }
  });

  it('matches Node for every remainder length', () => {
    for (let n = 0; n < 12; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 73 + 5) & 0xff);
      expect([...decodeBase64(toBase64(bytes))]).toEqual([...bytes]);
      expect([...decodeBase64(toBase64(bytes).replace(/=+$/, ''))]).toEqual([...bytes]);
    }
  });

  it('anything that is neither a URL nor base64 is 5000', () => {
    for (const junk of ['hello world!', 'not base64, at all', 'abcde', 'ab=c', 'abc==', 'www.example.com/a.jpg', '/images/a.jpg', 'http:/x.jpg', '{"a":1}']) {
      expect(codeOf(() => parseImageString(junk)), junk).toBe(5000);
    }
    expect(codeOf(() => parseImageString('data:image/png,rawbytes'))).toBe(5000);
    // letters-only text is valid base64 by alphabet; its bytes are then no image, also 5000
    const text = parseImageString('not base64 at all');
    expect(text.kind === 'bytes' && codeOf(() => inspectImage(text.bytes))).toBe(5000);
    expect(codeOf(() => parseImageString('data:image/png;base64'))).toBe(5000);
  });

  it('refuses a base64 payload over the byte limit before decoding it', () => {
    const big = 'A'.repeat(Math.ceil((MAX_ENCODED_BYTES + 3) / 3) * 4);
    const e = (() => {
      try {
        parseImageString(big);
      } catch (err) {
        return err as EngineError;
      }
    })();
    expect(e?.failure.code).toBe(5000);
    expect(e?.message).toMatch(/too large.*limit is 25\.0 MB/);
  });
});

describe('parseImageInput (the zod schema)', () => {
  it('accepts strings and Blobs/Files', () => {
    expect(parseImageInput('abc')).toBe('abc');
    const blob = new Blob([new Uint8Array([1, 2, 3])]);
    expect(parseImageInput(blob)).toBe(blob);
    expect(ImageInputSchema.safeParse(new File([], 'a.jpg')).success).toBe(true);
  });
  it('absent → 1002, wrong type → 1003', () => {
    expect(codeOf(() => parseImageInput(undefined))).toBe(1002);
    expect(codeOf(() => parseImageInput(null))).toBe(1002);
    expect(codeOf(() => parseImageInput(42))).toBe(1003);
    expect(codeOf(() => parseImageInput({ url: 'x' }))).toBe(1003);
  });
});

describe('sniffImageType', () => {
  it('every still image of the data set sniffs as its manifest format', () => {
    expect(stills.length).toBeGreaterThan(100);
    for (const f of stills) expect(sniffImageType(read(f.path)), f.path).toBe(f.format!.toLowerCase());
  });

  it('decides by content, not by the .jpg name', () => {
    expect(sniffImageType(read('bad/png_with_jpg_extension.jpg'))).toBe('png');
    expect(sniffImageType(read('bad/webp_with_jpg_extension.jpg'))).toBe('webp');
    expect(sniffImageType(read('bad/not_an_image.jpg'))).toBeUndefined();
    expect(sniffImageType(read('bad/zero_bytes.jpg'))).toBeUndefined();
    expect(sniffImageType(read('bad/truncated_40pct.jpg'))).toBe('jpeg');
    expect(sniffImageType(read('bad/truncated_header_only.png'))).toBe('png');
  });

  it('recognises GIF and BMP, and names formats it never accepts', () => {
    const gif = new Uint8Array([...new TextEncoder().encode('GIF89a'), 40, 0, 30, 0, 0, 0, 0, 0x3b]);
    expect(sniffImageType(gif)).toBe('gif');
    expect(readImageHeader(gif, 'gif')).toMatchObject({ width: 40, height: 30 });
    const bmp = new Uint8Array(54 + 4);
    const v = new DataView(bmp.buffer);
    bmp.set([0x42, 0x4d]);
    v.setUint32(2, bmp.length, true);
    v.setUint32(10, 54, true);
    v.setUint32(14, 40, true);
    v.setInt32(18, 1, true);
    v.setInt32(22, -1, true); // top-down
    expect(sniffImageType(bmp)).toBe('bmp');
    expect(readImageHeader(bmp, 'bmp')).toEqual({ width: 1, height: 1, complete: true });
    expect(readImageHeader(bmp.subarray(0, 50), 'bmp')?.complete).toBe(false);
    expect(sniffImageType(new TextEncoder().encode('BM is also how this text starts'))).toBeUndefined();
    const heic = new Uint8Array([0, 0, 0, 24, ...new TextEncoder().encode('ftypheic'), 0, 0, 0, 0]);
    expect(sniffImageType(heic)).toBeUndefined();
    expect(sniffOtherFormat(heic)).toBe('HEIC/HEIF');
    expect(sniffOtherFormat(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe('SVG');
    expect(sniffOtherFormat(read('bad/not_an_image.jpg'))).toBeUndefined();
    expect(IMAGE_FORMATS).toEqual(['jpeg', 'png', 'webp', 'avif', 'gif', 'bmp']);
  });

  it('recognises AVIF by its brands and reads its size and completeness from the boxes', () => {
    const box = (type: string, payload: number[]) => {
      const b = new Uint8Array(8 + payload.length);
      new DataView(b.buffer).setUint32(0, b.length);
      b.set(new TextEncoder().encode(type), 4);
      b.set(payload, 8);
      return [...b];
    };
    const u32 = (v: number) => [(v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
    const brand = (s: string) => [...new TextEncoder().encode(s)];
    // a thumbnail ispe (64x48) before the primary one (1200x900): the largest is the image
    const ispe = (w: number, h: number) => box('ispe', [0, 0, 0, 0, ...u32(w), ...u32(h)]);
    const meta = box('meta', [0, 0, 0, 0, ...box('iprp', box('ipco', [...ispe(64, 48), ...ispe(1200, 900)]))]);
    const avif = (major: string, compat: string[]) =>
      new Uint8Array([...box('ftyp', [...brand(major), 0, 0, 0, 0, ...compat.flatMap(brand)]), ...meta, ...box('mdat', Array(40).fill(7))]);
    const file = avif('avif', ['mif1', 'miaf']);
    expect(sniffImageType(file)).toBe('avif');
    expect(sniffImageType(avif('mif1', ['avif', 'miaf']))).toBe('avif');
    expect(sniffImageType(avif('mif1', ['heic']))).toBeUndefined();
    expect(readImageHeader(file, 'avif')).toEqual({ width: 1200, height: 900, complete: true });
    expect(readImageHeader(file.subarray(0, file.length - 10), 'avif')?.complete).toBe(false);
    expect(readImageHeader(file.subarray(0, 40), 'avif')).toBeUndefined(); // the meta box is cut: no size
  });
});

describe('readImageHeader', () => {
  it('gives the manifest width/height for every still image, and all of them are complete', () => {
    for (const f of stills) {
      const h = readImageHeader(read(f.path), f.format!.toLowerCase() as 'jpeg' | 'png' | 'webp');
      expect(h, f.path).toEqual({ width: f.width, height: f.height, complete: true });
    }
  });

  it('reads the WebP lossy, lossless and extended headers', () => {
    expect(readImageHeader(read('bad/webp_with_jpg_extension.jpg'), 'webp')).toEqual({ width: 288, height: 439, complete: true });
    const riff = (chunk: string, body: number[]) => {
      const b = new Uint8Array(30 + 10);
      b.set(new TextEncoder().encode(`RIFF____WEBP${chunk}`));
      new DataView(b.buffer).setUint32(4, b.length - 8, true);
      b.set(body, 20);
      return b;
    };
    // VP8L: signature 0x2f, then 14 bits width-1, 14 bits height-1
    const bits = (639 & 0x3fff) | ((479 & 0x3fff) << 14);
    expect(readImageHeader(riff('VP8L', [0x2f, bits & 0xff, (bits >> 8) & 0xff, (bits >> 16) & 0xff, (bits >>> 24) & 0xff]), 'webp')).toMatchObject({
      width: 640,
      height: 480,
    });
    // VP8X: flags + 3 reserved, then 24-bit width-1 and height-1
    expect(readImageHeader(riff('VP8X', [0, 0, 0, 0, 0x7f, 0x07, 0, 0x37, 0x04, 0]), 'webp')).toMatchObject({ width: 1920, height: 1080 });
    expect(readImageHeader(riff('VP8X', [0]).subarray(0, 35), 'webp')?.complete).toBe(false);
  });

  it('spots truncation: JPEG without EOI after the scan, PNG without IEND', () => {
    expect(readImageHeader(read('bad/truncated_40pct.jpg'), 'jpeg')).toEqual({ width: 910, height: 1137, complete: false });
    expect(readImageHeader(read('bad/truncated_header_only.png'), 'png')).toEqual({ width: 150, height: 150, complete: false });
    const obama = read('faces/obama/obama.jpg');
    expect(readImageHeader(obama.subarray(0, obama.length - 2), 'jpeg')?.complete).toBe(false);
    const withTrailer = new Uint8Array([...obama, 0, 0, 0x12]);
    expect(readImageHeader(withTrailer, 'jpeg')?.complete).toBe(true);
    expect(readImageHeader(obama.subarray(0, 100), 'jpeg')).toBeUndefined(); // cut before the frame header
    const png = read('faces/penny/penny1.png');
    expect(readImageHeader(png.subarray(0, png.length - 12), 'png')?.complete).toBe(false); // IEND missing
    expect(readImageHeader(png.subarray(0, 20), 'png')).toBeUndefined();
  });

  it('walks JPEG segments up to the first scan', () => {
    const scan = scanJpeg(read('faces/obama/obama.jpg'));
    expect(scan.segments.at(-1)?.marker).toBe(0xda);
    expect(scan.scanStart).toBeGreaterThan(0);
    expect(scanJpeg(read('bad/not_an_image.jpg')).segments).toEqual([]);
  });
});

describe('EXIF orientation', () => {
  it('is 6 for the rotated Biden copy and absent/1 for every other JPEG', () => {
    expect(readJpegOrientation(read('faces/biden/biden2_exif_orientation6.jpg'))).toBe(6);
    for (const f of stills.filter((s) => s.format === 'JPEG' && !s.path.includes('orientation6'))) {
      expect([undefined, 1], f.path).toContain(readJpegOrientation(read(f.path)));
    }
  });

  it('reads both TIFF byte orders and every value 1..8; ignores junk values', () => {
    const base = read('bad/one_pixel.jpg');
    for (const le of [true, false]) {
      for (let o = 1; o <= 8; o++) expect(readJpegOrientation(withExif(base, o, le))).toBe(o);
      expect(readJpegOrientation(withExif(base, 9, le))).toBeUndefined();
      expect(readJpegOrientation(withExif(base, 0, le))).toBeUndefined();
      expect(readJpegOrientation(withJpegOrientation(withExif(base, 6, le), 3)!)).toBe(3);
    }
    expect(readJpegOrientation(read('bad/not_an_image.jpg'))).toBeUndefined();
    expect(readJpegOrientation(new Uint8Array())).toBeUndefined();
    expect(withJpegOrientation(base, 1)).toBeUndefined();
  });
});

describe('limits', () => {
  it('encoded size: empty and over 25 MiB are 5000', () => {
    expect(codeOf(() => checkEncodedSize(0))).toBe(5000);
    expect(codeOf(() => checkEncodedSize(1))).toBeUndefined();
    expect(codeOf(() => checkEncodedSize(MAX_ENCODED_BYTES))).toBeUndefined();
    expect(codeOf(() => checkEncodedSize(MAX_ENCODED_BYTES + 1))).toBe(5000);
  });

  it('dimensions: over 40 MP or 16384 px is 5000; a side under 16 px is 5002', () => {
    expect(MAX_PIXELS).toBe(40_000_000);
    expect(codeOf(() => checkDimensions(8000, 5000))).toBeUndefined();
    expect(codeOf(() => checkDimensions(8000, 5001))).toBe(5000);
    expect(codeOf(() => checkDimensions(MAX_SIDE, 100))).toBeUndefined();
    expect(codeOf(() => checkDimensions(MAX_SIDE + 1, 100))).toBe(5000);
    expect(codeOf(() => checkDimensions(65535, 65535))).toBe(5000);
    expect(codeOf(() => checkDimensions(0, 100))).toBe(5000);
    expect(codeOf(() => checkDimensions(1, 1))).toBe(5002);
    expect(codeOf(() => checkDimensions(MIN_SIDE - 1, 400))).toBe(5002);
    expect(codeOf(() => checkDimensions(MIN_SIDE, MIN_SIDE))).toBeUndefined();
  });

  it('a pixel bomb is refused from its header alone', () => {
    const png = read('bad/one_pixel.png').slice();
    new DataView(png.buffer).setUint32(16, 30000); // IHDR width
    new DataView(png.buffer).setUint32(20, 30000); // IHDR height
    expect(codeOf(() => inspectImage(png))).toBe(5000);
  });
});

describe('inspectImage: what every file of bad/ yields before decoding', () => {
  const expected: Record<string, number | 'ok'> = {
    'not_an_image.jpg': 5000,
    'one_pixel.jpg': 5002,
    'one_pixel.png': 5002,
    'png_with_jpg_extension.jpg': 'ok',
    'truncated_40pct.jpg': 5000,
    'truncated_header_only.png': 5000,
    'webp_with_jpg_extension.jpg': 'ok',
    'zero_bytes.jpg': 5000,
  };
  const badFiles = manifest.files.filter((f) => f.kind === 'bad');

  it('the table covers exactly the files of bad/', () => {
    expect(badFiles.map((f) => f.path.slice(4)).sort()).toEqual(Object.keys(expected).sort());
  });

  for (const [name, outcome] of Object.entries(expected)) {
    it(`${name} → ${outcome}`, () => {
      expect(codeOf(() => inspectImage(read(`bad/${name}`))) ?? 'ok').toBe(outcome);
    });
  }

  it('messages say what is wrong', () => {
    const msg = (name: string) => {
      try {
        inspectImage(read(`bad/${name}`));
      } catch (e) {
        return (e as EngineError).message;
      }
    };
    expect(msg('zero_bytes.jpg')).toMatch(/empty/);
    expect(msg('not_an_image.jpg')).toMatch(/not a recognised image.*JPEG, PNG, WebP, AVIF, GIF, BMP/);
    expect(msg('truncated_40pct.jpg')).toMatch(/JPEG data is truncated/);
    expect(msg('truncated_header_only.png')).toMatch(/PNG data is truncated/);
    expect(msg('one_pixel.png')).toMatch(/no faces found.*1x1 px/);
  });

  it('WebP is accepted by default and refused by the strict Kairos formats', () => {
    expect(inspectImage(read('bad/webp_with_jpg_extension.jpg'))).toMatchObject({
      format: 'webp',
      storedWidth: 288,
      storedHeight: 439,
      orientation: 1,
    });
    expect(codeOf(() => inspectImage(read('bad/webp_with_jpg_extension.jpg'), KAIROS_FORMATS))).toBe(5000);
    expect(() => inspectImage(read('bad/webp_with_jpg_extension.jpg'), KAIROS_FORMATS)).toThrow(/WebP images are not accepted; send JPEG, PNG/);
  });

  it('every face and group image passes, with its orientation', () => {
    for (const f of stills) expect(() => inspectImage(read(f.path)), f.path).not.toThrow();
    expect(inspectImage(read('faces/biden/biden2_exif_orientation6.jpg')).orientation).toBe(6);
    expect(inspectImage(read('faces/obama/obama2_rgba32.png'))).toMatchObject({ format: 'png', storedWidth: 626, storedHeight: 1200, orientation: 1 });
  });
});

describe('fetchImageBytes (injected fetch)', () => {
  const body = read('faces/obama/obama.jpg');
  const serve = (res: () => Response): FetchLike => async () => res();

  it('returns the body of a 2xx answer, calling fetch unbound (as window.fetch needs)', async () => {
    const seen: unknown[] = [];
    const strictFetch = function (this: unknown, url: string, init?: RequestInit) {
      seen.push(this, url, init?.signal instanceof AbortSignal);
      if (this !== undefined) return Promise.reject(new TypeError('Illegal invocation'));
      return Promise.resolve(new Response(body));
    };
    const bytes = await fetchImageBytes('https://example.com/obama.jpg', { fetch: strictFetch });
    expect(Buffer.compare(Buffer.from(bytes), Buffer.from(body))).toBe(0);
    expect(seen).toEqual([undefined, 'https://example.com/obama.jpg', true]);
  });

  it('non-2xx → 5001 naming the status', async () => {
    const e = await rejection(fetchImageBytes('https://x/a.jpg', { fetch: serve(() => new Response('nope', { status: 404, statusText: 'Not Found' })) }));
    expect(e.failure.code).toBe(5001);
    expect(e.message).toMatch(/HTTP 404 Not Found/);
    const e500 = await rejection(fetchImageBytes('https://x/a.jpg', { fetch: serve(() => new Response(null, { status: 503 })) }));
    expect(e500.message).toMatch(/HTTP 503/);
  });

  it('network error → 5001', async () => {
    const e = await rejection(fetchImageBytes('https://x/a.jpg', { fetch: () => Promise.reject(new TypeError('Failed to fetch')) }));
    expect(e.failure.code).toBe(5001);
    expect(e.message).toMatch(/Failed to fetch/);
  });

  it('a server that never answers → 5001 after the timeout, even if fetch ignores its signal', async () => {
    const started = Date.now();
    const e = await rejection(fetchImageBytes('https://x/a.jpg', { fetch: () => new Promise(() => {}), timeoutMs: 100 }));
    expect(e.failure.code).toBe(5001);
    expect(e.message).toMatch(/within 0\.1 s/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("the caller's abort rejects with the caller's reason", async () => {
    const controller = new AbortController();
    const pending = fetchImageBytes('https://x/a.jpg', { fetch: () => new Promise(() => {}), signal: controller.signal });
    const reason = new Error('cancelled by the caller');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('a body over the limit → 5000, by Content-Length or while streaming', async () => {
    const declared = await rejection(
      fetchImageBytes('https://x/a.jpg', {
        fetch: serve(() => new Response(body, { headers: { 'content-length': String(MAX_ENCODED_BYTES + 1) } })),
      }),
    );
    expect(declared.failure.code).toBe(5000);
    const stream = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(c) {
            c.enqueue(new Uint8Array(1000));
          },
        }),
      );
    const streamed = await rejection(fetchImageBytes('https://x/a.jpg', { fetch: serve(stream), maxBytes: 10_000 }));
    expect(streamed.failure.code).toBe(5000);
    expect(streamed.message).toMatch(/too large/);
  });
});
