// minHeadScale set by the caller searches every scale down to it. By default the detector leaves
// out passes for faces over 8× smaller than every face it found (fast on portraits); a caller who
// asks for small faces gets them even beside a much larger one: here the 1927 Solvay group
// (29 faces, ~50 px) beside a face 14× its faces' size, real models in real Chromium.
import { afterAll, beforeAll, expect, it } from 'vitest';
import solvayUrl from '../../../shared/data/groups/solvay1927.jpg?url';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import { createEngine, type DetectResponse, type Engine } from '../../src/index.ts';

let engine: Engine;
beforeAll(async () => {
  engine = await createEngine({ backend: 'wasm', storageName: `head-scale-${crypto.randomUUID()}` });
});
afterAll(() => engine?.close());

const bitmap = async (url: string) => createImageBitmap(await (await fetch(url)).blob());

it('an explicit minHeadScale finds a crowd’s small faces beside a face 14× larger', async () => {
  const [crowd, face] = await Promise.all([bitmap(solvayUrl), bitmap(obamaUrl)]);
  const faceWidth = face.width * 3;
  const canvas = new OffscreenCanvas(faceWidth + crowd.width, Math.max(face.height * 3, crowd.height));
  const context = canvas.getContext('2d')!;
  context.fillStyle = '#808080';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(face, 0, 0, faceWidth, face.height * 3);
  context.drawImage(crowd, faceWidth, 0);
  const faces = (r: DetectResponse | { Errors: unknown }) => ('images' in r ? r.images[0]!.faces : []);
  const inCrowd = (list: ReturnType<typeof faces>) => list.filter((f) => f.topLeftX >= faceWidth);

  const explicit = faces(await engine.detect({ image: canvas, minHeadScale: 0.015 }));
  const byDefault = faces(await engine.detect({ image: canvas }));
  console.log(`big face beside the Solvay group: crowd faces ${inCrowd(explicit).length} with minHeadScale .015 set, ${inCrowd(byDefault).length} by default`);
  const large = explicit.filter((f) => f.topLeftX < faceWidth);
  expect(large).toHaveLength(1);
  expect(large[0]!.height).toBeGreaterThan(600);
  expect(inCrowd(explicit).length).toBeGreaterThanOrEqual(15);
}, 180_000);
