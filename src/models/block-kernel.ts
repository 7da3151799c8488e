// Per-block float32 arithmetic for unpacking stored weights (src/models/unpack-weights.ts), in a
// 320-byte WebAssembly SIMD module: a weight tensor is loaded once, each Mul or Add by a value per
// block (a per-channel scale or offset) is applied in place, and the result is read out once. In a
// cold page the same loops in JavaScript run interpreted: ~70–150 ms for the six /detect models
// against ~40 with this (Chromium, fresh page). Each step rounds to float32, as a JavaScript
// Float32Array store or ORT's kernels would, so the values are identical.

// The module is tools/wasm/block-kernel.wat assembled (test/unit/block-kernel.test.ts checks the bytes).
/** @internal */
export const BLOCKS_WASM =
  'AGFzbQEAAAABCgFgBn9/f39/fwADAgEABQMBAAEHEwIGbWVtb3J5AgAGYmxvY2tzAAAKiwIBiAIEAn8BfQF7An8gBEECdCELIARBfHFBAnQhCgJAA0AgBiADTw0BIAEgBkECdGoqAgAhCCAI/RMhCUEAIQcgBQRAAkADQCAHIApPDQEgAiAHaiAAIAdq/QAEACAJ/eQB/QsEACAHQRBqIQcMAAsLAkADQCAHIAtPDQEgAiAHaiAAIAdqKgIAIAiSOAIAIAdBBGohBwwACwsFAkADQCAHIApPDQEgAiAHaiAAIAdq/QAEACAJ/eYB/QsEACAHQRBqIQcMAAsLAkADQCAHIAtPDQEgAiAHaiAAIAdqKgIAIAiUOAIAIAdBBGohBwwACwsLIAAgC2ohACACIAtqIQIgBkEBaiEGDAALCws=';

interface BlockExports {
  memory: WebAssembly.Memory;
  blocks(a: number, b: number, out: number, blocks: number, block: number, op: number): void;
}

/** One tensor at a time: load, apply per-block steps in place, read. Its memory is freed with it. */
export class BlockKernel {
  private length = 0;

  private constructor(private readonly wasm: BlockExports) {}

  static create(): BlockKernel {
    const bytes = Uint8Array.from(atob(BLOCKS_WASM), (c) => c.charCodeAt(0));
    // 320 bytes: small enough for a synchronous compile on any thread
    return new BlockKernel(new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports as unknown as BlockExports);
  }

  private floats(extra: number): Float32Array {
    const need = (this.length + extra) * 4;
    const have = this.wasm.memory.buffer.byteLength;
    if (need > have) this.wasm.memory.grow(Math.ceil((need - have) / 65536));
    return new Float32Array(this.wasm.memory.buffer);
  }

  /** the tensor to work on, converted to float32 as a typed-array copy converts (uint8, float32) */
  load(values: Float32Array | Uint8Array): void {
    this.length = values.length;
    this.floats(0).set(values);
  }

  /** value[j·block + k] = value[j·block + k] op perBlock[j], rounded to float32 */
  apply(op: 'Mul' | 'Add', perBlock: Float32Array, block: number): void {
    if (perBlock.length * block !== this.length) throw new Error(`block kernel: ${perBlock.length} × ${block} does not cover ${this.length} values`);
    this.floats(perBlock.length).set(perBlock, this.length);
    const values = 0;
    const params = this.length * 4;
    this.wasm.blocks(values, params, values, perBlock.length, block, op === 'Mul' ? 0 : 1);
  }

  /** a copy of the tensor as it stands */
  read(): Float32Array {
    return this.floats(0).slice(0, this.length);
  }
}
