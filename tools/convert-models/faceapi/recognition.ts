// face-api's FaceRecognitionNet (dlib's ResNet-34-like 128-d face descriptor) as an
// ONNX graph. Mirrors src/faceRecognitionNet/{FaceRecognitionNet,residualLayer,
// convLayer,scaleLayer}.ts of @vladmandic/face-api 1.7.15; comments cite the
// details that differ from a textbook ResNet.
import { GraphBuilder } from '../../onnx/graph-builder.ts';
import type { GraphDef } from '../../onnx/onnx-model.ts';
import { add, conv, normalizedNchwInput, rank4, relu, tfFilterToOihw, tfPadding, WeightReader } from './layers.ts';

export const FACE_RECOGNITION_INPUT_SIZE = 150;
export const FACE_RECOGNITION_DESCRIPTOR_SIZE = 128;

interface Feature {
  name: string;
  channels: number;
  /** square spatial size, tracked statically because face-api's shape-dependent
   *  padding decisions (residualDown) must be made at build time */
  size: number;
}

/**
 * face-api's convLayer: conv2d + bias, then a per-channel scale layer `x*w + b`
 * (dlib's affine layer, i.e. frozen batch-norm), then optional ReLU.
 * The scale is folded into the conv here (W*w, bias*w + b, computed in float64):
 * the graph stays one Conv per layer for onnxruntime-web without depending on its
 * optimiser, and the rounding difference is far below the parity tolerance.
 */
function convLayer(
  b: GraphBuilder,
  w: WeightReader,
  x: Feature,
  prefix: string,
  stride: number,
  padding: 'same' | 'valid',
  withRelu: boolean,
): Feature {
  const shape = rank4(w.shape(`${prefix}/conv/filters`));
  const [k, , cin, cout] = shape;
  if (cin !== x.channels) throw new Error(`${prefix}: expects ${cin} channels, gets ${x.channels}`);
  const filters = tfFilterToOihw(w.get(`${prefix}/conv/filters`, shape), shape);
  const bias = w.get(`${prefix}/conv/bias`, [cout]);
  const scaleW = w.get(`${prefix}/scale/weights`, [cout]);
  const scaleB = w.get(`${prefix}/scale/biases`, [cout]);

  const perOut = cin * k * k;
  const weight = new Float32Array(filters.length);
  const foldedBias = new Float32Array(cout);
  for (let o = 0; o < cout; o++) {
    const s = scaleW[o]!;
    for (let i = 0; i < perOut; i++) weight[o * perOut + i] = filters[o * perOut + i]! * s;
    foldedBias[o] = bias[o]! * s + scaleB[o]!;
  }

  // face-api ships most filters as 8-bit `q*scale + min`; folding the per-channel scale keeps
  // them on an 8-bit grid per output channel (q*(scale*s) + min*s), stored as exactly that
  const stored = w.uint8(`${prefix}/conv/filters`);
  const weight8 = stored && {
    q: Uint8Array.from(tfFilterToOihw(Float32Array.from(stored.q), shape)),
    scale: scaleW.map((s) => stored.scale * s),
    min: scaleW.map((s) => stored.min * s),
  };

  const pad = tfPadding(x.size, k, stride, padding);
  let out = conv(b, x.name, prefix, {
    weight,
    weight8,
    dims: [cout, cin, k, k],
    bias: foldedBias,
    stride,
    pads: [pad.before, pad.before, pad.after, pad.after],
  });
  if (withRelu) out = relu(b, out, prefix);
  return { name: out, channels: cout, size: pad.outSize };
}

/** residual(): conv → conv (no ReLU) → + input → ReLU, all 3×3 stride 1 'same'. */
function residual(b: GraphBuilder, w: WeightReader, x: Feature, prefix: string): Feature {
  const c1 = convLayer(b, w, x, `${prefix}/conv1`, 1, 'same', true);
  const c2 = convLayer(b, w, c1, `${prefix}/conv2`, 1, 'same', false);
  if (c2.channels !== x.channels || c2.size !== x.size) throw new Error(`${prefix}: residual shape mismatch`);
  return { ...c2, name: relu(b, add(b, c2.name, x.name, prefix), prefix) };
}

/**
 * residualDown(): the first conv is stride 2 with 'valid' padding (not 'same'), the
 * shortcut is a 2×2/2 average pool whose channels are doubled by appending zeros
 * after the real ones, and when the conv branch comes out one pixel smaller than the
 * pooled shortcut face-api appends a zero row at the bottom and a zero column at the
 * right of the conv branch.
 */
function residualDown(b: GraphBuilder, w: WeightReader, x: Feature, prefix: string): Feature {
  const c1 = convLayer(b, w, x, `${prefix}/conv1`, 2, 'valid', true);
  const c2 = convLayer(b, w, c1, `${prefix}/conv2`, 1, 'same', false);

  const poolSize = tfPadding(x.size, 2, 2, 'valid').outSize;
  let shortcut = b.node('AveragePool', [x.name], {
    name: `${prefix}/shortcut_pool`,
    attrs: { kernel_shape: [2, 2], strides: [2, 2], pads: [0, 0, 0, 0] },
  });
  if (c2.channels !== x.channels) {
    // face-api: concat([pooled, zeros(pooled.shape)], channels) — exactly doubles
    if (c2.channels !== 2 * x.channels) throw new Error(`${prefix}: shortcut can only double channels`);
    const pads = b.constInt64(`${prefix}/shortcut_pads`, [0, 0, 0, 0, 0, x.channels, 0, 0]);
    shortcut = b.node('Pad', [shortcut, pads], { name: `${prefix}/shortcut_zero_channels`, attrs: { mode: 'constant' } });
  }

  let branch = c2.name;
  if (c2.size !== poolSize) {
    // face-api concatenates exactly one zero row (axis H, end) then one zero column (axis W, end)
    if (poolSize - c2.size !== 1) throw new Error(`${prefix}: conv branch ${c2.size}, shortcut ${poolSize}`);
    const pads = b.constInt64(`${prefix}/branch_pads`, [0, 0, 0, 0, 0, 0, 1, 1]);
    branch = b.node('Pad', [branch, pads], { name: `${prefix}/branch_zero_pad`, attrs: { mode: 'constant' } });
  }

  const sum = b.node('Add', [shortcut, branch], { name: `${prefix}/add` });
  return { name: relu(b, sum, prefix), channels: c2.channels, size: poolSize };
}

/** `sourceGrid: false`: float filters instead of face-api's 8-bit ones (see WeightReader). */
export function buildFaceRecognitionGraph(modelDir: string, options = { sourceGrid: true }): GraphDef {
  const w = new WeightReader(modelDir, 'face_recognition_model', options);
  const b = new GraphBuilder('faceapi_face_recognition');

  const input = normalizedNchwInput(b, 'input', FACE_RECOGNITION_INPUT_SIZE);
  let x: Feature = { name: input, channels: 3, size: FACE_RECOGNITION_INPUT_SIZE };

  // stem: 7×7 stride 2 'valid' (150 → 72), then 3×3/2 'valid' max-pool (72 → 35)
  x = convLayer(b, w, x, 'conv32_down', 2, 'valid', true);
  const pool = tfPadding(x.size, 3, 2, 'valid');
  x = {
    ...x,
    size: pool.outSize,
    name: b.node('MaxPool', [x.name], { name: 'stem_pool', attrs: { kernel_shape: [3, 3], strides: [2, 2], pads: [0, 0, 0, 0] } }),
  };

  for (const p of ['conv32_1', 'conv32_2', 'conv32_3']) x = residual(b, w, x, p);
  x = residualDown(b, w, x, 'conv64_down'); // 35 → 17
  for (const p of ['conv64_1', 'conv64_2', 'conv64_3']) x = residual(b, w, x, p);
  x = residualDown(b, w, x, 'conv128_down'); // 17 → 8
  for (const p of ['conv128_1', 'conv128_2']) x = residual(b, w, x, p);
  x = residualDown(b, w, x, 'conv256_down'); // 8 → 4 (conv branch 3, zero-padded)
  for (const p of ['conv256_1', 'conv256_2']) x = residual(b, w, x, p);
  x = residualDown(b, w, x, 'conv256_down_out'); // 4 → 2 (conv branch 1, zero-padded)

  // out.mean([1, 2]) then matMul with fc [256, 128]; no bias, no L2 normalisation
  const pooled = b.node('ReduceMean', [x.name], { name: 'global_mean', attrs: { axes: [2, 3], keepdims: 0 } });
  const fc = w.get('fc', [x.channels, FACE_RECOGNITION_DESCRIPTOR_SIZE]);
  const descriptor = b.node('MatMul', [pooled, b.constFloat('fc/weight', [x.channels, FACE_RECOGNITION_DESCRIPTOR_SIZE], fc)], { name: 'fc' });
  b.output(descriptor, 'descriptor', ['batch', FACE_RECOGNITION_DESCRIPTOR_SIZE]);

  w.assertAllUsed();
  return b.build();
}
