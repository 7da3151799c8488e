// face-api's FaceExpressionNet as an ONNX graph: the DenseNet-like
// FaceFeatureExtractor (four denseBlock4 stages, depthwise-separable convs) plus a
// 256→7 fully connected layer and softmax. Mirrors src/faceExpressionNet,
// src/faceFeatureExtractor/{FaceFeatureExtractor,denseBlock}.ts and
// src/common/depthwiseSeparableConv.ts of @vladmandic/face-api 1.7.15.
import { GraphBuilder } from '../../onnx/graph-builder.ts';
import type { GraphDef } from '../../onnx/onnx-model.ts';
import { add, fullyConnected, globalPool7, normalizedNchwInput, plainConv, relu, separableConv, WeightReader, type Feature } from './layers.ts';

export const FACE_EXPRESSION_INPUT_SIZE = 112;
/** Output order of the `expressions` tensor (FACE_EXPRESSION_LABELS in FaceExpressions.ts). */
export const FACE_EXPRESSION_LABELS = ['neutral', 'happy', 'sad', 'angry', 'fearful', 'disgusted', 'surprised'] as const;

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

  const pooled = globalPool7(b, x, 'avg_pool');
  const logits = fullyConnected(b, w, pooled, 'fc', FACE_EXPRESSION_LABELS.length);
  const probs = b.node('Softmax', [logits], { name: 'softmax', attrs: { axis: -1 } });
  b.output(probs, 'expressions', ['batch', FACE_EXPRESSION_LABELS.length]);

  w.assertAllUsed();
  return b.build();
}
