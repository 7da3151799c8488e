// face-api's FaceExpressionNet as an ONNX graph: the DenseNet-like
// FaceFeatureExtractor (four denseBlock4 stages, depthwise-separable convs) plus a
// 256→7 fully connected layer and softmax. Mirrors src/faceExpressionNet,
// src/faceFeatureExtractor/{FaceFeatureExtractor,denseBlock}.ts and
// src/common/depthwiseSeparableConv.ts of @vladmandic/face-api 1.7.15.
import { GraphBuilder } from '../../onnx/graph-builder.ts';
import type { GraphDef } from '../../onnx/onnx-model.ts';
import { add, conv, normalizedNchwInput, rank4, relu, tfDepthwiseToOihw, tfFilterToOihw, tfPadding, WeightReader } from './layers.ts';

export const FACE_EXPRESSION_INPUT_SIZE = 112;
/** Output order of the `expressions` tensor (FACE_EXPRESSION_LABELS in FaceExpressions.ts). */
export const FACE_EXPRESSION_LABELS = ['neutral', 'happy', 'sad', 'angry', 'fearful', 'disgusted', 'surprised'] as const;

interface Feature {
  name: string;
  channels: number;
  size: number;
}

/** dense0/conv0: a plain 3×3 conv + bias (no scale layer), TF 'same' padding. */
function plainConv(b: GraphBuilder, w: WeightReader, x: Feature, prefix: string, stride: number): Feature {
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
 * tf.separableConv2d(x, depthwise, pointwise, stride, 'same') + bias: a depthwise
 * conv (grouped Conv, 'same' padding — at stride 2 on an even size TF pads only at
 * the bottom/right) followed by a 1×1 conv that carries the bias.
 */
function separableConv(b: GraphBuilder, w: WeightReader, x: Feature, prefix: string, stride: number): Feature {
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

/**
 * denseBlock4 (stride 2 in conv0). Every conv sees the ReLU of the sum of all earlier
 * conv outputs; the sums are built right-nested exactly as face-api writes them,
 * e.g. out1 + (out2 + (out3 + out4)), so float rounding follows the reference.
 */
function denseBlock4(b: GraphBuilder, w: WeightReader, x: Feature, prefix: string, isFirstLayer: boolean): Feature {
  const c0 = isFirstLayer ? plainConv(b, w, x, `${prefix}/conv0`, 2) : separableConv(b, w, x, `${prefix}/conv0`, 2);
  const out1 = { ...c0, name: relu(b, c0.name, `${prefix}/conv0`) };
  const out2 = separableConv(b, w, out1, `${prefix}/conv1`, 1);

  const in3 = { ...out1, name: relu(b, add(b, out1.name, out2.name, `${prefix}/in3`), `${prefix}/in3`) };
  const out3 = separableConv(b, w, in3, `${prefix}/conv2`, 1);

  const s23 = add(b, out2.name, out3.name, `${prefix}/in4_23`);
  const in4 = { ...out1, name: relu(b, add(b, out1.name, s23, `${prefix}/in4`), `${prefix}/in4`) };
  const out4 = separableConv(b, w, in4, `${prefix}/conv3`, 1);

  const s34 = add(b, out3.name, out4.name, `${prefix}/out_34`);
  const s234 = add(b, out2.name, s34, `${prefix}/out_234`);
  return { ...out1, name: relu(b, add(b, out1.name, s234, `${prefix}/out`), `${prefix}/out`) };
}

export function buildFaceExpressionGraph(modelDir: string): GraphDef {
  const w = new WeightReader(modelDir, 'face_expression_model');
  const b = new GraphBuilder('faceapi_face_expression');

  // same normalisation as the recogniser: (rgb - [122.782, 117.001, 104.298]) / 255
  const input = normalizedNchwInput(b, 'input', FACE_EXPRESSION_INPUT_SIZE);
  let x: Feature = { name: input, channels: 3, size: FACE_EXPRESSION_INPUT_SIZE };
  x = denseBlock4(b, w, x, 'dense0', true); // 112 → 56
  x = denseBlock4(b, w, x, 'dense1', false); // 56 → 28
  x = denseBlock4(b, w, x, 'dense2', false); // 28 → 14
  x = denseBlock4(b, w, x, 'dense3', false); // 14 → 7

  // tf.avgPool(out, [7, 7], [2, 2], 'valid'): on the 7×7 map a single window, i.e. a global mean
  const pool = tfPadding(x.size, 7, 2, 'valid');
  if (pool.outSize !== 1) throw new Error(`feature map ${x.size} does not pool to 1×1`);
  const pooled = b.node('AveragePool', [x.name], { name: 'avg_pool', attrs: { kernel_shape: [7, 7], strides: [2, 2], pads: [0, 0, 0, 0] } });
  // as2D(batch, -1) of an NHWC 1×1×C map == Flatten of the NCHW C×1×1 map
  const flat = b.node('Flatten', [pooled], { name: 'flatten', attrs: { axis: 1 } });

  const [cin, cout] = w.shape('fc/weights') as [number, number];
  if (cin !== x.channels || cout !== FACE_EXPRESSION_LABELS.length) throw new Error(`fc/weights has shape [${cin},${cout}]`);
  const logits = b.node(
    'Add',
    [
      b.node('MatMul', [flat, b.constFloat('fc/weights', [cin, cout], w.get('fc/weights', [cin, cout]))], { name: 'fc/matmul' }),
      b.constFloat('fc/bias', [cout], w.get('fc/bias', [cout])),
    ],
    { name: 'fc/add' },
  );
  const probs = b.node('Softmax', [logits], { name: 'softmax', attrs: { axis: -1 } });
  b.output(probs, 'expressions', ['batch', cout]);

  w.assertAllUsed();
  return b.build();
}
