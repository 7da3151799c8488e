// `npx tsx tools/bench/gear-split.ts`: what GEAR (the costliest per-face model) costs as the two
// shipped parts (public/models/gear-head.onnx, gear-tail.onnx; src/models/catalog.ts GEAR_SPLIT)
// on two workers. Every GEAR convolution is unpadded, so its first three (conv2d_1–3, ~80% of its
// MACs) run on two overlapping row windows of the 176-px crop and the halves' rows of conv2d_3's
// output are joined before the tail runs. Checks race_output against the whole gear.onnx bit for
// bit, and times the parts in onnxruntime-web's WASM on one thread (as a model peer runs), with
// sessions as the browser makes them (stored weights unpacked, manifest `sessionOptimization`).
//   --runs N (20)  timed runs of each, after 3 untimed
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import * as ort from 'onnxruntime-web';
import { GEAR_SPLIT } from '../../src/models/catalog.ts';
import { ModelManifestSchema } from '../../src/models/manifest.ts';
import { unpackStoredWeights } from '../../src/models/unpack-weights.ts';
import { ROOT } from '../convert-models/build.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '20' } } });
ort.env.wasm.numThreads = 1;

const MODELS = join(ROOT, 'public/models');
const manifest = ModelManifestSchema.parse(JSON.parse(readFileSync(join(MODELS, 'manifest.json'), 'utf8')));
async function session(id: string): Promise<ort.InferenceSession> {
  const entry = manifest.models.find((m) => m.id === id)!;
  const { model } = unpackStoredWeights(new Uint8Array(readFileSync(join(MODELS, entry.file))));
  return ort.InferenceSession.create(model, { graphOptimizationLevel: entry.sessionOptimization });
}
const whole = await session('gear');
const head = await session(GEAR_SPLIT.head);
const tail = await session(GEAR_SPLIT.tail);
const SIDE = GEAR_SPLIT.inputSize;
const input = whole.inputNames[0]!;

// a crop-like input: smooth gradients with noise, 0..1
const crop = Float32Array.from({ length: SIDE * SIDE * 3 }, (_, i) => (((i / (SIDE * 3)) | 0) + (i % (SIDE * 3))) % 255 / 365 + Math.random() * 0.3);
const rows = ([r0, r1]: readonly [number, number]) => new ort.Tensor('float32', crop.slice(r0 * SIDE * 3, r1 * SIDE * 3), [1, r1 - r0, SIDE, 3]);
const [first, second] = GEAR_SPLIT.windows;
const featuresOf = async (w: readonly [number, number]) => (await head.run({ [input]: rows(w) })).features!;

// one after the other: onnxruntime-web's run is not safe to enter twice (docs/benchmarks.md)
const halves = [await featuresOf(first), await featuresOf(second)];
const width = halves[0]!.dims[2]!;
const channels = halves[0]!.dims[3]!;
const halfFloats = GEAR_SPLIT.rowsEach * width * channels;
const joined = new Float32Array(2 * halfFloats);
halves.forEach((h, i) => joined.set((h.data as Float32Array).subarray(0, halfFloats), i * halfFloats));
const joinedTensor = new ort.Tensor('float32', joined, [1, 2 * GEAR_SPLIT.rowsEach, width, channels]);
const expected = (await whole.run({ [input]: rows([0, SIDE]) })).race_output!.data as Float32Array;
const got = (await tail.run({ features: joinedTensor })).race_output!.data as Float32Array;
console.log(`input windows ${GEAR_SPLIT.windows.map(([a, b]) => `${a}–${b}`).join(' and ')} of ${SIDE} rows`);
console.log(`race_output: whole ${[...expected].map((v) => v.toFixed(6)).join(' ')}; split ${[...got].map((v) => v.toFixed(6)).join(' ')}; bit-identical ${expected.every((v, i) => v === got[i])}`);

async function ms(run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 3; i++) await run();
  const started = performance.now();
  for (let i = 0; i < Number(values.runs); i++) await run();
  return (performance.now() - started) / Number(values.runs);
}
const wholeMs = await ms(() => whole.run({ [input]: rows([0, SIDE]) }));
const halfMs = await ms(() => head.run({ [input]: rows(first) }));
const tailMs = await ms(() => tail.run({ features: joinedTensor }));
console.log(`one thread, ms a run: whole GEAR ${wholeMs.toFixed(1)}; one half of the head ${halfMs.toFixed(1)}, the tail ${tailMs.toFixed(1)}`);
console.log(`two workers: ${(halfMs + tailMs).toFixed(1)} ms on the critical path (${((halfMs + tailMs) / wholeMs).toFixed(2)} of the whole), ${(2 * halfMs + tailMs).toFixed(1)} ms of CPU`);
