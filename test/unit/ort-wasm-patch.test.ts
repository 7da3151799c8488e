// The shorter idle spin patched into ORT's WASM (tools/ort-wasm-patch.ts): it applies to the
// installed onnxruntime-web (a failure here after an upgrade means: find the loop again, or drop
// the patch), changes only the two spin-count reads, and leaves any other file alone.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PATCHED_ORT_FILE, SHORT_SPIN, SPIN_COUNT_SITES, patchOrtWasm, servedOrtFile } from '../../tools/ort-wasm-patch.ts';

const installed = new Uint8Array(readFileSync(resolve(import.meta.dirname, '../../node_modules/onnxruntime-web/dist', PATCHED_ORT_FILE)));

/** Signed LEB128 value at `at` (as an i32.const immediate). */
function sleb(bytes: Uint8Array, at: number): number {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[at++]!;
    value |= (byte & 0x7f) << shift;
    shift += 7;
    if (!(byte & 0x80)) return byte & 0x40 ? value | (-1 << shift) : value;
  }
}

describe('ORT WASM short-spin patch', () => {
  it('applies to the installed ORT: a valid module, 10 bytes changed, both reads now i32.const 16384', () => {
    const { bytes, applied } = patchOrtWasm(installed);
    expect(applied).toBe(true);
    expect(WebAssembly.validate(bytes as Uint8Array<ArrayBuffer>)).toBe(true);
    const sites = SPIN_COUNT_SITES;
    const changed: number[] = [];
    for (let i = 0; i < bytes.length; i++) if (bytes[i] !== installed[i]) changed.push(i);
    expect(changed).toEqual(sites.flatMap((at) => [0, 1, 2, 3, 4].map((k) => at + k)));
    for (const at of sites) {
      expect([...installed.subarray(at, at + 5)]).toEqual([0x20, 0x01, 0x28, 0x02, 0x30]);
      expect(bytes[at]).toBe(0x41); // i32.const
      expect(sleb(bytes, at + 1)).toBe(SHORT_SPIN);
    }
    expect(bytes, 'a copy is patched, not the input').not.toBe(installed);
  });

  it('leaves any other bytes as they are', () => {
    const other = installed.slice();
    other[100] = other[100]! ^ 1;
    const result = patchOrtWasm(other);
    expect(result.applied).toBe(false);
    expect(result.bytes).toBe(other);
    const glue = new TextEncoder().encode('export default {}');
    expect(servedOrtFile('ort-wasm-simd-threaded.mjs', glue)).toBe(glue);
  });
});
