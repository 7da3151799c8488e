// The WebAssembly kernel that applies per-block Mul / Add steps when stored weights are unpacked
// (src/models/block-kernel.ts): its embedded bytes are tools/wasm/block-kernel.wat assembled, and
// every step gives exactly what a JavaScript Float32Array computes (one float32 rounding per step).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import wabtInit from 'wabt';
import { describe, expect, it } from 'vitest';
import { BLOCKS_WASM, BlockKernel } from '../../src/models/block-kernel.ts';
import { ROOT } from '../../tools/convert-models/build.ts';

/** a deterministic spread of values, including signs, zeros and large and tiny magnitudes */
function values(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const u = s / 2147483648;
    out[i] = i % 17 === 0 ? 0 : (u - 0.5) * 10 ** Math.floor(u * 12 - 6);
  }
  return out;
}

describe('block kernel', () => {
  it('embeds tools/wasm/block-kernel.wat, assembled', async () => {
    const wabt = await wabtInit();
    const source = readFileSync(join(ROOT, 'tools/wasm/block-kernel.wat'), 'utf8');
    const module = wabt.parseWat('block-kernel.wat', source, { simd: true });
    const { buffer } = module.toBinary({});
    module.destroy();
    expect(Buffer.from(buffer).toString('base64')).toBe(BLOCKS_WASM);
  });

  for (const block of [1, 3, 4, 9, 16, 25, 130]) {
    it(`Mul then Add by one value per block of ${block}: the same float32 values as JavaScript`, () => {
      const blocks = 7;
      const a = values(blocks * block, block);
      const scale = values(blocks, 11 * block);
      const offset = values(blocks, 13 * block);
      const kernel = BlockKernel.create();
      kernel.load(a);
      kernel.apply('Mul', scale, block);
      kernel.apply('Add', offset, block);
      const expected = new Float32Array(a.length);
      for (let i = 0; i < a.length; i++) {
        expected[i] = a[i]! * scale[Math.floor(i / block)]!;
        expected[i] = expected[i]! + offset[Math.floor(i / block)]!;
      }
      expect(kernel.read()).toEqual(expected);
    });
  }

  it('converts uint8 on load and grows its memory for a tensor larger than one page', () => {
    const bytes = Uint8Array.from({ length: 200_000 }, (_, i) => (i * 7) % 256);
    const kernel = BlockKernel.create();
    kernel.load(bytes);
    kernel.apply('Mul', Float32Array.of(0.5, 2), 100_000);
    const out = kernel.read();
    expect(out.length).toBe(200_000);
    expect(out[3]).toBe(10.5);
    expect(out[100_001]).toBe(((100_001 * 7) % 256) * 2);
  });

  it('refuses per-block values that do not cover the tensor', () => {
    const kernel = BlockKernel.create();
    kernel.load(new Float32Array(10));
    expect(() => kernel.apply('Add', new Float32Array(3), 3)).toThrow(/does not cover/);
  });
});
