// Static int8 quantisation of a graph's convolutions in QDQ form: every Conv reads
// DequantizeLinear(QuantizeLinear(x)) and int8 per-channel weights through DequantizeLinear,
// and its (activated) output passes QuantizeLinear → DequantizeLinear. ONNX Runtime fuses each
// such group into one QLinearConv (uint8 activations × int8 weights), which its WASM build
// runs about twice as fast as a float Conv. Activation ranges come from calibration runs on
// real face crops (tools/convert-models/calibrate.ts); pure on GraphDef.
import { floatValues } from './compress-weights.ts';
import { DataType, type GraphDef, type NodeDef, type TensorData } from './onnx-model.ts';

export interface Range {
  min: number;
  max: number;
}

/** The tensors whose ranges quantisation needs: each Conv's input and its activated output. */
export function calibrationTensors(graph: GraphDef): string[] {
  const names = new Set<string>();
  for (const conv of convs(graph)) {
    names.add(conv.node.inputs[0]!);
    names.add(conv.output);
  }
  return [...names];
}

interface ConvSite {
  node: NodeDef;
  /** the Conv's output, or that of the Relu/Clip right after it (fused by ORT) */
  output: string;
}

const ACTIVATIONS = new Set(['Relu', 'Clip']);

function convs(graph: GraphDef): ConvSite[] {
  const consumers = new Map<string, NodeDef[]>();
  for (const n of graph.nodes) for (const i of n.inputs) consumers.set(i, [...(consumers.get(i) ?? []), n]);
  return graph.nodes
    .filter((n) => n.opType === 'Conv')
    .map((node) => {
      const next = consumers.get(node.outputs[0]!) ?? [];
      const act = next.length === 1 && ACTIVATIONS.has(next[0]!.opType) ? next[0]! : undefined;
      return { node, output: act ? act.outputs[0]! : node.outputs[0]! };
    });
}

const f32 = (dims: number[], values: number[] | Float32Array): TensorData => {
  const v = Float32Array.from(values);
  return { dims, dataType: DataType.FLOAT, raw: new Uint8Array(v.buffer) };
};

/** uint8 affine parameters covering the range (and 0, so zero padding stays exact). */
export function activationParams(r: Range): { scale: number; zeroPoint: number } {
  const min = Math.min(0, r.min);
  const max = Math.max(0, r.max, min + 1e-6);
  const scale = (max - min) / 255;
  return { scale, zeroPoint: Math.min(255, Math.max(0, Math.round(-min / scale))) };
}

/** Symmetric int8 per output channel (zero point 0, as ORT's int8 kernels want). */
export function weightParams(values: Float32Array, channels: number): { q: Int8Array; scale: Float32Array } {
  const per = values.length / channels;
  const q = new Int8Array(values.length);
  const scale = new Float32Array(channels);
  for (let c = 0; c < channels; c++) {
    let peak = 0;
    for (let i = c * per; i < (c + 1) * per; i++) peak = Math.max(peak, Math.abs(values[i]!));
    scale[c] = peak > 0 ? peak / 127 : 1;
    for (let i = c * per; i < (c + 1) * per; i++) q[i] = Math.round(values[i]! / scale[c]!);
  }
  return { q, scale };
}

/** Returns the graph with every Conv in QDQ form (see the header). */
export function quantizeConvs(graph: GraphDef, ranges: ReadonlyMap<string, Range>, keepFloat: (conv: string, index: number) => boolean = () => false): GraphDef {
  const initializers = new Map(graph.initializers.map((t) => [t.name, t]));
  const producers = new Map<string, NodeDef>();
  for (const n of graph.nodes) for (const o of n.outputs) producers.set(o, n);
  const added: (TensorData & { name: string })[] = [];
  const removedInits = new Set<string>();
  const removedNodes = new Set<NodeDef>();
  /** nodes to insert before a given node (in order), and after another */
  const before = new Map<NodeDef, NodeDef[]>();
  const after = new Map<NodeDef, NodeDef[]>();
  const renamed = new Map<string, string>(); // activated output → its dequantised copy
  const quantizedInputs = new Map<string, string>();

  /** the scale/zero-point names each activated conv output was quantised with */
  const paramsOf = new Map<string, string>();
  const qdq = (tensor: string, hint: string, reuse?: string): { nodes: NodeDef[]; out: string } => {
    const params = reuse ?? hint;
    if (!reuse) {
      const range = ranges.get(tensor);
      if (!range) throw new Error(`no calibration range for ${tensor}`);
      const { scale, zeroPoint } = activationParams(range);
      added.push({ name: `${hint}/scale`, ...f32([], [scale]) }, { name: `${hint}/zero`, dims: [], dataType: DataType.UINT8, raw: new Uint8Array([zeroPoint]) });
    }
    const q: NodeDef = { opType: 'QuantizeLinear', name: `${hint}/Q`, inputs: [tensor, `${params}/scale`, `${params}/zero`], outputs: [`${hint}/q`], attributes: {} };
    const dq: NodeDef = { opType: 'DequantizeLinear', name: `${hint}/DQ`, inputs: [`${hint}/q`, `${params}/scale`, `${params}/zero`], outputs: [`${hint}/dq`], attributes: {} };
    return { nodes: [q, dq], out: `${hint}/dq` };
  };

  const sites = convs(graph).filter((site, i) => !keepFloat(site.node.name, i));
  for (const { node, output } of sites) {
    const hint = node.name;
    // activation in: one Q/DQ per tensor, however many convolutions read it
    const x = node.inputs[0]!;
    let xq = quantizedInputs.get(x) ?? renamed.get(x);
    const pre: NodeDef[] = [];
    if (!xq) {
      // max pooling of a quantised conv output keeps its grid: the same parameters let ORT pool in uint8
      const pooled = producers.get(x);
      const reuse = pooled?.opType === 'MaxPool' ? paramsOf.get(pooled.inputs[0]!) : undefined;
      const made = qdq(x, `${hint}/x`, reuse);
      pre.push(...made.nodes);
      xq = made.out;
      quantizedInputs.set(x, xq);
    }
    // weight: the initializer itself, or a float16 initializer behind a Cast
    const wName = node.inputs[1]!;
    const cast = producers.get(wName);
    const source = cast?.opType === 'Cast' ? initializers.get(cast.inputs[0]!) : initializers.get(wName);
    if (!source) throw new Error(`${hint}: weight ${wName} is not a constant`);
    if (cast?.opType === 'Cast') removedNodes.add(cast);
    removedInits.add(source.name);
    const channels = source.dims[0]!;
    const { q, scale } = weightParams(floatValues(source), channels);
    added.push(
      { name: `${hint}/w/int8`, dims: source.dims, dataType: DataType.INT8, raw: new Uint8Array(q.buffer) },
      { name: `${hint}/w/scale`, ...f32([channels], scale) },
      { name: `${hint}/w/zero`, dims: [channels], dataType: DataType.INT8, raw: new Uint8Array(channels) },
    );
    pre.push({
      opType: 'DequantizeLinear',
      name: `${hint}/w/DQ`,
      inputs: [`${hint}/w/int8`, `${hint}/w/scale`, `${hint}/w/zero`],
      outputs: [`${hint}/w/dq`],
      attributes: { axis: { kind: 'int', value: 0 } },
    });
    before.set(node, pre);
    node.inputs = [xq, `${hint}/w/dq`, ...node.inputs.slice(2)];
    // activated output: Q/DQ right after it; later readers take the dequantised copy
    const out = qdq(output, `${hint}/y`);
    paramsOf.set(output, `${hint}/y`);
    const last = producers.get(output)!;
    after.set(last, out.nodes);
    renamed.set(output, out.out);
  }
  const outputsOfGraph = new Set(graph.outputs.map((o) => o.name));
  const nodes: NodeDef[] = [];
  for (const n of graph.nodes) {
    if (removedNodes.has(n)) continue;
    nodes.push(...(before.get(n) ?? []));
    // readers of an activated conv output (other than its own Q) read the dequantised copy
    if (!n.name.endsWith('/Q')) n.inputs = n.inputs.map((i) => (renamed.has(i) && !outputsOfGraph.has(i) ? renamed.get(i)! : i));
    nodes.push(n);
    nodes.push(...(after.get(n) ?? []));
  }
  return {
    ...graph,
    nodes,
    initializers: [...graph.initializers.filter((t) => !removedInits.has(t.name)), ...added],
  };
}
