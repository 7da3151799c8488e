// Shared pieces for rebuilding face-api's weight-only nets as ONNX graphs.
// face-api computes in NHWC with TF-layout filters; the graphs here run NCHW
// (what ONNX Conv expects), so filters are transposed once at build time and
// the image is transposed once at the graph input.
import { join } from 'node:path';
import { dequantized8 } from '../../onnx/compress-weights.ts';
import type { GraphBuilder } from '../../onnx/graph-builder.ts';
import { loadWeightsManifestFile, type WeightTensor } from '../tfjs-weights.ts';

/** face-api's per-channel RGB mean, subtracted before dividing by 255 (ops/normalize.ts). */
export const FACEAPI_MEAN_RGB = [122.782, 117.001, 104.298] as const;

/**
 * Hands out the float weights of one face-api manifest by name, checking shapes,
 * and can assert afterwards that every stored tensor was consumed (a weight left
 * over means the rebuilt architecture is missing a layer).
 */
export class WeightReader {
  private readonly weights: Map<string, WeightTensor>;
  private readonly used = new Set<string>();

  /**
   * `sourceGrid: false` hides face-api's 8-bit storage (uint8() answers undefined), so every
   * filter comes out float: for a graph that is int8-quantised next, which sets its own grid.
   */
  constructor(
    modelDir: string,
    manifestName: string,
    private readonly options: { sourceGrid: boolean } = { sourceGrid: true },
  ) {
    this.weights = loadWeightsManifestFile(join(modelDir, `${manifestName}-weights_manifest.json`));
  }

  get(name: string, shape: number[]): Float32Array {
    const w = this.weights.get(name);
    if (!w) throw new Error(`weight ${name} is missing`);
    if (w.dtype !== 'float32' || !(w.data instanceof Float32Array)) throw new Error(`weight ${name} is not float32`);
    if (w.shape.length !== shape.length || w.shape.some((d, i) => d !== shape[i])) {
      throw new Error(`weight ${name} has shape [${w.shape}], expected [${shape}]`);
    }
    this.used.add(name);
    return w.data;
  }

  /** The stored 8-bit values of a weight face-api ships quantised (`q*scale + min`), if it does. */
  uint8(name: string): { q: Uint8Array; scale: number; min: number } | undefined {
    return this.options.sourceGrid ? this.weights.get(name)?.uint8 : undefined;
  }

  /** Shape of a stored weight, to size layers from the manifest rather than hard-coding. */
  shape(name: string): number[] {
    const w = this.weights.get(name);
    if (!w) throw new Error(`weight ${name} is missing`);
    return w.shape;
  }

  assertAllUsed(): void {
    const unused = [...this.weights.keys()].filter((k) => !this.used.has(k));
    if (unused.length) throw new Error(`unused weights: ${unused.join(', ')}`);
  }
}

export function rank4(shape: readonly number[]): [number, number, number, number] {
  if (shape.length !== 4) throw new Error(`expected a rank-4 shape, got [${shape}]`);
  return shape as unknown as [number, number, number, number];
}

/** TF conv filter [kh, kw, in, out] → ONNX Conv weight [out, in, kh, kw]. */
export function tfFilterToOihw(data: Float32Array, shape: readonly number[]): Float32Array {
  const [kh, kw, cin, cout] = rank4(shape);
  const out = new Float32Array(data.length);
  for (let y = 0; y < kh; y++)
    for (let x = 0; x < kw; x++)
      for (let i = 0; i < cin; i++)
        for (let o = 0; o < cout; o++) out[((o * cin + i) * kh + y) * kw + x] = data[((y * kw + x) * cin + i) * cout + o]!;
  return out;
}

/**
 * TF depthwise filter [kh, kw, c, mult] → ONNX grouped Conv weight [c*mult, 1, kh, kw].
 * TF orders depthwise output channels as c*mult + m, which is also ONNX's group order.
 */
export function tfDepthwiseToOihw(data: Float32Array, shape: readonly number[]): Float32Array {
  const [kh, kw, c, mult] = rank4(shape);
  const out = new Float32Array(data.length);
  for (let y = 0; y < kh; y++)
    for (let x = 0; x < kw; x++)
      for (let i = 0; i < c; i++)
        for (let m = 0; m < mult; m++) out[((i * mult + m) * kh + y) * kw + x] = data[((y * kw + x) * c + i) * mult + m]!;
  return out;
}

/**
 * TF padding for one spatial axis, made explicit: ONNX's auto_pad is discouraged and
 * every size here is static. 'same' puts the odd pixel at the end, like SAME_UPPER.
 */
export function tfPadding(inSize: number, kernel: number, stride: number, padding: 'same' | 'valid'): { before: number; after: number; outSize: number } {
  if (padding === 'valid') return { before: 0, after: 0, outSize: Math.floor((inSize - kernel) / stride) + 1 };
  const outSize = Math.ceil(inSize / stride);
  const total = Math.max(0, (outSize - 1) * stride + kernel - inSize);
  const before = Math.floor(total / 2);
  return { before, after: total - before, outSize };
}

/**
 * Graph input: NHWC RGB 0..255 → NCHW `(x - meanRgb) / 255`, matching face-api's
 * `normalize(batchTensor, meanRgb).div(255)` op for op (Sub then Div, not a folded
 * scale) so float rounding follows the reference.
 */
export function normalizedNchwInput(b: GraphBuilder, name: string, size: number): string {
  const x = b.input(name, ['batch', size, size, 3]);
  const centred = b.node('Sub', [x, b.constFloat('mean_rgb', [3], [...FACEAPI_MEAN_RGB])], { name: 'normalize/sub' });
  const scaled = b.node('Div', [centred, b.constFloat('div_255', [], [255])], { name: 'normalize/div' });
  return b.node('Transpose', [scaled], { attrs: { perm: [0, 3, 1, 2] }, name: 'to_nchw' });
}

export interface ConvSpec {
  /** ONNX-layout weight [out, in/group, kh, kw] */
  weight: Float32Array;
  /** the same weight kept as 8-bit values with a per-output-channel grid (stored as such) */
  weight8?: { q: Uint8Array; scale: Float32Array; min: Float32Array };
  dims: [number, number, number, number];
  bias?: Float32Array;
  stride: number;
  /** explicit [top, left, bottom, right] */
  pads: [number, number, number, number];
  group?: number;
}

export function conv(b: GraphBuilder, x: string, hint: string, spec: ConvSpec): string {
  const weight = spec.weight8
    ? dequantized8(b, `${hint}/weight`, spec.dims, spec.weight8)
    : b.constFloat(`${hint}/weight`, spec.dims, spec.weight);
  const inputs = [x, weight];
  if (spec.bias) inputs.push(b.constFloat(`${hint}/bias`, [spec.dims[0]], spec.bias));
  return b.node('Conv', inputs, {
    name: hint,
    attrs: {
      kernel_shape: [spec.dims[2], spec.dims[3]],
      strides: [spec.stride, spec.stride],
      pads: spec.pads,
      dilations: [1, 1],
      group: spec.group ?? 1,
    },
  });
}

export function relu(b: GraphBuilder, x: string, hint: string): string {
  return b.node('Relu', [x], { name: `${hint}/relu` });
}

export function add(b: GraphBuilder, x: string, y: string, hint: string): string {
  return b.node('Add', [x, y], { name: `${hint}/add` });
}

/** A square NCHW feature map in the graph being built. */
export interface Feature {
  name: string;
  channels: number;
  size: number;
}

/**
 * tf.separableConv2d(x, depthwise, pointwise, stride, 'same') + bias: a depthwise
 * conv (grouped Conv, 'same' padding — at stride 2 on an even size TF pads only at
 * the bottom/right) followed by a 1×1 conv that carries the bias.
 */
export function separableConv(b: GraphBuilder, w: WeightReader, x: Feature, prefix: string, stride: number): Feature {
  const dwShape = rank4(w.shape(`${prefix}/depthwise_filter`));
  const [k, , c, mult] = dwShape;
  if (c !== x.channels || mult !== 1) throw new Error(`${prefix}: unexpected depthwise filter [${dwShape}]`);
  const pad = tfPadding(x.size, k, stride, 'same');
  const dw = conv(b, x.name, `${prefix}/depthwise`, {
    weight: tfDepthwiseToOihw(w.get(`${prefix}/depthwise_filter`, dwShape), dwShape),
    dims: [c, 1, k, k],
    stride,
    pads: [pad.before, pad.before, pad.after, pad.after],
    group: c,
  });
  const pwShape = rank4(w.shape(`${prefix}/pointwise_filter`));
  const cout = pwShape[3];
  const pw = conv(b, dw, `${prefix}/pointwise`, {
    weight: tfFilterToOihw(w.get(`${prefix}/pointwise_filter`, pwShape), pwShape),
    dims: [cout, c, 1, 1],
    bias: w.get(`${prefix}/bias`, [cout]),
    stride: 1,
    pads: [0, 0, 0, 0],
  });
  return { name: pw, channels: cout, size: pad.outSize };
}

/** tf.conv2d(x, filters, stride, 'same') + bias (no scale layer). */
export function plainConv(b: GraphBuilder, w: WeightReader, x: Feature, prefix: string, stride: number): Feature {
  const shape = rank4(w.shape(`${prefix}/filters`));
  const [k, , cin, cout] = shape;
  if (cin !== x.channels) throw new Error(`${prefix}: expects ${cin} channels, gets ${x.channels}`);
  const pad = tfPadding(x.size, k, stride, 'same');
  const out = conv(b, x.name, prefix, {
    weight: tfFilterToOihw(w.get(`${prefix}/filters`, shape), shape),
    dims: [cout, cin, k, k],
    bias: w.get(`${prefix}/bias`, [cout]),
    stride,
    pads: [pad.before, pad.before, pad.after, pad.after],
  });
  return { name: out, channels: cout, size: pad.outSize };
}

/**
 * face-api's head pooling, tf.avgPool(x, [7, 7], [2, 2], 'valid').as2D(batch, -1): on a 7×7 map
 * a single window (a global mean); as2D of the NHWC 1×1×C map is Flatten of the NCHW C×1×1 map.
 */
export function globalPool7(b: GraphBuilder, x: Feature, hint: string): Feature {
  if (tfPadding(x.size, 7, 2, 'valid').outSize !== 1) throw new Error(`feature map ${x.size} does not pool to 1×1`);
  const pooled = b.node('AveragePool', [x.name], { name: hint, attrs: { kernel_shape: [7, 7], strides: [2, 2], pads: [0, 0, 0, 0] } });
  return { name: b.node('Flatten', [pooled], { name: 'flatten', attrs: { axis: 1 } }), channels: x.channels, size: 1 };
}

/** face-api's fullyConnectedLayer: matMul(x, `${prefix}/weights`) + `${prefix}/bias`, checked to give `outputs` values. */
export function fullyConnected(b: GraphBuilder, w: WeightReader, x: Feature, prefix: string, outputs: number): string {
  const [cin, cout] = w.shape(`${prefix}/weights`) as [number, number];
  if (cin !== x.channels || cout !== outputs) throw new Error(`${prefix}/weights has shape [${cin},${cout}]`);
  const product = b.node('MatMul', [x.name, b.constFloat(`${prefix}/weights`, [cin, cout], w.get(`${prefix}/weights`, [cin, cout]))], { name: `${prefix}/matmul` });
  return b.node('Add', [product, b.constFloat(`${prefix}/bias`, [cout], w.get(`${prefix}/bias`, [cout]))], { name: `${prefix}/add` });
}
