// The engine's search index runs in its own worker (src/store/index.worker.ts): it must follow
// this page's writes in order (a recognize sent after an enroll or a removal resolved sees it),
// another engine's writes on the same storage (another tab, via the BroadcastChannel), and a
// gallery written before the engine started (the reopen, read in the worker). A worker that dies
// is found by the watchdog and replaced; the search is answered by the new one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import obama2Url from '../../../shared/data/faces/obama/obama2.jpg?url';
import bidenUrl from '../../../shared/data/faces/biden/biden.jpg?url';
import biden2Url from '../../../shared/data/faces/biden/biden2.jpg?url';
import { createEngine, type Engine } from '../../src/index.ts';
import { GalleryStore, type ImportItem } from '../../src/store/index.ts';
import { EMBEDDING } from '../../src/models/catalog.ts';
import { RemoteSearchIndex } from '../../src/store/remote-search-index.ts';
import { seededRandom } from '../unit/helpers/seeded-random.ts';

const storageName = `search-worker-${Date.now()}`;
const blobOf = async (url: string) => (await fetch(url)).blob();
let engine: Engine;
let other: Engine;

async function topOf(e: Engine, url: string, gallery: string): Promise<string | undefined> {
  const r = await e.recognize({ image: await blobOf(url), gallery_name: gallery });
  if ('Errors' in r) throw new Error(JSON.stringify(r));
  return r.images[0]!.candidates?.[0]?.subject_id;
}

beforeAll(async () => {
  // a crowd written straight into storage before any engine exists: the first search reads it in the worker
  const random = seededRandom(7);
  const store = await GalleryStore.open({ name: storageName, broadcast: false });
  const items: ImportItem[] = Array.from({ length: 3000 }, (_, i) => {
    const v = new Float32Array(128).map(() => random() * 2 - 1);
    const n = Math.hypot(...v);
    return { subject: `crowd-${i}`, template: { modelId: EMBEDDING.id, embedding: v.map((x) => x / n), box: { topLeftX: 0, topLeftY: 0, width: 1, height: 1 }, attributes: {}, quality: 0.5 } };
  });
  await store.importTemplates('demo', 'people', items);
  store.close();
  engine = await createEngine({ backend: 'wasm', storageName });
  other = await createEngine({ backend: 'wasm', storageName });
});
afterAll(() => {
  engine?.close();
  other?.close();
});

describe('the search index worker', () => {
  it('reopens a stored gallery, then follows this engine\'s enroll and removal in order', async () => {
    expect(await topOf(engine, obama2Url, 'people')).toBeUndefined(); // only the random crowd: no match
    const e = await engine.enroll({ image: await blobOf(obamaUrl), subject_id: 'obama', gallery_name: 'people' });
    if ('Errors' in e) throw new Error(JSON.stringify(e));
    // sent right after the enroll resolved: the forwarded notice is ahead of it on the port
    expect(await topOf(engine, obama2Url, 'people')).toBe('obama');
    await engine.galleryRemoveSubject({ gallery_name: 'people', subject_id: 'obama' });
    expect(await topOf(engine, obama2Url, 'people')).toBeUndefined();
  });

  it("follows another engine's writes on the same storage (another tab)", async () => {
    expect(await topOf(engine, biden2Url, 'people')).toBeUndefined();
    const e = await other.enroll({ image: await blobOf(bidenUrl), subject_id: 'biden', gallery_name: 'people' });
    if ('Errors' in e) throw new Error(JSON.stringify(e));
    // the broadcast reaches the first engine's worker a moment later
    await expect.poll(() => topOf(engine, biden2Url, 'people'), { timeout: 20_000, interval: 200 }).toBe('biden');
  });

  it('answers 5004 for a gallery that does not exist, from the worker as before', async () => {
    const r = await engine.recognize({ image: await blobOf(obama2Url), gallery_name: 'nobody-here' });
    expect('Errors' in r && r.Errors[0]!.ErrCode).toBe(5004);
  });

  it('starts its worker at the first search, not before, and that search sees the writes made meanwhile', async () => {
    const store = await GalleryStore.open({ name: `${storageName}-lazy`, broadcast: false });
    const target = { appId: 'demo', gallery: 'late', modelId: EMBEDDING.id };
    const embedding = new Float32Array(128).fill(1 / Math.sqrt(128));
    let started = 0;
    const index = new RemoteSearchIndex(store, () => {
      started++;
      return new Worker(new URL('../../src/store/index.worker.ts', import.meta.url), { type: 'module' });
    });
    try {
      await store.importTemplates('demo', 'late', [{ subject: 'written-before', template: { modelId: EMBEDDING.id, embedding, box: { topLeftX: 0, topLeftY: 0, width: 1, height: 1 }, attributes: {}, quality: 0.5 } }]);
      expect(started).toBe(0); // a cold start's first /detect does not share the CPU with it
      const matches = await index.searchSubjects(target, embedding, 1);
      expect(started).toBe(1);
      expect(await index.inWorker()).toBe(true);
      expect(matches.map((m) => m.subject)).toEqual(['written-before']);
    } finally {
      index.close();
      store.close();
    }
  });

  it('runs in the worker; a worker that cannot start falls back to this thread, and searches still answer', async () => {
    const store = await GalleryStore.open({ name: storageName, broadcast: false });
    const target = { appId: 'demo', gallery: 'people', modelId: EMBEDDING.id };
    const query = new Float32Array(128).fill(1 / Math.sqrt(128));
    const inWorker = new RemoteSearchIndex(store);
    // a CSP without worker-src blob:, say: the script never runs
    const broken = new RemoteSearchIndex(store, () => new Worker(URL.createObjectURL(new Blob(['throw new Error("blocked")'], { type: 'text/javascript' }))));
    try {
      expect(await inWorker.inWorker()).toBe(true);
      expect(await broken.inWorker()).toBe(false);
      const [a, b] = [await inWorker.searchSubjects(target, query, 5), await broken.searchSubjects(target, query, 5)];
      expect(a).toHaveLength(5);
      expect(b).toEqual(a);
    } finally {
      inWorker.close();
      broken.close();
      store.close();
    }
  });

  it('a worker that dies (killed by the browser) is found by its watchdog and replaced; the search is answered', async () => {
    const store = await GalleryStore.open({ name: `${storageName}-dies`, broadcast: false });
    const target = { appId: 'demo', gallery: 'watched', modelId: EMBEDDING.id };
    const embedding = new Float32Array(128).fill(1 / Math.sqrt(128));
    const template = { modelId: EMBEDDING.id, embedding, box: { topLeftX: 0, topLeftY: 0, width: 1, height: 1 }, attributes: {}, quality: 0.5 };
    const workers: Worker[] = [];
    const index = new RemoteSearchIndex(
      store,
      () => {
        workers.push(new Worker(new URL('../../src/store/index.worker.ts', import.meta.url), { type: 'module' }));
        return workers.at(-1)!;
      },
      { unresponsiveMs: 1000, pingEveryMs: 200 },
    );
    try {
      await store.importTemplates('demo', 'watched', [{ subject: 'first', template }]);
      expect((await index.searchSubjects(target, embedding, 5)).map((m) => m.subject)).toEqual(['first']);
      workers[0]!.terminate(); // what the browser does to a worker it kills: no event, no answer ever again
      await store.importTemplates('demo', 'watched', [{ subject: 'second', template }]); // forwarded into the void
      const began = performance.now();
      const matches = await index.searchSubjects(target, embedding, 5);
      console.log(`search worker: dead worker replaced, search answered after ${(performance.now() - began).toFixed(0)} ms`);
      expect(matches.map((m) => m.subject).sort()).toEqual(['first', 'second']); // the new worker read storage
      expect(workers).toHaveLength(2);
      expect(index.restarts()).toBe(1);
      expect(await index.inWorker()).toBe(true);
      expect(await index.searchSubjects(target, embedding, 5)).toHaveLength(2); // and it goes on answering
    } finally {
      index.close();
      store.close();
    }
  });
});
