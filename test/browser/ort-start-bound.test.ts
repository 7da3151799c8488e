// No call waits forever on ONNX Runtime's start: a start that never finishes (here its loader
// module, a stand-in whose top-level await never settles: ORT, the worker and the engine are
// real) ends that worker within `ortStartTimeoutMs` and the call is sent once more to a fresh
// one: answered if that one starts, else 3001; a WASM download that stops sending does the same
// within `downloadStallMs`. Seen once for real in Firefox under a full test run
// (docs/testing.md).
import { afterAll, describe, expect, it } from 'vitest';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import { resolveRuntimeEnv } from '../../src/env.ts';
import { startVisionWorker } from '../../src/engine/vision-client.ts';
import { EngineError } from '../../src/errors.ts';
import { createEngine, type DetectResponse, type Engine } from '../../src/index.ts';

const neverLoads = URL.createObjectURL(new Blob(['await new Promise(() => {});\nexport default undefined;\n'], { type: 'text/javascript' }));
const stalledOrt = {
  backend: 'wasm' as const,
  ortStartTimeoutMs: 1500,
  ortFiles: {
    'ort-wasm-simd-threaded.mjs': neverLoads,
    'ort-wasm-simd-threaded.wasm': new URL('/ort/ort-wasm-simd-threaded.wasm', location.href).href,
  },
};

const withLoader = (loader: string) => ({ ...stalledOrt, ortFiles: { ...stalledOrt.ortFiles, 'ort-wasm-simd-threaded.mjs': loader } });

/**
 * ORT's loader, except that the first worker to import it stalls forever; later ones get ORT's own
 * (a flag in IndexedDB, which the workers share).
 */
function loaderThatStallsOnce(): { url: string; remove(): void } {
  const database = `ort-stall-once-${crypto.randomUUID()}`;
  const realLoader = new URL('/ort/ort-wasm-simd-threaded.mjs', location.href).href;
  const url = URL.createObjectURL(
    new Blob(
      [
        `const first = await new Promise((resolve, reject) => {
          const request = indexedDB.open(${JSON.stringify(database)});
          let created = false;
          request.onupgradeneeded = () => (created = true);
          request.onsuccess = () => (request.result.close(), resolve(created));
          request.onerror = () => reject(request.error);
        });
        if (first) await new Promise(() => {});
        export default (await import(${JSON.stringify(realLoader)})).default;`,
      ],
      { type: 'text/javascript' },
    ),
  );
  return {
    url,
    remove() {
      URL.revokeObjectURL(url);
      indexedDB.deleteDatabase(database);
    },
  };
}

let engine: Engine | undefined;
afterAll(() => {
  engine?.close();
  URL.revokeObjectURL(neverLoads);
});

describe("a bound on ONNX Runtime's start", () => {
  it('a start that never finishes fails the call with 3001 after one fresh worker stalled too', async () => {
    const vision = startVisionWorker();
    try {
      await vision.api.init(resolveRuntimeEnv(stalledOrt));
      const begun = performance.now();
      const error = await vision.api.loadModel('blazeface-front').catch((e: unknown) => e);
      // the bound counts from ORT's compiled WASM (a local fetch and compile here), twice
      expect(performance.now() - begun).toBeLessThan(30_000);
      expect(error).toBeInstanceOf(EngineError);
      expect((error as EngineError).failure.code).toBe(3001);
      expect((error as EngineError).message).toMatch(/ONNX Runtime did not start within 1.5 s/);
      expect(vision.restarts()).toBe(1);
    } finally {
      vision.terminate();
    }
  });

  it('a start that stalls once is invisible to the caller: the call is answered by a fresh worker', async () => {
    const stallsOnce = loaderThatStallsOnce();
    const vision = startVisionWorker();
    try {
      await vision.api.init(resolveRuntimeEnv(withLoader(stallsOnce.url)));
      const loadMs = await vision.api.loadModel('blazeface-front');
      expect(loadMs).toBeGreaterThan(0);
      expect(vision.restarts()).toBe(1);
    } finally {
      vision.terminate();
      stallsOnce.remove();
    }
  });

  it('a decoded image sent while the start stalls once is answered by the fresh worker, as the encoded photo is', async () => {
    // the image was transferred to the lost worker: what the fresh one gets is the copy kept while it started
    const stallsOnce = loaderThatStallsOnce();
    const stalledOnce = await createEngine({ ...withLoader(stallsOnce.url), storageName: 'ort-start-bound-decoded' });
    try {
      const photo = await (await fetch(obamaUrl)).blob();
      const bitmap = await createImageBitmap(photo);
      const begun = performance.now();
      const fromBitmap = await stalledOnce.detect({ image: bitmap });
      const replayedMs = performance.now() - begun;
      const fromPhoto = await stalledOnce.detect({ image: photo });
      expect(fromBitmap, JSON.stringify(fromBitmap).slice(0, 300)).toHaveProperty('images');
      expect(fromPhoto).toHaveProperty('images');
      const [got, want] = [(fromBitmap as DetectResponse).images[0]!, (fromPhoto as DetectResponse).images[0]!];
      expect(got.faces).toHaveLength(1);
      expect(want.faces).toHaveLength(1);
      for (const k of ['topLeftX', 'topLeftY', 'width', 'height'] as const) expect(Math.abs(got.faces[0]![k] - want.faces[0]![k])).toBeLessThanOrEqual(3);
      // the first worker was given up at the bound (1.5 s after its WASM compiled): the answer came after it
      expect(replayedMs).toBeGreaterThan(1500);
      expect(bitmap.width).toBe(want.width); // the caller's bitmap is still theirs
    } finally {
      stalledOnce.close();
      stallsOnce.remove();
    }
  });

  it("a stalled download of ORT's WASM (a real HTTP stall) fails the call with 3001 within downloadStallMs", async () => {
    const vision = startVisionWorker();
    try {
      await vision.api.init(
        resolveRuntimeEnv({
          backend: 'wasm',
          downloadStallMs: 1500,
          ortFiles: {
            'ort-wasm-simd-threaded.mjs': new URL('/ort/ort-wasm-simd-threaded.mjs', location.href).href,
            'ort-wasm-simd-threaded.wasm': new URL('/__stall/ort-wasm-simd-threaded.wasm', location.href).href,
          },
        }),
      );
      const begun = performance.now();
      const error = await vision.api.loadModel('blazeface-front').catch((e: unknown) => e);
      expect(performance.now() - begun).toBeLessThan(20_000);
      expect((error as EngineError).failure?.code).toBe(3001);
      expect((error as EngineError).message).toMatch(/download of ONNX Runtime's WASM stopped \(no data for 1.5 s\)/);
    } finally {
      vision.terminate();
    }
  });

  it('/detect answers the 3001 error body instead of waiting', async () => {
    engine = await createEngine({ ...stalledOrt, storageName: 'ort-start-bound' });
    const image = await (await fetch(obamaUrl)).blob();
    const answer = await engine.detect({ image });
    expect(answer).toMatchObject({ Errors: [{ ErrCode: 3001 }] });
    expect(JSON.stringify(answer)).toMatch(/ONNX Runtime did not start within 1.5 s/);
  });
});
