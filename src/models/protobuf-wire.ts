// Just enough of protobuf's wire format to walk an ONNX ModelProto's fields and write new ones
// (the model unpacker splices a graph: unchanged fields are copied as bytes).

export interface Span {
  start: number;
  end: number;
}

export interface Field extends Span {
  field: number;
  /** for length-delimited fields: where the payload starts */
  payload: number;
}

const decoder = new TextDecoder();

/** a varint at `at` (values past 2^53 lose precision: fine for sizes, dims and enums) */
export function readVarint(bytes: Uint8Array, at: number): [value: number, next: number] {
  let value = 0;
  let shift = 1;
  let pos = at;
  for (;;) {
    const b = bytes[pos++];
    if (b === undefined) throw new Error('truncated protobuf varint');
    value += (b & 0x7f) * shift;
    if (b < 0x80) return [value, pos];
    shift *= 128;
  }
}

/** The top-level fields of one protobuf message (no recursion). */
export function fields(bytes: Uint8Array, from = 0, to = bytes.length): Field[] {
  const out: Field[] = [];
  let pos = from;
  while (pos < to) {
    const start = pos;
    const [key, afterKey] = readVarint(bytes, pos);
    const field = Math.floor(key / 8);
    const wire = key & 7;
    let payload = afterKey;
    if (wire === 0) pos = readVarint(bytes, afterKey)[1];
    else if (wire === 1) pos = afterKey + 8;
    else if (wire === 5) pos = afterKey + 4;
    else if (wire === 2) {
      const [length, afterLength] = readVarint(bytes, afterKey);
      payload = afterLength;
      pos = afterLength + length;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
    if (pos > to) throw new Error('truncated protobuf field');
    out.push({ field, start, end: pos, payload });
  }
  return out;
}

/** a string (or bytes-as-text) field's value */
export const text = (bytes: Uint8Array, f: Field) => decoder.decode(bytes.subarray(f.payload, f.end));

/** a non-negative integer as varint bytes */
export function varintBytes(value: number): number[] {
  const out: number[] = [];
  let v = value;
  while (v >= 0x80) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

/** protobuf bytes of a length-delimited field */
export function lengthDelimited(field: number, payload: Uint8Array[]): Uint8Array[] {
  const length = payload.reduce((n, p) => n + p.length, 0);
  return [Uint8Array.from([...varintBytes(field * 8 + 2), ...varintBytes(length)]), ...payload];
}
