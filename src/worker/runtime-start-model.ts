// The smallest ONNX model ORT accepts (one Identity on a float[1]): creating a session on it makes
// onnxruntime-web fetch, compile and start its WASM runtime before any real model has arrived.
// (onnxruntime-web has no public call that starts its runtime without a session.)
import { varintBytes } from '../models/protobuf-wire.ts';

const encoder = new TextEncoder();

/** field number + wire type as protobuf's key varint */
const key = (field: number, wire: 0 | 2) => varintBytes(field * 8 + wire);
const varintField = (field: number, value: number) => [...key(field, 0), ...varintBytes(value)];
const bytesField = (field: number, payload: readonly number[]) => [...key(field, 2), ...varintBytes(payload.length), ...payload];
const textField = (field: number, value: string) => bytesField(field, [...encoder.encode(value)]);

/** ValueInfoProto of a float tensor named `name` with shape [1] */
function floatScalarValue(name: string): number[] {
  const dim = bytesField(1, varintField(1, 1)); // TensorShapeProto.dim { dim_value: 1 }
  const tensorType = [...varintField(1, 1), ...bytesField(2, dim)]; // elem_type FLOAT, shape
  return [...textField(1, name), ...bytesField(2, bytesField(1, tensorType))]; // name, type.tensor_type
}

/** ModelProto bytes: IR version 8, opset 17, graph x → Identity → y. */
export function runtimeStartModel(): Uint8Array {
  const node = [...textField(1, 'x'), ...textField(2, 'y'), ...textField(4, 'Identity')];
  const graph = [...bytesField(1, node), ...textField(2, 'start'), ...bytesField(11, floatScalarValue('x')), ...bytesField(12, floatScalarValue('y'))];
  const opset = [...textField(1, ''), ...varintField(2, 17)];
  return new Uint8Array([...varintField(1, 8), ...bytesField(7, graph), ...bytesField(8, opset)]);
}
