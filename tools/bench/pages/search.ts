// Runs in the bench page: the recognition store and search index at 1k–1M templates, on
// synthetic random embeddings (fine for speed and memory; say nothing about accuracy).
// Driven from Node by tools/bench/search.ts, which reloads the page between seed() and
// reopen() so the reopen starts from a fresh JS realm, as after a real page reload.
import { deleteDB } from 'idb';
import { GallerySearchIndex, GalleryStore, type ImportItem, type KernelChoice, type NewTemplate } from '../../../src/store/index.ts';
import { RemoteSearchIndex } from '../../../src/store/remote-search-index.ts';
import { expose } from '../../harness/page.ts';

export interface SearchBenchOptions {
  /** IndexedDB name, one per size */
  name: string;
  templates: number;
  dim: number;
  /** templates per subject */
  perSubject: number;
  /** templates per importTemplates() call (one transaction each) */
  batch?: number;
  /** timed searches per kernel */
  queries?: number;
  /** candidates per search (/recognize's max_num_results default) */
  k?: number;
}

export interface Percentiles {
  p50: number;
  p95: number;
  min: number;
}

export interface SeedResult {
  insertMs: number;
  /** navigator.storage.estimate().usage after seeding, per template; undefined where the browser has no estimate (WebKitGTK) */
  storedBytesPerTemplate?: number;
}

export interface MeasureResult {
  /** store open + first index build in this (warm) page */
  buildMs: number;
  /**
   * index.searchSubjects (recognize: best template per subject, top k): 'int8' is what the
   * engine runs (int8 scan, then its candidates scored exactly from IndexedDB); the float32
   * matrices (SIMD and JS kernels) only up to FLOAT32_UP_TO templates
   */
  recognize: { int8: Percentiles; 'wasm-simd'?: Percentiles; js?: Percentiles };
  /** int8 candidates scored exactly per recognize, mean */
  candidates: number;
  /** of recognize: the int8 scan and its candidate list alone (no IndexedDB read, no exact scores) */
  scan?: Percentiles;
  /** recognize as the engine runs it: the search index worker (RemoteSearchIndex), messages included */
  worker?: Percentiles;
  /** search (top k templates), default kernel */
  templates: Percentiles;
  /** addTemplates of one template into the gallery, incl. segment rewrite and index update */
  enroll: Percentiles;
  memory: { matrixBytes: number; columnBytes: number; idBytesEstimate: number; total: number; measuredBytes: number | undefined };
}

/** float32 matrices (4× the int8 memory) are measured for comparison up to this size */
const FLOAT32_UP_TO = 100_000;

export interface ReopenResult {
  openMs: number;
  /** first searchSubjects: the index reads every segment and builds the matrix */
  firstSearchMs: number;
  totalMs: number;
  /** of firstSearchMs: reading the segments (one transaction, deserialising included), building the matrix, the search itself (scan + exact re-scoring) */
  parts: { readMs: number; buildMs: number; searchMs: number } | undefined;
}

const MODEL = 'bench-model';
const APP = 'bench';
const GALLERY = 'gallery';

function randomVector(dim: number): Float32Array {
  const v = new Float32Array(dim);
  for (let i = 0; i < dim; i++) v[i] = Math.random() * 2 - 1;
  return v;
}

function templateOf(embedding: Float32Array): NewTemplate {
  return {
    modelId: MODEL,
    embedding,
    box: { topLeftX: 100, topLeftY: 80, width: 220, height: 260 },
    attributes: { age: 35, gender: { type: 'M' }, asian: 0.05, black: 0.05, hispanic: 0.1, white: 0.75, other: 0.05, lips: 'Together', glasses: 'None' },
    quality: 0.7,
  };
}

/** nearest-rank percentile of ascending `sorted` */
function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function summarize(times: number[]): Percentiles {
  const sorted = [...times].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), min: sorted[0]! };
}

async function time<T>(work: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const value = await work();
  return [performance.now() - started, value];
}

/** A refused import as the bench reports it: how far the seeding got and the engine's error code. */
function seedFailure(error: unknown, stored: number): Error {
  const code = (error as { failure?: { code?: number } } | undefined)?.failure?.code;
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new Error(`seeding failed after ${stored} templates were stored: ${code === undefined ? '' : `error ${code}, `}${what}`);
}

async function seed(options: SearchBenchOptions): Promise<SeedResult> {
  await deleteDB(options.name);
  const store = await GalleryStore.open({ name: options.name, broadcast: false });
  const batch = options.batch ?? 50_000;
  let insertMs = 0;
  try {
    for (let from = 0; from < options.templates; from += batch) {
      const items: ImportItem[] = [];
      for (let i = from; i < Math.min(options.templates, from + batch); i++) {
        items.push({ subject: `subject-${Math.floor(i / options.perSubject)}`, template: templateOf(randomVector(options.dim)) });
      }
      const [ms] = await time(() => store.importTemplates(APP, GALLERY, items)).catch((error: unknown) => Promise.reject(seedFailure(error, from)));
      insertMs += ms;
    }
  } finally {
    store.close();
  }
  const usage = navigator.storage?.estimate ? (await navigator.storage.estimate()).usage : undefined;
  return { insertMs, storedBytesPerTemplate: usage === undefined ? undefined : usage / options.templates };
}

/** The page's and its workers' memory as Chromium measures it (cross-origin isolated pages only). */
async function measuredMemory(): Promise<number | undefined> {
  const measure = (performance as { measureUserAgentSpecificMemory?: () => Promise<{ bytes: number }> }).measureUserAgentSpecificMemory;
  if (!measure) return undefined;
  return (await measure.call(performance)).bytes;
}

async function timeSearches(run: (query: Float32Array) => unknown, dim: number, queries: number): Promise<Percentiles> {
  const pool = Array.from({ length: 16 }, () => randomVector(dim));
  const warmUntil = performance.now() + 300; // let V8 tier up the JS around the kernel
  for (let i = 0; i < 10 || performance.now() < warmUntil; i++) await run(pool[i % pool.length]!);
  const times: number[] = [];
  for (let i = 0; i < queries; i++) {
    const query = pool[i % pool.length]!;
    const started = performance.now();
    await run(query);
    times.push(performance.now() - started);
  }
  return summarize(times);
}

async function measure(options: SearchBenchOptions): Promise<MeasureResult> {
  const queries = options.queries ?? 200;
  const k = options.k ?? 10;
  const target = { appId: APP, gallery: GALLERY, modelId: MODEL };
  const memoryBefore = await measuredMemory();
  const [buildMs, { store, index }] = await time(async () => {
    const store = await GalleryStore.open({ name: options.name, broadcast: false });
    const index = new GallerySearchIndex(store, { crossTab: false });
    await index.matrix(target);
    return { store, index };
  });
  try {
    const matrix = await index.matrix(target);
    if (matrix.size !== options.templates) throw new Error(`expected ${options.templates} rows, the index has ${matrix.size}`);
    const memoryAfter = await measuredMemory();
    const memory = matrix.memory();

    const recognize: MeasureResult['recognize'] = { int8: await timeSearches((q) => index.searchSubjects(target, q, k), options.dim, queries) };
    let candidates = 0;
    // galleries under INT8_FROM_ROWS are float32: nothing is re-scored
    if (matrix.compact) for (let i = 0; i < 20; i++) candidates += matrix.subjectCandidates(randomVector(options.dim), k).length / 20;
    const scan = matrix.compact ? await timeSearches((q) => matrix.subjectCandidates(q, k), options.dim, queries) : undefined;
    const remote = new RemoteSearchIndex(store);
    await remote.preload(target);
    const worker = await timeSearches((q) => remote.searchSubjects(target, q, k), options.dim, queries);
    remote.close();
    if (options.templates <= FLOAT32_UP_TO) {
      for (const kernel of ['wasm-simd', 'js'] as const satisfies KernelChoice[]) {
        const kernelIndex = new GallerySearchIndex(store, { crossTab: false, kernel, precision: 'float32' });
        const m = await kernelIndex.matrix(target);
        recognize[kernel] = await timeSearches((q) => m.searchSubjects(q, k), options.dim, queries);
        kernelIndex.close();
      }
    }
    const templates = await timeSearches((q) => index.search(target, q, k), options.dim, queries);

    const enrollTimes: number[] = [];
    for (let i = 0; i < 20; i++) {
      const [ms] = await time(() => store.addTemplates(APP, GALLERY, `enrolled-${i}`, [templateOf(randomVector(options.dim))]));
      enrollTimes.push(ms);
    }
    if (matrix.size !== options.templates + 20) throw new Error('the index did not follow the enrolls');
    for (let i = 0; i < 20; i++) await store.removeSubject(APP, GALLERY, `enrolled-${i}`);

    return {
      buildMs,
      recognize,
      candidates,
      scan,
      worker,
      templates,
      enroll: summarize(enrollTimes),
      memory: {
        matrixBytes: memory.matrixBytes,
        columnBytes: memory.columnBytes,
        idBytesEstimate: memory.idBytes,
        total: memory.total,
        measuredBytes: memoryBefore !== undefined && memoryAfter !== undefined ? memoryAfter - memoryBefore : undefined,
      },
    };
  } finally {
    index.close();
    store.close();
  }
}

/** Call right after a page load: what a returning user's first /recognize pays. */
async function reopen(options: SearchBenchOptions): Promise<ReopenResult> {
  const started = performance.now();
  const store = await GalleryStore.open({ name: options.name, broadcast: false });
  const openMs = performance.now() - started;
  const index = new GallerySearchIndex(store, { crossTab: false });
  try {
    const matches = await index.searchSubjects({ appId: APP, gallery: GALLERY, modelId: MODEL }, randomVector(options.dim), options.k ?? 10);
    const totalMs = performance.now() - started;
    if (matches.length === 0) throw new Error('reopened gallery is empty');
    const build = index.stats().lastBuild;
    const firstSearchMs = totalMs - openMs;
    const parts = build && { readMs: build.readMs, buildMs: build.buildMs, searchMs: firstSearchMs - build.readMs - build.buildMs };
    return { openMs, firstSearchMs, totalMs, parts };
  } finally {
    index.close();
    store.close();
  }
}

async function cleanup(names: string[]): Promise<void> {
  for (const name of names) await deleteDB(name);
}

expose({ seed, measure, reopen, cleanup });
