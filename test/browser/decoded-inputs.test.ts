// Decoded inputs in the typed API (issue 36): an ImageBitmap, <img>, <canvas>, OffscreenCanvas,
// <video> (its current frame), VideoFrame and ImageData made from a photo get the answers the
// encoded photo gets — same size and face count, boxes within BOX_PX, attributes close, and the
// enrolled templates' embeddings at cosine ≥ MIN_COSINE — the caller's object stays usable,
// store_image stores a JPEG of it, and unusable inputs answer 5000 naming what is wrong.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import pairUrl from '../../../shared/data/groups/obama_and_biden.jpg?url';
import exifUrl from '../../../shared/data/faces/biden/biden2_exif_orientation6.jpg?url';
import { createEngine, type DetectResponse, type Engine } from '../../src/index.ts';
import { decodeBase64 } from '../../src/intake/image-input.ts';
import { DECODED_KINDS, type DecodedImageInput } from '../../src/intake/decoded-input.ts';
import { decodedFrom } from '../../tools/harness/decoded-images.ts';

/** Box and eye tolerance, px (measured in Chromium 156: 0 for every kind — the same pixels; kept for other builds' colour paths) */
const BOX_PX = 3;
/** Embedding agreement with the encoded photo's (measured: 1.0000 for every kind) */
const MIN_COSINE = 0.99;

const storageName = `decoded-inputs-${Date.now()}`;
let engine: Engine;
const blobOf = async (url: string) => (await fetch(url)).blob();
const code = (r: unknown) => (r as { Errors?: { ErrCode: number; Message: string }[] }).Errors?.[0];
function body<T>(r: T): Exclude<T, { Errors: unknown }> {
  if (r && typeof r === 'object' && 'Errors' in r) throw new Error(JSON.stringify(r));
  return r as Exclude<T, { Errors: unknown }>;
}

/** the largest differences seen against the encoded photo, reported after the suite */
const worst = { px: 0, age: 0, gender: 0 };

function expectSameFaces(got: DetectResponse, want: DetectResponse, what: string) {
  const [g, w] = [got.images[0]!, want.images[0]!];
  expect([g.width, g.height], what).toEqual([w.width, w.height]);
  expect(g.faces.length, what).toBe(w.faces.length);
  w.faces.forEach((wf, i) => {
    const gf = g.faces[i]!;
    for (const k of ['topLeftX', 'topLeftY', 'width', 'height', 'leftEyeCenterX', 'leftEyeCenterY', 'rightEyeCenterX', 'rightEyeCenterY'] as const) {
      worst.px = Math.max(worst.px, Math.abs(gf[k] - wf[k]));
      expect(Math.abs(gf[k] - wf[k]), `${what} face ${i} ${k}: ${gf[k]} vs ${wf[k]}`).toBeLessThanOrEqual(BOX_PX);
    }
    worst.age = Math.max(worst.age, Math.abs(gf.attributes.age - wf.attributes.age));
    worst.gender = Math.max(worst.gender, Math.abs(gf.attributes.gender.maleConfidence - wf.attributes.gender.maleConfidence));
    expect(Math.abs(gf.attributes.age - wf.attributes.age), `${what} face ${i} age`).toBeLessThanOrEqual(2);
    expect(gf.attributes.gender.type, what).toBe(wf.attributes.gender.type);
    expect(Math.abs(gf.attributes.gender.maleConfidence - wf.attributes.gender.maleConfidence), `${what} face ${i} gender`).toBeLessThanOrEqual(0.05);
  });
}

const embeddingOf = (base64: string) => new Float32Array(decodeBase64(base64).slice().buffer);
function cosine(a: Float32Array, b: Float32Array) {
  let [dot, na, nb] = [0, 0, 0];
  for (let i = 0; i < a.length; i++) [dot, na, nb] = [dot + a[i]! * b[i]!, na + a[i]! ** 2, nb + b[i]! ** 2];
  return dot / Math.sqrt(na * nb);
}

let pair: Blob;
let obama: Blob;
let reference: DetectResponse;

beforeAll(async () => {
  engine = await createEngine({ backend: 'wasm', storageName });
  [pair, obama] = await Promise.all([blobOf(pairUrl), blobOf(obamaUrl)]);
  reference = body(await engine.detect({ image: pair }));
  body(await engine.enroll({ image: obama, subject_id: 'encoded', gallery_name: 'decoded' }));
});
afterAll(() => engine?.close());

describe('decoded inputs: the same answers as the encoded photo', () => {
  const measured: Record<string, number> = {};
  afterAll(() => console.log(`[decoded-inputs] against the encoded photo: embedding cosine ${JSON.stringify(measured)}; largest differences ${JSON.stringify(worst)}`));

  for (const kind of DECODED_KINDS) {
    it(`${kind}: detect (2 faces) and enroll (embedding, stored JPEG) as the JPEG does; the caller's object stays usable`, async () => {
      const input = await decodedFrom(pair, kind);
      expectSameFaces(body(await engine.detect({ image: input })), reference, kind);
      // not taken from the caller (a transferred bitmap or frame would be empty now)
      const after = await createImageBitmap(input as ImageBitmapSource);
      expect([after.width, after.height]).toEqual([reference.images[0]!.width, reference.images[0]!.height]);
      after.close();

      const single = await decodedFrom(obama, kind);
      const enrolled = body(await engine.enroll({ image: single, subject_id: kind, gallery_name: 'decoded' }));
      expect(enrolled.images).toHaveLength(1);
      const file = body(await engine.exportGallery({ gallery_name: 'decoded' }));
      const template = (subject: string) => embeddingOf(file.subjects.find((s) => s.subject_id === subject)!.templates[0]!.embedding);
      measured[kind] = Math.round(cosine(template(kind), template('encoded')) * 10_000) / 10_000;
      expect(measured[kind], kind).toBeGreaterThanOrEqual(MIN_COSINE);
      // store_image on: the photo stored is the worker's JPEG of the decoded picture, at its size
      const [t] = body(await engine.subjectTemplates({ gallery_name: 'decoded', subject_id: kind }));
      const stored = body(await engine.templateImage({ gallery_name: 'decoded', subject_id: kind, face_id: t!.face_id }))!;
      expect(stored.image.type).toBe('image/jpeg');
      const [back, original] = await Promise.all([createImageBitmap(stored.image), createImageBitmap(obama)]);
      expect([back.width, back.height]).toEqual([original.width, original.height]);
      back.close();
      original.close();
      if (kind === 'VideoFrame') (single as VideoFrame).close();
      if (kind === 'VideoFrame') (input as VideoFrame).close();
    });
  }

  it('verify and recognize take a decoded input too; store_image off stores nothing', async () => {
    const bitmap = await createImageBitmap(obama);
    const verified = body(await engine.verify({ image: bitmap, subject_id: 'encoded', gallery_name: 'decoded' }));
    expect(verified.images[0]!.transaction.confidence).toBeGreaterThan(0.9);
    const recognized = body(await engine.recognize({ image: bitmap, gallery_name: 'decoded', max_num_results: 20 }));
    expect(recognized.images[0]!.candidates!.map((c) => c.subject_id)).toContain('encoded');
    body(await engine.enroll({ image: bitmap, subject_id: 'unstored', gallery_name: 'decoded' }, { storeImage: false }));
    const [t] = body(await engine.subjectTemplates({ gallery_name: 'decoded', subject_id: 'unstored' }));
    expect(t!.has_image).toBe(false);
    expect(bitmap.width).toBe(910);
  });
});

describe('EXIF orientation: a decoded picture is already upright and is not turned again', () => {
  it('an <img> and createImageBitmap(file) of an Orientation-6 JPEG answer as the file does', async () => {
    const file = await blobOf(exifUrl);
    const want = body(await engine.detect({ image: file }));
    const img = (await decodedFrom(file, 'HTMLImageElement')) as HTMLImageElement;
    expect([img.naturalWidth, img.naturalHeight]).toEqual([want.images[0]!.width, want.images[0]!.height]);
    expectSameFaces(body(await engine.detect({ image: img })), want, '<img> of an EXIF-6 JPEG');
    expectSameFaces(body(await engine.detect({ image: await createImageBitmap(file) })), want, 'createImageBitmap of an EXIF-6 JPEG');
  });
});

describe('unusable decoded inputs answer 5000 in the face error body', () => {
  const cases: [string, () => Promise<unknown>, RegExp][] = [
    ['a closed ImageBitmap', async () => { const b = await createImageBitmap(obama); b.close(); return b; }, /ImageBitmap is closed or was transferred/],
    ['a closed VideoFrame', async () => { const f = new VideoFrame(await createImageBitmap(obama), { timestamp: 0 }); f.close(); return f; }, /VideoFrame is closed/],
    ['a 0x0 canvas', async () => Object.assign(document.createElement('canvas'), { width: 0, height: 0 }), /canvas is 0x0 px/],
    ['a <video> with no current frame', async () => document.createElement('video'), /<video> has no current frame yet \(readyState 0\)/],
    ['an <img> that is still loading', async () => Object.assign(new Image(), { src: `${obamaUrl}?slow=${Date.now()}` }), /<img> has not finished loading/],
    ['an <img> without a picture', async () => new Image(), /<img> has no picture/],
    ['an ImageData whose buffer was transferred', async () => {
      const d = new ImageData(64, 64);
      structuredClone(d.data.buffer, { transfer: [d.data.buffer] });
      return d;
    }, /ImageData has no pixels/],
  ];
  for (const [what, make, message] of cases) {
    it(what, async () => {
      const answer = await engine.detect({ image: (await make()) as DecodedImageInput });
      expect(code(answer)?.ErrCode, JSON.stringify(answer)).toBe(5000);
      expect(code(answer)?.Message).toMatch(message);
    });
  }

  it('a tiny canvas is 5002 and a 20000 px wide one 5000, as an encoded photo of that size', async () => {
    expect(code(await engine.detect({ image: new OffscreenCanvas(8, 8) }))?.ErrCode).toBe(5002);
    expect(code(await engine.detect({ image: new OffscreenCanvas(20_000, 20) }))).toMatchObject({ ErrCode: 5000, Message: expect.stringMatching(/too large/) });
  });

  it('another object is 1003, naming what the image may be', async () => {
    const answer = await engine.detect({ image: { width: 10 } as unknown as ImageBitmap });
    expect(code(answer)).toMatchObject({ ErrCode: 1003, Message: expect.stringMatching(/ImageBitmap, <img>, <canvas>/) });
  });
});
