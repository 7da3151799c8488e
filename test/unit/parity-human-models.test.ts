// Every converted TF.js graph model must match TF.js (pure-JS CPU backend) on the same inputs
// (before its weights are stored in 8 bits).
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildModel } from '../../tools/convert-models/build.ts';
import { CATALOG } from '../../tools/convert-models/catalog.ts';
import { graphOutputs, type TfjsModelJson } from '../../tools/convert-models/tfjs-graph.ts';
import { PARITY_LIMIT, difference, formatRow, realFaceCrop, seededTensorData } from './helpers/parity.ts';
import { shippedManifest as manifest } from './helpers/shipped-models.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const rows: string[] = [];

async function loadTfjs(modelJsonPath: string): Promise<tf.GraphModel> {
  const json = JSON.parse(readFileSync(modelJsonPath, 'utf8')) as TfjsModelJson & { weightsManifest: { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[] };
  const buffers = json.weightsManifest.flatMap((g) => g.paths.map((p) => readFileSync(join(dirname(modelJsonPath), p))));
  const weightData = new Uint8Array(Buffer.concat(buffers)).buffer;
  return tf.loadGraphModel(
    tf.io.fromMemory({
      modelTopology: json.modelTopology as unknown as tf.io.ModelJSON['modelTopology'],
      weightSpecs: json.weightsManifest.flatMap((g) => g.weights),
      weightData,
      format: 'graph-model',
      signature: json.signature as object,
    }),
  );
}

beforeAll(async () => {
  await tf.setBackend('cpu');
});

afterAll(() => {
  console.log(['model                    input    output                   difference', ...rows].join('\n'));
});

describe('TF.js graph models: ONNX Runtime matches TF.js', () => {
  for (const entry of CATALOG) {
    if (entry.source.kind !== 'tfjs-graph') continue;
    const source = entry.source;
    it(entry.id, async () => {
      const model = manifest.models.find((m) => m.id === entry.id);
      expect(model, `${entry.id} is in the manifest`).toBeDefined();
      const tfModel = await loadTfjs(join(ROOT, 'node_modules', entry.package, source.modelJson));
      // the converter's float graph: the shipped file stores the same weights in 8 bits,
      // checked against this graph in model-weights.test.ts
      const session = await ort.InferenceSession.create((await buildModel(entry, { float: true })).bytes);
      const [, h, w, c] = model!.input.shape.map((d) => (typeof d === 'number' ? d : 2)) as number[];
      const batch = model!.input.shape[0] === 'batch' ? 2 : 1;
      const size = h! * w! * c!;
      const gray = model!.input.channels === 'gray';
      const inputs: Record<string, Float32Array> = {
        seeded: seededTensorData(batch * size, 7, model!.input.range),
        face: realFaceCrop(h!, model!.input.range, gray),
      };
      const outputs = graphOutputs(JSON.parse(readFileSync(join(ROOT, 'node_modules', entry.package, source.modelJson), 'utf8')), source.renameOutputs);
      for (const [inputName, data] of Object.entries(inputs)) {
        const n = data.length / size;
        const dims = [n, h!, w!, c!];
        const onnx = await session.run({ [model!.input.name]: new ort.Tensor('float32', data, dims) });
        const reference = tf.tidy(() => tfModel.execute(tf.tensor(data, dims), outputs.map(([t]) => t)));
        const refs = Array.isArray(reference) ? reference : [reference];
        for (const [i, [, name]] of outputs.entries()) {
          const d = difference(refs[i]!.dataSync(), onnx[name]!.data as Float32Array);
          rows.push(formatRow(entry.id, inputName, name, d));
          expect(d.maxRel, `${entry.id} ${inputName} ${name}`).toBeLessThan(PARITY_LIMIT);
        }
        tf.dispose(refs);
      }
      await session.release();
      tfModel.dispose();
    });
  }
});
