// Reads ModelProto bytes back into a GraphDef: what the converter needs of a graph that
// onnxruntime-node optimised and saved (tools/onnx/ort-optimize.ts). Field numbers follow
// onnx/onnx.proto; value_info, doc strings and metadata are not kept (the converter writes its own).
import { fields, text, type Field } from '../../src/models/protobuf-wire.ts';
import type { AttributeValue, DataTypeCode, GraphDef, NodeDef, OpsetImport, TensorData, ValueInfo } from './onnx-model.ts';

/** a varint field as a signed 64-bit value (ONNX ints are int64: negatives take 10 bytes) */
function signedVarint(bytes: Uint8Array, at: number): [number, number] {
  let value = 0n;
  let shift = 0n;
  let pos = at;
  for (;;) {
    const b = bytes[pos++]!;
    value |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) return [Number(BigInt.asIntN(64, value)), pos];
    shift += 7n;
  }
}

const int = (bytes: Uint8Array, f: Field) => signedVarint(bytes, f.payload)[0];
const float32 = (bytes: Uint8Array, at: number) => new DataView(bytes.buffer, bytes.byteOffset + at, 4).getFloat32(0, true);

/** packed (length-delimited) or single varints */
function ints(bytes: Uint8Array, f: Field, wire: number): number[] {
  if (wire !== 2) return [int(bytes, f)];
  const out: number[] = [];
  for (let p = f.payload; p < f.end; ) {
    const [v, next] = signedVarint(bytes, p);
    out.push(v);
    p = next;
  }
  return out;
}

/** packed (length-delimited) or single float32s */
function floats(bytes: Uint8Array, f: Field, wire: number): number[] {
  if (wire !== 2) return [float32(bytes, f.payload)];
  return Array.from({ length: (f.end - f.payload) / 4 }, (_, i) => float32(bytes, f.payload + 4 * i));
}

const wireOf = (bytes: Uint8Array, f: Field) => bytes[f.start]! & 7;

function parseTensor(bytes: Uint8Array, span: Field): TensorData & { name: string } {
  const dims: number[] = [];
  let dataType = 0;
  let name = '';
  let raw: Uint8Array | undefined;
  const typed: number[] = [];
  for (const f of fields(bytes, span.payload, span.end)) {
    const wire = wireOf(bytes, f);
    if (f.field === 1) dims.push(...ints(bytes, f, wire));
    else if (f.field === 2) dataType = int(bytes, f);
    else if (f.field === 4) typed.push(...floats(bytes, f, wire));
    else if (f.field === 5 || f.field === 7) typed.push(...ints(bytes, f, wire));
    else if (f.field === 8) name = text(bytes, f);
    else if (f.field === 9) raw = bytes.slice(f.payload, f.end);
    else if (f.field === 14) throw new Error(`tensor ${name}: external data is not supported`);
  }
  if (!raw) raw = typedToRaw(typed, dataType, name);
  return { name, dims, dataType: dataType as DataTypeCode, raw };
}

/** float_data / int32_data / int64_data values as the raw little-endian bytes of `dataType` */
function typedToRaw(values: number[], dataType: number, name: string): Uint8Array {
  switch (dataType) {
    case 1:
      return new Uint8Array(Float32Array.from(values).buffer);
    case 6:
      return new Uint8Array(Int32Array.from(values).buffer);
    case 7:
      return new Uint8Array(BigInt64Array.from(values.map(BigInt)).buffer);
    case 2:
    case 3:
    case 9:
      return Uint8Array.from(values.map((v) => v & 0xff));
    case 10:
      return new Uint8Array(Uint16Array.from(values).buffer);
    default:
      throw new Error(`tensor ${name}: data type ${dataType} without raw_data`);
  }
}

function parseAttribute(bytes: Uint8Array, span: Field): [string, AttributeValue] {
  let name = '';
  let type = 0;
  const seen: { i?: number; f?: number; s?: string; t?: TensorData; ints: number[]; floats: number[] } = { ints: [], floats: [] };
  for (const f of fields(bytes, span.payload, span.end)) {
    const wire = wireOf(bytes, f);
    if (f.field === 1) name = text(bytes, f);
    else if (f.field === 2) seen.f = float32(bytes, f.payload);
    else if (f.field === 3) seen.i = int(bytes, f);
    else if (f.field === 4) seen.s = text(bytes, f);
    else if (f.field === 5) seen.t = parseTensor(bytes, f);
    else if (f.field === 7) seen.floats.push(...floats(bytes, f, wire));
    else if (f.field === 8) seen.ints.push(...ints(bytes, f, wire));
    else if (f.field === 20) type = int(bytes, f);
  }
  // AttributeProto.AttributeType
  switch (type) {
    case 1:
      return [name, { kind: 'float', value: seen.f ?? 0 }];
    case 2:
      return [name, { kind: 'int', value: seen.i ?? 0 }];
    case 3:
      return [name, { kind: 'string', value: seen.s ?? '' }];
    case 4:
      return [name, { kind: 'tensor', value: seen.t! }];
    case 6:
      return [name, { kind: 'floats', value: seen.floats }];
    case 7:
      return [name, { kind: 'ints', value: seen.ints }];
    default:
      throw new Error(`attribute ${name}: type ${type} is not supported`);
  }
}

function parseNode(bytes: Uint8Array, span: Field): NodeDef {
  const node: NodeDef = { opType: '', name: '', inputs: [], outputs: [], attributes: {} };
  for (const f of fields(bytes, span.payload, span.end)) {
    if (f.field === 1) node.inputs.push(text(bytes, f));
    else if (f.field === 2) node.outputs.push(text(bytes, f));
    else if (f.field === 3) node.name = text(bytes, f);
    else if (f.field === 4) node.opType = text(bytes, f);
    else if (f.field === 5) {
      const [name, value] = parseAttribute(bytes, f);
      node.attributes[name] = value;
    } else if (f.field === 7) {
      const domain = text(bytes, f);
      if (domain) node.domain = domain;
    }
  }
  return node;
}

function parseValueInfo(bytes: Uint8Array, span: Field): ValueInfo {
  const info: ValueInfo = { name: '', dataType: 1 };
  for (const f of fields(bytes, span.payload, span.end)) {
    if (f.field === 1) info.name = text(bytes, f);
    if (f.field !== 2) continue;
    // TypeProto.tensor_type: elem_type 1, shape 2 (dim: dim_value 1 | dim_param 2)
    for (const t of fields(bytes, f.payload, f.end).filter((x) => x.field === 1)) {
      for (const g of fields(bytes, t.payload, t.end)) {
        if (g.field === 1) info.dataType = int(bytes, g) as DataTypeCode;
        if (g.field !== 2) continue;
        info.dims = fields(bytes, g.payload, g.end)
          .filter((d) => d.field === 1)
          .map((d) => {
            const part = fields(bytes, d.payload, d.end).find((x) => x.field === 1 || x.field === 2);
            return part?.field === 2 ? text(bytes, part) : part ? int(bytes, part) : '?';
          });
      }
    }
  }
  return info;
}

export function parseModel(bytes: Uint8Array): { graph: GraphDef; opsets: OpsetImport[] } {
  const graph: GraphDef = { name: '', nodes: [], initializers: [], inputs: [], outputs: [] };
  const opsets: OpsetImport[] = [];
  for (const f of fields(bytes)) {
    if (f.field === 8) {
      const opset: OpsetImport = { domain: '', version: 0 };
      for (const o of fields(bytes, f.payload, f.end)) {
        if (o.field === 1) opset.domain = text(bytes, o);
        if (o.field === 2) opset.version = int(bytes, o);
      }
      opsets.push(opset);
    }
    if (f.field !== 7) continue;
    for (const g of fields(bytes, f.payload, f.end)) {
      if (g.field === 1) graph.nodes.push(parseNode(bytes, g));
      else if (g.field === 2) graph.name = text(bytes, g);
      else if (g.field === 5) graph.initializers.push(parseTensor(bytes, g));
      else if (g.field === 11) graph.inputs.push(parseValueInfo(bytes, g));
      else if (g.field === 12) graph.outputs.push(parseValueInfo(bytes, g));
    }
  }
  // ONNX lists initializers among the graph inputs in older IR versions: keep real inputs only
  const initializerNames = new Set(graph.initializers.map((t) => t.name));
  graph.inputs = graph.inputs.filter((i) => !initializerNames.has(i.name));
  return { graph, opsets };
}
