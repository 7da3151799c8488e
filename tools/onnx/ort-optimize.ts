// Runs ONNX Runtime's own graph optimiser at build time instead of in the browser. At session
// creation onnxruntime-web fuses QDQ groups into QLinearConv, activations into FusedConv, folds
// constants, and so on; in a cold page that work runs at V8's baseline tier on the critical path
// (GEAR ~110 ms of session creation). onnxruntime-node (the same 1.30 CPU kernels and fusions)
// applies those rewrites once here and saves the result; the browser then only adds its layout
// passes. 'extended' is the last level whose output is portable as a whole; with `layoutPasses`
// the model gets level 'all' less two passes whose output is not: the x86 NCHWc layout (no such
// kernels in ORT's WASM build) and Conv + Add fusion (a FusedConv with a sum input, which ORT's
// WebGPU EP would take and compute without the sum). What is left at 'all' is ORT's NHWC layout
// for int8 convolutions (QLinearConv, channels last), run by ORT's CPU kernels on any machine.
// Measured: docs/benchmarks.md, "Where the time goes".
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { GraphDef, OpsetImport } from './onnx-model.ts';
import { parseModel } from './parse-model.ts';

/** layout passes left out at build: their output is specific to the machine or misread by an EP (above) */
const NOT_PORTABLE = ['NchwcTransformer', 'ConvAddActivationFusion'];

/**
 * The graph as onnxruntime-node's optimiser leaves it, with the opsets it uses: level 'extended',
 * or with `layoutPasses` level 'all' without the passes that are not portable.
 */
export async function ortOptimize(model: Uint8Array, { layoutPasses = false } = {}): Promise<{ graph: GraphDef; opsets: OpsetImport[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'ort-optimize-'));
  try {
    const file = join(dir, 'optimized.onnx');
    // one thread: the saved graph must not depend on the machine's core count
    const session = await ort.InferenceSession.create(model, {
      graphOptimizationLevel: layoutPasses ? 'all' : 'extended',
      optimizedModelFilePath: file,
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      extra: { optimization: { disable_specified_optimizers: NOT_PORTABLE.join(';') } },
    });
    await session.release();
    return parseModel(new Uint8Array(readFileSync(file)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
