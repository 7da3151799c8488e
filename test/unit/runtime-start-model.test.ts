// The model the vision worker opens to start ORT's runtime early (src/worker/runtime-start-model.ts)
// must be one ORT accepts and runs: a malformed one would only be noticed as a slower cold start.
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { runtimeStartModel } from '../../src/worker/runtime-start-model.ts';

describe('runtime start model', () => {
  it('is a valid ONNX model: ORT creates a session and runs its Identity', async () => {
    const session = await ort.InferenceSession.create(runtimeStartModel());
    expect(session.inputNames).toEqual(['x']);
    expect(session.outputNames).toEqual(['y']);
    const out = await session.run({ x: new ort.Tensor('float32', new Float32Array([2.5]), [1]) });
    expect(Array.from(out.y!.data as Float32Array)).toEqual([2.5]);
    await session.release();
  });
});
