// Unpacks a model's stored weights before ONNX Runtime sees it. The converter stores large
// weights small (uint8 + per-channel scale/min, or float16) behind constant Cast → Mul → Add
// chains, which ORT folds back to float32 when it creates the session. In ORT-web that folding
// runs at V8's baseline tier and makes its ~490 KB Cast kernel hot, whose optimised compile
// then takes ~2 s of a core in the background while the first request runs (measured:
// docs/benchmarks.md "Where the time goes"). Folding those chains here, in plain JS, before the
// session exists, gives ORT a model with ordinary float32 weights: the same values (float32
// arithmetic, as ORT's kernels).
//
// Only constant chains are touched: Cast (to float32, from float16 / uint8 / float32), Mul and
// Add whose inputs are all initializers or already folded. Everything else in the file (int8
// QDQ weights, other nodes, metadata) is copied byte for byte.

import { concatBytes } from '../bytes.ts';
import { fields, lengthDelimited, readVarint, text, varintBytes, type Field, type Span } from './protobuf-wire.ts';

const FLOAT = 1;
const UINT8 = 2;
const FLOAT16 = 10;

interface NodeInfo {
  span: Span;
  opType: string;
  inputs: string[];
  outputs: string[];
  /** Cast's `to` */
  to?: number;
}

interface Constant {
  dims: number[];
  dataType: number;
  /** raw little-endian values */
  raw: Uint8Array;
  /** the values as float32, once known (folded results) */
  floats?: Float32Array;
}

function readNode(bytes: Uint8Array, span: Field): NodeInfo {
  const node: NodeInfo = { span, opType: '', inputs: [], outputs: [] };
  for (const f of fields(bytes, span.payload, span.end)) {
    if (f.field === 1) node.inputs.push(text(bytes, f));
    else if (f.field === 2) node.outputs.push(text(bytes, f));
    else if (f.field === 4) node.opType = text(bytes, f);
    else if (f.field === 5) {
      // AttributeProto: name 1, i 3
      let name = '';
      let i: number | undefined;
      for (const a of fields(bytes, f.payload, f.end)) {
        if (a.field === 1) name = text(bytes, a);
        else if (a.field === 3) i = readVarint(bytes, a.payload)[0];
      }
      if (name === 'to') node.to = i;
    }
  }
  return node;
}

/** A TensorProto with raw_data; undefined for anything else (those are left alone). */
function readTensor(bytes: Uint8Array, span: Field): (Constant & { name: string }) | undefined {
  const dims: number[] = [];
  let dataType = 0;
  let name = '';
  let raw: Uint8Array | undefined;
  for (const f of fields(bytes, span.payload, span.end)) {
    if (f.field === 1) {
      // dims: one varint each, or packed
      if (f.payload === f.start + 1 && bytes[f.start] === 0x08) dims.push(readVarint(bytes, f.payload)[0]);
      else for (let p = f.payload; p < f.end; ) {
        const [d, next] = readVarint(bytes, p);
        dims.push(d);
        p = next;
      }
    } else if (f.field === 2) dataType = readVarint(bytes, f.payload)[0];
    else if (f.field === 8) name = text(bytes, f);
    else if (f.field === 9) raw = bytes.subarray(f.payload, f.end);
    else if (f.field === 14) return undefined; // data_location: external
  }
  return raw ? { name, dims, dataType, raw } : undefined;
}

function toFloat32(c: Constant): Float32Array | undefined {
  if (c.floats) return c.floats;
  const count = c.dims.reduce((a, b) => a * b, 1);
  if (c.dataType === FLOAT) {
    const out = new Float32Array(count);
    new Uint8Array(out.buffer).set(c.raw);
    return out;
  }
  if (c.dataType === UINT8) {
    const out = new Float32Array(count);
    out.set(c.raw);
    return out;
  }
  if (c.dataType === FLOAT16) return halvesToFloat32(c.raw, count);
  return undefined;
}

/** the platform's Float16Array (Chromium 135+; not in Node 20), as far as this module needs it */
type Float16ArrayLike = ArrayLike<number>;
const Float16ArrayCtor = (globalThis as { Float16Array?: new (buffer: ArrayBuffer) => Float16ArrayLike }).Float16Array;

/**
 * float16 bytes (little-endian) → float32 values. With Float16Array the conversion is the
 * browser's own (no JS loop: in a cold page a loop runs interpreted, ~10 ms for blazeface's
 * weights); the same values as the lookup table, which stays for platforms without it.
 */
export function halvesToFloat32(raw: Uint8Array, count: number, native = Float16ArrayCtor !== undefined): Float32Array {
  const bytes = new Uint8Array(count * 2);
  bytes.set(raw);
  const out = new Float32Array(count);
  if (native && Float16ArrayCtor) {
    out.set(new Float16ArrayCtor(bytes.buffer));
    return out;
  }
  const halves = new Uint16Array(bytes.buffer);
  const table = halfTable();
  for (let i = 0; i < count; i++) out[i] = table[halves[i]!]!;
  return out;
}

let halves: Float32Array | undefined;
/** every float16 bit pattern's value, made once */
function halfTable(): Float32Array {
  halves ??= Float32Array.from({ length: 65536 }, (_, h) => halfToFloat(h));
  return halves;
}

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? Number.NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** numpy broadcasting of two float32 tensors through Mul or Add, each result rounded to float32 */
function broadcast(a: Float32Array, aDims: number[], b: Float32Array, bDims: number[], op: 'Mul' | 'Add'): { values: Float32Array; dims: number[] } | undefined {
  const rank = Math.max(aDims.length, bDims.length);
  const pad = (d: number[]) => [...Array<number>(rank - d.length).fill(1), ...d];
  const ad = pad(aDims);
  const bd = pad(bDims);
  const dims = ad.map((x, i) => Math.max(x, bd[i]!));
  if (ad.some((x, i) => x !== 1 && x !== dims[i]) || bd.some((x, i) => x !== 1 && x !== dims[i])) return undefined;
  const strides = (d: number[]) => {
    const s = Array<number>(rank).fill(0);
    let acc = 1;
    for (let i = rank - 1; i >= 0; i--) {
      s[i] = d[i] === 1 ? 0 : acc;
      acc *= d[i]!;
    }
    return s;
  };
  // the usual case, a per-channel or scalar parameter: one b value per contiguous block of a
  const count0 = dims.reduce((x, y) => x * y, 1);
  const bKept = bd.findLastIndex((x) => x !== 1) + 1;
  if (ad.every((x, i) => x === dims[i]) && bd.every((x, i) => (i < bKept ? x === dims[i] : x === 1))) {
    const block = dims.slice(bKept).reduce((x, y) => x * y, 1);
    const values = new Float32Array(count0);
    // one loop per op: a callback per element is most of the time here
    for (let i = 0, j = 0; i < count0; i += block, j++) {
      const y = b[j]!;
      if (op === 'Mul') for (let k = i; k < i + block; k++) values[k] = a[k]! * y;
      else for (let k = i; k < i + block; k++) values[k] = a[k]! + y;
    }
    return { values, dims };
  }
  const as = strides(ad);
  const bs = strides(bd);
  const count = dims.reduce((x, y) => x * y, 1);
  const values = new Float32Array(count);
  const index = Array<number>(rank).fill(0);
  let ai = 0;
  let bi = 0;
  for (let i = 0; i < count; i++) {
    values[i] = op === 'Mul' ? a[ai]! * b[bi]! : a[ai]! + b[bi]!;
    // advance the multi-index, innermost first
    for (let k = rank - 1; k >= 0; k--) {
      index[k]!++;
      ai += as[k]!;
      bi += bs[k]!;
      if (index[k]! < dims[k]!) break;
      ai -= as[k]! * dims[k]!;
      bi -= bs[k]! * dims[k]!;
      index[k] = 0;
    }
  }
  return { values, dims };
}

function fold(node: NodeInfo, constants: Map<string, Constant>): Constant | undefined {
  const inputs = node.inputs.map((n) => constants.get(n));
  if (node.outputs.length !== 1 || inputs.length === 0 || inputs.some((c) => !c)) return undefined;
  const [a, b] = inputs as Constant[];
  if (node.opType === 'Cast' && node.to === FLOAT && inputs.length === 1) {
    const values = toFloat32(a!);
    return values && { dims: a!.dims, dataType: FLOAT, raw: new Uint8Array(values.buffer), floats: values };
  }
  if ((node.opType === 'Mul' || node.opType === 'Add') && inputs.length === 2 && a!.dataType === FLOAT && b!.dataType === FLOAT) {
    const result = broadcast(toFloat32(a!)!, a!.dims, toFloat32(b!)!, b!.dims, node.opType);
    return result && { dims: result.dims, dataType: FLOAT, raw: new Uint8Array(result.values.buffer), floats: result.values };
  }
  return undefined;
}

function tensorProto(name: string, c: Constant): Uint8Array[] {
  const head: number[] = [];
  for (const d of c.dims) head.push(0x08, ...varintBytes(d));
  head.push(0x10, ...varintBytes(c.dataType));
  const nameBytes = new TextEncoder().encode(name);
  return [Uint8Array.from(head), ...lengthDelimited(8, [nameBytes]), ...lengthDelimited(9, [c.raw])];
}

export interface UnpackStats {
  /** constant nodes folded away */
  folded: number;
  /** bytes of the model handed to ORT */
  bytes: number;
}

/**
 * The model with its constant weight chains folded to float32 initializers (see the header).
 * A model without such chains comes back as the same bytes.
 */
export function unpackStoredWeights(model: Uint8Array): { model: Uint8Array; stats: UnpackStats } {
  const top = fields(model);
  const graphField = top.find((f) => f.field === 7);
  if (!graphField) return { model, stats: { folded: 0, bytes: model.length } };
  const graphFields = fields(model, graphField.payload, graphField.end);

  const constants = new Map<string, Constant>();
  const initializerSpans = new Map<string, Field>();
  const nodes: NodeInfo[] = [];
  const graphOutputs = new Set<string>();
  for (const f of graphFields) {
    if (f.field === 5) {
      const t = readTensor(model, f);
      if (t) {
        constants.set(t.name, t);
        initializerSpans.set(t.name, f);
      }
    } else if (f.field === 1) nodes.push(readNode(model, f));
    else if (f.field === 12) {
      const name = fields(model, f.payload, f.end).find((v) => v.field === 1);
      if (name) graphOutputs.add(text(model, name));
    }
  }

  // a subgraph (If/Loop/Scan body) may read outer initializers this splice cannot see: leave such models alone
  if (nodes.some((n) => n.opType === 'If' || n.opType === 'Loop' || n.opType === 'Scan')) return { model, stats: { folded: 0, bytes: model.length } };
  const removedNodes = new Set<Span>();
  const folded = new Map<string, Constant>();
  for (const node of nodes) {
    if (node.opType !== 'Cast' && node.opType !== 'Mul' && node.opType !== 'Add') continue;
    const result = fold(node, constants);
    if (!result || graphOutputs.has(node.outputs[0]!)) continue;
    constants.set(node.outputs[0]!, result);
    folded.set(node.outputs[0]!, result);
    removedNodes.add(node.span);
  }
  if (removedNodes.size === 0) return { model, stats: { folded: 0, bytes: model.length } };

  // what the remaining nodes still read decides which constants stay
  const used = new Set<string>(graphOutputs);
  for (const node of nodes) if (!removedNodes.has(node.span)) for (const i of node.inputs) used.add(i);

  const dropped = new Set<Span>([...removedNodes]);
  for (const [name, span] of initializerSpans) if (!used.has(name)) dropped.add(span);
  const graphParts: Uint8Array[] = [];
  for (const f of graphFields) if (!dropped.has(f)) graphParts.push(model.subarray(f.start, f.end));
  for (const [name, c] of folded) if (used.has(name)) graphParts.push(...lengthDelimited(5, tensorProto(name, c)));

  const modelParts: Uint8Array[] = [];
  for (const f of top) {
    if (f === graphField) modelParts.push(...lengthDelimited(7, graphParts));
    else modelParts.push(model.subarray(f.start, f.end));
  }
  const out = concatBytes(modelParts);
  return { model: out, stats: { folded: removedNodes.size, bytes: out.length } };
}
