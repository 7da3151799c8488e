// ORT's WASM compiled from the moment the worker knows its URL, and handed to ORT's loader
// instead of the fetch and compile it would start itself ~30–60 ms later (once its .mjs loader
// has been imported and run).
//
// onnxruntime-web has no option for a compiled module (env.wasm.wasmBinary takes bytes, which V8
// compiles without keeping its code cache for the next visit), and its loader does exactly
// `WebAssembly.instantiateStreaming(fetch(wasmUrl), imports)`. So while ORT starts, those two calls
// are answered here for that one URL: the fetch with a placeholder response (nothing is
// downloaded twice), the instantiation from the compiled module. Every other call passes through
// unchanged, and both globals are restored when ORT's start settles. If ORT's loader ever stops
// making those calls, it fetches the file itself as before (`used` is then false).

import { silenceWatch } from './download.ts';

/** ORT's WASM download received no data for the bound given to compileWasm. */
export class WasmDownloadStalled extends Error {
  constructor(stallMs: number) {
    super(`the download of ONNX Runtime's WASM stopped (no data for ${stallMs / 1000} s)`);
    this.name = 'WasmDownloadStalled';
  }
}

/**
 * Fetches and compiles a WASM file, streamed (so V8 keeps its code cache by URL, as for ORT's own
 * fetch); undefined if that fails: ORT then fetches the file itself and reports what went wrong.
 * Rejects only with WasmDownloadStalled, when the download receives no data for `stallMs`.
 */
export async function compileWasm(url: string, stallMs = Infinity): Promise<WebAssembly.Module | undefined> {
  const watch = silenceWatch(stallMs);
  try {
    const response = await fetch(url, { credentials: 'same-origin', signal: watch.signal });
    if (!response.ok) return undefined;
    // the bytes' arrival is watched on a copy of the stream: the response compiled stays ORT's
    // own fetch of the URL, whose code cache V8 keeps
    if (response.body) void follow(response.clone().body!, watch.rearm);
    // streaming needs the application/wasm type; from a server that sends another, compile the bytes (as ORT would)
    return await (response.headers.get('content-type')?.startsWith('application/wasm')
      ? WebAssembly.compileStreaming(response)
      : WebAssembly.compile(await response.arrayBuffer()));
  } catch {
    if (watch.stalled()) throw new WasmDownloadStalled(stallMs);
    return undefined;
  } finally {
    watch.stop();
  }
}

/** Reads `body` to its end (its chunks dropped), calling `onChunk` at each: a download's progress. */
async function follow(body: ReadableStream<Uint8Array>, onChunk: () => void): Promise<void> {
  const reader = body.getReader();
  try {
    while (!(await reader.read()).done) onChunk();
  } catch {
    // the download failed or was aborted: the compile reports it
  }
}

/** The URL a fetch() call asks for, absolute; undefined for one fetch() itself will refuse. */
function requestUrl(input: RequestInfo | URL): string | undefined {
  try {
    return new URL(input instanceof Request ? input.url : String(input), globalThis.location?.href).href;
  } catch {
    return undefined;
  }
}

/**
 * Runs `start` (ORT's start) with its WASM taken from `module`. ORT's loader goes ahead meanwhile;
 * only its instantiation waits for the module. If that resolves to undefined, ORT's own fetch is
 * made then.
 */
export async function withPrecompiledWasm<T>(
  module: Promise<WebAssembly.Module | undefined>,
  wasmUrl: string,
  start: () => Promise<T>,
): Promise<{ value: T; used: boolean }> {
  const target = new URL(wasmUrl, globalThis.location?.href).href;
  const realFetch = globalThis.fetch;
  const realInstantiateStreaming = WebAssembly.instantiateStreaming;
  const placeholder = new Response(null);
  let answered = false;
  let used = false;
  globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    if (answered || requestUrl(input) !== target) return realFetch.call(globalThis, input, init);
    answered = true;
    return Promise.resolve(placeholder);
  };
  WebAssembly.instantiateStreaming = async (source, imports) => {
    if ((await source) !== placeholder) return realInstantiateStreaming.call(WebAssembly, source, imports);
    const compiled = await module;
    if (!compiled) return realInstantiateStreaming.call(WebAssembly, realFetch.call(globalThis, target, { credentials: 'same-origin' }), imports);
    used = true;
    return { module: compiled, instance: await WebAssembly.instantiate(compiled, imports) };
  };
  try {
    return { value: await start(), used };
  } finally {
    globalThis.fetch = realFetch;
    WebAssembly.instantiateStreaming = realInstantiateStreaming;
  }
}
