// Runs in the stages bench page, driven by tools/bench/stages.ts: engine.detect (selector
// LIVENESS, as bench:peers) on photos handed over as bytes, with the worker's per-stage times
// and detector stats of every call.
import { createEngine } from '../../../src/engine/engine.ts';
import type { ImageTimings } from '../../../src/worker/image-analysis.ts';
import { expose } from '../../harness/page.ts';
import { benchPhoto } from './peer-photos.ts';
import { startVisionWorker } from '../../../src/engine/vision-client.ts';
import { resolveRuntimeEnv } from '../../../src/env.ts';
import type { DetectionSettings } from '../../../src/worker/image-analysis.ts';

export interface StagedCall {
  id: string;
  pass: number;
  /** engine.detect, page side */
  ms: number;
  faces: number;
  timings: ImageTimings;
}

const query = new URLSearchParams(location.search);
const engine = await createEngine({ backend: 'wasm', numThreads: Number(query.get('threads') ?? '2') });
/** --env-ab: a second engine with these runtime options (e.g. {"modelWorkers":2}) for side B */
const engineB = query.get('envB') ? await createEngine({ backend: 'wasm', numThreads: Number(query.get('threads') ?? '2'), storageName: 'stages-b', ...JSON.parse(query.get('envB')!) }) : undefined;
const photos = new Map<string, Blob>();
let last: ImageTimings | undefined;
for (const e of [engine, engineB]) {
  e?.diagnostics.onTimings((event) => {
    last = event.timings;
  });
}

expose({
  load(list: { id: string; bytes: number[]; type: string }[]) {
    for (const p of list) photos.set(p.id, new Blob([new Uint8Array(p.bytes)], { type: p.type }));
  },
  /** a photo made in the page (an upscaled id: tools/bench/peers-data.ts) */
  async make(id: string) {
    photos.set(id, await benchPhoto(id));
  },
  async run(ids: string[], pass: number, side: 'A' | 'B' = 'A'): Promise<StagedCall[]> {
    const out: StagedCall[] = [];
    const use = side === 'B' ? engineB! : engine;
    for (const id of ids) {
      last = undefined;
      const t = performance.now();
      const response = await use.detect({ image: photos.get(id)!, selector: 'LIVENESS' });
      const ms = performance.now() - t;
      const faces = 'Errors' in response ? 0 : response.images[0]!.faces.length;
      out.push({ id, pass, ms, faces, timings: last ?? ({} as ImageTimings) });
    }
    return out;
  },
  /**
   * The worker's pipeline as /detect with LIVENESS runs it, with `detection` overrides of the
   * shipped settings: A/B of a detection lever in one page, calls interleaved (--ab).
   */
  async runWith(ids: string[], pass: number, detection: Partial<DetectionSettings> | undefined): Promise<StagedCall[]> {
    vision ??= startVisionWorker();
    visionReady ??= vision.api.init(resolveRuntimeEnv({ backend: 'wasm', numThreads: Number(new URLSearchParams(location.search).get('threads') ?? '2') }));
    await visionReady;
    const out: StagedCall[] = [];
    for (const id of ids) {
      const t = performance.now();
      const r = await vision.api.analyze(photos.get(id)!, {
        minHeadScale: 0.015,
        selector: { roll: false, full: false, liveness: true },
        demographics: true,
        emotion: false,
        keepMesh: false,
        detection,
      });
      const ms = performance.now() - t;
      out.push({ id, pass, ms, faces: r.ok ? r.value.faces.length : 0, timings: r.ok ? r.value.timings : ({} as ImageTimings) });
    }
    return out;
  },
});

let vision: ReturnType<typeof startVisionWorker> | undefined;
let visionReady: Promise<unknown> | undefined;
