// Runs ONNX Runtime's own graph optimiser at build time instead of in the browser. At session
// creation onnxruntime-web fuses QDQ groups into QLinearConv, activations into FusedConv, folds
// constants, and so on; in a cold page that work runs at V8's baseline tier on the critical path
// (GEAR ~110 ms of session creation). onnxruntime-node (the same 1.30 CPU kernels and fusions)
// applies those rewrites once here and saves the result; the browser then only adds its layout
// passes. 'extended' is the last level whose output is portable: 'all' adds layouts specific to
// the machine that saves it (x86 NCHWc). Measured: docs/benchmarks.md, "Where the time goes".
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import type { GraphDef, OpsetImport } from './onnx-model.ts';
import { parseModel } from './parse-model.ts';

/** The graph as onnxruntime-node's 'extended' optimisation level leaves it, with the opsets it uses. */
export async function ortOptimize(model: Uint8Array): Promise<{ graph: GraphDef; opsets: OpsetImport[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'ort-optimize-'));
  try {
    const file = join(dir, 'optimized.onnx');
    // one thread: the saved graph must not depend on the machine's core count
    const session = await ort.InferenceSession.create(model, { graphOptimizationLevel: 'extended', optimizedModelFilePath: file, intraOpNumThreads: 1, interOpNumThreads: 1 });
    await session.release();
    return parseModel(new Uint8Array(readFileSync(file)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
