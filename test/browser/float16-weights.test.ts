// Float16-stored weights in Chromium: the browser's Float16Array conversion gives exactly the
// values of the lookup table used where Float16Array is missing (Node 20, which the unit tests
// of src/models/unpack-weights.ts run in).
import { describe, expect, it } from 'vitest';
import { halvesToFloat32 } from '../../src/models/unpack-weights.ts';

describe('float16 weights', () => {
  it('Float16Array is there, and converts every bit pattern as the table does', () => {
    expect(typeof (globalThis as { Float16Array?: unknown }).Float16Array).toBe('function');
    const patterns = new Uint16Array(65536).map((_, i) => i);
    const raw = new Uint8Array(patterns.buffer);
    const native = halvesToFloat32(raw, 65536, true);
    const table = halvesToFloat32(raw, 65536, false);
    let differing = 0;
    for (let i = 0; i < 65536; i++) if (!Object.is(native[i], table[i]) && !(Number.isNaN(native[i]) && Number.isNaN(table[i]))) differing++;
    expect(differing).toBe(0);
    // spot checks: 1.0, -2.0, the smallest subnormal, infinity
    expect([native[0x3c00], native[0xc000], native[0x0001], native[0x7c00]]).toEqual([1, -2, 2 ** -24, Infinity]);
  });
});
