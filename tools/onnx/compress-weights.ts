// Stores a graph's large float weights as 8 bits per value (a quarter of float32, half of
// float16) and rebuilds them in the graph: Cast(uint8) → Mul(scale) → Add(min). Every input
// of that chain is a constant, so ONNX Runtime folds it back to float32 weights when it
// creates the session: the file shrinks, inference speed is unchanged (pure on GraphDef).
import { float16ToFloat32 } from '../convert-models/tfjs-weights.ts';
import type { GraphBuilder } from './graph-builder.ts';
import { DataType, type GraphDef, type NodeDef, type TensorData } from './onnx-model.ts';

export interface CompressOptions {
  /** tensors with fewer values stay as they are (biases, small constants) */
  minValues: number;
  /** uint8: 8-bit affine per output channel; float16: rounded halves (for weights 8 bits measurably hurt) */
  storage: 'uint8' | 'float16';
}

export const DEFAULT_COMPRESS: CompressOptions = { minValues: 2048, storage: 'uint8' };

/** float32 → the nearest IEEE half (round half to even), as bits. */
export function float32ToFloat16(v: number): number {
  const f = new Float32Array([v]);
  const x = new Uint32Array(f.buffer)[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  const mant = x & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    const m = (mant | 0x800000) >>> (1 - e + 13);
    const rest = (mant | 0x800000) & ((1 << (1 - e + 13)) - 1);
    const half = 1 << (1 - e + 12);
    return sign | (m + (rest > half || (rest === half && m & 1) ? 1 : 0));
  }
  const m = mant >>> 13;
  const rest = mant & 0x1fff;
  const rounded = (e << 10) + m + (rest > 0x1000 || (rest === 0x1000 && m & 1) ? 1 : 0);
  return sign | rounded;
}

/** The values of a FLOAT or FLOAT16 initializer as float32. */
export function floatValues(t: TensorData): Float32Array {
  const view = new DataView(t.raw.buffer, t.raw.byteOffset, t.raw.byteLength);
  if (t.dataType === DataType.FLOAT) {
    return Float32Array.from({ length: t.raw.byteLength / 4 }, (_, i) => view.getFloat32(i * 4, true));
  }
  if (t.dataType === DataType.FLOAT16) {
    return Float32Array.from({ length: t.raw.byteLength / 2 }, (_, i) => float16ToFloat32(view.getUint16(i * 2, true)));
  }
  throw new Error(`not a float tensor (data type ${t.dataType})`);
}

export interface Quantized8 {
  q: Uint8Array;
  /** one (scale, min) pair per slice along axis 0, or a single pair for the whole tensor */
  scale: Float32Array;
  min: Float32Array;
}

function affine(values: Float32Array, from: number, to: number): { scale: number; min: number } {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = from; i < to; i++) {
    lo = Math.min(lo, values[i]!);
    hi = Math.max(hi, values[i]!);
  }
  return { scale: hi > lo ? (hi - lo) / 255 : 1, min: lo };
}

/**
 * Asymmetric 8-bit quantisation, per slice of axis 0 (a Conv filter's output channel). A tensor
 * that already sits on one 8-bit grid (face-api ships its weights as `q*scale + min` per
 * tensor) keeps that grid, so it comes back exactly.
 */
export function quantize8(values: Float32Array, dim0: number): Quantized8 {
  const whole = affine(values, 0, values.length);
  const onGrid = values.every((v) => {
    const q = Math.round((v - whole.min) / whole.scale);
    return Math.abs(q * whole.scale + whole.min - v) <= 1e-3 * whole.scale;
  });
  const slices = onGrid ? 1 : dim0;
  const per = values.length / slices;
  const q = new Uint8Array(values.length);
  const scale = new Float32Array(slices);
  const min = new Float32Array(slices);
  for (let s = 0; s < slices; s++) {
    const a = onGrid ? whole : affine(values, s * per, (s + 1) * per);
    scale[s] = a.scale;
    min[s] = a.min;
    for (let i = s * per; i < (s + 1) * per; i++) q[i] = Math.min(255, Math.max(0, Math.round((values[i]! - a.min) / a.scale)));
  }
  return { q, scale, min };
}

/** Adds an 8-bit weight and its Cast → Mul → Add chain to a graph under construction; returns the float tensor's name. */
export function dequantized8(b: GraphBuilder, hint: string, dims: number[], w: Quantized8): string {
  const paramDims = w.scale.length === 1 ? [] : [w.scale.length, ...dims.slice(1).map(() => 1)];
  const q = b.initializer(`${hint}/q8/values`, { dims, dataType: DataType.UINT8, raw: w.q });
  const asFloat = b.node('Cast', [q], { attrs: { to: DataType.FLOAT }, name: `${hint}/q8/cast` });
  const scaled = b.node('Mul', [asFloat, b.constFloat(`${hint}/q8/scale`, paramDims, w.scale)], { name: `${hint}/q8/scale` });
  return b.node('Add', [scaled, b.constFloat(`${hint}/q8/min`, paramDims, w.min)], { name: `${hint}/q8/min` });
}

const floatTensor = (dims: number[], v: Float32Array): TensorData => ({
  dims,
  dataType: DataType.FLOAT,
  raw: new Uint8Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength)),
});

/** Returns a new graph whose large float weights are stored as 8-bit values (see the header). */
export function compressWeights(graph: GraphDef, options: CompressOptions = DEFAULT_COMPRESS): GraphDef {
  const consumers = new Map<string, NodeDef[]>();
  for (const n of graph.nodes) for (const i of n.inputs) consumers.set(i, [...(consumers.get(i) ?? []), n]);
  const removed = new Set<NodeDef>();
  const dequantNodes: NodeDef[] = [];
  const initializers: GraphDef['initializers'] = [];
  for (const t of graph.initializers) {
    const count = t.dims.reduce((a, b) => a * b, 1);
    const isFloat = t.dataType === DataType.FLOAT || t.dataType === DataType.FLOAT16;
    const users = consumers.get(t.name) ?? [];
    // a float16 weight reaches the graph through one Cast to float: the chain replaces both
    const cast = t.dataType === DataType.FLOAT16 && users.length === 1 && users[0]!.opType === 'Cast' ? users[0]! : undefined;
    if (!isFloat || count < options.minValues || t.dims.length === 0 || (t.dataType === DataType.FLOAT16 && !cast)) {
      initializers.push(t);
      continue;
    }
    if (options.storage === 'float16') {
      if (cast) {
        initializers.push(t); // already half
        continue;
      }
      const values = floatValues(t);
      const bits = Uint16Array.from(values, float32ToFloat16);
      initializers.push({ name: `${t.name}/f16`, dims: t.dims, dataType: DataType.FLOAT16, raw: new Uint8Array(bits.buffer) });
      dequantNodes.push({ opType: 'Cast', name: `${t.name}/Cast`, inputs: [`${t.name}/f16`], outputs: [t.name], attributes: { to: { kind: 'int', value: DataType.FLOAT } } });
      continue;
    }
    const target = cast ? cast.outputs[0]! : t.name;
    if (cast) removed.add(cast);
    const { q, scale, min } = quantize8(floatValues(t), t.dims[0]!);
    const paramDims = scale.length === 1 ? [] : [scale.length, ...t.dims.slice(1).map(() => 1)];
    const base = `${t.name}/q8`;
    initializers.push(
      { name: `${base}/values`, dims: t.dims, dataType: DataType.UINT8, raw: q },
      { name: `${base}/scale`, ...floatTensor(paramDims, scale) },
      { name: `${base}/min`, ...floatTensor(paramDims, min) },
    );
    const node = (opType: string, inputs: string[], output: string, attributes: NodeDef['attributes'] = {}): NodeDef => ({
      opType,
      name: `${output}/${opType}`,
      inputs,
      outputs: [output],
      attributes,
    });
    dequantNodes.push(
      node('Cast', [`${base}/values`], `${base}/float`, { to: { kind: 'int', value: DataType.FLOAT } }),
      node('Mul', [`${base}/float`, `${base}/scale`], `${base}/scaled`),
      node('Add', [`${base}/scaled`, `${base}/min`], target),
    );
  }
  return { ...graph, initializers, nodes: [...dequantNodes, ...graph.nodes.filter((n) => !removed.has(n))] };
}

/** How a graph stores its weights, for the manifest. */
export function weightStorageOf(graph: GraphDef): 'int8' | 'uint8' | 'float16' | 'float32' {
  if (graph.initializers.some((t) => t.dataType === DataType.INT8)) return 'int8';
  if (graph.initializers.some((t) => t.dataType === DataType.UINT8 && t.name.includes('/q8/values'))) return 'uint8';
  return graph.initializers.some((t) => t.dataType === DataType.FLOAT16) ? 'float16' : 'float32';
}
