// face-api's AgeGenderNet as an ONNX graph: the TinyXception feature extractor (two main
// blocks) plus two fully connected heads, age in years and a [male, female] softmax.
// Mirrors src/ageGenderNet/AgeGenderNet.ts, src/xception/TinyXception.ts and
// src/common/{depthwiseSeparableConv,fullyConnectedLayer}.ts of @vladmandic/face-api 1.7.15.
import { GraphBuilder } from '../../onnx/graph-builder.ts';
import type { GraphDef } from '../../onnx/onnx-model.ts';
import { add, fullyConnected, globalPool7, normalizedNchwInput, plainConv, relu, separableConv, tfPadding, WeightReader, type Feature } from './layers.ts';

export const AGE_GENDER_INPUT_SIZE = 112;
/** TinyXception(2): AgeGenderNet's default feature extractor */
const MAIN_BLOCKS = 2;

function reluOf(b: GraphBuilder, x: Feature, hint: string): Feature {
  return { ...x, name: relu(b, x.name, hint) };
}

/** tf.maxPool(x, [3, 3], [2, 2], 'same'); ONNX MaxPool ignores padded cells as TF does. */
function maxPool3(b: GraphBuilder, x: Feature, hint: string): Feature {
  const pad = tfPadding(x.size, 3, 2, 'same');
  const name = b.node('MaxPool', [x.name], {
    name: hint,
    attrs: { kernel_shape: [3, 3], strides: [2, 2], pads: [pad.before, pad.before, pad.after, pad.after] },
  });
  return { ...x, name, size: pad.outSize };
}

/** relu? → sepconv → relu → sepconv → maxpool /2, plus a strided 1×1 conv of the block's input. */
function reductionBlock(b: GraphBuilder, w: WeightReader, x: Feature, prefix: string, activateInput: boolean): Feature {
  const input = activateInput ? reluOf(b, x, `${prefix}/in`) : x;
  const s0 = separableConv(b, w, input, `${prefix}/separable_conv0`, 1);
  const s1 = separableConv(b, w, reluOf(b, s0, `${prefix}/separable_conv0`), `${prefix}/separable_conv1`, 1);
  const pooled = maxPool3(b, s1, `${prefix}/max_pool`);
  const shortcut = plainConv(b, w, x, `${prefix}/expansion_conv`, 2);
  if (shortcut.size !== pooled.size || shortcut.channels !== pooled.channels) throw new Error(`${prefix}: shortcut does not match`);
  return { ...pooled, name: add(b, pooled.name, shortcut.name, prefix) };
}

/** three relu → sepconv steps and a residual add. */
function mainBlock(b: GraphBuilder, w: WeightReader, x: Feature, prefix: string): Feature {
  let out = x;
  for (let i = 0; i < 3; i++) out = separableConv(b, w, reluOf(b, out, `${prefix}/separable_conv${i}/in`), `${prefix}/separable_conv${i}`, 1);
  return { ...out, name: add(b, out.name, x.name, prefix) };
}

export function buildAgeGenderGraph(modelDir: string): GraphDef {
  const w = new WeightReader(modelDir, 'age_gender_model');
  const b = new GraphBuilder('faceapi_age_gender');

  // (rgb - [122.782, 117.001, 104.298]) / 255, as face-api's other nets
  const input = normalizedNchwInput(b, 'input', AGE_GENDER_INPUT_SIZE);
  let x: Feature = { name: input, channels: 3, size: AGE_GENDER_INPUT_SIZE };
  x = reluOf(b, plainConv(b, w, x, 'entry_flow/conv_in', 2), 'entry_flow/conv_in'); // 112 → 56
  x = reductionBlock(b, w, x, 'entry_flow/reduction_block_0', false); // → 28
  x = reductionBlock(b, w, x, 'entry_flow/reduction_block_1', true); // → 14
  for (let i = 0; i < MAIN_BLOCKS; i++) x = mainBlock(b, w, x, `middle_flow/main_block_${i}`);
  x = reductionBlock(b, w, x, 'exit_flow/reduction_block', true); // → 7
  x = reluOf(b, separableConv(b, w, x, 'exit_flow/separable_conv', 1), 'exit_flow/separable_conv');

  const pooled = globalPool7(b, x, 'avg_pool');
  b.output(fullyConnected(b, w, pooled, 'fc/age', 1), 'age', ['batch', 1]);
  const genderLogits = fullyConnected(b, w, pooled, 'fc/gender', 2);
  b.output(b.node('Softmax', [genderLogits], { name: 'gender/softmax', attrs: { axis: -1 } }), 'gender', ['batch', 2]);

  w.assertAllUsed();
  return b.build();
}
