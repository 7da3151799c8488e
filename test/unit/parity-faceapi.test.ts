// Parity of the ONNX rebuilds of face-api's recognition and expression nets against
// @vladmandic/face-api itself running on the pure-JS @tensorflow/tfjs CPU backend.
// Both sides get identical NHWC float tensors at the nets' own input size, so no
// resize/pad happens inside face-api's toBatchTensor and only the nets are compared.
import { readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import * as ort from 'onnxruntime-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { serializeModel } from '../../tools/onnx/onnx-model.ts';
import type { GraphDef } from '../../tools/onnx/onnx-model.ts';
import { buildFaceRecognitionGraph } from '../../tools/convert-models/faceapi/recognition.ts';
import { buildFaceExpressionGraph, FACE_EXPRESSION_LABELS } from '../../tools/convert-models/faceapi/expression.ts';
import { AGE_GENDER_INPUT_SIZE, buildAgeGenderGraph } from '../../tools/convert-models/faceapi/age-gender.ts';
import { difference, seededTensorData, type Difference } from './helpers/parity.ts';

const MODEL_DIR = join(process.cwd(), 'node_modules/@vladmandic/face-api/model');
const FACE_JPEG = join(process.cwd(), '../shared/data/faces/obama/obama.jpg');
/** Square face crop in obama.jpg (910×1137): face-api's SSD box was x 374, y 110, 228×309. */
const FACE_BOX = { x: 338, y: 114, size: 310 };
const MAX_REL = 1e-4;

// ---- face-api on tfjs-cpu ------------------------------------------------------

interface TfTensor {
  shape: number[];
  data(): Promise<Float32Array>;
  dispose(): void;
}
interface FaceApiNet {
  loadFromDisk(dir: string): Promise<void>;
  forward(input: TfTensor | TfTensor[]): Promise<TfTensor>;
  /** FaceProcessor nets only: the classifier logits before softmax */
  runNet?(input: unknown): TfTensor;
}
interface FaceApi {
  tf: {
    setBackend(name: string): Promise<boolean>;
    ready(): Promise<void>;
    getBackend(): string;
    tensor3d(values: Float32Array, shape: [number, number, number], dtype: 'float32'): TfTensor;
  };
  nets: {
    faceRecognitionNet: FaceApiNet;
    faceExpressionNet: FaceApiNet;
    ageGenderNet: { loadFromDisk(dir: string): Promise<void>; forward(input: TfTensor | TfTensor[]): Promise<{ age: TfTensor; gender: TfTensor }> };
  };
  FaceExpressions: new (probabilities: number[]) => Record<string, number>;
  toNetInput(input: TfTensor | TfTensor[]): Promise<unknown>;
}

/**
 * face-api's Node bundles require tfjs-node (native) or tfjs + tfjs-backend-wasm.
 * The wasm one is used with its `require('@tensorflow/tfjs-backend-wasm')` answered by
 * an empty module: the bundle only re-exports that package's symbols, so face-api
 * then runs entirely on the project's pure-JS @tensorflow/tfjs with the CPU backend.
 */
function loadFaceApi(): FaceApi {
  const require = createRequire(import.meta.url);
  const loader = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const original = loader._load;
  loader._load = function (this: unknown, request: string, ...rest: unknown[]) {
    if (request === '@tensorflow/tfjs-backend-wasm') return {};
    return original.call(this, request, ...rest);
  };
  try {
    return require('@vladmandic/face-api/dist/face-api.node-wasm.js') as FaceApi;
  } finally {
    loader._load = original;
  }
}

// ---- inputs --------------------------------------------------------------------

function randomImages(seed: number, batch: number, size: number): Float32Array {
  return seededTensorData(batch * size * size * 3, seed, [0, 255]);
}

/** Bilinear (half-pixel centres) resize of a square RGB crop to size×size, rounded to 0..255. */
function cropResize(rgb: Uint8Array, width: number, box: typeof FACE_BOX, size: number): Float32Array {
  const out = new Float32Array(size * size * 3);
  const scale = box.size / size;
  const clamp = (v: number) => Math.min(Math.max(v, 0), box.size - 1);
  for (let y = 0; y < size; y++) {
    const sy = clamp((y + 0.5) * scale - 0.5);
    const y0 = Math.floor(sy);
    const y1 = Math.min(y0 + 1, box.size - 1);
    const fy = sy - y0;
    for (let x = 0; x < size; x++) {
      const sx = clamp((x + 0.5) * scale - 0.5);
      const x0 = Math.floor(sx);
      const x1 = Math.min(x0 + 1, box.size - 1);
      const fx = sx - x0;
      for (let c = 0; c < 3; c++) {
        const px = (yy: number, xx: number) => rgb[((box.y + yy) * width + box.x + xx) * 3 + c]!;
        const top = px(y0, x0) * (1 - fx) + px(y0, x1) * fx;
        const bottom = px(y1, x0) * (1 - fx) + px(y1, x1) * fx;
        out[(y * size + x) * 3 + c] = Math.round(top * (1 - fy) + bottom * fy);
      }
    }
  }
  return out;
}

// ---- comparison ----------------------------------------------------------------

function compare(label: string, actual: Float32Array, reference: Float32Array): Difference {
  expect(actual.length).toBe(reference.length);
  const d = difference(reference, actual);
  console.log(`${label.padEnd(40)} max abs ${d.maxAbs.toExponential(2)}   max rel ${d.maxRel.toExponential(2)}`);
  return d;
}

/**
 * The same graph with the softmax input also exposed as an output: a saturated
 * softmax (a clearly happy face gives ~1 and ~1e-19) hides differences that the
 * logits still show.
 */
function withLogitsOutput(graph: GraphDef): { graph: GraphDef; logits: string } {
  const logits = graph.nodes.find((n) => n.opType === 'Softmax')?.inputs[0];
  if (!logits) throw new Error('graph has no Softmax');
  return { graph: { ...graph, outputs: [...graph.outputs, { name: logits, dataType: 1, dims: ['batch', 7] }] }, logits };
}

function serialize(graph: GraphDef): Uint8Array {
  return serializeModel({ graph, opset: 17, producerName: 'kairos-in-browser parity test', producerVersion: '0' });
}

interface Case {
  model: string;
  build: (dir: string) => GraphDef;
  net: () => FaceApiNet;
  size: number;
  output: string;
  width: number;
}

describe('face-api weight-only nets rebuilt in ONNX', () => {
  let faceapi: FaceApi;
  let face: { rgb: Uint8Array; width: number };

  beforeAll(async () => {
    faceapi = loadFaceApi();
    await faceapi.tf.setBackend('cpu');
    await faceapi.tf.ready();
    expect(faceapi.tf.getBackend()).toBe('cpu');
    await faceapi.nets.faceRecognitionNet.loadFromDisk(MODEL_DIR);
    await faceapi.nets.faceExpressionNet.loadFromDisk(MODEL_DIR);
    await faceapi.nets.ageGenderNet.loadFromDisk(MODEL_DIR);
    const img = jpeg.decode(readFileSync(FACE_JPEG), { useTArray: true, formatAsRGBA: false });
    face = { rgb: img.data, width: img.width };
  });

  const cases: Case[] = [
    { model: 'recognition', build: buildFaceRecognitionGraph, net: () => faceapi.nets.faceRecognitionNet, size: 150, output: 'descriptor', width: 128 },
    { model: 'expression', build: buildFaceExpressionGraph, net: () => faceapi.nets.faceExpressionNet, size: 112, output: 'expressions', width: 7 },
  ];

  for (const c of cases) {
    it(`${c.model}: matches face-api on tfjs-cpu`, async () => {
      const bytes = serialize(c.build(MODEL_DIR));
      expect(Buffer.from(serialize(c.build(MODEL_DIR))).equals(Buffer.from(bytes))).toBe(true); // deterministic build
      const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1 });

      const runOnnx = async (images: Float32Array, batch: number, s = session, output = c.output) => {
        const result = await s.run({ input: new ort.Tensor('float32', images, [batch, c.size, c.size, 3]) });
        const out = result[output]!;
        expect(out.dims).toEqual([batch, c.width]);
        return out.data as Float32Array;
      };
      const runFaceApi = async (images: Float32Array, batch: number, logits = false) => {
        const perImage = c.size * c.size * 3;
        const tensors = Array.from({ length: batch }, (_, i) =>
          faceapi.tf.tensor3d(images.slice(i * perImage, (i + 1) * perImage), [c.size, c.size, 3], 'float32'),
        );
        // an array input makes a batch NetInput; a single Tensor4D of batch > 1 is rejected by face-api
        const input = batch === 1 ? tensors[0]! : tensors;
        const net = c.net();
        const out = logits && net.runNet ? net.runNet(await faceapi.toNetInput(input)) : await net.forward(input);
        expect(out.shape).toEqual([batch, c.width]);
        const data = await out.data();
        out.dispose();
        tensors.forEach((t) => t.dispose());
        return data;
      };

      const random = randomImages(c.model === 'recognition' ? 1234 : 5678, 2, c.size);
      const r = compare(`${c.model} / random batch 2`, await runOnnx(random, 2), await runFaceApi(random, 2));
      expect(r.maxRel).toBeLessThan(MAX_REL);

      const crop = cropResize(face.rgb, face.width, FACE_BOX, c.size);
      const onnxFace = await runOnnx(crop, 1);
      const f = compare(`${c.model} / obama.jpg face crop`, onnxFace, await runFaceApi(crop, 1));
      expect(f.maxRel).toBeLessThan(MAX_REL);

      if (c.model === 'expression') {
        const { graph, logits } = withLogitsOutput(c.build(MODEL_DIR));
        const probe = await ort.InferenceSession.create(serialize(graph), { intraOpNumThreads: 1 });
        for (const [name, images, batch] of [['random batch 2', random, 2], ['obama.jpg face crop', crop, 1]] as const) {
          const l = compare(`${c.model} logits / ${name}`, await runOnnx(images, batch, probe, logits), await runFaceApi(images, batch, true));
          expect(l.maxRel).toBeLessThan(MAX_REL);
        }
        await probe.release();
        console.log(`expression / obama.jpg probabilities: ${[...onnxFace].map((p, i) => `${FACE_EXPRESSION_LABELS[i]} ${p.toExponential(2)}`).join(', ')}`);

        // output order: FaceExpressions maps index i to FACE_EXPRESSION_LABELS[i]
        const byName = new faceapi.FaceExpressions([0, 1, 2, 3, 4, 5, 6]);
        expect(FACE_EXPRESSION_LABELS.map((name) => byName[name])).toEqual([0, 1, 2, 3, 4, 5, 6]);
      }

      // speed: batch 1, one ORT thread (informative only)
      const one = crop;
      for (let i = 0; i < 3; i++) await runOnnx(one, 1);
      const runs = 20;
      const t0 = performance.now();
      for (let i = 0; i < runs; i++) await runOnnx(one, 1);
      console.log(`${c.model} onnxruntime-node 1 thread: ${((performance.now() - t0) / runs).toFixed(2)} ms/face`);

      await session.release();
    });
  }

  it('age-gender: matches face-api on tfjs-cpu (age in years, [male, female] softmax)', async () => {
    const size = AGE_GENDER_INPUT_SIZE;
    const bytes = serialize(buildAgeGenderGraph(MODEL_DIR));
    expect(Buffer.from(serialize(buildAgeGenderGraph(MODEL_DIR))).equals(Buffer.from(bytes))).toBe(true); // deterministic build
    const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1 });
    const runBoth = async (images: Float32Array, batch: number) => {
      const result = await session.run({ input: new ort.Tensor('float32', images, [batch, size, size, 3]) });
      expect(result.age!.dims).toEqual([batch, 1]);
      expect(result.gender!.dims).toEqual([batch, 2]);
      const perImage = size * size * 3;
      const tensors = Array.from({ length: batch }, (_, i) => faceapi.tf.tensor3d(images.slice(i * perImage, (i + 1) * perImage), [size, size, 3], 'float32'));
      const out = await faceapi.nets.ageGenderNet.forward(batch === 1 ? tensors[0]! : tensors);
      const reference = { age: await out.age.data(), gender: await out.gender.data() };
      out.age.dispose();
      out.gender.dispose();
      tensors.forEach((t) => t.dispose());
      return { onnx: { age: result.age!.data as Float32Array, gender: result.gender!.data as Float32Array }, reference };
    };

    const random = randomImages(4321, 2, size);
    const crop = cropResize(face.rgb, face.width, FACE_BOX, size);
    for (const [label, images, batch] of [['random batch 2', random, 2], ['obama.jpg face crop', crop, 1]] as const) {
      const { onnx, reference } = await runBoth(images, batch);
      expect(compare(`age-gender age / ${label}`, onnx.age, reference.age).maxRel).toBeLessThan(MAX_REL);
      expect(compare(`age-gender gender / ${label}`, onnx.gender, reference.gender).maxRel).toBeLessThan(MAX_REL);
    }
    // a known face: Obama, in his late 40s in this photo, is male (face-api's own reading)
    const { onnx } = await runBoth(crop, 1);
    console.log(`age-gender / obama.jpg: age ${onnx.age[0]!.toFixed(1)}, male ${onnx.gender[0]!.toFixed(3)}`);
    expect(onnx.gender[0]).toBeGreaterThan(0.5);
    await session.release();
  });
});
