// Build-time ORT optimisation (tools/onnx/ort-optimize.ts): the shipped graph is ORT's own
// rewrite of the stored model, read back with tools/onnx/parse-model.ts. It must compute the
// same outputs as the stored model and carry the fusions the browser would otherwise make.
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { buildModel } from '../../tools/convert-models/build.ts';
import { CATALOG } from '../../tools/convert-models/catalog.ts';
import { serializeModel } from '../../tools/onnx/onnx-model.ts';
import { parseModel } from '../../tools/onnx/parse-model.ts';
import { unpackStoredWeights } from '../../src/models/unpack-weights.ts';
import { realFaceCrop } from './helpers/parity.ts';
import { shippedManifest, shippedModelBytes } from './helpers/shipped-models.ts';

async function outputsOf(bytes: Uint8Array, side: number, range: readonly [number, number]): Promise<Float32Array[]> {
  const session = await ort.InferenceSession.create(unpackStoredWeights(bytes).model);
  const result = await session.run({ [session.inputNames[0]!]: new ort.Tensor('float32', realFaceCrop(side, range), [1, side, side, 3]) });
  await session.release();
  return session.outputNames.map((n) => result[n]!.data as Float32Array);
}

describe('build-time ORT optimisation', () => {
  it('parseModel reads back what serializeModel wrote', async () => {
    const { graph } = await buildModel(CATALOG.find((c) => c.id === 'blazeface-front')!, { float: true });
    const again = parseModel(serializeModel({ graph, opset: 17, producerName: 'test', producerVersion: '1' }));
    expect(again.opsets).toEqual([{ domain: '', version: 17 }]);
    expect(again.graph.nodes).toEqual(graph.nodes);
    expect(again.graph.inputs).toEqual(graph.inputs);
    expect(again.graph.outputs).toEqual(graph.outputs);
    expect(again.graph.initializers.map((t) => [t.name, t.dims, t.dataType, [...t.raw]])).toEqual(graph.initializers.map((t) => [t.name, t.dims, t.dataType, [...t.raw]]));
  });

  for (const { id, side } of [
    { id: 'gear', side: 176 },
    { id: 'faceapi-age-gender', side: 112 },
  ]) {
    it(`${id}: same outputs as the stored model on a real face, ORT's fusions already made`, async () => {
      const entry = CATALOG.find((c) => c.id === id)!;
      const stored = await buildModel(entry, { unoptimized: true });
      const shipped = await buildModel(entry);
      const ops = (g: typeof shipped.graph) => new Set(g.nodes.map((n) => `${n.domain ?? ''}:${n.opType}`));
      // ORT's activation fusion is done: FusedConv (com.microsoft) replaces Conv → Relu
      expect(ops(shipped.graph).has('com.microsoft:FusedConv')).toBe(true);
      expect(ops(stored.graph).has('com.microsoft:FusedConv')).toBe(false);
      // QDQ groups fused into QLinearConv (channels last, com.microsoft, where the build applies ORT's layout passes)
      const qlinear = (g: typeof shipped.graph) => ops(g).has(':QLinearConv') || ops(g).has('com.microsoft:QLinearConv');
      if (entry.quantize) expect([qlinear(stored.graph), qlinear(shipped.graph)]).toEqual([false, true]);
      const before = await outputsOf(stored.bytes, side, entry.input.range);
      const after = await outputsOf(shipped.bytes, side, entry.input.range);
      expect(after.length).toBe(before.length);
      after.forEach((values, o) => values.forEach((v, i) => expect(v).toBeCloseTo(before[o]![i]!, 5)));
    });
  }

  // the browser turns ORT's QDQ transformers off (src/worker/ort-backend.ts): a DequantizeLinear →
  // Conv → QuantizeLinear group left in a shipped graph would run as three ops instead of one
  // QLinearConv (a conv with float output, as the last int8 conv of GEAR, has nothing to fuse)
  for (const { id, file } of shippedManifest.models) {
    it(`${id}: shipped with every quantised convolution already fused`, () => {
      const { graph } = parseModel(unpackStoredWeights(shippedModelBytes(file)).model);
      const producer = new Map(graph.nodes.flatMap((n) => n.outputs.map((o) => [o, n.opType] as const)));
      const quantized = new Set(graph.nodes.filter((n) => n.opType === 'QuantizeLinear').map((n) => n.inputs[0]));
      const unfused = graph.nodes.filter(
        (n) => n.opType.endsWith('Conv') && n.inputs.some((i) => producer.get(i) === 'DequantizeLinear') && n.outputs.some((o) => quantized.has(o)),
      );
      expect(unfused.map((n) => n.name)).toEqual([]);
    });
  }

  // layout passes applied at build must give a graph every backend runs as written: no x86 NCHWc
  // ops (ORT's WASM build has no such kernels) and no FusedConv with a sum input (ORT's WebGPU EP
  // would run it without the sum)
  it('no shipped graph carries a layout pass that is not portable', () => {
    const found = shippedManifest.models.flatMap(({ id, file }) =>
      parseModel(unpackStoredWeights(shippedModelBytes(file)).model)
        .graph.nodes.filter((n) => n.domain === 'com.microsoft.nchwc' || (n.opType === 'FusedConv' && n.inputs.filter(Boolean).length > 3))
        .map((n) => `${id}: ${n.domain}.${n.opType}`),
    );
    expect(found).toEqual([]);
  });
});
