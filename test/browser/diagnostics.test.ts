// engine.diagnostics in Chromium with the real worker and models: model load times, per-stage
// timings of each analysis (detect, recognition) and the start-up time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import whiteUrl from '../../../shared/data/negatives/white_150.png?url';
import { createEngine, type Engine, type TimingsEvent } from '../../src/index.ts';
import { EMBEDDING } from '../../src/models/catalog.ts';
import { DETECTION } from '../../src/worker/image-analysis.ts';

let engine: Engine;
const blobOf = async (url: string) => (await fetch(url)).blob();

beforeAll(async () => {
  engine = await createEngine({ backend: 'wasm', storageName: `diagnostics-test-${Date.now()}` });
});
afterAll(() => engine?.close());

describe('diagnostics', () => {
  it('startupMs: the time createEngine took', () => {
    expect(engine.diagnostics.startupMs).toBeGreaterThan(0);
    expect(engine.diagnostics.startupMs).toBeLessThan(120_000);
  });

  it('onTimings fires once per analysis with its stages and faces; unsubscribe stops it', async () => {
    const events: TimingsEvent[] = [];
    const stop = engine.diagnostics.onTimings((e) => events.push(e));
    const image = await blobOf(obamaUrl);
    expect('Errors' in (await engine.detect({ image }))).toBe(false);
    expect(events).toHaveLength(1);
    const [detect] = events;
    expect(detect!.kind).toBe('detect');
    expect(detect!.faces).toBe(1);
    expect(detect!.timings.total).toBeGreaterThan(0);
    expect(detect!.timings.detect).toBeGreaterThan(0);
    expect(Object.keys(detect!.timings).sort()).toEqual(['decode', 'demographics', 'detect', 'embed', 'emotion', 'liveness', 'mesh', 'total']);

    // recognition endpoints (here through the HTTP-shaped way in) report as 'recognition'
    const enrolled = await engine.handle(
      new Request('https://api.kairos.com/enroll', {
        method: 'POST',
        headers: { app_id: 'demo', app_key: 'demo', 'Content-Type': 'application/json' },
        body: JSON.stringify({ image: await blobToDataUrl(image), subject_id: 'obama', gallery_name: 'g' }),
      }),
    );
    expect(enrolled.status).toBe(200);
    expect(events).toHaveLength(2);
    expect(events[1]!).toMatchObject({ kind: 'recognition', faces: 1 });
    expect(events[1]!.timings.embed).toBeGreaterThan(0);

    // an analysis that finds no face is still an analysis
    await engine.detect({ image: await blobOf(whiteUrl) });
    expect(events[2]).toMatchObject({ kind: 'detect', faces: 0 });

    // emotion analysis of media (an image is one frame) reports as 'media'
    const media = await engine.mediaPost({ source: new File([image], 'obama.jpg', { type: 'image/jpeg' }), timeout: 60 });
    expect(media).toMatchObject({ status_code: 4 });
    expect(events.slice(3).every((e) => e.kind === 'media')).toBe(true);
    expect(events.length).toBeGreaterThan(3);

    stop();
    const count = events.length;
    await engine.detect({ image });
    expect(events).toHaveLength(count);
  });

  it('modelLoads lists the detector and the recognition model with their load times, in load order', async () => {
    const loads = await engine.diagnostics.modelLoads();
    const ids = loads.map((l) => l.id);
    expect(ids).toContain(DETECTION.detector);
    expect(ids).toContain(EMBEDDING.model);
    expect(new Set(ids).size).toBe(ids.length); // each model once
    expect(ids.indexOf(DETECTION.detector)).toBeLessThan(ids.indexOf(EMBEDDING.model)); // detect ran before enroll
    for (const l of loads) expect(l.loadMs).toBeGreaterThan(0);
  });
});

function blobToDataUrl(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result as string);
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(blob);
  });
}
