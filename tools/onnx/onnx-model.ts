// An in-memory ONNX graph and its serialisation to ModelProto bytes.
// Field numbers follow onnx/onnx.proto (IR version 8).
import { ProtoWriter } from './protobuf.ts';

export const DataType = { FLOAT: 1, UINT8: 2, INT8: 3, INT32: 6, INT64: 7, BOOL: 9, FLOAT16: 10 } as const;
export type DataTypeCode = (typeof DataType)[keyof typeof DataType];

export interface TensorData {
  dims: number[];
  dataType: DataTypeCode;
  /** little-endian raw bytes of the values */
  raw: Uint8Array;
}

export type AttributeValue =
  | { kind: 'int'; value: number }
  | { kind: 'float'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'ints'; value: number[] }
  | { kind: 'floats'; value: number[] }
  | { kind: 'tensor'; value: TensorData };

export interface NodeDef {
  opType: string;
  name: string;
  inputs: string[];
  outputs: string[];
  attributes: Record<string, AttributeValue>;
  /** operator set domain; absent = the default ONNX domain (e.g. 'com.microsoft' for ORT's fused ops) */
  domain?: string;
}

export interface OpsetImport {
  domain: string;
  version: number;
}

export interface ValueInfo {
  name: string;
  dataType: DataTypeCode;
  /** numbers are fixed sizes, strings are symbolic (e.g. "batch"); undefined = shape left to inference */
  dims?: (number | string)[];
}

export interface GraphDef {
  name: string;
  nodes: NodeDef[];
  initializers: (TensorData & { name: string })[];
  inputs: ValueInfo[];
  outputs: ValueInfo[];
}

export interface ModelDef {
  graph: GraphDef;
  /** version of the default ONNX domain */
  opset: number;
  /** other domains the nodes use (ORT's com.microsoft after tools/onnx/ort-optimize.ts) */
  extraOpsets?: OpsetImport[];
  producerName: string;
  producerVersion: string;
  docString?: string;
  metadata?: Record<string, string>;
}

const IR_VERSION = 8;
const AttrType = { FLOAT: 1, INT: 2, STRING: 3, TENSOR: 4, FLOATS: 6, INTS: 7 } as const;

function writeTensor(w: ProtoWriter, t: TensorData, name?: string): void {
  for (const d of t.dims) w.int(1, d);
  w.int(2, t.dataType);
  if (name !== undefined) w.string(8, name);
  w.bytes(9, t.raw);
}

function writeValueInfo(w: ProtoWriter, v: ValueInfo): void {
  w.string(1, v.name);
  w.message(2, (type) =>
    type.message(1, (tensor) => {
      tensor.int(1, v.dataType);
      const dims = v.dims;
      if (dims === undefined) return;
      tensor.message(2, (shape) => {
        for (const d of dims) {
          shape.message(1, (dim) => (typeof d === 'number' ? dim.int(1, d) : dim.string(2, d)));
        }
      });
    }),
  );
}

function writeAttribute(w: ProtoWriter, name: string, a: AttributeValue): void {
  w.string(1, name);
  switch (a.kind) {
    case 'int':
      w.int(3, a.value).int(20, AttrType.INT);
      break;
    case 'float':
      w.float(2, a.value).int(20, AttrType.FLOAT);
      break;
    case 'string':
      w.string(4, a.value).int(20, AttrType.STRING);
      break;
    case 'ints':
      for (const v of a.value) w.int(8, v);
      w.int(20, AttrType.INTS);
      break;
    case 'floats':
      for (const v of a.value) w.float(7, v);
      w.int(20, AttrType.FLOATS);
      break;
    case 'tensor':
      w.message(5, (t) => writeTensor(t, a.value));
      w.int(20, AttrType.TENSOR);
      break;
  }
}

function writeNode(w: ProtoWriter, n: NodeDef): void {
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  w.string(3, n.name);
  w.string(4, n.opType);
  // sorted so that attribute order never depends on object insertion order
  for (const key of Object.keys(n.attributes).sort()) {
    w.message(5, (a) => writeAttribute(a, key, n.attributes[key]!));
  }
  if (n.domain) w.string(7, n.domain);
}

export function serializeModel(model: ModelDef): Uint8Array {
  const w = new ProtoWriter();
  w.int(1, IR_VERSION);
  w.string(2, model.producerName);
  w.string(3, model.producerVersion);
  if (model.docString) w.string(6, model.docString);
  w.message(7, (g) => {
    for (const n of model.graph.nodes) g.message(1, (nw) => writeNode(nw, n));
    g.string(2, model.graph.name);
    for (const t of model.graph.initializers) g.message(5, (tw) => writeTensor(tw, t, t.name));
    for (const i of model.graph.inputs) g.message(11, (vw) => writeValueInfo(vw, i));
    for (const o of model.graph.outputs) g.message(12, (vw) => writeValueInfo(vw, o));
  });
  w.message(8, (o) => o.string(1, '').int(2, model.opset));
  for (const extra of model.extraOpsets ?? []) w.message(8, (o) => o.string(1, extra.domain).int(2, extra.version));
  for (const key of Object.keys(model.metadata ?? {}).sort()) {
    w.message(14, (e) => e.string(1, key).string(2, model.metadata![key]!));
  }
  return w.finish();
}
