// The model peer (src/worker/model-peer.ts): a second vision worker whose ORT takes a share of the
// model runs, the engine's way to use a second core where ORT runs one thread. Real workers, real
// models: the answers with the peer equal those of one worker, and the peer really ran models.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import groupUrl from '../../../shared/data/groups/bbt4.jpg?url';
import largeUrl from '../../../shared/data/groups/group-5.jpg?url';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import obama2Url from '../../../shared/data/faces/obama/obama2.jpg?url';
import portraitUrl from '../../../shared/data/faces/obama/obama3.jpg?url';
import { createEngine, type DetectResponse, type Engine, type FaceErrorBody } from '../../src/index.ts';

const blobOf = async (url: string) => (await fetch(url)).blob();
const faces = (r: DetectResponse | FaceErrorBody) => {
  if ('Errors' in r) throw new Error(JSON.stringify(r));
  return r.images[0]!.faces;
};

// both on one WASM thread, so the only difference is who runs what
let alone: Engine;
let paired: Engine;
beforeAll(async () => {
  [alone, paired] = await Promise.all([
    createEngine({ backend: 'wasm', numThreads: 1, modelWorkers: 1, storageName: 'peer-test-alone' }),
    createEngine({ backend: 'wasm', numThreads: 1, modelWorkers: 2, storageName: 'peer-test-paired' }),
  ]);
});
afterAll(() => {
  alone?.close();
  paired?.close();
});

describe('model peer', () => {
  it('says how many workers run models', async () => {
    expect((await alone.diagnostics.platform()).modelWorkers).toBe(1);
    expect((await paired.diagnostics.platform()).modelWorkers).toBe(2);
  });

  it('a group photo: the same faces, boxes and attributes as one worker, and the peer ran some of the models', async () => {
    const image = await blobOf(groupUrl);
    // the peer starts after the engine's first answer (its ORT start would slow a cold first
    // request): answers until it has taken a run, bounded
    const until = Date.now() + 60_000;
    while ((await paired.diagnostics.modelRuns()).peer === 0 && Date.now() < until) await paired.detect({ image });
    const before = await paired.diagnostics.modelRuns();
    const [one, two] = [faces(await alone.detect({ image, selector: 'FRONTAL,liveness' })), faces(await paired.detect({ image, selector: 'FRONTAL,liveness' }))];
    const after = await paired.diagnostics.modelRuns();
    expect(one.length).toBeGreaterThanOrEqual(5);
    expect(two).toHaveLength(one.length);
    one.forEach((a, i) => {
      const b = two[i]!;
      // one ORT build on one thread in both workers: the same arithmetic, so the same numbers
      expect([b.topLeftX, b.topLeftY, b.width, b.height]).toEqual([a.topLeftX, a.topLeftY, a.width, a.height]);
      expect(b.attributes).toEqual(a.attributes);
      expect(b.quality).toBe(a.quality);
    });
    expect(after.peer - before.peer).toBeGreaterThan(0);
    expect(after.here - before.here).toBeGreaterThan(0);
    expect((await alone.diagnostics.modelRuns()).peer).toBe(0);
  });

  // a group: a portrait's faces are too large for its finest pass to run (face-detector.ts searchCoarseFirst)
  it('a 3.1 MP group photo, its finest detector pass (0.66 MP) in two strips (one per worker): the same faces', async () => {
    const image = await blobOf(largeUrl);
    const byX = (list: ReturnType<typeof faces>) => [...list].sort((a, b) => a.topLeftX - b.topLeftX);
    const [one, two] = [byX(faces(await alone.detect({ image }))), byX(faces(await paired.detect({ image })))];
    expect(one.length).toBeGreaterThanOrEqual(5);
    expect(two).toHaveLength(one.length);
    // the strips' candidates merge a little differently from one pass's: boxes within 2% of the face
    one.forEach((a, i) => {
      const b = two[i]!;
      for (const [p, q] of [[a.topLeftX, b.topLeftX], [a.topLeftY, b.topLeftY], [a.width, b.width], [a.height, b.height]] as const) expect(Math.abs(p - q)).toBeLessThanOrEqual(Math.max(2, 0.02 * a.height));
      expect(Math.abs(b.attributes.age - a.attributes.age)).toBeLessThanOrEqual(3);
    });
  });

  it('a single face: GEAR as its two parts, a half on each worker, gives the whole model\'s attributes', async () => {
    const image = await blobOf(portraitUrl);
    const parts = ['gear-head', 'gear-tail'];
    // the parts load once the worker is idle after answers with the peer: answers until both have
    const until = Date.now() + 60_000;
    const loaded = async () => (await paired.diagnostics.modelLoads()).map((l) => l.id);
    let ids = await loaded();
    while (!parts.every((id) => ids.includes(id))) {
      if (Date.now() > until) throw new Error(`GEAR's parts did not load: ${ids.join(', ')}`);
      await paired.detect({ image });
      ids = await loaded();
    }
    const before = (await paired.diagnostics.modelRuns()).byModel;
    const [one, two] = [faces(await alone.detect({ image })), faces(await paired.detect({ image }))];
    const after = (await paired.diagnostics.modelRuns()).byModel;
    const ran = (id: string) => (after[id] ?? 0) - (before[id] ?? 0);
    expect([ran('gear'), ran('gear-head'), ran('gear-tail')]).toEqual([0, 2, 1]);
    expect(one).toHaveLength(1);
    expect(two).toHaveLength(1);
    expect([two[0]!.topLeftX, two[0]!.topLeftY, two[0]!.width, two[0]!.height]).toEqual([one[0]!.topLeftX, one[0]!.topLeftY, one[0]!.width, one[0]!.height]);
    expect(two[0]!.attributes).toEqual(one[0]!.attributes);
  });

  it('enroll and recognize with the peer find the person with the same confidence as one worker', async () => {
    const results = await Promise.all(
      [alone, paired].map(async (engine) => {
        const enrolled = await engine.enroll({ image: await blobOf(obamaUrl), subject_id: 'obama', gallery_name: 'peer' });
        if ('Errors' in enrolled) throw new Error(JSON.stringify(enrolled));
        const found = await engine.recognize({ image: await blobOf(obama2Url), gallery_name: 'peer' });
        if ('Errors' in found) throw new Error(JSON.stringify(found));
        await engine.galleryRemove({ gallery_name: 'peer' });
        return found.images[0]!.candidates?.[0];
      }),
    );
    expect(results[0]?.subject_id).toBe('obama');
    expect(results[1]?.subject_id).toBe('obama');
    // obama.jpg's finest pass runs in strips with the peer: its box, so its crop, moves a little
    expect(Math.abs(results[1]!.confidence - results[0]!.confidence)).toBeLessThanOrEqual(0.01);
  });
});
