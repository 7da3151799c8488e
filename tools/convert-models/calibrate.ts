// Activation ranges for static int8 quantisation (tools/onnx/quantize-qdq.ts): the float graph
// runs in onnxruntime-node (one thread, so runs repeat exactly) on face crops cut from
// ../shared/data/faces, with every tensor the quantiser needs as an extra output.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import * as ort from 'onnxruntime-node';
import { serializeModel, type GraphDef } from '../onnx/onnx-model.ts';
import { calibrationTensors, type Range } from '../onnx/quantize-qdq.ts';
import { ROOT } from './build.ts';

const FACES = join(ROOT, '../shared/data/faces');

/** Bilinear crop of an RGBA image: a square of `side` px centred at (cx, cy), to size×size RGB in [lo, hi]. */
function cropResize(img: { width: number; height: number; data: Uint8Array }, cx: number, cy: number, side: number, size: number, [lo, hi]: readonly [number, number]): Float32Array {
  const out = new Float32Array(size * size * 3);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const sx = Math.min(img.width - 1, Math.max(0, cx - side / 2 + ((x + 0.5) * side) / size - 0.5));
      const sy = Math.min(img.height - 1, Math.max(0, cy - side / 2 + ((y + 0.5) * side) / size - 0.5));
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      const x1 = Math.min(img.width - 1, x0 + 1);
      const y1 = Math.min(img.height - 1, y0 + 1);
      const fx = sx - x0;
      const fy = sy - y0;
      for (let c = 0; c < 3; c++) {
        const p = (xx: number, yy: number) => img.data[(yy * img.width + xx) * 4 + c]!;
        const v = (p(x0, y0) * (1 - fx) + p(x1, y0) * fx) * (1 - fy) + (p(x0, y1) * (1 - fx) + p(x1, y1) * fx) * fy;
        out[(y * size + x) * 3 + c] = lo + (v / 255) * (hi - lo);
      }
    }
  }
  return out;
}

/** Face crops from every JPEG portrait of ../shared/data/faces (the face sits near the centre, upper half). */
const cropCache = new Map<string, Float32Array[]>();

export function calibrationCrops(size: number, range: readonly [number, number]): Float32Array[] {
  const key = `${size}:${range}`;
  const cached = cropCache.get(key);
  if (cached) return cached;
  const crops: Float32Array[] = [];
  for (const identity of readdirSync(FACES).sort()) {
    for (const file of readdirSync(join(FACES, identity)).sort()) {
      if (!/\.jpe?g$/i.test(file)) continue;
      const img = jpeg.decode(readFileSync(join(FACES, identity, file)), { formatAsRGBA: true, maxMemoryUsageInMB: 1024 });
      const side = 0.55 * Math.min(img.width, img.height);
      crops.push(cropResize(img, img.width / 2, Math.min(img.height * 0.42, img.height - side / 2), side, size, range));
    }
  }
  cropCache.set(key, crops);
  return crops;
}

/** 2 significant digits, rounded outwards: the same ranges on any CPU, so builds stay byte-identical. */
const outward = (v: number, up: boolean) => {
  if (v === 0) return 0;
  const step = 10 ** (Math.floor(Math.log10(Math.abs(v))) - 1);
  return (up ? Math.ceil(v / step) : Math.floor(v / step)) * step;
};

export async function calibrate(graph: GraphDef, inputs: Float32Array[], dims: number[]): Promise<Map<string, Range>> {
  const names = calibrationTensors(graph);
  const probe: GraphDef = { ...graph, outputs: [...graph.outputs, ...names.filter((n) => !graph.outputs.some((o) => o.name === n)).map((name) => ({ name, dataType: 1 as const }))] };
  const bytes = serializeModel({ graph: probe, opset: 17, producerName: 'calibrate', producerVersion: '1' });
  const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all' });
  const ranges = new Map<string, Range>();
  for (const data of inputs) {
    const out = await session.run({ [graph.inputs[0]!.name]: new ort.Tensor('float32', data, dims) }, names);
    for (const name of names) {
      const values = out[name]!.data as Float32Array;
      let min = Infinity;
      let max = -Infinity;
      for (const v of values) {
        if (v < min) min = v;
        if (v > max) max = v;
      }
      const r = ranges.get(name);
      ranges.set(name, { min: Math.min(min, r?.min ?? Infinity), max: Math.max(max, r?.max ?? -Infinity) });
    }
  }
  await session.release();
  for (const [name, r] of ranges) ranges.set(name, { min: outward(r.min, false), max: outward(r.max, true) });
  return ranges;
}
