// GEAR as two parts (src/models/catalog.ts GEAR_SPLIT; built by tools/convert-models from the
// shipped gear.onnx, tools/onnx/split-graph.ts): the head on the two row windows of a 176-px face
// crop, each window's rows joined, then the tail, gives the whole gear.onnx's outputs bit for bit.
// Sessions as the browser creates them: stored weights unpacked, ORT's optimiser off (manifest
// `sessionOptimization`).
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GEAR_SPLIT } from '../../src/models/catalog.ts';
import { unpackStoredWeights } from '../../src/models/unpack-weights.ts';
import { calibrationCrops } from '../../tools/convert-models/calibrate.ts';
import { DataType, type GraphDef } from '../../tools/onnx/onnx-model.ts';
import { splitGraph } from '../../tools/onnx/split-graph.ts';
import { shippedManifest as manifest, shippedModelBytes } from './helpers/shipped-models.ts';

const entryOf = (id: string) => manifest.models.find((m) => m.id === id)!;
const session = (id: string) => {
  const entry = entryOf(id);
  expect(entry.sessionOptimization).toBe('disabled');
  return ort.InferenceSession.create(unpackStoredWeights(shippedModelBytes(entry.file)).model, { graphOptimizationLevel: entry.sessionOptimization });
};

describe('GEAR as head and tail', () => {
  const SIDE = GEAR_SPLIT.inputSize;
  let whole: ort.InferenceSession;
  let head: ort.InferenceSession;
  let tail: ort.InferenceSession;
  beforeAll(async () => {
    [whole, head, tail] = await Promise.all([session('gear'), session(GEAR_SPLIT.head), session(GEAR_SPLIT.tail)]);
  });
  afterAll(async () => {
    for (const s of [whole, head, tail]) await s?.release();
  });

  it('the manifest lists both parts: the head takes the crop, the tail the head\'s features and gives GEAR\'s outputs', () => {
    const [gear, h, t] = [entryOf('gear'), entryOf(GEAR_SPLIT.head), entryOf(GEAR_SPLIT.tail)];
    const rows = (SIDE - 8) / 2;
    expect(h.input).toMatchObject({ name: gear.input.name, shape: ['batch', SIDE, SIDE, 3], channels: 'RGB', range: gear.input.range, anySize: true });
    expect(h.outputs.map((o) => [o.name, o.shape])).toEqual([['features', ['batch', rows, rows, 96]]]);
    // the cut's uint8 grid dequantised: scale 81 / 255, zero point 0 (checked at build, tools/convert-models/build.ts)
    expect(t.input).toMatchObject({ name: 'features', shape: ['batch', rows, rows, 96], channels: 'features', range: [0, 81], anySize: true });
    expect(t.outputs).toEqual(gear.outputs);
  });

  it('the joined halves give the whole model\'s outputs bit for bit on real face crops', async () => {
    const [first, second] = GEAR_SPLIT.windows;
    const crops = calibrationCrops(SIDE, entryOf('gear').input.range as [number, number]).slice(0, 4);
    expect(crops.length).toBe(4);
    for (const crop of crops) {
      const rows = ([a, b]: readonly [number, number]) => new ort.Tensor('float32', crop.subarray(a * SIDE * 3, b * SIDE * 3), [1, b - a, SIDE, 3]);
      const halves = [];
      for (const w of [first, second]) {
        const features = (await head.run({ [head.inputNames[0]!]: rows(w) })).features!;
        expect(features.dims.slice(1, 2)).toEqual([GEAR_SPLIT.rowsEach]);
        halves.push(features);
      }
      const width = halves[0]!.dims[2]!;
      const rowFloats = width * 96;
      const joined = new Float32Array(2 * GEAR_SPLIT.rowsEach * rowFloats);
      halves.forEach((h, i) => joined.set((h.data as Float32Array).subarray(0, GEAR_SPLIT.rowsEach * rowFloats), i * GEAR_SPLIT.rowsEach * rowFloats));
      const split = await tail.run({ features: new ort.Tensor('float32', joined, [1, 2 * GEAR_SPLIT.rowsEach, width, 96]) });
      const expected = await whole.run({ [whole.inputNames[0]!]: rows([0, SIDE]) });
      for (const name of ['age_output', 'gender_output', 'race_output']) {
        expect([...(split[name]!.data as Float32Array)], name).toEqual([...(expected[name]!.data as Float32Array)]);
      }
    }
  });
});

describe('splitGraph', () => {
  // x → Relu → QLinearConv (the cut) → Relu → y; and a second output from the cut
  const scalar = (name: string, dataType: 1 | 2, raw: number[]) => ({ name, dims: [], dataType, raw: Uint8Array.from(raw) });
  const graph = (extra: GraphDef['nodes'] = []): GraphDef => ({
    name: 'tiny',
    nodes: [
      { opType: 'QuantizeLinear', name: 'q', inputs: ['x', 's', 'z'], outputs: ['xq'], attributes: {} },
      { opType: 'QLinearConv', name: 'conv', inputs: ['xq', 's', 'z', 'w', 's', 'z', 'ys', 'z'], outputs: ['cut'], attributes: {} },
      { opType: 'MaxPool', name: 'pool', inputs: ['cut'], outputs: ['y'], attributes: {} },
      ...extra,
    ],
    initializers: [scalar('s', DataType.FLOAT, [0, 0, 128, 63]), scalar('ys', DataType.FLOAT, [0, 0, 0, 64]), scalar('z', DataType.UINT8, [10]), { name: 'w', dims: [4, 1, 1, 1], dataType: DataType.INT8, raw: new Uint8Array(4) }, scalar('unused', DataType.FLOAT, [0, 0, 0, 0])],
    inputs: [{ name: 'x', dataType: DataType.FLOAT, dims: ['batch', 'height', 'width', 1] }],
    outputs: [{ name: 'y', dataType: DataType.UINT8 }],
  });

  it('cuts into a head ending in DequantizeLinear with the cut\'s grid and a tail starting with QuantizeLinear', () => {
    const { head, tail, range } = splitGraph(graph(), 'cut');
    expect(head.nodes.map((n) => n.opType)).toEqual(['QuantizeLinear', 'QLinearConv', 'DequantizeLinear']);
    expect(head.nodes.at(-1)!.inputs).toEqual(['cut', 'ys', 'z']);
    expect(head.outputs).toEqual([{ name: 'features', dataType: DataType.FLOAT, dims: ['batch', 'h', 'w', 4] }]);
    expect(head.initializers.map((t) => t.name).sort()).toEqual(['s', 'w', 'ys', 'z']);
    expect(tail.nodes.map((n) => [n.opType, n.inputs, n.outputs])).toEqual([
      ['QuantizeLinear', ['features', 'ys', 'z'], ['cut']],
      ['MaxPool', ['cut'], ['y']],
    ]);
    expect(tail.inputs).toEqual(head.outputs);
    expect(tail.initializers.map((t) => t.name).sort()).toEqual(['ys', 'z']);
    // y_scale 2, zero point 10
    expect(range).toEqual([-20, 490]);
  });

  it('refuses a cut the tail does not depend on alone', () => {
    const leaky = graph([{ opType: 'Add', name: 'skip', inputs: ['y', 'x'], outputs: ['y2'], attributes: {} }]);
    leaky.outputs = [{ name: 'y2', dataType: DataType.FLOAT }];
    expect(() => splitGraph(leaky, 'cut')).toThrow(/needs the head's tensors/);
    expect(() => splitGraph(graph(), 'xq')).toThrow(/not a QLinearConv/);
  });
});
