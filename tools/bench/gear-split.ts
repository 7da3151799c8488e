// `npx tsx tools/bench/gear-split.ts`: whether GEAR (the costliest per-face model) can run as two
// halves on two workers with the same answer. Every GEAR convolution is unpadded, so its first
// three (conv2d_1–3, ~80% of its MACs) can run on two overlapping row windows of the 176-px crop
// and the halves' rows of conv2d_3's output joined before the rest runs. Builds the two parts from
// public/models/gear.onnx in memory, checks the joined tensor and race_output against the whole
// model bit for bit, and times them in onnxruntime-web's WASM on one thread (as a model peer runs).
//   --runs N (20)  timed runs of each, after 3 untimed
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import * as ort from 'onnxruntime-web';
import { unpackStoredWeights } from '../../src/models/unpack-weights.ts';
import { projectRoot } from '../harness/browser-session.ts';
import { DataType, serializeModel, type NodeDef, type ValueInfo } from '../onnx/onnx-model.ts';
import { parseModel } from '../onnx/parse-model.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '20' } } });
ort.env.wasm.numThreads = 1;

const SIDE = 176;
/** conv2d_3's output (uint8, channels last): 84 rows for a 176-row crop */
const CUT = 'StatefulPartitionedCall/model_1/conv2d_3/Relu';
const CUT_ROWS = 84;
const CUT_CHANNELS = 96;
/** output row r of conv2d_3 reads input rows 2r … 2r + 9 (two 3×3 convs, a 2×2 pool, a 3×3 conv) */
const inputRowsFor = (first: number, end: number): [number, number] => [2 * first, 2 * (end - 1) + 10];

const { model } = unpackStoredWeights(new Uint8Array(readFileSync(resolve(projectRoot, 'public/models/gear.onnx'))));
const { graph, opsets } = parseModel(model);
const cutAt = graph.nodes.findIndex((n) => n.outputs.includes(CUT));
if (cutAt < 0) throw new Error(`${CUT} is not in gear.onnx`);

/** a model of some of GEAR's nodes, with the initializers they use */
function part(nodes: NodeDef[], inputs: ValueInfo[], outputs: ValueInfo[]): Uint8Array {
  const used = new Set(nodes.flatMap((n) => n.inputs));
  return serializeModel({
    graph: { name: 'gear-part', nodes, initializers: graph.initializers.filter((t) => used.has(t.name)), inputs, outputs },
    opset: opsets.find((o) => !o.domain)?.version ?? 13,
    extraOpsets: opsets.filter((o) => o.domain),
    producerName: 'gear-split',
    producerVersion: '0',
  });
}

/** the nodes of `nodes` that `output` depends on (the race head only: age and gender come from AgeGenderNet) */
function needed(nodes: NodeDef[], output: string): NodeDef[] {
  const producer = new Map(nodes.flatMap((n) => n.outputs.map((o) => [o, n] as const)));
  const keep = new Set<NodeDef>();
  for (const stack = [output]; stack.length; ) {
    const n = producer.get(stack.pop()!);
    if (n && !keep.has(n)) keep.add(n), stack.push(...n.inputs);
  }
  return nodes.filter((n) => keep.has(n));
}

const cut: ValueInfo = { name: CUT, dataType: DataType.UINT8, dims: ['n', 'h', 'w', CUT_CHANNELS] };
const input = graph.inputs[0]!;
const options = { graphOptimizationLevel: 'disabled' as const };
const whole = await ort.InferenceSession.create(model, options);
const head = await ort.InferenceSession.create(part(graph.nodes.slice(0, cutAt + 1), [input], [cut]), options);
const tail = await ort.InferenceSession.create(part(needed(graph.nodes.slice(cutAt + 1), 'race_output'), [cut], graph.outputs.filter((o) => o.name === 'race_output')), options);

// a crop-like input: smooth gradients with noise, 0..1
const crop = Float32Array.from({ length: SIDE * SIDE * 3 }, (_, i) => (((i / (SIDE * 3)) | 0) + (i % (SIDE * 3))) % 255 / 365 + Math.random() * 0.3);
const rows = ([r0, r1]: [number, number]) => new ort.Tensor('float32', crop.slice(r0 * SIDE * 3, r1 * SIDE * 3), [1, r1 - r0, SIDE, 3]);
const half = CUT_ROWS / 2;
const windows = [inputRowsFor(0, half), inputRowsFor(half, CUT_ROWS)];
const cutOf = async (w: [number, number]) => (await head.run({ [input.name]: rows(w) }))[CUT]!;

// one after the other: onnxruntime-web's run is not safe to enter twice (docs/benchmarks.md)
const top = await cutOf(windows[0]!);
const bottom = await cutOf(windows[1]!);
const rowBytes = top.dims[2]! * CUT_CHANNELS;
const joined = new Uint8Array(CUT_ROWS * rowBytes);
joined.set((top.data as Uint8Array).subarray(0, half * rowBytes), 0);
joined.set((bottom.data as Uint8Array).subarray(0, half * rowBytes), half * rowBytes);
const full = (await cutOf([0, SIDE])).data as Uint8Array;
const joinedTensor = new ort.Tensor('uint8', joined, [1, CUT_ROWS, top.dims[2]!, CUT_CHANNELS]);
const expected = (await whole.run({ [input.name]: rows([0, SIDE]) })).race_output!.data as Float32Array;
const got = (await tail.run({ [CUT]: joinedTensor })).race_output!.data as Float32Array;
console.log(`input windows ${windows.map(([a, b]) => `${a}–${b}`).join(' and ')} of ${SIDE} rows`);
console.log(`joined conv2d_3 output: ${joined.filter((v, i) => v !== full[i]).length} of ${joined.length} bytes differ from the whole crop's`);
console.log(`race_output: whole ${[...expected].map((v) => v.toFixed(6)).join(' ')}; split ${[...got].map((v) => v.toFixed(6)).join(' ')}; bit-identical ${expected.every((v, i) => v === got[i])}`);

async function ms(run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 3; i++) await run();
  const started = performance.now();
  for (let i = 0; i < Number(values.runs); i++) await run();
  return (performance.now() - started) / Number(values.runs);
}
const wholeMs = await ms(() => whole.run({ [input.name]: rows([0, SIDE]) }));
const halfMs = await ms(() => head.run({ [input.name]: rows(windows[0]!) }));
const tailMs = await ms(() => tail.run({ [CUT]: joinedTensor }));
console.log(`one thread, ms a run: whole GEAR ${wholeMs.toFixed(1)}; one half of the head ${halfMs.toFixed(1)}, the tail ${tailMs.toFixed(1)}`);
console.log(`two workers: ${(halfMs + tailMs).toFixed(1)} ms on the critical path (${((halfMs + tailMs) / wholeMs).toFixed(2)} of the whole), ${(2 * halfMs + tailMs).toFixed(1)} ms of CPU`);
