// The worker unpacks each model's stored weights (uint8 / float16 behind constant Cast → Mul →
// Add chains) to float32 before ORT sees it (src/models/unpack-weights.ts). Checked against
// ONNX Runtime itself: with its own constant folding switched off, ORT computes those chains
// at run time, and the unpacked model must give the same outputs on a real face.
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { GEAR_SPLIT } from '../../src/models/catalog.ts';
import { unpackStoredWeights } from '../../src/models/unpack-weights.ts';
import { parseModel } from '../../tools/onnx/parse-model.ts';
import { realFaceCrop, seededTensorData } from './helpers/parity.ts';
import { shippedManifest as manifest, shippedModelBytes } from './helpers/shipped-models.ts';


/** the manifest lists any-size graphs at their nominal size; the batch dimension is 1 */
const inputDims = (entry: (typeof manifest.models)[number]) => entry.input.shape.map((d) => (typeof d === 'number' ? d : 1));

describe('unpacking stored weights before ORT', () => {
  for (const entry of manifest.models) {
    it(`${entry.id}: same outputs as ORT computing the stored chains itself, no Cast/Mul/Add over constants left`, async () => {
      const stored = shippedModelBytes(entry.file);
      const { model, stats } = unpackStoredWeights(stored);
      // a stored chain starts with a Cast; weights too small to store in 8 bits stay float32 (all of GEAR's head's but its int8 convs)
      const casts = parseModel(stored).graph.nodes.filter((n) => n.opType === 'Cast').length;
      if (entry.weightStorage === 'float32') expect(casts).toBe(0);
      else if (entry.id !== GEAR_SPLIT.head) expect(casts).toBeGreaterThan(0);
      expect(stats.folded > 0).toBe(casts > 0);
      // unpacking twice finds nothing more: every constant chain went in one pass
      expect(unpackStoredWeights(model).stats.folded).toBe(0);

      const dims = inputDims(entry);
      const [h, w] = [dims[1]!, dims[2]!];
      // a model part's feature map (GEAR's tail): values in its range will do, the two graphs get the same
      const range = entry.input.range as [number, number];
      const crop = entry.input.channels === 'features' ? seededTensorData(h * w * dims[3]!, 7, range) : realFaceCrop(h, range, dims[3] === 1);
      expect(crop.length).toBe(h * w * dims[3]!);
      const outputs = [];
      for (const bytes of [stored, model]) {
        const session = await ort.InferenceSession.create(bytes, { graphOptimizationLevel: 'disabled' });
        outputs.push(await session.run({ [session.inputNames[0]!]: new ort.Tensor('float32', crop, dims) }));
        await session.release();
      }
      const [before, after] = outputs as [ort.InferenceSession.OnnxValueMapType, ort.InferenceSession.OnnxValueMapType];
      expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
      for (const name of Object.keys(before)) {
        const a = before[name]!.data as Float32Array;
        const b = after[name]!.data as Float32Array;
        expect(b.length).toBe(a.length);
        let scale = 1e-6;
        for (const v of a) scale = Math.max(scale, Math.abs(v));
        for (let i = 0; i < a.length; i++) expect(Math.abs(a[i]! - b[i]!)).toBeLessThanOrEqual(1e-5 * scale);
      }
    });
  }
});
