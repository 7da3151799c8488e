// The converter's own graph passes (tools/onnx/clip-activations.ts, fold-scale-shift.ts) must
// leave each model's function unchanged: the float graph with and without them, in ONNX
// Runtime, on a real face, and the ops they remove must be gone.
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { buildModel, packageDir } from '../../tools/convert-models/build.ts';
import { CATALOG } from '../../tools/convert-models/catalog.ts';
import { convertTfjsGraph } from '../../tools/convert-models/tfjs-graph.ts';
import { fuseClipActivations } from '../../tools/onnx/clip-activations.ts';
import { foldScaleShiftIntoNextConv } from '../../tools/onnx/fold-scale-shift.ts';
import { floatTensor } from '../../tools/onnx/graph-builder.ts';
import { DataType, serializeModel, type GraphDef, type NodeDef } from '../../tools/onnx/onnx-model.ts';
import { realFaceCrop, seededRandom } from './helpers/parity.ts';

const count = (g: GraphDef, op: string) => g.nodes.filter((n) => n.opType === op).length;

async function outputsOf(bytes: Uint8Array, side: number, range: readonly [number, number]) {
  const session = await ort.InferenceSession.create(bytes);
  const result = await session.run({ [session.inputNames[0]!]: new ort.Tensor('float32', realFaceCrop(side, range), [1, side, side, 3]) });
  await session.release();
  return result;
}

describe('converter graph passes', () => {
  for (const { id, side, check } of [
    // ReLU6 written as Relu → Minimum → Maximum: 27 of them become Clip
    { id: 'faceres', side: 224, check: (before: GraphDef, after: GraphDef) => [count(before, 'Min') === 27, count(after, 'Min') + count(after, 'Max') === 0, count(after, 'Clip') === 27] },
    // BatchNorm after Relu, before MaxPool → VALID conv: 4 of 5 fold into the next conv (the last feeds a global max)
    { id: 'gear', side: 198, check: (before: GraphDef, after: GraphDef) => [count(before, 'Mul') === 5, count(after, 'Mul') === 1, count(after, 'Add') === count(before, 'Add') - 4] },
  ]) {
    it(`${id}: same outputs on a real face, the rewritten ops gone`, async () => {
      const entry = CATALOG.find((c) => c.id === id)!;
      if (entry.source.kind !== 'tfjs-graph') throw new Error(`${id} is not a tfjs graph`);
      const src = entry.source;
      const plain = convertTfjsGraph(join(packageDir(entry.package), src.modelJson), { name: id, renameOutputs: src.renameOutputs, float16Weights: true, anySize: src.anySize !== undefined });
      const passed = await buildModel(entry, { float: true });
      expect(check(plain, passed.graph)).toEqual([true, true, true]);
      const before = await outputsOf(serializeModel({ graph: plain, opset: 17, producerName: 'test', producerVersion: '1' }), side, entry.input.range);
      const after = await outputsOf(passed.bytes, side, entry.input.range);
      for (const name of Object.keys(before)) {
        const a = before[name]!.data as Float32Array;
        const b = after[name]!.data as Float32Array;
        expect(b.length).toBe(a.length);
        for (let i = 0; i < a.length; i++) expect(Math.abs(a[i]! - b[i]!)).toBeLessThanOrEqual(1e-5);
      }
    });
  }
});

// small graphs where a pass must hold back: the rewrite would change the function
const node = (opType: string, inputs: string[], output: string, attributes: NodeDef['attributes'] = {}): NodeDef => ({ opType, name: output, inputs, outputs: [output], attributes });
const random = seededRandom(7);
const values = (n: number, lo = -1, hi = 1) => Float32Array.from({ length: n }, () => lo + (hi - lo) * random());

/** x [1,2,6,6] → Mul(scale) → Add(shift) → MaxPool 2×2 → Conv 3×3 (3 out) → y */
function scaleShiftGraph(scale: number[], pads?: number[]): GraphDef {
  return {
    name: 'scale-shift',
    inputs: [{ name: 'x', dataType: DataType.FLOAT, dims: [1, 2, 6, 6] }],
    outputs: [{ name: 'y', dataType: DataType.FLOAT }],
    initializers: [
      { name: 's', ...floatTensor([2, 1, 1], scale) },
      { name: 'b', ...floatTensor([2, 1, 1], [0.3, -0.2]) },
      { name: 'w', ...floatTensor([3, 2, 3, 3], values(54)) },
      { name: 'wb', ...floatTensor([3], [0.1, 0, -0.1]) },
    ],
    nodes: [
      node('Mul', ['x', 's'], 'm'),
      node('Add', ['m', 'b'], 'a'),
      node('MaxPool', ['a'], 'p', { kernel_shape: { kind: 'ints', value: [2, 2] }, strides: { kind: 'ints', value: [2, 2] } }),
      node('Conv', ['p', 'w', 'wb'], 'y', pads ? { pads: { kind: 'ints', value: pads } } : {}),
    ],
  };
}

/** x [1,2,4,4] → Relu → Min(hi) → Max(lo) → y */
function clipGraph(hi: number, lo: number): GraphDef {
  return {
    name: 'clip',
    inputs: [{ name: 'x', dataType: DataType.FLOAT, dims: [1, 2, 4, 4] }],
    outputs: [{ name: 'y', dataType: DataType.FLOAT }],
    initializers: [
      { name: 'hi', ...floatTensor([], [hi]) },
      { name: 'lo', ...floatTensor([], [lo]) },
    ],
    nodes: [node('Relu', ['x'], 'r'), node('Min', ['r', 'hi'], 'n'), node('Max', ['n', 'lo'], 'y')],
  };
}

async function run(graph: GraphDef, x: Float32Array, dims: number[]): Promise<Float32Array> {
  const session = await ort.InferenceSession.create(serializeModel({ graph, opset: 17, producerName: 'test', producerVersion: '1' }));
  const out = await session.run({ x: new ort.Tensor('float32', x, dims) });
  return out.y!.data as Float32Array;
}

describe('converter graph passes hold back where the rewrite would not be exact', () => {
  it('folds a positive scale+shift through MaxPool into an unpadded conv, with the same outputs', async () => {
    const graph = scaleShiftGraph([0.5, 2]);
    const folded = foldScaleShiftIntoNextConv(graph);
    expect(folded.nodes.map((n) => n.opType)).toEqual(['MaxPool', 'Conv']);
    const x = values(72, -3, 3);
    const [a, b] = [await run(graph, x, [1, 2, 6, 6]), await run(folded, x, [1, 2, 6, 6])];
    for (let i = 0; i < a.length; i++) expect(b[i]).toBeCloseTo(a[i]!, 5);
  });

  it('leaves a negative scale (max pooling would pick the other value) and a padded conv alone', () => {
    for (const graph of [scaleShiftGraph([0.5, -2]), scaleShiftGraph([0.5, 2], [1, 1, 1, 1])]) {
      expect(foldScaleShiftIntoNextConv(graph)).toBe(graph);
    }
  });

  it('turns Relu → Min → Max into one Clip with the same outputs, and leaves an empty range alone', async () => {
    const graph = clipGraph(6, 0);
    const clipped = fuseClipActivations(graph);
    expect(clipped.nodes.map((n) => n.opType)).toEqual(['Clip']);
    const x = values(32, -10, 10);
    expect([...(await run(clipped, x, [1, 2, 4, 4]))]).toEqual([...(await run(graph, x, [1, 2, 4, 4]))]);
    const empty = clipGraph(1, 2); // max(min(x, 1), 2) is always 2: not a clip
    expect(fuseClipActivations(empty)).toBe(empty);
  });
});
