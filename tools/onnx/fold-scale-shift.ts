// GEAR normalises after each activation: Conv → Relu → BatchNorm (Mul, Add per channel) →
// MaxPool → next Conv. ORT cannot fold a BatchNorm that follows the activation into the conv
// before it, so it runs two full-resolution element-wise passes per block in float (and, in
// the int8 graph, the activations leave int8 for them: measured 2 threads, GEAR's Mul + Add +
// their Quantize/Dequantize were ~9 ms of 53). With every scale positive, the per-channel
// x·s + b commutes with max pooling, and a VALID (unpadded) next conv absorbs it exactly:
// W'[o,c] = W[o,c]·s[c], B'[o] = B[o] + Σ_c b[c]·ΣW[o,c]. Pure on GraphDef.
import { floatValues } from './compress-weights.ts';
import { DataType, type GraphDef, type NodeDef, type TensorData } from './onnx-model.ts';

type Init = GraphDef['initializers'][number];

export function foldScaleShiftIntoNextConv(graph: GraphDef): GraphDef {
  const inits = new Map(graph.initializers.map((t) => [t.name, t]));
  const producer = new Map<string, NodeDef>();
  for (const n of graph.nodes) for (const o of n.outputs) producer.set(o, n);
  const readers = new Map<string, NodeDef[]>();
  for (const n of graph.nodes) for (const i of n.inputs) readers.set(i, [...(readers.get(i) ?? []), n]);
  const graphOutputs = new Set(graph.outputs.map((o) => o.name));
  const onlyReader = (t: string) => (graphOutputs.has(t) || readers.get(t)?.length !== 1 ? undefined : readers.get(t)![0]);
  /** a constant's values: an initializer, or a float16 initializer behind a Cast */
  const constant = (name: string): { values: Float32Array; dims: number[] } | undefined => {
    const direct = inits.get(name);
    const cast = producer.get(name);
    const source = direct ?? (cast?.opType === 'Cast' ? inits.get(cast.inputs[0]!) : undefined);
    if (!source || (source.dataType !== DataType.FLOAT && source.dataType !== DataType.FLOAT16)) return undefined;
    return { values: floatValues(source), dims: source.dims };
  };
  /** the per-channel constant input of a two-input Mul/Add, or undefined */
  const perChannel = (node: NodeDef, x: string): Float32Array | undefined => {
    const other = node.inputs.find((i) => i !== x);
    if (node.inputs.length !== 2 || !other) return undefined;
    const c = constant(other);
    // [C,1,1] or [1,C,1,1] against NCHW
    if (!c || c.dims.length < 3 || c.dims.slice(-2).some((d) => d !== 1) || c.dims.slice(0, -3).some((d) => d !== 1)) return undefined;
    return c.values;
  };
  const unpadded = (conv: NodeDef) => {
    const autoPad = conv.attributes.auto_pad;
    const pads = conv.attributes.pads;
    const group = conv.attributes.group;
    const padOk = autoPad?.kind === 'string' ? autoPad.value === 'VALID' : pads?.kind === 'ints' ? pads.value.every((p) => p === 0) : autoPad === undefined;
    return padOk && (group === undefined || (group.kind === 'int' && group.value === 1));
  };

  const removed = new Set<NodeDef>();
  const added: Init[] = [];
  const rewired = new Map<NodeDef, string[]>();
  for (const mul of graph.nodes) {
    if (mul.opType !== 'Mul') continue;
    const x = mul.inputs.find((i) => !inits.has(i) && producer.get(i)?.opType !== 'Cast');
    if (!x) continue;
    const scale = perChannel(mul, x);
    const add = onlyReader(mul.outputs[0]!);
    if (!scale || add?.opType !== 'Add' || scale.some((s) => !(s > 0))) continue;
    const shift = perChannel(add, mul.outputs[0]!);
    const pool = onlyReader(add.outputs[0]!);
    if (!shift || shift.length !== scale.length || pool?.opType !== 'MaxPool') continue;
    const conv = onlyReader(pool.outputs[0]!);
    if (conv?.opType !== 'Conv' || conv.inputs[0] !== pool.outputs[0] || !unpadded(conv)) continue;
    const w = constant(conv.inputs[1]!);
    const b = conv.inputs[2] ? constant(conv.inputs[2]) : undefined;
    if (!w || w.dims.length !== 4 || w.dims[1] !== scale.length || (conv.inputs[2] && !b)) continue;

    const [outC, inC, kh, kw] = w.dims as [number, number, number, number];
    const per = kh * kw;
    const weights = new Float32Array(w.values.length);
    const bias = new Float32Array(outC);
    for (let o = 0; o < outC; o++) {
      let extra = 0;
      for (let c = 0; c < inC; c++) {
        let sum = 0;
        for (let k = 0; k < per; k++) {
          const i = (o * inC + c) * per + k;
          weights[i] = w.values[i]! * scale[c]!;
          sum += w.values[i]!;
        }
        extra += shift[c]! * sum;
      }
      bias[o] = (b?.values[o] ?? 0) + extra;
    }
    const tensor = (name: string, dims: number[], v: Float32Array): Init & TensorData => ({ name, dims, dataType: DataType.FLOAT, raw: new Uint8Array(v.buffer) });
    added.push(tensor(`${conv.name}/w_folded`, w.dims, weights), tensor(`${conv.name}/b_folded`, [outC], bias));
    removed.add(mul).add(add);
    rewired.set(pool, [x, ...pool.inputs.slice(1)]);
    rewired.set(conv, [conv.inputs[0]!, `${conv.name}/w_folded`, `${conv.name}/b_folded`]);
  }
  if (removed.size === 0) return graph;
  let nodes = graph.nodes.filter((n) => !removed.has(n)).map((n) => (rewired.has(n) ? { ...n, inputs: rewired.get(n)! } : n));
  // Casts (and initializers) that fed only the replaced weights go too
  for (;;) {
    const read = new Set([...nodes.flatMap((n) => n.inputs), ...graphOutputs]);
    const kept = nodes.filter((n) => n.outputs.some((o) => read.has(o)));
    if (kept.length === nodes.length) break;
    nodes = kept;
  }
  const read = new Set(nodes.flatMap((n) => n.inputs));
  return { ...graph, nodes, initializers: [...graph.initializers, ...added].filter((t) => read.has(t.name)) };
}
