// ORT's WASM compiled early and handed to its loader (src/worker/precompiled-wasm.ts), in real
// Chromium with real WebAssembly: the loader's `instantiateStreaming(fetch(url))` gets the compiled
// module without a download, every other call passes through, and the globals come back.
import { afterEach, describe, expect, it } from 'vitest';
import { compileWasm, WasmDownloadStalled, withPrecompiledWasm } from '../../src/worker/precompiled-wasm.ts';

/** (module (func (export "answer") (result i32) i32.const 42)) */
const ANSWER_WASM = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7f, 0x03, 0x02, 0x01, 0x00, 0x07, 0x0a, 0x01, 0x06,
  0x61, 0x6e, 0x73, 0x77, 0x65, 0x72, 0x00, 0x00, 0x0a, 0x06, 0x01, 0x04, 0x00, 0x41, 0x2a, 0x0b,
]);

/** What ORT's Emscripten loader does with the URL it was given. */
const loadLikeOrt = (url: string) => WebAssembly.instantiateStreaming(fetch(url, { credentials: 'same-origin' }), {});
const answerOf = (instance: WebAssembly.Instance) => (instance.exports.answer as () => number)();

const blobUrls: string[] = [];
const wasmBlobUrl = () => {
  const url = URL.createObjectURL(new Blob([ANSWER_WASM], { type: 'application/wasm' }));
  blobUrls.push(url);
  return url;
};
afterEach(() => blobUrls.splice(0).forEach((u) => URL.revokeObjectURL(u)));

describe('ORT WASM compiled early', () => {
  it('compiles a streamed file, and says undefined (never throws) for a missing one', async () => {
    const module = await compileWasm(wasmBlobUrl());
    expect(module).toBeInstanceOf(WebAssembly.Module);
    expect(await compileWasm('/no-such-file.wasm')).toBeUndefined();
  });

  it('rejects with WasmDownloadStalled when the download stops sending (a real stalled HTTP response)', async () => {
    const begun = performance.now();
    const error = await compileWasm('/__stall/some.wasm', 500).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WasmDownloadStalled);
    expect(performance.now() - begun).toBeLessThan(10_000);
    // a file that arrives is compiled as before, with the watch on
    expect(await compileWasm(wasmBlobUrl(), 500)).toBeInstanceOf(WebAssembly.Module);
  });

  it("answers the loader's fetch and instantiation from the module, without fetching the URL", async () => {
    const module = await compileWasm(wasmBlobUrl());
    // nothing is served here: a real fetch of it would fail to instantiate
    const url = new URL('/never-served/ort-wasm-simd-threaded.wasm', location.href).href;
    const realFetch = globalThis.fetch;
    const realInstantiateStreaming = WebAssembly.instantiateStreaming;
    const { value, used } = await withPrecompiledWasm(Promise.resolve(module), url, async () => {
      // another request made meanwhile goes to the network as usual
      const other = await fetch(wasmBlobUrl());
      expect((await other.arrayBuffer()).byteLength).toBe(ANSWER_WASM.length);
      const { module: loaded, instance } = await loadLikeOrt(url);
      expect(loaded).toBe(module);
      return answerOf(instance);
    });
    expect(value).toBe(42);
    expect(used).toBe(true);
    expect(globalThis.fetch).toBe(realFetch);
    expect(WebAssembly.instantiateStreaming).toBe(realInstantiateStreaming);
  });

  it('lets the loader fetch the file itself when no module came', async () => {
    const url = wasmBlobUrl();
    const { value, used } = await withPrecompiledWasm(Promise.resolve(undefined), url, async () => answerOf((await loadLikeOrt(url)).instance));
    expect(value).toBe(42);
    expect(used).toBe(false);
  });

  it('restores the globals when the start fails', async () => {
    const realFetch = globalThis.fetch;
    await expect(withPrecompiledWasm(Promise.resolve(undefined), wasmBlobUrl(), () => Promise.reject(new Error('ORT failed')))).rejects.toThrow('ORT failed');
    expect(globalThis.fetch).toBe(realFetch);
  });
});
