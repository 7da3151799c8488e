// /detect on faces the frame cuts or fills (issue 31): crops of shared photos made here, the
// truth being the face /detect finds on the uncut photo, clipped to the crop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import bidenUrl from '../../../shared/data/faces/biden/biden2.jpg?url';
import kitUrl from '../../../shared/data/faces/kit_harington/john1.jpeg?url';
import { createEngine, DetectResponseSchema, type DetectResponse, type Engine, type FaceErrorBody } from '../../src/index.ts';
import { borderCrops, closeUpCrops, intersect, iouOf, type Rect } from '../../tools/eval/cuts.ts';

/** the engine as shipped: it completes faces cut by the edge (cutFaces, docs/detection.md) */
let engine: Engine;
/** createEngine({ cutFaces: false }): the whole frame searched unpadded */
let unpadded: Engine;

function ok(r: DetectResponse | FaceErrorBody): DetectResponse {
  if ('Errors' in r) throw new Error(`expected faces, got ${JSON.stringify(r)}`);
  return DetectResponseSchema.parse(r);
}

const boxOf = (f: { topLeftX: number; topLeftY: number; width: number; height: number }): Rect => ({ x: f.topLeftX, y: f.topLeftY, width: f.width, height: f.height });

async function canvasOf(url: string): Promise<OffscreenCanvas> {
  const bmp = await createImageBitmap(await (await fetch(url)).blob());
  const canvas = new OffscreenCanvas(bmp.width, bmp.height);
  canvas.getContext('2d')!.drawImage(bmp, 0, 0);
  return canvas;
}

/** `rect` of the photo as a PNG, as a user's cropped photo would arrive. */
async function cropOf(photo: OffscreenCanvas, rect: Rect): Promise<Blob> {
  const out = new OffscreenCanvas(rect.width, rect.height);
  out.getContext('2d')!.drawImage(photo, rect.x, rect.y, rect.width, rect.height, 0, 0, rect.width, rect.height);
  return out.convertToBlob({ type: 'image/png' });
}

async function truthOf(photo: OffscreenCanvas): Promise<Rect> {
  const faces = ok(await engine.detect({ image: await photo.convertToBlob({ type: 'image/png' }) })).images[0]!.faces;
  expect(faces).toHaveLength(1);
  return boxOf(faces[0]!);
}

beforeAll(async () => {
  engine = await createEngine({ backend: 'wasm' });
  unpadded = await createEngine({ backend: 'wasm', cutFaces: false, storageName: 'detect-edges-unpadded' });
});
afterAll(() => {
  engine?.close();
  unpadded?.close();
});

describe('/detect: faces cut by the frame and close up', () => {
  it('a face cut in half by each edge, or by a corner, is found where it is (IoU ≥ 0.5 with the truth clipped to the crop); without cutFaces some are not', async () => {
    let missedUnpadded = 0;
    for (const url of [obamaUrl, bidenUrl]) {
      const photo = await canvasOf(url);
      const truth = await truthOf(photo);
      const crops = borderCrops(truth, photo.width, photo.height).filter((c) => /^(left|right|bottom) 50%|^top 30%|^top-right 25%|^bottom-left 25%/.test(c.label));
      expect(crops.length).toBeGreaterThanOrEqual(5);
      for (const crop of crops) {
        const image = await cropOf(photo, crop.rect);
        const plain = await unpadded.detect({ image });
        if ('Errors' in plain || !plain.images[0]!.faces.some((f) => iouOf(boxOf(f), crop.truth) >= 0.5)) missedUnpadded++;
        const res = ok(await engine.detect({ image }));
        const found = res.images[0]!;
        expect(found.faces, `${url} ${crop.label}`).toHaveLength(1);
        const f = found.faces[0]!;
        // the box is clipped to the image; the eyes and chin are the mesh's estimate and may lie outside it
        expect(f.topLeftX).toBeGreaterThanOrEqual(0);
        expect(f.topLeftY).toBeGreaterThanOrEqual(0);
        expect(f.topLeftX + f.width).toBeLessThanOrEqual(found.width);
        expect(f.topLeftY + f.height).toBeLessThanOrEqual(found.height);
        expect(iouOf(boxOf(f), crop.truth), `${url} ${crop.label}`).toBeGreaterThanOrEqual(0.5);
        // a chin left in the frame is where the uncut photo has it (the mesh's estimate of a cut-off one may be further off)
        const chinY = truth.y + truth.height - crop.rect.y;
        if (chinY < crop.rect.height) expect(Math.abs(f.chinTipY - chinY), `${url} ${crop.label} chin`).toBeLessThan(0.15 * truth.height);
      }
    }
    expect(missedUnpadded, 'cutFaces: false finds every cut face too: the option no longer switches anything').toBeGreaterThan(0);
  });

  it('a close-up filling 80–100% of the frame height is found', async () => {
    for (const url of [obamaUrl, kitUrl]) {
      const photo = await canvasOf(url);
      const truth = await truthOf(photo);
      const crops = closeUpCrops(truth, photo.width, photo.height).filter((c) => c.label !== 'close-up 60%');
      expect(crops.length).toBeGreaterThanOrEqual(1);
      for (const crop of crops) {
        const faces = ok(await engine.detect({ image: await cropOf(photo, crop.rect) })).images[0]!.faces;
        expect(faces, `${url} ${crop.label}`).toHaveLength(1);
        expect(iouOf(boxOf(faces[0]!), crop.truth), `${url} ${crop.label}`).toBeGreaterThanOrEqual(0.5);
        expect(intersect(boxOf(faces[0]!), crop.truth).height).toBeGreaterThan(0.6 * crop.rect.height);
      }
    }
  });
});
