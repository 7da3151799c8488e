// The smallest ONNX model ORT accepts (one Identity on a float[1]): creating a session on it makes
// onnxruntime-web fetch, compile and start its WASM runtime before any real model has arrived.
// (onnxruntime-web has no public call that starts its runtime without a session.)
import { concatBytes } from '../bytes.ts';
import { lengthDelimited, varintBytes } from '../models/protobuf-wire.ts';

const encoder = new TextEncoder();

/** a varint field: key (wire type 0) then the value */
const varintField = (field: number, value: number) => [Uint8Array.from([...varintBytes(field * 8), ...varintBytes(value)])];
const textField = (field: number, value: string) => lengthDelimited(field, [encoder.encode(value)]);

/** ValueInfoProto of a float tensor named `name` with shape [1] */
function floatScalarValue(name: string): Uint8Array[] {
  const dim = lengthDelimited(1, varintField(1, 1)); // TensorShapeProto.dim { dim_value: 1 }
  const tensorType = [...varintField(1, 1), ...lengthDelimited(2, dim)]; // elem_type FLOAT, shape
  return [...textField(1, name), ...lengthDelimited(2, lengthDelimited(1, tensorType))]; // name, type.tensor_type
}

/** ModelProto bytes: IR version 8, opset 17, graph x → Identity → y. */
export function runtimeStartModel(): Uint8Array {
  const node = [...textField(1, 'x'), ...textField(2, 'y'), ...textField(4, 'Identity')];
  const graph = [...lengthDelimited(1, node), ...textField(2, 'start'), ...lengthDelimited(11, floatScalarValue('x')), ...lengthDelimited(12, floatScalarValue('y'))];
  const opset = [...textField(1, ''), ...varintField(2, 17)];
  return concatBytes([...varintField(1, 8), ...lengthDelimited(7, graph), ...lengthDelimited(8, opset)]);
}
