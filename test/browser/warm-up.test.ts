// engine.warmUp() in Chromium with the real worker and models: it loads and runs each model a
// default request uses, once; a request made meanwhile is answered correctly; afterwards
// requests load nothing more.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import { createEngine, type Engine } from '../../src/index.ts';
import { PIPELINE_MODELS } from '../../src/worker/image-analysis.ts';

let engine: Engine;
const blobOf = async (url: string) => (await fetch(url)).blob();

beforeAll(async () => {
  engine = await createEngine({ backend: 'wasm', storageName: `warm-up-test-${Date.now()}` });
});
afterAll(() => engine?.close());

describe('engine.warmUp', () => {
  it('loads and runs every pipeline model once; a detect made meanwhile is answered; later calls do nothing', async () => {
    expect(await engine.diagnostics.modelLoads()).toEqual([]);
    const image = await blobOf(obamaUrl);
    const [report, detected] = await Promise.all([engine.warmUp(), engine.detect({ image })]);

    expect(report.models.map((m) => m.id)).toEqual([...PIPELINE_MODELS]);
    // the detect ran alongside: some models it loaded or ran first, so the warm-up spent 0 on them,
    // but every model was loaded by one or the other and the warm-up ran at least the last ones itself
    const loads = (await engine.diagnostics.modelLoads()).map((l) => l.id).sort();
    expect(loads).toEqual([...PIPELINE_MODELS].sort());
    expect(report.models.at(-1)!.firstRunMs).toBeGreaterThan(0);
    expect(report.detectionPassMs).toBeGreaterThan(0);
    expect(report.ms).toBeGreaterThanOrEqual(report.detectionPassMs);
    if ('Errors' in detected) throw new Error(JSON.stringify(detected));
    expect(detected.images[0]!.faces).toHaveLength(1);
    expect(detected.images[0]!.faces[0]!.attributes.gender.type).toMatch(/^[MF]$/);

    const again = await engine.warmUp();
    expect(again.models.every((m) => m.loadMs === 0 && m.firstRunMs === 0)).toBe(true);
    expect(again.detectionPassMs).toBe(0);
    const enrolled = await engine.enroll({ image, subject_id: 'obama', gallery_name: 'warm' });
    expect('Errors' in enrolled).toBe(false);
    // nothing loaded beyond the warm-up's models
    expect((await engine.diagnostics.modelLoads()).map((l) => l.id).sort()).toEqual([...PIPELINE_MODELS].sort());
  });
});
