// Unpacks a model's stored weights before ONNX Runtime sees it. The converter stores large
// weights small (uint8 + per-channel scale/min, or float16) behind constant Cast → Mul → Add
// chains, which ORT folds back to float32 when it creates the session. In ORT-web that folding
// runs at V8's baseline tier and makes its ~490 KB Cast kernel hot, whose optimised compile
// then takes ~2 s of a core in the background while the first request runs (measured:
// docs/benchmarks.md "Where the time goes"). Folding those chains here, before the session
// exists, gives ORT a model with ordinary float32 weights: the same values (float32 arithmetic, as
// ORT's kernels). A chain of per-channel Mul / Add steps is computed in one go by a small
// WebAssembly kernel (src/models/block-kernel.ts): the same loops in JavaScript run interpreted in
// a cold page.
//
// Only constant chains are touched: Cast (to float32, from float16 / uint8 / float32), Mul and
// Add whose inputs are all initializers or already folded. Everything else in the file (int8
// QDQ weights, other nodes, metadata) is copied byte for byte.

import { concatBytes } from '../bytes.ts';
import { BlockKernel } from './block-kernel.ts';
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
  /** raw little-endian values (of a folded result: once computed) */
  raw?: Uint8Array;
  /** the values as float32, once known (folded results) */
  floats?: Float32Array;
  /** a folded result not computed yet: a stored tensor as float32, then Mul / Add steps by one value per block */
  chain?: Chain;
}

/** The usual stored weight, Cast(uint8) → Mul(scale per channel) → Add(offset per channel), kept as steps and computed in one go. */
interface Chain {
  base: Constant;
  steps: { op: 'Mul' | 'Add'; perBlock: Float32Array; block: number }[];
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

function toFloat32(c: Constant, kernel: () => BlockKernel): Float32Array | undefined {
  if (c.floats) return c.floats;
  if (c.chain) {
    c.floats = computeChain(c.chain, kernel);
    return c.floats;
  }
  const raw = c.raw!;
  const count = c.dims.reduce((a, b) => a * b, 1);
  if (c.dataType === FLOAT) {
    const out = new Float32Array(count);
    new Uint8Array(out.buffer).set(raw);
    return out;
  }
  if (c.dataType === UINT8) {
    const out = new Float32Array(count);
    out.set(raw);
    return out;
  }
  if (c.dataType === FLOAT16) return halvesToFloat32(raw, count);
  return undefined;
}

/** The chain's stored tensor loaded once into the kernel (uint8 converted on the way in), each step applied there, read out once. */
function computeChain({ base, steps }: Chain, kernel: () => BlockKernel): Float32Array {
  if (steps.length === 0) return toFloat32(base, kernel)!;
  const k = kernel();
  // a uint8 base is always a stored tensor (folded results are float32): its bytes go in as they are
  k.load(base.dataType === UINT8 ? base.raw! : toFloat32(base, kernel)!);
  for (const step of steps) k.apply(step.op, step.perBlock, step.block);
  return k.read();
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

/** numpy broadcasting of two shapes: the result's dims, or undefined when they do not broadcast */
function broadcastDims(aDims: number[], bDims: number[]): { dims: number[]; ad: number[]; bd: number[] } | undefined {
  const rank = Math.max(aDims.length, bDims.length);
  const pad = (d: number[]) => [...Array<number>(rank - d.length).fill(1), ...d];
  const ad = pad(aDims);
  const bd = pad(bDims);
  const dims = ad.map((x, i) => Math.max(x, bd[i]!));
  if (ad.some((x, i) => x !== 1 && x !== dims[i]) || bd.some((x, i) => x !== 1 && x !== dims[i])) return undefined;
  return { dims, ad, bd };
}

/**
 * The usual case, a per-channel or scalar parameter: `a` has the result's shape and `b` holds one
 * value per contiguous block of it (its dims match the result's up to some axis, then are 1).
 * Returns the block size, or undefined for any other broadcast.
 */
function perBlockSize(aDims: number[], bDims: number[]): number | undefined {
  const shapes = broadcastDims(aDims, bDims);
  if (!shapes) return undefined;
  const { dims, ad, bd } = shapes;
  const bKept = bd.findLastIndex((x) => x !== 1) + 1;
  if (!ad.every((x, i) => x === dims[i]) || !bd.every((x, i) => (i < bKept ? x === dims[i] : x === 1))) return undefined;
  return dims.slice(bKept).reduce((x, y) => x * y, 1);
}

/** numpy broadcasting of two float32 tensors through Mul or Add, each result rounded to float32 (any shapes) */
function broadcast(a: Float32Array, aDims: number[], b: Float32Array, bDims: number[], op: 'Mul' | 'Add'): { values: Float32Array; dims: number[] } | undefined {
  const shapes = broadcastDims(aDims, bDims);
  if (!shapes) return undefined;
  const { dims, ad, bd } = shapes;
  const rank = dims.length;
  const strides = (d: number[]) => {
    const s = Array<number>(rank).fill(0);
    let acc = 1;
    for (let i = rank - 1; i >= 0; i--) {
      s[i] = d[i] === 1 ? 0 : acc;
      acc *= d[i]!;
    }
    return s;
  };
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

function fold(node: NodeInfo, constants: Map<string, Constant>, kernel: () => BlockKernel): Constant | undefined {
  const inputs = node.inputs.map((n) => constants.get(n));
  if (node.outputs.length !== 1 || inputs.length === 0 || inputs.some((c) => !c)) return undefined;
  const [a, b] = inputs as Constant[];
  if (node.opType === 'Cast' && node.to === FLOAT && inputs.length === 1) {
    if (a!.dataType !== FLOAT && a!.dataType !== UINT8 && a!.dataType !== FLOAT16) return undefined;
    // computed when something reads it (usually after a Mul and an Add have joined the chain)
    return { dims: a!.dims, dataType: FLOAT, chain: a!.chain ?? { base: a!, steps: [] } };
  }
  if ((node.opType === 'Mul' || node.opType === 'Add') && inputs.length === 2 && a!.dataType === FLOAT && b!.dataType === FLOAT) {
    const op: 'Mul' | 'Add' = node.opType === 'Mul' ? 'Mul' : 'Add';
    const block = perBlockSize(a!.dims, b!.dims);
    if (block !== undefined) {
      const chain = a!.chain ?? { base: a!, steps: [] };
      const step = { op, perBlock: toFloat32(b!, kernel)!, block };
      return { dims: a!.dims, dataType: FLOAT, chain: { base: chain.base, steps: [...chain.steps, step] } };
    }
    const result = broadcast(toFloat32(a!, kernel)!, a!.dims, toFloat32(b!, kernel)!, b!.dims, op);
    return result && { dims: result.dims, dataType: FLOAT, floats: result.values };
  }
  return undefined;
}

function tensorProto(name: string, c: Constant, kernel: () => BlockKernel): Uint8Array[] {
  const raw = c.raw ?? new Uint8Array(toFloat32(c, kernel)!.buffer);
  const head: number[] = [];
  for (const d of c.dims) head.push(0x08, ...varintBytes(d));
  head.push(0x10, ...varintBytes(c.dataType));
  const nameBytes = new TextEncoder().encode(name);
  return [Uint8Array.from(head), ...lengthDelimited(8, [nameBytes]), ...lengthDelimited(9, [raw])];
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
  // made on the first chain computed, dropped with this call (its memory grows to the largest weight)
  let blockKernel: BlockKernel | undefined;
  const kernel = () => (blockKernel ??= BlockKernel.create());
  const removedNodes = new Set<Span>();
  const folded = new Map<string, Constant>();
  for (const node of nodes) {
    if (node.opType !== 'Cast' && node.opType !== 'Mul' && node.opType !== 'Add') continue;
    const result = fold(node, constants, kernel);
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
  for (const [name, c] of folded) if (used.has(name)) graphParts.push(...lengthDelimited(5, tensorProto(name, c, kernel)));

  const modelParts: Uint8Array[] = [];
  for (const f of top) {
    if (f === graphField) modelParts.push(...lengthDelimited(7, graphParts));
    else modelParts.push(model.subarray(f.start, f.end));
  }
  const out = concatBytes(modelParts);
  return { model: out, stats: { folded: removedNodes.size, bytes: out.length } };
}
