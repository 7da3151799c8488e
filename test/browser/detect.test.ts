// /detect end to end in Chromium: the engine's worker, real models, real images.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import bidenUrl from '../../../shared/data/faces/biden/biden2.jpg?url';
import bidenExifUrl from '../../../shared/data/faces/biden/biden2_exif_orientation6.jpg?url';
import amyUrl from '../../../shared/data/faces/amy/amy1.png?url';
import solvayUrl from '../../../shared/data/groups/solvay1927.jpg?url';
import whiteUrl from '../../../shared/data/negatives/white_150.png?url';
import truncatedUrl from '../../../shared/data/bad/truncated_40pct.jpg?url';
import { createEngine, DetectResponseSchema, type DetectResponse, type Engine, type FaceErrorBody } from '../../src/index.ts';

let engine: Engine;
const blobOf = async (url: string) => (await fetch(url)).blob();

function ok(r: DetectResponse | FaceErrorBody): DetectResponse {
  if ('Errors' in r) throw new Error(`expected faces, got ${JSON.stringify(r)}`);
  return DetectResponseSchema.parse(r);
}
function errCode(r: DetectResponse | FaceErrorBody): number | undefined {
  return 'Errors' in r ? r.Errors[0]!.ErrCode : undefined;
}

/** The image turned 90° clockwise, as a PNG blob. */
async function rotated90(url: string): Promise<Blob> {
  const bmp = await createImageBitmap(await blobOf(url));
  const canvas = new OffscreenCanvas(bmp.height, bmp.width);
  const ctx = canvas.getContext('2d')!;
  ctx.translate(bmp.height, 0);
  ctx.rotate(Math.PI / 2);
  ctx.drawImage(bmp, 0, 0);
  return canvas.convertToBlob({ type: 'image/png' });
}

beforeAll(async () => {
  engine = await createEngine({ backend: 'wasm' });
});
afterAll(() => engine?.close());

describe('/detect', () => {
  it('a single frontal face: every field present, typed and plausible', async () => {
    const res = ok(await engine.detect({ image: await blobOf(obamaUrl) }));
    const [image] = res.images;
    expect(image!.status).toBe('Complete');
    expect([image!.width, image!.height]).toEqual([910, 1137]);
    expect(image!.faces).toHaveLength(1);
    const f = image!.faces[0]!;
    expect(f.face_id).toBe(1);
    // the box is inside the image and holds the eyes and chin
    expect(f.topLeftX).toBeGreaterThanOrEqual(0);
    expect(f.topLeftY + f.height).toBeLessThanOrEqual(1137);
    for (const [x, y] of [[f.leftEyeCenterX, f.leftEyeCenterY], [f.rightEyeCenterX, f.rightEyeCenterY], [f.chinTipX, f.chinTipY]] as const) {
      expect(x).toBeGreaterThan(f.topLeftX);
      expect(x).toBeLessThan(f.topLeftX + f.width);
      expect(y).toBeGreaterThan(f.topLeftY);
      expect(y).toBeLessThanOrEqual(f.topLeftY + f.height);
    }
    // the subject's left eye is on the image's right; the chin is below the eyes
    expect(f.leftEyeCenterX).toBeGreaterThan(f.rightEyeCenterX);
    expect(f.chinTipY).toBeGreaterThan(Math.max(f.leftEyeCenterY, f.rightEyeCenterY));
    expect(f.eyeDistance).toBeCloseTo(Math.hypot(f.leftEyeCenterX - f.rightEyeCenterX, f.leftEyeCenterY - f.rightEyeCenterY), -1);
    expect(Math.abs(f.yaw)).toBeLessThan(20);
    expect(Math.abs(f.pitch)).toBeLessThan(25);
    expect(Math.abs(f.roll)).toBeLessThan(10);
    expect(f.confidence).toBeGreaterThan(0.8);
    expect(f.quality).toBeGreaterThan(0.5);
    expect(f.quality).toBeLessThanOrEqual(1);
    const a = f.attributes;
    expect(a.gender.type).toBe('M');
    expect(a.gender.maleConfidence + a.gender.femaleConfidence).toBeCloseTo(1, 2);
    expect(a.age).toBeGreaterThan(30);
    expect(a.age).toBeLessThan(75);
    expect(a.asian + a.black + a.white + a.other).toBeCloseTo(1, 2);
    expect(a.hispanic).toBe(-1); // not measured (no model has the class): the documented unknown
    expect(['Together', 'Apart']).toContain(a.lips);
    expect(a.liveness).toBeUndefined();
  });

  it('the 29-face group photo: every face, ids 1..n', async () => {
    const res = ok(await engine.detect({ image: await blobOf(solvayUrl) }));
    const faces = res.images[0]!.faces;
    expect(faces.length).toBeGreaterThanOrEqual(28);
    expect(faces.length).toBeLessThanOrEqual(30);
    expect(faces.map((f) => f.face_id)).toEqual(faces.map((_, i) => i + 1));
  });

  it('minHeadScale: smaller faces are not reported', async () => {
    const image = await blobOf(solvayUrl); // 2048x922, faces about 60-75 px high
    expect(errCode(await engine.detect({ image, minHeadScale: 0.2 }))).toBe(5002);
    const res = ok(await engine.detect({ image, minHeadScale: 0.06 }));
    for (const f of res.images[0]!.faces) expect(f.height).toBeGreaterThanOrEqual(0.06 * 922 * 0.8);
  });

  it('a tight 150x150 crop is found', async () => {
    const res = ok(await engine.detect({ image: await blobOf(amyUrl) }));
    expect(res.images[0]!.faces).toHaveLength(1);
  });

  it('EXIF orientation is honoured: the rotated copy gives the same face', async () => {
    const upright = ok(await engine.detect({ image: await blobOf(bidenUrl) })).images[0]!;
    const exif = ok(await engine.detect({ image: await blobOf(bidenExifUrl) })).images[0]!;
    expect([exif.width, exif.height]).toEqual([upright.width, upright.height]);
    const a = upright.faces[0]!;
    const b = exif.faces[0]!;
    expect(Math.abs(a.leftEyeCenterX - b.leftEyeCenterX)).toBeLessThan(10);
    expect(Math.abs(a.chinTipY - b.chinTipY)).toBeLessThan(10);
  });

  it('ROLL finds a face turned 90° in the image plane and reports its roll', async () => {
    const image = await rotated90(obamaUrl);
    const res = ok(await engine.detect({ image, selector: 'ROLL' }));
    expect(res.images[0]!.faces).toHaveLength(1);
    expect(Math.abs(Math.abs(res.images[0]!.faces[0]!.roll) - 90)).toBeLessThan(15);
  });

  it('liveness selector adds liveness 0..1; selectors combine', async () => {
    const res = ok(await engine.detect({ image: await blobOf(obamaUrl), selector: 'FRONTAL,liveness' }));
    const l = res.images[0]!.faces[0]!.attributes.liveness;
    expect(l).toBeGreaterThanOrEqual(0);
    expect(l).toBeLessThanOrEqual(1);
  });

  it('base64 (with and without data: prefix) and URL inputs', async () => {
    const bytes = new Uint8Array(await (await blobOf(obamaUrl)).arrayBuffer());
    let binary = '';
    for (const b of bytes) binary += String.fromCharCode(b);
    const b64 = btoa(binary);
    expect(ok(await engine.detect({ image: b64 })).images[0]!.faces).toHaveLength(1);
    expect(ok(await engine.detect({ image: `data:image/jpeg;base64,${b64}` })).images[0]!.faces).toHaveLength(1);
    const byUrl = ok(await engine.detect({ image: new URL(obamaUrl, location.href).href }));
    expect(byUrl.images[0]!.file).toBe('obama.jpg');
  });

  it('errors: no face 5002, undecodable 5000, unknown selector 1003, bad minHeadScale 1003, missing image 1002', async () => {
    expect(await engine.detect({ image: await blobOf(whiteUrl) })).toEqual({ Errors: [{ ErrCode: 5002, Message: 'no faces found in the image' }] });
    expect(errCode(await engine.detect({ image: await blobOf(truncatedUrl) }))).toBe(5000);
    const bad = await engine.detect({ image: await blobOf(obamaUrl), selector: 'SIDEWAYS' });
    expect(errCode(bad)).toBe(1003);
    expect(JSON.stringify(bad)).toContain('SIDEWAYS');
    expect(errCode(await engine.detect({ image: await blobOf(obamaUrl), minHeadScale: 0.9 }))).toBe(1003);
    expect(errCode(await engine.detect({} as never))).toBe(1002);
  });
});
