// Main-thread handle on the vision worker.
import * as Comlink from 'comlink';
import type { VisionWorkerApi } from '../worker/vision.worker.ts';

export interface VisionWorker {
  api: Comlink.Remote<VisionWorkerApi>;
  terminate(): void;
}

function missingWorker(): never {
  throw new Error('createEngine: no workerUrl (the library build always passes one)');
}

/** `url`: where the built worker is served, when the bundled default cannot be found (library use). */
export function startVisionWorker(url?: string | URL): VisionWorker {
  const worker = url
    ? new Worker(url, { type: 'module', name: 'vision' })
    : import.meta.env.KAIROS_LIBRARY // the library passes its own URL (src/package/files.ts); this one would reach apps' bundlers
      ? missingWorker()
      : new Worker(new URL('../worker/vision.worker.ts', import.meta.url), { type: 'module', name: 'vision' });
  const api = Comlink.wrap<VisionWorkerApi>(worker);
  return {
    api,
    terminate() {
      api[Comlink.releaseProxy]();
      worker.terminate();
    },
  };
}
