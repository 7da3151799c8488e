// The engine's model files (the manifest, the models) downloaded with a bound on silence, not
// on time: a slow network may take minutes over a 5 MB model, and that is fine, but a connection
// that stops sending (a stuck proxy, a dropped mobile link the browser has not noticed) would
// leave every request that needs the file waiting forever. No data for `stallMs` ends the
// download with 3001; the next request that needs the file downloads it again. (ORT's WASM has
// the same bound, watched while it compiles: precompiled-wasm.ts.)
import { readResponseBytes } from '../bytes.ts';
import { EngineError } from '../errors.ts';

const unavailable = (detail: string) => new EngineError('UNAVAILABLE', `temporarily unavailable: ${detail}`);

/**
 * An abort signal that fires after `ms` without data: `rearm` at each chunk received, `stop` once
 * the download is over. Shared by the model downloads and ORT's WASM compile (precompiled-wasm.ts).
 */
export function silenceWatch(ms: number) {
  const controller = new AbortController();
  let stalled = false;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const rearm = () => {
    clearTimeout(timer);
    if (!stopped && Number.isFinite(ms)) timer = setTimeout(() => ((stalled = true), controller.abort()), ms);
  };
  rearm();
  return {
    signal: controller.signal,
    rearm,
    stalled: () => stalled,
    stop: () => ((stopped = true), clearTimeout(timer)),
  };
}

/** `url`'s bytes; `what` names the file in errors ("model gear"). */
export async function downloadBytes(url: string, what: string, stallMs: number): Promise<Uint8Array> {
  const watch = silenceWatch(stallMs);
  try {
    const response = await fetch(url, { signal: watch.signal });
    if (!response.ok) {
      void response.body?.cancel().catch(() => {});
      throw unavailable(`${what} could not be downloaded from ${url} (HTTP ${response.status})`);
    }
    return await readResponseBytes(response, watch.rearm);
  } catch (error) {
    if (watch.stalled()) throw unavailable(`the download of ${what} stopped (no data for ${stallMs / 1000} s); the next request downloads it again`);
    if (error instanceof EngineError) throw error;
    throw unavailable(`${what} could not be downloaded from ${url} (${error instanceof Error ? error.message : String(error)})`);
  } finally {
    watch.stop();
  }
}
