// The shipped models store their weights in 8 bits (tools/onnx/compress-weights.ts). Each must
// stay close to the converter's float graph on a real face, and the files must stay small.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { modelsFor } from '../../src/models/capabilities.ts';
import { cosine } from '../../src/service/calibration.ts';
import { buildModel } from '../../tools/convert-models/build.ts';
import { CATALOG } from '../../tools/convert-models/catalog.ts';
import { quantize8 } from '../../tools/onnx/compress-weights.ts';
import { calibrationCrops } from '../../tools/convert-models/calibrate.ts';
import { realFaceCrop, seededRandom } from './helpers/parity.ts';
import { MODELS_DIR, shippedManifest as manifest } from './helpers/shipped-models.ts';


describe('8-bit weight storage', () => {
  it('quantize8 keeps a tensor already on one 8-bit grid exactly, and bounds the error otherwise', () => {
    const random = seededRandom(3);
    const q = Uint8Array.from({ length: 600 }, () => Math.floor(random() * 256));
    q[0] = 0;
    q[1] = 255;
    const onGrid = Float32Array.from(q, (v) => Math.fround(v * 0.0123 - 1.5));
    const back = quantize8(onGrid, 6);
    expect(back.scale.length).toBe(1);
    expect([...back.q]).toEqual([...q]);

    const values = Float32Array.from({ length: 600 }, (_, i) => Math.sin(i * 0.37) * (1 + Math.floor(i / 100)));
    const per = quantize8(values, 6);
    expect(per.scale.length).toBe(6);
    for (let i = 0; i < values.length; i++) {
      const s = Math.floor(i / 100);
      const restored = per.q[i]! * per.scale[s]! + per.min[s]!;
      expect(Math.abs(restored - values[i]!)).toBeLessThanOrEqual(per.scale[s]! / 2 + 1e-6);
    }
  });

  it('the default /detect + /enroll + /recognize models fit in 12 MB and all models in 20 MB', () => {
    const bytes = (id: string) => statSync(join(MODELS_DIR, manifest.models.find((m) => m.id === id)!.file)).size;
    const defaultIds = modelsFor(['detect', 'recognize']);
    expect(defaultIds).toEqual(expect.arrayContaining(['blazeface-front', 'facemesh', 'gear', 'faceapi-age-gender', 'faceapi-recognition']));
    const defaults = defaultIds.reduce((sum, id) => sum + bytes(id), 0);
    const all = manifest.models.reduce((sum, m) => sum + bytes(m.id), 0);
    expect(defaults).toBeLessThanOrEqual(12e6);
    expect(all).toBeLessThanOrEqual(20e6);
  });

  it('int8 GEAR gives the float model\'s gender and ethnicity on the calibration faces (at most one change each)', async () => {
    const entry = CATALOG.find((c) => c.id === 'gear')!;
    const crops = calibrationCrops(198, entry.input.range);
    const float = await ort.InferenceSession.create((await buildModel(entry, { float: true })).bytes);
    const shipped = await ort.InferenceSession.create(join(MODELS_DIR, 'gear.onnx'));
    const argmax = (d: ArrayLike<number>) => Array.from(d).indexOf(Math.max(...Array.from(d)));
    const changed = { race_output: 0, gender_output: 0 };
    for (const crop of crops) {
      const feeds = { [float.inputNames[0]!]: new ort.Tensor('float32', crop, [1, 198, 198, 3]) };
      const [a, b] = [await float.run(feeds), await shipped.run(feeds)];
      for (const k of Object.keys(changed) as (keyof typeof changed)[]) if (argmax(a[k]!.data as Float32Array) !== argmax(b[k]!.data as Float32Array)) changed[k]++;
    }
    expect(crops.length).toBeGreaterThanOrEqual(40);
    expect(changed.race_output).toBeLessThanOrEqual(1);
    expect(changed.gender_output).toBeLessThanOrEqual(1);
  });

  it('int8 antispoof gives the float model\'s real-face probability on the calibration faces (mean change ≤ 0.01, none over 0.05)', async () => {
    const entry = CATALOG.find((c) => c.id === 'antispoof')!;
    const crops = calibrationCrops(128, entry.input.range);
    const float = await ort.InferenceSession.create((await buildModel(entry, { float: true })).bytes);
    const shipped = await ort.InferenceSession.create(join(MODELS_DIR, 'antispoof.onnx'));
    const changes: number[] = [];
    for (const crop of crops) {
      const feeds = { [float.inputNames[0]!]: new ort.Tensor('float32', crop, [1, 128, 128, 3]) };
      const [a, b] = [await float.run(feeds), await shipped.run(feeds)];
      changes.push(Math.abs((a.activation_4!.data as Float32Array)[0]! - (b.activation_4!.data as Float32Array)[0]!));
    }
    expect(crops.length).toBeGreaterThanOrEqual(40);
    expect(changes.reduce((x, y) => x + y, 0) / changes.length).toBeLessThanOrEqual(0.01);
    expect(Math.max(...changes)).toBeLessThanOrEqual(0.05);
  });

  it('int8 FaceRes gives the float model\'s gender (at most one change) and age (mean change ≤ 1 year) on the calibration faces', async () => {
    const entry = CATALOG.find((c) => c.id === 'faceres')!;
    const crops = calibrationCrops(224, entry.input.range);
    const float = await ort.InferenceSession.create((await buildModel(entry, { float: true })).bytes);
    const shipped = await ort.InferenceSession.create(join(MODELS_DIR, 'faceres.onnx'));
    const male = (r: ort.InferenceSession.OnnxValueMapType) => (r['gender_pred/Sigmoid:0']!.data as Float32Array)[0]! > 0.5;
    const age = (r: ort.InferenceSession.OnnxValueMapType) => Array.from(r['age_pred/Softmax:0']!.data as Float32Array).reduce((sum, p, i) => sum + p * i, 0);
    let flips = 0;
    let ageChange = 0;
    for (const crop of crops) {
      const feeds = { [float.inputNames[0]!]: new ort.Tensor('float32', crop, [1, 224, 224, 3]) };
      const [a, b] = [await float.run(feeds), await shipped.run(feeds)];
      if (male(a) !== male(b)) flips++;
      ageChange += Math.abs(age(a) - age(b));
    }
    expect(flips).toBeLessThanOrEqual(1);
    expect(ageChange / crops.length).toBeLessThanOrEqual(1);
  });

  it('8-bit AgeGenderNet gives the float model\'s gender (at most one change) and age (mean change ≤ 1 year) on the calibration faces', async () => {
    const entry = CATALOG.find((c) => c.id === 'faceapi-age-gender')!;
    const crops = calibrationCrops(112, entry.input.range);
    const float = await ort.InferenceSession.create((await buildModel(entry, { float: true })).bytes);
    const shipped = await ort.InferenceSession.create(join(MODELS_DIR, 'faceapi-age-gender.onnx'));
    let flips = 0;
    let ageChange = 0;
    for (const crop of crops) {
      const feeds = { input: new ort.Tensor('float32', crop, [1, 112, 112, 3]) };
      const [a, b] = [await float.run(feeds), await shipped.run(feeds)];
      if ((a.gender!.data as Float32Array)[0]! > 0.5 !== (b.gender!.data as Float32Array)[0]! > 0.5) flips++;
      ageChange += Math.abs((a.age!.data as Float32Array)[0]! - (b.age!.data as Float32Array)[0]!);
    }
    console.log(`AgeGenderNet 8-bit vs float on ${crops.length} faces: ${flips} gender flips, mean age change ${(ageChange / crops.length).toFixed(2)} years`);
    expect(crops.length).toBeGreaterThanOrEqual(40);
    expect(flips).toBeLessThanOrEqual(1);
    expect(ageChange / crops.length).toBeLessThanOrEqual(1);
  });

  for (const entry of CATALOG) {
    // a model part's weights are its whole's, checked there; the parts give the whole's outputs (gear-split.test.ts)
    if (entry.source.kind === 'part') continue;
    it(`${entry.id}: the shipped file matches the float graph on a real face (cosine ≥ 0.99 per output)`, async () => {
      const model = manifest.models.find((m) => m.id === entry.id)!;
      const float = await ort.InferenceSession.create((await buildModel(entry, { float: true })).bytes);
      const shipped = await ort.InferenceSession.create(join(MODELS_DIR, model.file));
      const [, size, , channels] = model.input.shape.map((d) => (typeof d === 'number' ? d : 1)) as number[];
      const data = realFaceCrop(size!, model.input.range, model.input.channels === 'gray');
      const feeds = { [model.input.name]: new ort.Tensor('float32', data, [1, size!, size!, channels!]) };
      const [a, b] = [await float.run(feeds), await shipped.run(feeds)];
      for (const name of Object.keys(a)) {
        expect(cosine(a[name]!.data as Float32Array, b[name]!.data as Float32Array), name).toBeGreaterThanOrEqual(0.99);
      }
      await float.release();
      await shipped.release();
    });
  }
});
