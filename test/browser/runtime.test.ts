// The runtime rig in real Chromium: isolation, ORT threads in a comlink worker, and every
// model of the manifest running on a real face.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import { resolveRuntimeEnv } from '../../src/env.ts';
import { startVisionWorker, type VisionWorker } from '../../src/engine/vision-client.ts';
import { ModelManifestSchema, type ModelManifest } from '../../src/models/manifest.ts';
import { rgbaToTensor } from '../../src/vision/tensor.ts';

/** obama.jpg's face region, as in the Node parity test */
const FACE_BOX = { x: 215, y: 170, size: 500 };

async function faceCrop(size: number): Promise<Uint8ClampedArray> {
  const bitmap = await createImageBitmap(await (await fetch(obamaUrl)).blob());
  const canvas = new OffscreenCanvas(size, size);
  const ctx = canvas.getContext('2d')!;
  ctx.drawImage(bitmap, FACE_BOX.x, FACE_BOX.y, FACE_BOX.size, FACE_BOX.size, 0, 0, size, size);
  return ctx.getImageData(0, 0, size, size).data;
}

let manifest: ModelManifest;
let wasm: VisionWorker;

beforeAll(async () => {
  manifest = ModelManifestSchema.parse(await (await fetch('/models/manifest.json')).json());
  wasm = startVisionWorker();
  await wasm.api.init(resolveRuntimeEnv({ backend: 'wasm' }));
});

afterAll(() => wasm?.terminate());

describe('runtime', () => {
  it('the page is cross-origin isolated (COOP + COEP)', () => {
    expect(globalThis.crossOriginIsolated).toBe(true);
    expect(typeof SharedArrayBuffer).toBe('function');
  });

  it('ORT runs its WASM backend with more than one thread in the worker', async () => {
    await wasm.api.loadModel('blazeface-front');
    const info = await wasm.api.backendInfo();
    console.log('backend info', JSON.stringify(info));
    expect(info.backend).toBe('wasm');
    expect(info.crossOriginIsolated).toBe(true);
    expect(info.threads).toBeGreaterThan(1);
    // its WASM was compiled from the worker's start and handed to ORT (src/worker/precompiled-wasm.ts)
    expect(info.ortWasm).toBe('early');
  });

  it("ORT's WASM is served with the short idle spin of its pool threads (tools/ort-wasm-patch.ts)", async () => {
    const bytes = new Uint8Array(await (await fetch('/ort/ort-wasm-simd-threaded.wasm')).arrayBuffer());
    // where ORT reads its pool's spin count (SPIN_COUNT_SITES; that module is Node-only), an i32.const 16384 instead
    for (const at of [0x962eb8, 0x963533]) expect([...bytes.subarray(at, at + 5)]).toEqual([0x41, 0x80, 0x80, 0x81, 0x00]);
    expect(WebAssembly.validate(bytes)).toBe(true);
  });

  it('every model loads and returns finite outputs of the manifest shapes on a real face', async () => {
    const timings: string[] = [];
    // a model part's feature-map input is an earlier part's output (GEAR's head comes before its tail)
    const made: Record<string, Float32Array> = {};
    for (const model of manifest.models) {
      const [, h, w, c] = model.input.shape as [unknown, number, number, number];
      const channels = model.input.channels;
      const input = channels === 'features' ? made[model.input.name]! : rgbaToTensor(await faceCrop(h), h * w, channels, model.input.range);
      expect(input.length, `${model.id} input`).toBe(h * w * c);
      const loadMs = await wasm.api.loadModel(model.id);
      const started = performance.now();
      const outputs = await wasm.api.runModel(model.id, input, [1, h, w, c]);
      timings.push(`${model.id}: load ${loadMs.toFixed(0)} ms, first run ${(performance.now() - started).toFixed(1)} ms`);
      expect(Object.keys(outputs).sort()).toEqual(model.outputs.map((o) => o.name).sort());
      for (const o of model.outputs) {
        const expected = o.shape.map((d) => (d === 'batch' ? 1 : d));
        expect(outputs[o.name]!.dims, `${model.id}.${o.name}`).toEqual(expected);
        expect(outputs[o.name]!.data.every(Number.isFinite), `${model.id}.${o.name} finite`).toBe(true);
        made[o.name] = outputs[o.name]!.data as Float32Array;
      }
    }
    console.log(timings.join('\n'));
  });

  it('uses WebGPU when an adapter exists, else falls back to WASM and says so', async () => {
    const gpu = startVisionWorker();
    try {
      const info = await gpu.api.init(resolveRuntimeEnv({ backend: 'webgpu' }));
      const size = 128;
      const input = rgbaToTensor(await faceCrop(size), size * size, 'RGB', [-1, 1]);
      const viaGpu = await gpu.api.runModel('blazeface-front', input, [1, size, size, 3]);
      const viaWasm = await wasm.api.runModel('blazeface-front', input.slice(), [1, size, size, 3]);
      console.log('webgpu request ran on', JSON.stringify(await gpu.api.backendInfo()));
      const hasAdapter = await (navigator as Navigator & { gpu?: { requestAdapter(): Promise<unknown> } }).gpu?.requestAdapter();
      expect(info.backend).toBe(hasAdapter ? 'webgpu' : 'wasm');
      // WebGPU's ORT build is fetched by ORT itself (the early compile is the plain WASM build's)
      if (hasAdapter) expect((await gpu.api.backendInfo()).ortWasm).toBe('by ORT');
      if (!hasAdapter) expect(info.note).toMatch(/no WebGPU adapter/);
      const a = viaGpu.scores_fine!.data;
      const b = viaWasm.scores_fine!.data;
      const maxDiff = a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i]!)), 0);
      expect(maxDiff).toBeLessThan(1e-2);
    } finally {
      gpu.terminate();
    }
  });
});
