// Cuts a graph in two at one tensor: a head that computes it and a tail that goes on from it, so
// two runtimes can share one model's work (GEAR: src/models/catalog.ts GEAR_SPLIT). The cut must
// be the uint8 output of a QLinearConv (ORT's int8 convolution, plain or com.microsoft NHWC): the
// head hands it over as float32 `features` (DequantizeLinear with the scale and zero point the
// convolution writes it with), and the tail quantises it back with the same ones. A uint8 value
// survives that round trip exactly, so head then tail gives the whole graph's outputs bit for bit.
// Weights stored as constant Cast → Mul → Add chains go with the part whose nodes use them:
// nodes are chosen by what the part's outputs depend on, never by their place in the graph.
import { DataType, type GraphDef, type NodeDef } from './onnx-model.ts';

/** the tensor a head outputs and a tail takes */
export const FEATURES = 'features';

export interface GraphSplit {
  head: GraphDef;
  tail: GraphDef;
  /** the values `features` can take: the cut's uint8 range dequantised */
  range: [number, number];
}

/** the nodes of `graph` that `outputs` depend on, in graph order, not looking past `stop` */
function dependencies(graph: GraphDef, outputs: string[], stop?: string): NodeDef[] {
  const producer = new Map(graph.nodes.flatMap((n) => n.outputs.map((o) => [o, n] as const)));
  const keep = new Set<NodeDef>();
  for (const stack = [...outputs]; stack.length > 0; ) {
    const name = stack.pop()!;
    if (name === stop) continue;
    const node = producer.get(name);
    if (node && !keep.has(node)) {
      keep.add(node);
      stack.push(...node.inputs.filter((i) => i !== ''));
    }
  }
  return graph.nodes.filter((n) => keep.has(n));
}

/** a part's graph: its nodes with just the initializers they read */
function part(graph: GraphDef, name: string, nodes: NodeDef[], inputs: GraphDef['inputs'], outputs: GraphDef['outputs']): GraphDef {
  const used = new Set(nodes.flatMap((n) => n.inputs));
  return { name, nodes, initializers: graph.initializers.filter((t) => used.has(t.name)), inputs, outputs };
}

function scalar(graph: GraphDef, name: string | undefined, what: string) {
  const t = graph.initializers.find((i) => i.name === name);
  if (!t || t.dims.length !== 0) throw new Error(`the cut's ${what} (${name}) is not a scalar initializer`);
  return t;
}

/** The head (graph inputs → `features`) and tail (`features` → every graph output) of `graph` cut at tensor `cut`. */
export function splitGraph(graph: GraphDef, cut: string): GraphSplit {
  const producer = graph.nodes.find((n) => n.outputs.includes(cut));
  if (!producer) throw new Error(`${cut} is not produced by any node`);
  if (producer.opType !== 'QLinearConv') throw new Error(`${cut} comes from a ${producer.opType}, not a QLinearConv`);
  // QLinearConv(x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, bias)
  const [weights, yScale, yZero] = [producer.inputs[3], producer.inputs[6], producer.inputs[7]];
  const scale = scalar(graph, yScale, 'y_scale');
  const zero = scalar(graph, yZero, 'y_zero_point');
  if (zero.dataType !== DataType.UINT8) throw new Error(`${cut} is not uint8`);
  const channels = graph.initializers.find((i) => i.name === weights)?.dims[0];
  if (channels === undefined) throw new Error(`${cut}: the convolution's weights are not an initializer`);

  const features = { name: FEATURES, dataType: DataType.FLOAT, dims: ['batch', 'h', 'w', channels] };
  const head = part(
    graph,
    `${graph.name}-head`,
    [...dependencies(graph, [cut]), { opType: 'DequantizeLinear', name: `${FEATURES}/dequantize`, inputs: [cut, scale.name, zero.name], outputs: [FEATURES], attributes: {} }],
    graph.inputs,
    [features],
  );
  const tailNodes = dependencies(graph, graph.outputs.map((o) => o.name), cut);
  const graphInputs = new Set(graph.inputs.map((i) => i.name));
  const leak = tailNodes.find((n) => n.inputs.some((i) => graphInputs.has(i)));
  if (leak) throw new Error(`the tail's ${leak.name} needs the head's tensors, not only ${cut}`);
  const tail = part(
    graph,
    `${graph.name}-tail`,
    [{ opType: 'QuantizeLinear', name: `${FEATURES}/quantize`, inputs: [FEATURES, scale.name, zero.name], outputs: [cut], attributes: {} }, ...tailNodes],
    [features],
    graph.outputs,
  );
  const s = new DataView(scale.raw.buffer, scale.raw.byteOffset, 4).getFloat32(0, true);
  const zp = zero.raw[0]!;
  // as float32, what DequantizeLinear gives
  return { head, tail, range: [Math.fround((0 - zp) * s), Math.fround((255 - zp) * s)] };
}
