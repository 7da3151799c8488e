// Finds each output's shape by running the model once with batch 1 and once with
// batch 2: a dimension that follows the batch is reported as "batch".
import * as ort from 'onnxruntime-node';
import type { ValueInfo } from '../onnx/onnx-model.ts';

export async function outputShapes(bytes: Uint8Array, input: ValueInfo): Promise<Record<string, (number | string)[]>> {
  const session = await ort.InferenceSession.create(bytes);
  const dynamicBatch = input.dims?.[0] === 'batch';
  const run = async (batch: number) => {
    const dims = (input.dims ?? []).map((d) => (typeof d === 'number' ? d : batch));
    const size = dims.reduce((a, b) => a * b, 1);
    return session.run({ [input.name]: new ort.Tensor('float32', new Float32Array(size), dims) });
  };
  const one = await run(1);
  const two = dynamicBatch ? await run(2) : one;
  const shapes: Record<string, (number | string)[]> = {};
  for (const name of Object.keys(one)) {
    const a = one[name]!.dims;
    const b = two[name]!.dims;
    shapes[name] = a.map((d, i) => (dynamicBatch && b[i] === 2 * d && d === 1 ? 'batch' : d));
  }
  await session.release();
  return shapes;
}
