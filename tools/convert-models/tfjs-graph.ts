// Converts a TF.js graph model (model.json + .bin) into an ONNX graph.
//
// TF.js graphs are NHWC; ONNX Conv/Pool are NCHW. Instead of wrapping every conv in a
// pair of Transposes and hoping the runtime removes them, each value remembers its
// layout: convolutions produce NCHW, element-wise ops keep whatever layout they get
// (per-channel constants are reshaped to match), and only layout-sensitive ops
// (reshape, softmax, matmul, ...) get a Transpose back to TF's layout, once per tensor.
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { GraphBuilder, floatTensor, int64Tensor } from '../onnx/graph-builder.ts';
import { DataType, type GraphDef, type TensorData } from '../onnx/onnx-model.ts';
import { float32ToFloat16Exact, loadWeights, type ManifestGroup, type WeightTensor } from './tfjs-weights.ts';

interface TfAttrValue {
  s?: string;
  i?: string;
  f?: number;
  b?: boolean;
  type?: string;
  shape?: { dim?: { size: string }[] };
  list?: { i?: string[]; s?: string[]; f?: number[] };
}
interface TfNode {
  name: string;
  op: string;
  input?: string[];
  attr?: Record<string, TfAttrValue>;
}
interface TfSignatureEntry {
  name: string;
  tensorShape?: { dim?: { size: string }[] };
}
export interface TfjsModelJson {
  format?: string;
  modelTopology: { node: TfNode[] };
  weightsManifest: ManifestGroup[];
  signature?: { inputs?: Record<string, TfSignatureEntry>; outputs?: Record<string, TfSignatureEntry> };
}

type Layout = 'TF' | 'NCHW';
type Value =
  | { kind: 'const'; tensor: WeightTensor }
  | { kind: 'tensor'; name: string; layout: Layout; integer: boolean };

const TO_NCHW = [0, 3, 1, 2];
const TO_NHWC = [0, 2, 3, 1];
/** TF axis (NHWC) → axis of the same dimension in NCHW */
const NHWC_AXIS_IN_NCHW = [0, 2, 3, 1];

export class UnsupportedGraphError extends Error {}

/**
 * The graph's outputs as [TF tensor name, ONNX output name]: the signature's keys when it
 * lists outputs, else every sink node by name; `rename` maps either kind of key to a new name.
 */
export function graphOutputs(model: TfjsModelJson, rename: Record<string, string> = {}): [string, string][] {
  const sig = model.signature?.outputs;
  let keyed: [string, string][];
  if (sig && Object.keys(sig).length > 0) {
    keyed = Object.entries(sig)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, entry]) => [entry.name, key]);
  } else {
    const consumed = new Set<string>();
    for (const n of model.modelTopology.node) for (const i of n.input ?? []) consumed.add(i.replace(/^\^/, '').replace(/:\d+$/, ''));
    keyed = model.modelTopology.node
      .filter((n) => !consumed.has(n.name) && n.op !== 'Const' && n.op !== 'Placeholder')
      .map((n) => [n.name, n.name]);
  }
  return keyed.map(([tensor, key]) => [tensor, rename[key] ?? key]);
}

function fail(node: TfNode, why: string): never {
  throw new UnsupportedGraphError(`${node.op} node "${node.name}": ${why}`);
}

const attrString = (node: TfNode, key: string): string | undefined => {
  const s = node.attr?.[key]?.s;
  return s === undefined ? undefined : Buffer.from(s, 'base64').toString('utf8');
};
const attrInts = (node: TfNode, key: string): number[] => (node.attr?.[key]?.list?.i ?? []).map(Number);
const attrInt = (node: TfNode, key: string, fallback = 0): number => Number(node.attr?.[key]?.i ?? fallback);
const attrBool = (node: TfNode, key: string): boolean => node.attr?.[key]?.b === true;
const attrStrings = (node: TfNode, key: string): string[] =>
  (node.attr?.[key]?.list?.s ?? []).map((s) => Buffer.from(s, 'base64').toString('utf8'));

/** Attributes this converter reads or knows to be irrelevant; anything else set to a non-default is refused. */
const IGNORED_ATTRS = new Set([
  'T', 'Tidx', 'Tpaddings', 'Tshape', 'Index', 'out_type', 'dtype', 'shape', '_cloned', 'use_cudnn_on_gpu',
  'num_args', 'epsilon', 'N', 'data_format', 'explicit_paddings', 'Tdim', 'Taxis', '_output_shapes',
  'value', // a Const's value: TF.js stores it in the weights instead
]);
const HANDLED_ATTRS: Record<string, string[]> = {
  Conv2D: ['strides', 'padding', 'dilations'],
  _FusedConv2D: ['strides', 'padding', 'dilations', 'fused_ops', 'leakyrelu_alpha'],
  DepthwiseConv2dNative: ['strides', 'padding', 'dilations'],
  FusedDepthwiseConv2dNative: ['strides', 'padding', 'dilations', 'fused_ops', 'leakyrelu_alpha'],
  MaxPool: ['strides', 'padding', 'ksize'],
  AvgPool: ['strides', 'padding', 'ksize'],
  Mean: ['keep_dims'],
  Max: ['keep_dims'],
  Sum: ['keep_dims'],
  Squeeze: ['squeeze_dims'],
  StridedSlice: ['begin_mask', 'end_mask', 'shrink_axis_mask', 'ellipsis_mask', 'new_axis_mask'],
  Pack: ['axis'],
  _FusedMatMul: ['transpose_a', 'transpose_b', 'fused_ops', 'leakyrelu_alpha'],
  MatMul: ['transpose_a', 'transpose_b'],
  ResizeBilinear: ['align_corners', 'half_pixel_centers'],
  DepthToSpace: ['block_size'],
  LeakyRelu: ['alpha'],
};

function checkAttributes(node: TfNode): void {
  const handled = new Set(HANDLED_ATTRS[node.op] ?? []);
  for (const key of Object.keys(node.attr ?? {})) {
    if (!IGNORED_ATTRS.has(key) && !handled.has(key)) fail(node, `unsupported attribute "${key}"`);
  }
  const dataFormat = attrString(node, 'data_format');
  if (dataFormat !== undefined && dataFormat !== 'NHWC') fail(node, `unsupported data_format ${dataFormat}`);
  const strided = ['ellipsis_mask', 'new_axis_mask'];
  for (const key of strided) if (attrInt(node, key) !== 0) fail(node, `unsupported attribute ${key}=${attrInt(node, key)}`);
}

/** Smaller constants stay float32: a Cast costs more than the bytes it saves. */
const FLOAT16_MIN_ELEMENTS = 64;

function float16Tensor(t: WeightTensor): TensorData | undefined {
  const bits = new Uint16Array(t.data.length);
  for (let i = 0; i < t.data.length; i++) {
    const h = float32ToFloat16Exact(t.data[i]!);
    if (h === undefined) return undefined;
    bits[i] = h;
  }
  return { dims: t.shape, dataType: DataType.FLOAT16, raw: new Uint8Array(bits.buffer) };
}

const product = (dims: number[]): number => dims.reduce((a, b) => a * b, 1);

/** Transposes a constant's data by `perm` (pure, for weights). */
function transposeData(t: WeightTensor, perm: number[]): WeightTensor {
  const shape = t.shape;
  const outShape = perm.map((p) => shape[p]!);
  const inStrides = shape.map((_, i) => product(shape.slice(i + 1)));
  const out = t.dtype === 'float32' ? new Float32Array(t.data.length) : new Int32Array(t.data.length);
  const idx = new Array<number>(shape.length).fill(0);
  for (let o = 0; o < out.length; o++) {
    let src = 0;
    for (let d = 0; d < perm.length; d++) src += idx[d]! * inStrides[perm[d]!]!;
    out[o] = t.data[src]!;
    for (let d = perm.length - 1; d >= 0; d--) {
      if (++idx[d]! < outShape[d]!) break;
      idx[d] = 0;
    }
  }
  return { shape: outShape, dtype: t.dtype, data: out };
}

export interface ConvertOptions {
  /** graph name written into the ONNX file */
  name: string;
  /** output key (signature key or sink node name) → ONNX output name */
  renameOutputs?: Record<string, string>;
  /**
   * Store float weights as float16 followed by a Cast, when every value is exactly
   * representable (true for the float16-quantised TF.js sources): half the file, same numbers.
   */
  float16Weights?: boolean;
  /**
   * A fully convolutional graph (a detector) exported with symbolic height and width: its only
   * size-bound ops, the reshapes of [1, H, W, anchors*k] maps to [1, cells, k], get -1 cells.
   */
  anySize?: boolean;
}

export function convertTfjsGraph(modelJsonPath: string, options: ConvertOptions): GraphDef {
  const model = JSON.parse(readFileSync(modelJsonPath, 'utf8')) as TfjsModelJson;
  if (model.format !== undefined && model.format !== 'graph-model') {
    throw new UnsupportedGraphError(`${modelJsonPath}: format ${model.format} is not a TF.js graph model`);
  }
  const weights = loadWeights(model.weightsManifest, dirname(modelJsonPath));
  return new TfjsGraphConverter(model, weights, options).convert();
}

class TfjsGraphConverter {
  private readonly g: GraphBuilder;
  private readonly nodes = new Map<string, TfNode>();
  private readonly values = new Map<string, Value>();
  private readonly transposed = new Map<string, string>();

  constructor(
    private readonly model: TfjsModelJson,
    private readonly weights: Map<string, WeightTensor>,
    private readonly options: ConvertOptions,
  ) {
    this.g = new GraphBuilder(options.name);
    for (const n of model.modelTopology.node) this.nodes.set(n.name, n);
  }

  convert(): GraphDef {
    const outputs = this.outputs();
    for (const [, name] of outputs) this.g.reserveOutputName(name);
    for (const [tensorName, name] of outputs) {
      const value = this.evaluate(this.nodeOf(tensorName));
      if (value.kind === 'const') throw new UnsupportedGraphError(`output ${name} is a constant`);
      this.g.output(this.asTf(value), name, undefined, value.integer ? DataType.INT64 : DataType.FLOAT);
    }
    return this.g.build();
  }

  private outputs(): [string, string][] {
    return graphOutputs(this.model, this.options.renameOutputs);
  }

  private nodeName(ref: string): string {
    return ref.replace(/^\^/, '').replace(/:0$/, '');
  }

  private nodeOf(ref: string): TfNode {
    if (/:[1-9]\d*$/.test(ref)) throw new UnsupportedGraphError(`reference to a secondary output "${ref}"`);
    const node = this.nodes.get(this.nodeName(ref));
    if (!node) throw new UnsupportedGraphError(`reference to unknown node "${ref}"`);
    return node;
  }

  /** Converts a node after its inputs (iterative DFS, so deep graphs do not overflow the stack). */
  private evaluate(root: TfNode): Value {
    const stack: { node: TfNode; expanded: boolean }[] = [{ node: root, expanded: false }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      if (this.values.has(top.node.name)) {
        stack.pop();
        continue;
      }
      const deps = (top.node.input ?? []).filter((i) => !i.startsWith('^')).map((i) => this.nodeOf(i));
      if (!top.expanded) {
        top.expanded = true;
        for (const d of [...deps].reverse()) if (!this.values.has(d.name)) stack.push({ node: d, expanded: false });
        continue;
      }
      stack.pop();
      this.values.set(top.node.name, this.convertNode(top.node, deps.map((d) => this.values.get(d.name)!)));
    }
    return this.values.get(root.name)!;
  }

  // ---- layout helpers -------------------------------------------------------------

  private constName(node: TfNode, t: WeightTensor, asInt64 = false): string {
    if (t.dtype === 'int32' || asInt64) return this.g.initializer(`${node.name}/const`, int64Tensor(t.shape, Array.from(t.data)));
    const half = this.options.float16Weights && t.data.length >= FLOAT16_MIN_ELEMENTS ? float16Tensor(t) : undefined;
    if (half) {
      const stored = this.g.initializer(`${node.name}/const_f16`, half);
      return this.g.node('Cast', [stored], { name: `${node.name}/const_f32`, attrs: { to: DataType.FLOAT } });
    }
    return this.g.initializer(`${node.name}/const`, floatTensor(t.shape, t.data as Float32Array));
  }

  private materialise(node: TfNode, v: Value): string {
    return v.kind === 'const' ? this.constName(node, v.tensor) : this.asTf(v);
  }

  private asTf(v: Value): string {
    if (v.kind === 'const') throw new Error('asTf on a constant');
    if (v.layout === 'TF') return v.name;
    return this.transposeOnce(v.name, TO_NHWC);
  }

  private asNchw(v: Value): string {
    if (v.kind === 'const') throw new Error('asNchw on a constant');
    if (v.layout === 'NCHW') return v.name;
    return this.transposeOnce(v.name, TO_NCHW);
  }

  private transposeOnce(name: string, perm: number[]): string {
    const key = `${name}|${perm.join(',')}`;
    let out = this.transposed.get(key);
    if (!out) {
      out = this.g.node('Transpose', [name], { attrs: { perm }, name: `${name}/to_${perm.join('')}` });
      this.transposed.set(key, out);
    }
    return out;
  }

  private tensor(name: string, layout: Layout, integer = false): Value {
    return { kind: 'tensor', name, layout, integer };
  }

  private constInput(node: TfNode, v: Value | undefined, what: string): WeightTensor {
    if (!v || v.kind !== 'const') fail(node, `${what} must be a constant`);
    return v.tensor;
  }

  /**
   * A constant that is broadcast against an NCHW activation, rewritten to broadcast the
   * same way; undefined when its shape cannot be carried over (the caller falls back to TF layout).
   */
  private constForNchw(node: TfNode, t: WeightTensor): string | undefined {
    const n = product(t.shape);
    if (n === 1) return this.constName(node, { ...t, shape: [] });
    if (t.shape.length <= 4 && t.shape.slice(0, -1).every((d) => d === 1)) {
      return this.constName(node, { ...t, shape: [t.shape[t.shape.length - 1]!, 1, 1] });
    }
    if (t.shape.length === 4) return this.constName(node, transposeData(t, TO_NCHW));
    return undefined;
  }

  private elementwise(node: TfNode, op: string, inputs: Value[]): Value {
    const [a, b] = inputs;
    if (!a || !b) fail(node, 'expects two inputs');
    if (a.kind === 'const' && b.kind === 'const') fail(node, 'both inputs constant (constant folding is not supported)');
    const integer = (a.kind === 'tensor' && a.integer) || (b.kind === 'tensor' && b.integer);
    const tensors = [a, b].filter((v): v is Extract<Value, { kind: 'tensor' }> => v.kind === 'tensor');
    if (!integer && tensors.every((t) => t.layout === 'NCHW')) {
      const names = [a, b].map((v) => (v.kind === 'const' ? this.constForNchw(node, v.tensor) : v.name));
      if (names.every((n) => n !== undefined)) {
        return this.tensor(this.g.node(op, names as string[], { name: node.name }), 'NCHW');
      }
    }
    const names = [a, b].map((v) => (v.kind === 'const' ? this.constName(node, v.tensor, integer) : this.asTf(v)));
    return this.tensor(this.g.node(op, names, { name: node.name }), 'TF', integer);
  }

  private unary(node: TfNode, input: Value | undefined, build: (x: string) => string): Value {
    if (!input || input.kind === 'const') fail(node, 'expects a tensor input');
    return { ...input, name: build(input.name) };
  }

  /** Activation fused into _FusedConv2D/_FusedMatMul/FusedDepthwiseConv2dNative. */
  private fusedActivation(node: TfNode, x: string, layout: Layout, ops: string[], extra: Value[]): string {
    const rest = ops.slice(1);
    if (ops[0] !== 'BiasAdd') fail(node, `unsupported fused_ops [${ops}]`);
    if (rest.length === 0) return x;
    if (rest.length > 1) fail(node, `unsupported fused_ops [${ops}]`);
    const act = rest[0]!;
    switch (act) {
      case 'Relu':
        return this.g.node('Relu', [x], { name: `${node.name}/relu` });
      case 'Relu6':
        return this.clip(x, 0, 6, `${node.name}/relu6`);
      case 'Sigmoid':
        return this.g.node('Sigmoid', [x], { name: `${node.name}/sigmoid` });
      case 'Tanh':
        return this.g.node('Tanh', [x], { name: `${node.name}/tanh` });
      case 'Elu':
        return this.g.node('Elu', [x], { name: `${node.name}/elu` });
      case 'LeakyRelu':
        return this.g.node('LeakyRelu', [x], {
          name: `${node.name}/leakyrelu`,
          attrs: { alpha: { kind: 'float', value: node.attr?.leakyrelu_alpha?.f ?? 0.2 } },
        });
      case 'Prelu': {
        const alpha = this.constInput(node, extra[0], 'PReLU alpha');
        const slope = layout === 'NCHW' ? this.constForNchw(node, alpha) : this.constName(node, alpha);
        if (!slope) fail(node, `PReLU alpha of shape [${alpha.shape}]`);
        return this.g.node('PRelu', [x, slope], { name: `${node.name}/prelu` });
      }
      default:
        return fail(node, `unsupported fused activation ${act}`);
    }
  }

  private clip(x: string, min: number, max: number, name: string): string {
    const lo = this.g.constFloat(`${name}/min`, [], [min]);
    const hi = this.g.constFloat(`${name}/max`, [], [max]);
    return this.g.node('Clip', [x, lo, hi], { name });
  }

  private padding(node: TfNode): Record<string, number[] | string> {
    const padding = attrString(node, 'padding');
    if (padding === 'SAME') return { auto_pad: 'SAME_UPPER' };
    if (padding === 'VALID') return { auto_pad: 'VALID' };
    if (padding === 'EXPLICIT') {
      const p = attrInts(node, 'explicit_paddings');
      return { pads: [p[2]!, p[4]!, p[3]!, p[5]!] };
    }
    return fail(node, `unsupported padding ${padding}`);
  }

  private spatial(node: TfNode, key: string): number[] {
    const v = attrInts(node, key);
    if (v.length === 0) return [1, 1];
    if (v.length !== 4 || v[0] !== 1 || v[3] !== 1) fail(node, `unsupported ${key} [${v}]`);
    return [v[1]!, v[2]!];
  }

  // ---- ops -------------------------------------------------------------------------

  private convertNode(node: TfNode, inputs: Value[]): Value {
    checkAttributes(node);
    const g = this.g;
    const x = inputs[0];
    switch (node.op) {
      case 'Placeholder': {
        let dims: (number | string)[] = (node.attr?.shape?.shape?.dim ?? []).map((d) => (Number(d.size) < 0 ? 'batch' : Number(d.size)));
        if (this.options.anySize) {
          if (dims.length !== 4) fail(node, 'anySize needs an NHWC image input');
          dims = [dims[0]!, 'height', 'width', dims[3]!];
        }
        if (node.attr?.dtype?.type !== 'DT_FLOAT') fail(node, `unsupported input type ${node.attr?.dtype?.type}`);
        return this.tensor(g.input(node.name, dims), 'TF');
      }
      case 'Const': {
        const t = this.weights.get(node.name);
        if (!t) fail(node, 'constant has no weights entry');
        return { kind: 'const', tensor: t };
      }
      case 'Identity':
        if (!x) fail(node, 'missing input');
        return x;

      case 'Conv2D':
      case '_FusedConv2D':
      case 'DepthwiseConv2dNative':
      case 'FusedDepthwiseConv2dNative': {
        if (!x || x.kind === 'const') fail(node, 'input must be a tensor');
        const filter = this.constInput(node, inputs[1], 'filter');
        const depthwise = node.op.includes('Depthwise');
        const [kh, kw, cin, cout] = filter.shape as [number, number, number, number];
        const w = depthwise
          ? { ...transposeData(filter, [2, 3, 0, 1]), shape: [cin * cout, 1, kh, kw] }
          : transposeData(filter, [3, 2, 0, 1]);
        const fused = node.op.startsWith('_Fused') || node.op.startsWith('Fused');
        const ops = fused ? attrStrings(node, 'fused_ops') : [];
        const convInputs = [this.asNchw(x), this.constName(node, w)];
        if (fused) {
          if (ops[0] !== 'BiasAdd') fail(node, `unsupported fused_ops [${ops}]`);
          convInputs.push(this.constName(node, this.constInput(node, inputs[2], 'bias')));
        }
        const y = g.node('Conv', convInputs, {
          name: node.name,
          attrs: {
            ...this.padding(node),
            strides: this.spatial(node, 'strides'),
            dilations: this.spatial(node, 'dilations'),
            kernel_shape: [kh, kw],
            group: depthwise ? cin : 1,
          },
        });
        return this.tensor(fused ? this.fusedActivation(node, y, 'NCHW', ops, inputs.slice(3)) : y, 'NCHW');
      }
      case 'MaxPool':
      case 'AvgPool': {
        if (!x || x.kind === 'const') fail(node, 'input must be a tensor');
        const y = g.node(node.op === 'MaxPool' ? 'MaxPool' : 'AveragePool', [this.asNchw(x)], {
          name: node.name,
          attrs: { ...this.padding(node), strides: this.spatial(node, 'strides'), kernel_shape: this.spatial(node, 'ksize') },
        });
        return this.tensor(y, 'NCHW');
      }
      case 'Pad': {
        if (!x || x.kind === 'const') fail(node, 'input must be a tensor');
        const p = Array.from(this.constInput(node, inputs[1], 'paddings').data);
        const rank = p.length / 2;
        let begins = Array.from({ length: rank }, (_, i) => p[2 * i]!);
        let ends = Array.from({ length: rank }, (_, i) => p[2 * i + 1]!);
        let name: string;
        if (x.layout === 'NCHW') {
          begins = TO_NCHW.map((a) => begins[a]!);
          ends = TO_NCHW.map((a) => ends[a]!);
          name = x.name;
        } else {
          name = this.asTf(x);
        }
        const pads = g.constInt64(`${node.name}/pads`, [...begins, ...ends]);
        return this.tensor(g.node('Pad', [name, pads], { name: node.name, attrs: { mode: 'constant' } }), x.layout);
      }

      case 'Add':
      case 'AddV2':
      case 'BiasAdd':
        return this.elementwise(node, 'Add', inputs);
      case 'Sub':
        return this.elementwise(node, 'Sub', inputs);
      case 'Mul':
        return this.elementwise(node, 'Mul', inputs);
      case 'RealDiv':
        return this.elementwise(node, 'Div', inputs);
      case 'Minimum':
        return this.elementwise(node, 'Min', inputs);
      case 'Maximum':
        return this.elementwise(node, 'Max', inputs);
      case 'Prelu':
        return this.elementwise(node, 'PRelu', inputs);

      case 'Relu':
      case 'Sigmoid':
      case 'Tanh':
      case 'Abs':
      case 'Neg':
      case 'Exp':
      case 'Sqrt':
      case 'Elu':
        return this.unary(node, x, (n) => g.node(node.op, [n], { name: node.name }));
      case 'Relu6':
        return this.unary(node, x, (n) => this.clip(n, 0, 6, node.name));
      case 'LeakyRelu':
        return this.unary(node, x, (n) =>
          g.node('LeakyRelu', [n], { name: node.name, attrs: { alpha: { kind: 'float', value: node.attr?.alpha?.f ?? 0.2 } } }),
        );
      case 'Square':
        return this.unary(node, x, (n) => g.node('Mul', [n, n], { name: node.name }));
      case 'Rsqrt':
        return this.unary(node, x, (n) => g.node('Reciprocal', [g.node('Sqrt', [n], { name: `${node.name}/sqrt` })], { name: node.name }));

      case 'Mean':
      case 'Max':
      case 'Sum':
        return this.reduce(node, inputs);
      case 'Softmax': {
        if (!x || x.kind === 'const') fail(node, 'input must be a tensor');
        return this.tensor(g.node('Softmax', [this.asTf(x)], { name: node.name, attrs: { axis: -1 } }), 'TF');
      }
      case 'MatMul':
      case '_FusedMatMul':
        return this.matmul(node, inputs);
      case 'Reshape': {
        if (!x || x.kind === 'const') fail(node, 'input must be a tensor');
        const shape = inputs[1];
        if (!shape) fail(node, 'missing shape');
        let target = shape.kind === 'const' ? shape.tensor : undefined;
        if (this.options.anySize) {
          const d = target ? [...target.data] : [];
          if (d.length !== 3 || d[0] !== 1) fail(node, `anySize: reshape to [${d}] depends on the input size`);
          target = { ...target!, data: Int32Array.from([1, -1, d[2]!]) };
        }
        const shapeName = target ? this.constName(node, target, true) : this.asTf(shape);
        return this.tensor(g.node('Reshape', [this.asTf(x), shapeName], { name: node.name }), 'TF', x.integer);
      }
      case 'Squeeze': {
        if (!x || x.kind === 'const') fail(node, 'input must be a tensor');
        const axes = attrInts(node, 'squeeze_dims');
        const args = [this.asTf(x)];
        if (axes.length > 0) args.push(g.constInt64(`${node.name}/axes`, axes));
        return this.tensor(g.node('Squeeze', args, { name: node.name }), 'TF', x.integer);
      }
      case 'ExpandDims': {
        if (!x || x.kind === 'const') fail(node, 'input must be a tensor');
        const axis = Array.from(this.constInput(node, inputs[1], 'axis').data);
        return this.tensor(g.node('Unsqueeze', [this.asTf(x), g.constInt64(`${node.name}/axes`, axis)], { name: node.name }), 'TF', x.integer);
      }
      case 'ConcatV2':
        return this.concat(node, inputs);
      case 'Shape': {
        if (!x || x.kind === 'const') fail(node, 'input must be a tensor');
        return this.tensor(g.node('Shape', [this.asTf(x)], { name: node.name }), 'TF', true);
      }
      case 'StridedSlice':
        return this.stridedSlice(node, inputs);
      case 'Pack':
        return this.pack(node, inputs);
      case 'ResizeBilinear': {
        if (!x || x.kind === 'const') fail(node, 'input must be a tensor');
        const size = Array.from(this.constInput(node, inputs[1], 'size').data);
        const input = this.asNchw(x);
        const batchAndChannels = g.node('Slice', [g.node('Shape', [input], { name: `${node.name}/shape` }), g.constInt64('zero', [0]), g.constInt64('two', [2])], {
          name: `${node.name}/nc`,
        });
        const sizes = g.node('Concat', [batchAndChannels, g.constInt64(`${node.name}/hw`, size)], { name: `${node.name}/sizes`, attrs: { axis: 0 } });
        const mode = attrBool(node, 'align_corners') ? 'align_corners' : attrBool(node, 'half_pixel_centers') ? 'half_pixel' : 'asymmetric';
        const y = g.node('Resize', [input, '', '', sizes], {
          name: node.name,
          attrs: { mode: 'linear', coordinate_transformation_mode: mode },
        });
        return this.tensor(y, 'NCHW');
      }
      case 'DepthToSpace': {
        if (!x || x.kind === 'const') fail(node, 'input must be a tensor');
        // TF's NHWC depth order (block row, block column, channel) is ONNX's DCR mode.
        const y = g.node('DepthToSpace', [this.asNchw(x)], { name: node.name, attrs: { blocksize: attrInt(node, 'block_size'), mode: 'DCR' } });
        return this.tensor(y, 'NCHW');
      }
      default:
        return fail(node, 'unsupported op');
    }
  }

  private reduce(node: TfNode, inputs: Value[]): Value {
    const x = inputs[0];
    if (!x || x.kind === 'const') fail(node, 'input must be a tensor');
    const keep = attrBool(node, 'keep_dims') ? 1 : 0;
    let axes = Array.from(this.constInput(node, inputs[1], 'reduction axes').data).map((a) => (a < 0 ? a + 4 : a));
    let input: string;
    let layout: Layout = 'TF';
    const spatialOnly = axes.length === 2 && axes.includes(1) && axes.includes(2);
    if (x.layout === 'NCHW' && (keep === 1 || spatialOnly)) {
      axes = axes.map((a) => NHWC_AXIS_IN_NCHW[a]!);
      input = x.name;
      // [N,C,1,1] stays NCHW; without keep_dims the result is [N,C], the same in both layouts
      layout = keep ? 'NCHW' : 'TF';
    } else {
      input = this.asTf(x);
    }
    const op = { Mean: 'ReduceMean', Max: 'ReduceMax', Sum: 'ReduceSum' }[node.op]!;
    // opset 17: ReduceSum takes axes as an input, ReduceMean/ReduceMax as an attribute
    const y =
      op === 'ReduceSum'
        ? this.g.node(op, [input, this.g.constInt64(`${node.name}/axes`, axes)], { name: node.name, attrs: { keepdims: keep } })
        : this.g.node(op, [input], { name: node.name, attrs: { axes, keepdims: keep } });
    return this.tensor(y, layout);
  }

  private matmul(node: TfNode, inputs: Value[]): Value {
    const [a, b] = inputs;
    if (!a || a.kind === 'const' || !b) fail(node, 'expects a tensor and a weight');
    if (attrBool(node, 'transpose_a')) fail(node, 'transpose_a is not supported');
    let weight: string;
    if (b.kind === 'const') {
      weight = this.constName(node, attrBool(node, 'transpose_b') ? transposeData(b.tensor, [1, 0]) : b.tensor);
    } else {
      if (attrBool(node, 'transpose_b')) fail(node, 'transpose_b on a non-constant is not supported');
      weight = this.asTf(b);
    }
    let y = this.g.node('MatMul', [this.asTf(a), weight], { name: node.name });
    if (node.op === '_FusedMatMul') {
      const ops = attrStrings(node, 'fused_ops');
      if (ops[0] !== 'BiasAdd') fail(node, `unsupported fused_ops [${ops}]`);
      const bias = this.constName(node, this.constInput(node, inputs[2], 'bias'));
      y = this.g.node('Add', [y, bias], { name: `${node.name}/bias` });
      y = this.fusedActivation(node, y, 'TF', ops, inputs.slice(3));
    }
    return this.tensor(y, 'TF');
  }

  private concat(node: TfNode, inputs: Value[]): Value {
    const parts = inputs.slice(0, -1);
    let axis = Number(this.constInput(node, inputs[inputs.length - 1], 'axis').data[0]);
    const tensors = parts.filter((p): p is Extract<Value, { kind: 'tensor' }> => p.kind === 'tensor');
    if (tensors.length === 0) fail(node, 'all inputs constant');
    const integer = tensors.some((t) => t.integer);
    if (!integer && parts.every((p) => p.kind === 'tensor' && p.layout === 'NCHW')) {
      if (axis < 0) axis += 4;
      const names = tensors.map((t) => t.name);
      return this.tensor(this.g.node('Concat', names, { name: node.name, attrs: { axis: NHWC_AXIS_IN_NCHW[axis]! } }), 'NCHW');
    }
    const names = parts.map((p) => (p.kind === 'const' ? this.constName(node, p.tensor, integer) : this.asTf(p)));
    return this.tensor(this.g.node('Concat', names, { name: node.name, attrs: { axis } }), 'TF', integer);
  }

  private stridedSlice(node: TfNode, inputs: Value[]): Value {
    const x = inputs[0];
    if (!x || x.kind === 'const') fail(node, 'input must be a tensor');
    const begin = Array.from(this.constInput(node, inputs[1], 'begin').data);
    const end = Array.from(this.constInput(node, inputs[2], 'end').data);
    const strides = Array.from(this.constInput(node, inputs[3], 'strides').data);
    const beginMask = attrInt(node, 'begin_mask');
    const endMask = attrInt(node, 'end_mask');
    const shrinkMask = attrInt(node, 'shrink_axis_mask');
    const axes: number[] = [];
    const starts: number[] = [];
    const ends: number[] = [];
    const steps: number[] = [];
    const shrink: number[] = [];
    const BIG = 2 ** 31 - 1;
    for (let i = 0; i < begin.length; i++) {
      const step = strides[i]!;
      const start = beginMask & (1 << i) ? (step > 0 ? 0 : BIG) : begin[i]!;
      let stop = endMask & (1 << i) ? (step > 0 ? BIG : -BIG) : end[i]!;
      if (shrinkMask & (1 << i)) {
        stop = start + 1 === 0 ? BIG : start + 1;
        shrink.push(i);
      }
      axes.push(i);
      starts.push(start);
      ends.push(stop);
      steps.push(step);
    }
    const g = this.g;
    let y = g.node(
      'Slice',
      [this.asTf(x), g.constInt64(`${node.name}/starts`, starts), g.constInt64(`${node.name}/ends`, ends), g.constInt64(`${node.name}/axes`, axes), g.constInt64(`${node.name}/steps`, steps)],
      { name: node.name },
    );
    if (shrink.length > 0) y = g.node('Squeeze', [y, g.constInt64(`${node.name}/shrink`, shrink)], { name: `${node.name}/shrink` });
    return this.tensor(y, 'TF', x.integer);
  }

  private pack(node: TfNode, inputs: Value[]): Value {
    const axis = attrInt(node, 'axis');
    const tensors = inputs.filter((p): p is Extract<Value, { kind: 'tensor' }> => p.kind === 'tensor');
    if (tensors.length === 0) fail(node, 'all inputs constant');
    const integer = tensors.some((t) => t.integer);
    const axes = this.g.constInt64(`${node.name}/axis`, [axis]);
    const names = inputs.map((p, i) => {
      const name = p.kind === 'const' ? this.constName(node, p.tensor, integer) : this.asTf(p);
      return this.g.node('Unsqueeze', [name, axes], { name: `${node.name}/unsqueeze${i}` });
    });
    return this.tensor(this.g.node('Concat', names, { name: node.name, attrs: { axis } }), 'TF', integer);
  }
}
