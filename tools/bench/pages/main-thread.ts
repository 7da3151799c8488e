// Runs in the main-thread bench page (driven by tools/bench/main-thread.ts): how long the page's
// own thread is blocked while a 100k-template gallery is reopened by the first /recognize after
// a page load, and by a later /recognize. Long tasks come from PerformanceObserver('longtask'),
// which reports every main-thread task over 50 ms; work in workers is not a main-thread task.
import { deleteDB } from 'idb';
import obamaUrl from '../../../../shared/data/faces/obama/obama.jpg?url';
import obama2Url from '../../../../shared/data/faces/obama/obama2.jpg?url';
import { createEngine } from '../../../src/engine/engine.ts';
import { EMBEDDING } from '../../../src/models/catalog.ts';
import { GalleryStore, type ImportItem } from '../../../src/store/index.ts';
import { expose } from '../../harness/page.ts';

export interface MainThreadOptions {
  name: string;
  templates: number;
  perSubject: number;
}

export interface Phase {
  name: string;
  ms: number;
  /** main-thread tasks over 50 ms during the phase */
  longTasks: number;
  longestMs: number;
  /** sum over long tasks of their time beyond 50 ms (Total Blocking Time) */
  blockingMs: number;
}

const APP = 'demo';
const GALLERY = 'crowd';
const DIM = 128;

function randomUnit(): Float32Array {
  const v = new Float32Array(DIM);
  let n = 0;
  for (let i = 0; i < DIM; i++) n += (v[i] = Math.random() * 2 - 1) ** 2;
  for (let i = 0; i < DIM; i++) v[i]! /= Math.sqrt(n);
  return v;
}

/** templates synthetic faces (random unit embeddings of the shipped model) plus one real person, Obama. */
async function seed(options: MainThreadOptions): Promise<{ insertMs: number }> {
  await deleteDB(options.name);
  const store = await GalleryStore.open({ name: options.name, broadcast: false });
  const started = performance.now();
  try {
    for (let from = 0; from < options.templates; from += 10_000) {
      const items: ImportItem[] = [];
      for (let i = from; i < Math.min(options.templates, from + 10_000); i++) {
        items.push({
          subject: `subject-${Math.floor(i / options.perSubject)}`,
          template: { modelId: EMBEDDING.id, embedding: randomUnit(), box: { topLeftX: 0, topLeftY: 0, width: 100, height: 100 }, attributes: {}, quality: 0.7 },
        });
      }
      await store.importTemplates(APP, GALLERY, items);
    }
  } finally {
    store.close();
  }
  const engine = await createEngine({ backend: 'wasm', storageName: options.name });
  try {
    const r = await engine.enroll({ image: await (await fetch(obamaUrl)).blob(), subject_id: 'obama', gallery_name: GALLERY }, { appId: APP });
    if ('Errors' in r) throw new Error(JSON.stringify(r));
  } finally {
    engine.close();
  }
  return { insertMs: performance.now() - started };
}

const tasks: PerformanceEntry[] = [];
new PerformanceObserver((list) => tasks.push(...list.getEntries())).observe({ type: 'longtask', buffered: true });

async function phase(name: string, work: () => Promise<unknown>): Promise<Phase> {
  const start = performance.now();
  await work();
  const end = performance.now();
  // entries are delivered after their task: give the observer a turn
  await new Promise((r) => setTimeout(r, 50));
  const inside = tasks.filter((t) => t.startTime >= start - 1 && t.startTime < end);
  return {
    name,
    ms: end - start,
    longTasks: inside.length,
    longestMs: Math.max(0, ...inside.map((t) => t.duration)),
    blockingMs: inside.reduce((s, t) => s + Math.max(0, t.duration - 50), 0),
  };
}

/** Call right after a page load (a fresh realm, the gallery only in IndexedDB). */
async function measure(options: MainThreadOptions): Promise<Phase[]> {
  const probe = await (await fetch(obama2Url)).blob();
  let engine!: Awaited<ReturnType<typeof createEngine>>;
  const phases: Phase[] = [];
  phases.push(await phase('createEngine', async () => (engine = await createEngine({ backend: 'wasm', storageName: options.name }))));
  try {
    phases.push(await phase('warmUp', () => engine.warmUp()));
    const recognize = async () => {
      const r = await engine.recognize({ image: probe, gallery_name: GALLERY }, { appId: APP });
      if ('Errors' in r) throw new Error(JSON.stringify(r));
      if (r.images[0]?.candidates?.[0]?.subject_id !== 'obama') throw new Error(`expected obama, got ${JSON.stringify(r.images[0]?.candidates)}`);
    };
    phases.push(await phase(`first recognize (reopens the ${options.templates / 1000}k gallery)`, recognize));
    phases.push(await phase('second recognize', recognize));
  } finally {
    engine.close();
  }
  return phases;
}

async function cleanup(name: string): Promise<void> {
  await deleteDB(name);
}

expose({ seed, measure, cleanup });
