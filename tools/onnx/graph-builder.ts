// A small imperative builder for ONNX graphs, shared by every model converter.
import {
  type AttributeValue,
  DataType,
  type DataTypeCode,
  type GraphDef,
  type NodeDef,
  type TensorData,
  type ValueInfo,
} from './onnx-model.ts';

export type AttrInput = number | string | number[] | AttributeValue;

function toAttribute(value: AttrInput): AttributeValue {
  if (typeof value === 'number') {
    return Number.isInteger(value) ? { kind: 'int', value } : { kind: 'float', value };
  }
  if (typeof value === 'string') return { kind: 'string', value };
  if (Array.isArray(value)) return { kind: 'ints', value };
  return value;
}

export function floatTensor(dims: number[], values: Float32Array | number[]): TensorData {
  const data = values instanceof Float32Array ? values : Float32Array.from(values);
  if (data.length !== dims.reduce((a, b) => a * b, 1)) {
    throw new Error(`float tensor: ${data.length} values do not fill shape [${dims}]`);
  }
  return { dims, dataType: DataType.FLOAT, raw: new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength)) };
}

export function int64Tensor(dims: number[], values: number[]): TensorData {
  const data = BigInt64Array.from(values.map((v) => BigInt(v)));
  return { dims, dataType: DataType.INT64, raw: new Uint8Array(data.buffer) };
}

export class GraphBuilder {
  readonly nodes: NodeDef[] = [];
  readonly initializers: (TensorData & { name: string })[] = [];
  readonly inputs: ValueInfo[] = [];
  readonly outputs: ValueInfo[] = [];
  private readonly used = new Set<string>();
  private readonly constCache = new Map<string, string>();
  private readonly reservedOutputs = new Set<string>();

  constructor(readonly name: string) {}

  /** A fresh tensor/node name derived from a readable hint. */
  unique(hint: string): string {
    const base = hint.replace(/[^A-Za-z0-9_./:-]/g, '_') || 't';
    let name = base;
    for (let i = 1; this.used.has(name); i++) name = `${base}__${i}`;
    this.used.add(name);
    return name;
  }

  /** Claims a name up front, e.g. a graph output name that an inner tensor might otherwise take. */
  reserveOutputName(name: string): void {
    this.reserve(name);
    this.reservedOutputs.add(name);
  }

  reserve(name: string): string {
    if (this.used.has(name)) throw new Error(`tensor name ${name} is already in use`);
    this.used.add(name);
    return name;
  }

  input(name: string, dims: (number | string)[], dataType: DataTypeCode = DataType.FLOAT): string {
    this.inputs.push({ name: this.reserve(name), dims, dataType });
    return name;
  }

  output(tensor: string, name: string, dims: (number | string)[] | undefined, dataType: DataTypeCode = DataType.FLOAT): void {
    const outName = this.reservedOutputs.delete(name) ? name : this.reserve(name);
    this.node('Identity', [tensor], { outputs: [outName] });
    this.outputs.push({ name: outName, dims, dataType });
  }

  initializer(hint: string, tensor: TensorData): string {
    // identical constants (e.g. a repeated reshape target) are stored once
    const key = `${tensor.dataType}|${tensor.dims.join(',')}|${Buffer.from(tensor.raw).toString('base64')}`;
    const cached = tensor.raw.length <= 64 ? this.constCache.get(key) : undefined;
    if (cached) return cached;
    const name = this.unique(hint);
    this.initializers.push({ name, ...tensor });
    if (tensor.raw.length <= 64) this.constCache.set(key, name);
    return name;
  }

  constFloat(hint: string, dims: number[], values: Float32Array | number[]): string {
    return this.initializer(hint, floatTensor(dims, values));
  }

  constInt64(hint: string, values: number[], dims: number[] = [values.length]): string {
    return this.initializer(hint, int64Tensor(dims, values));
  }

  /** Adds a node and returns its (first) output name. */
  node(
    opType: string,
    inputs: string[],
    options: { attrs?: Record<string, AttrInput>; outputs?: string[]; name?: string } = {},
  ): string {
    const name = this.unique(options.name ?? opType);
    const outputs = options.outputs ?? [this.unique(`${name}:0`)];
    const attributes: Record<string, AttributeValue> = {};
    for (const [k, v] of Object.entries(options.attrs ?? {})) attributes[k] = toAttribute(v);
    this.nodes.push({ opType, name, inputs, outputs, attributes });
    return outputs[0]!;
  }

  /** Adds a node with several outputs and returns all their names. */
  multiNode(opType: string, inputs: string[], outputCount: number, attrs: Record<string, AttrInput> = {}, hint?: string): string[] {
    const name = this.unique(hint ?? opType);
    const outputs = Array.from({ length: outputCount }, (_, i) => this.unique(`${name}:${i}`));
    this.node(opType, inputs, { attrs, outputs, name: `${name}/node` });
    return outputs;
  }

  build(): GraphDef {
    return {
      name: this.name,
      nodes: this.nodes,
      initializers: this.initializers,
      inputs: this.inputs,
      outputs: this.outputs,
    };
  }
}
