// Every still format the browser decodes is a photo the engine takes (JPEG, PNG, WebP, AVIF,
// GIF first frame, BMP), decided by content; the strict `formats: KAIROS_FORMATS` engine
// refuses all but JPEG/PNG with 5000; SVG, HTML, text and truncated files stay 5000 in both.
// Fixtures: the data set's real WebP, and AVIF/GIF/BMP made here from a real face photo.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import obama2Url from '../../../shared/data/faces/obama/obama2.jpg?url';
import roseUrl from '../../../shared/data/faces/rose_leslie/img1.jpg?url';
import webpUrl from '../../../shared/data/bad/webp_with_jpg_extension.jpg?url';
import truncatedUrl from '../../../shared/data/bad/truncated_40pct.jpg?url';
import { createEngine, KAIROS_FORMATS, type Engine } from '../../src/index.ts';
import { intakeImage } from '../../src/intake/index.ts';
import { canEncodeAv1, encodeAvif, encodeBmp, encodeGif, rgbaOf } from './image-encoders.ts';

const blobOf = async (url: string) => (await fetch(url)).blob();
const code = (r: unknown) => (r as { Errors?: { ErrCode: number }[] }).Errors?.[0]?.ErrCode;
const message = (r: unknown) => (r as { Errors?: { Message: string }[] }).Errors?.[0]?.Message ?? '';
function body<T>(r: T): Exclude<T, { Errors: unknown }> {
  if (r && typeof r === 'object' && 'Errors' in r) throw new Error(JSON.stringify(r));
  return r as Exclude<T, { Errors: unknown }>;
}

type Fixture = { name: string; format: string; file: File; subject: string; probe: string };
const fixtures: Fixture[] = [];
let engine: Engine;
let strict: Engine;

beforeAll(async () => {
  expect(await canEncodeAv1(), 'Chromium encodes AV1 (WebCodecs): the AVIF fixture needs it').toBe(true);
  const photo = rgbaOf(await createImageBitmap(await blobOf(obamaUrl)), 480);
  const made = { avif: await encodeAvif(photo), gif: encodeGif(photo, 2), bmp: encodeBmp(photo) };
  // names that lie about the content: the engine decides by the bytes
  fixtures.push(
    { name: 'phone.jpg', format: 'webp', file: new File([await blobOf(webpUrl)], 'phone.jpg', { type: 'image/jpeg' }), subject: 'rose', probe: roseUrl },
    { name: 'face.avif', format: 'avif', file: new File([made.avif], 'face.jpg'), subject: 'obama-avif', probe: obama2Url },
    { name: 'face.gif', format: 'gif', file: new File([made.gif], 'face.gif'), subject: 'obama-gif', probe: obama2Url },
    { name: 'face.bmp', format: 'bmp', file: new File([made.bmp], 'face.png', { type: 'image/png' }), subject: 'obama-bmp', probe: obama2Url },
  );
  console.log('fixture sizes (bytes)', JSON.stringify(Object.fromEntries(fixtures.map((f) => [f.format, f.file.size]))));
  const storageName = `formats-test-${Date.now()}`;
  engine = await createEngine({ backend: 'wasm', storageName });
  strict = await createEngine({ backend: 'wasm', storageName: `${storageName}-strict`, formats: [...KAIROS_FORMATS] });
});
afterAll(() => {
  engine?.close();
  strict?.close();
});

describe('fixtures made in the browser are what they claim', () => {
  it('each decodes by content to the photo size (GIF: its first frame of two)', async () => {
    for (const f of fixtures) {
      const img = await intakeImage(f.file, { fetch });
      expect(img.format, f.name).toBe(f.format);
      if (f.format !== 'webp') expect([img.width, img.height], f.name).toEqual([480, 600]);
      // the first GIF frame is the photo, not the blank second frame
      const ctx = new OffscreenCanvas(img.width, img.height).getContext('2d')!;
      ctx.drawImage(img.bitmap, 0, 0);
      const px = ctx.getImageData(0, 0, img.width, img.height).data;
      let spread = 0;
      for (let i = 4; i < px.length; i += 400) spread += Math.abs(px[i]! - px[i - 4]!);
      expect(spread, `${f.name} has picture content`).toBeGreaterThan(100);
      img.bitmap.close();
    }
  });
});

describe('by default every browser still format is a photo', () => {
  it('detect finds the one face in each', async () => {
    for (const f of fixtures) {
      const r = body(await engine.detect({ image: f.file }));
      expect(r.images[0]!.faces, f.name).toHaveLength(1);
      expect(r.images[0]!.file).toBe(f.file.name);
    }
  });

  it('enroll from each, then verify a JPEG of the same person against it', async () => {
    const scores: Record<string, number> = {};
    for (const f of fixtures) {
      body(await engine.enroll({ image: f.file, subject_id: f.subject, gallery_name: 'formats' }));
      const v = body(await engine.verify({ image: await blobOf(f.probe), subject_id: f.subject, gallery_name: 'formats' }));
      scores[f.format] = v.images[0]!.transaction.confidence;
    }
    console.log('verify confidence of a JPEG probe against a template enrolled from each format', JSON.stringify(scores));
    for (const [format, confidence] of Object.entries(scores)) expect(confidence, format).toBeGreaterThanOrEqual(0.6);
  });

  it('POST /v2/media takes a WebP still as a one-frame image', async () => {
    const m = body(await engine.mediaPost({ source: fixtures[0]!.file, timeout: 60 })) as { media_info: { mime_type: string; type: string }; frames: { people: unknown[] }[] };
    expect(m.media_info).toMatchObject({ mime_type: 'image/webp', type: 'image' });
    expect(m.frames[0]!.people).toHaveLength(1);
  });
});

describe('strict mode (formats: KAIROS_FORMATS) keeps the Kairos contract', () => {
  it('refuses WebP, AVIF, GIF and BMP with 5000 naming the format', async () => {
    for (const f of fixtures) {
      const r = await strict.detect({ image: f.file });
      expect(code(r), f.name).toBe(5000);
      expect(message(r)).toMatch(new RegExp(`${f.format === 'webp' ? 'WebP' : f.format.toUpperCase()} images are not accepted; send JPEG, PNG`));
    }
  });

  it('POST /v2/media refuses a WebP still at once with {code: 5000}', async () => {
    const r = (await strict.mediaPost({ source: fixtures[0]!.file, timeout: 60 })) as { code?: number; message?: string };
    expect(r.code).toBe(5000);
    expect(r.message).toMatch(/WebP images are not accepted; send JPEG, PNG/);
  });

  it('still answers a JPEG', async () => {
    expect(body(await strict.detect({ image: await blobOf(obama2Url) })).images[0]!.faces).toHaveLength(1);
  });
});

describe('what is not a still photo stays 5000 in both modes', () => {
  const svg = new File(['<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'], 'face.jpg');
  const html = new File(['<!DOCTYPE html><html><body><img src="face.jpg"></body></html>'], 'face.jpg');
  const text = new File(['this is not an image\n'], 'face.jpg');

  it('SVG, HTML, text and a truncated JPEG', async () => {
    const truncated = new File([await blobOf(truncatedUrl)], 'face.jpg');
    const cut = fixtures.map((f) => new File([f.file.slice(0, Math.floor(f.file.size * 0.4))], f.name));
    for (const e of [engine, strict]) {
      for (const [file, pattern] of [
        [svg, /this is SVG/],
        [html, /this is an HTML page/],
        [text, /not a recognised image/],
        [truncated, /JPEG data is truncated/],
      ] as const) {
        const r = await e.detect({ image: file });
        expect(code(r)).toBe(5000);
        expect(message(r)).toMatch(pattern);
      }
    }
    // WebP/AVIF/GIF/BMP cut at 40% (inside the GIF's first frame): refused, never half-decoded
    for (const file of cut) {
      const r = await engine.detect({ image: file });
      expect(code(r), file.name).toBe(5000);
    }
  });
});
