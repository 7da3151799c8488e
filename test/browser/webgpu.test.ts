// The WebGPU backend end to end on Chromium's software adapter (SwiftShader, exposed by
// --enable-unsafe-webgpu: tools/browser-env.ts): /detect, /enroll and /recognize answer as they
// do on WASM, and a WebGPU call that gives no answer in time falls back to WASM. One small photo
// with one face: on this adapter a model runs 100–1000× slower than on WASM (docs/models.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import { createEngine, type Engine } from '../../src/index.ts';
import { base64ToFloat32 } from '../../src/store/base64.ts';

/** How far WebGPU's answers may be from WASM's (both compute in float32; only the order of sums differs). */
const TOLERANCE = { pixels: 2, degrees: 2, years: 1, score: 0.02, embeddingCosine: 0.999 };

const run = `webgpu-test-${Date.now()}`;
let photo: Blob;
let wasm: Engine;
let gpu: Engine;

function body<T>(r: T): Exclude<T, { Errors: unknown }> {
  if (r && typeof r === 'object' && 'Errors' in r) throw new Error(JSON.stringify(r));
  return r as Exclude<T, { Errors: unknown }>;
}

/** obama.jpg at 360 px wide (JPEG): the detector's passes stay small, and both engines get the same bytes. */
async function smallPhoto(): Promise<Blob> {
  const bitmap = await createImageBitmap(await (await fetch(obamaUrl)).blob());
  const canvas = new OffscreenCanvas(360, Math.round((bitmap.height * 360) / bitmap.width));
  canvas.getContext('2d')!.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  return canvas.convertToBlob({ type: 'image/jpeg', quality: 0.92 });
}

/** Every number and string in a face's answer, by path (e.g. "attributes.gender.maleConfidence"). */
function leaves(value: unknown, path = ''): Map<string, number | string> {
  const out = new Map<string, number | string>();
  if (typeof value === 'number' || typeof value === 'string') out.set(path, value);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) for (const [p, leaf] of leaves(v, path ? `${path}.${k}` : k)) out.set(p, leaf);
  }
  return out;
}

/** The tolerance for a field of a face's answer, by its name. */
function toleranceFor(path: string): number {
  if (/(X|Y|width|height|eyeDistance)$/.test(path)) return TOLERANCE.pixels;
  if (/(yaw|pitch|roll)$/.test(path)) return TOLERANCE.degrees;
  if (/\.age$/.test(path)) return TOLERANCE.years;
  return TOLERANCE.score;
}

/** Asserts two answers have the same fields, equal strings and numbers within tolerance; logs the largest difference. */
function expectSameFace(onGpu: unknown, onWasm: unknown, what: string): void {
  const a = leaves(onGpu);
  const b = leaves(onWasm);
  expect([...a.keys()].sort(), `${what}: fields`).toEqual([...b.keys()].sort());
  let worst = { path: '', diff: 0 };
  for (const [path, value] of a) {
    const expected = b.get(path)!;
    if (typeof value === 'number' && typeof expected === 'number') {
      const diff = Math.abs(value - expected);
      if (diff / toleranceFor(path) > worst.diff / (toleranceFor(worst.path) || 1)) worst = { path, diff };
      expect(diff, `${what}.${path}: ${value} on WebGPU, ${expected} on WASM`).toBeLessThanOrEqual(toleranceFor(path));
    } else if (!/timestamp|transaction|face_id|upload/i.test(path)) {
      expect(value, `${what}.${path}`).toEqual(expected);
    }
  }
  console.log(`${what}: ${a.size} fields; largest difference for its tolerance ${worst.path} ${worst.diff.toPrecision(2)}`);
}

/** detect, enroll and recognize on one engine, and the enrolled template's embedding. */
async function pipeline(engine: Engine) {
  const detect = body(await engine.detect({ image: photo }));
  const enroll = body(await engine.enroll({ image: photo, subject_id: 'obama', gallery_name: 'people' }));
  const recognize = body(await engine.recognize({ image: photo, gallery_name: 'people' }));
  const file = body(await engine.exportGallery({ gallery_name: 'people' }));
  const embedding = base64ToFloat32(file.subjects[0]!.templates[0]!.embedding);
  if ('error' in embedding) throw new Error(embedding.error);
  return { detect, enroll, recognize, embedding };
}

const cosine = (a: Float32Array, b: Float32Array) => {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! ** 2;
    nb += b[i]! ** 2;
  }
  return dot / Math.sqrt(na * nb);
};

beforeAll(async () => {
  photo = await smallPhoto();
  // the default backend ('auto'), on a machine whose only adapter is the software one
  wasm = await createEngine({ storageName: `${run}-auto` });
  gpu = await createEngine({ backend: 'webgpu', storageName: `${run}-gpu` });
});
afterAll(() => {
  wasm?.close();
  gpu?.close();
});

describe('WebGPU (software adapter)', () => {
  it("'auto' does not take a software (fallback) adapter; 'webgpu' does when asked", async () => {
    expect(gpu.backend.backend).toBe('webgpu');
    expect(gpu.backend.webgpuAdapter?.isFallbackAdapter).toBe(true);
    expect(wasm.backend.backend).toBe('wasm');
    expect(wasm.backend.note).toMatch(/software fallback/);
    expect((await wasm.diagnostics.platform()).backendNote).toMatch(/software fallback/);
  });

  it('detect, enroll and recognize answer as on WASM: boxes, landmarks, pose, attributes, embedding, match', async () => {
    const started = performance.now();
    const onGpu = await pipeline(gpu);
    const gpuMs = performance.now() - started;
    const onWasm = await pipeline(wasm);
    console.log(`webgpu pipeline (detect, enroll, recognize) ${(gpuMs / 1000).toFixed(1)} s; wasm ${((performance.now() - started - gpuMs) / 1000).toFixed(1)} s`);
    // it ran on WebGPU throughout (no fall-back to WASM on the way)
    expect((await gpu.diagnostics.platform()).compute).toBe('webgpu');

    expect(onGpu.detect.images[0]!.faces).toHaveLength(1);
    expectSameFace(onGpu.detect.images[0]!.faces, onWasm.detect.images[0]!.faces, 'detect');
    expectSameFace(onGpu.enroll.images[0], onWasm.enroll.images[0], 'enroll');
    const similarity = cosine(onGpu.embedding, onWasm.embedding);
    console.log(`embedding (${onGpu.embedding.length}-d) cosine WebGPU/WASM ${similarity.toFixed(6)}`);
    expect(similarity).toBeGreaterThanOrEqual(TOLERANCE.embeddingCosine);
    expectSameFace(onGpu.recognize.images[0], onWasm.recognize.images[0], 'recognize');
    expect(onGpu.recognize.images[0]!.candidates?.[0]?.subject_id).toBe('obama');
  }, 900_000);

  it('a WebGPU call with no answer within webgpuTimeoutMs: the engine falls back to WASM, answers, and diagnostics say why', async () => {
    // 1 ms: no WebGPU call finishes in time, as on a device that hangs
    const stalled = await createEngine({ backend: 'webgpu', webgpuTimeoutMs: 1, storageName: `${run}-stalled` });
    try {
      expect(stalled.backend.backend).toBe('webgpu');
      const [face] = body(await stalled.detect({ image: photo })).images[0]!.faces;
      const [expected] = body(await wasm.detect({ image: photo })).images[0]!.faces;
      expectSameFace(face, expected, 'detect after the fall-back');
      const platform = await stalled.diagnostics.platform();
      expect(platform.compute).not.toBe('webgpu');
      expect(platform.backendNote).toMatch(/WebGPU gave no answer to .* within 0.001 s: the engine runs on WASM/);
    } finally {
      stalled.close();
    }
  });
});
