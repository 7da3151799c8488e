// The converter's own graph passes (tools/onnx/clip-activations.ts, fold-scale-shift.ts) must
// leave each model's function unchanged: the float graph with and without them, in ONNX
// Runtime, on a real face, and the ops they remove must be gone.
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { buildModel, packageDir } from '../../tools/convert-models/build.ts';
import { CATALOG } from '../../tools/convert-models/catalog.ts';
import { convertTfjsGraph } from '../../tools/convert-models/tfjs-graph.ts';
import { serializeModel, type GraphDef } from '../../tools/onnx/onnx-model.ts';
import { realFaceCrop } from './helpers/parity.ts';

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
