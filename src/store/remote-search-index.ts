// The page's handle on the search index worker (index.worker.ts): the same searchSubjects as
// GallerySearchIndex, answered off the main thread. The page's GalleryStore forwards every
// committed write to the worker through the same port as the searches, so a search sent after
// a write resolved always sees it (one port delivers in order).
//
// The worker is inlined (vite `?worker&inline`: a Blob URL made from the bundled code), so the
// library ships no second worker file for apps and bundlers to serve.
import * as Comlink from 'comlink';
import { EngineError } from '../errors.ts';
import type { GalleryStore } from './gallery-store.ts';
import type { SubjectMatch } from './matrix.ts';
import { GallerySearchIndex, type IndexStats, type IndexTarget } from './search-index.ts';
import IndexWorker from './index.worker.ts?worker&inline';
import type { SearchIndexWorkerApi } from './index.worker.ts';

/** How the engine starts the worker (a test passes one that fails, to check the fallback). */
export type IndexWorkerFactory = () => Worker;
const inlineWorker: IndexWorkerFactory = () => new IndexWorker({ name: 'search-index' });

/** The started worker: its comlink handle and whether it answers (false: the fallback serves). */
interface Started {
  worker: Worker | undefined;
  api: Comlink.Remote<SearchIndexWorkerApi> | undefined;
  remote: Promise<boolean>;
  unsubscribe: () => void;
}

export class RemoteSearchIndex {
  /**
   * The worker starts on the first search, preload or stats, not with the engine: an app that
   * never recognises pays nothing, and a cold start's first /detect does not share the CPU with
   * it. Writes before then need no forwarding: the worker reads storage when it opens.
   */
  private started: Started | undefined;
  /** the fallback: the same index on this thread, as before the worker existed */
  private local: GallerySearchIndex | undefined;
  private closed = false;

  constructor(
    private readonly store: GalleryStore,
    private readonly startWorker: IndexWorkerFactory = inlineWorker,
  ) {}

  private start(): Started {
    if (this.started) return this.started;
    let worker: Worker | undefined;
    try {
      worker = this.closed ? undefined : this.startWorker();
    } catch {
      worker = undefined;
    }
    const api = worker && Comlink.wrap<SearchIndexWorkerApi>(worker);
    const remote =
      worker && api
        ? Promise.race([
            api.open(this.store.name, this.store.id).then(() => true),
            // a script that cannot load or run never answers: its error event says so
            new Promise<boolean>((resolve) =>
              worker.addEventListener(
                'error',
                (event) => {
                  event.preventDefault(); // handled: the fallback below takes over
                  resolve(false);
                },
                { once: true },
              ),
            ),
          ]).catch(() => false)
        : Promise.resolve(false);
    // forwarded, not awaited: ordering on the port is what matters, and a failure shows in the next search
    const unsubscribe = this.store.onChange((change) => void api?.apply(change).catch(() => {}));
    this.started = { worker, api, remote, unsubscribe };
    return this.started;
  }

  /** Whether searches run in the worker (false: on this thread, the fallback). */
  inWorker(): Promise<boolean> {
    return this.start().remote;
  }

  async searchSubjects(target: IndexTarget, query: Float32Array, k: number, minSimilarity?: number): Promise<SubjectMatch[]> {
    const { remote, api } = this.start();
    if (!(await remote) || !api) return this.fallback().searchSubjects(target, query, k, minSimilarity);
    const result = await api.searchSubjects(target, query, k, minSimilarity);
    if (!result.ok) throw new EngineError(result.error.kind, result.error.message);
    return result.value;
  }

  /** Starts reading a gallery's matrix (in the worker: nothing waits on the main thread). */
  async preload(target: IndexTarget): Promise<number> {
    const { remote, api } = this.start();
    if (!(await remote) || !api) return (await this.fallback().matrix(target)).size;
    const result = await api.preload(target);
    if (!result.ok) throw new EngineError(result.error.kind, result.error.message);
    return result.value;
  }

  async stats(): Promise<IndexStats> {
    const { remote, api } = this.start();
    return (await remote) && api ? api.stats() : this.fallback().stats();
  }

  close(): void {
    this.closed = true;
    this.local?.close();
    const started = this.started;
    if (!started) return;
    started.unsubscribe();
    if (started.api) {
      void started.api.close().catch(() => {});
      started.api[Comlink.releaseProxy]();
    }
    // give close() its turn before the thread goes away
    setTimeout(() => started.worker?.terminate(), 0);
  }

  private fallback(): GallerySearchIndex {
    // the worker failed before any search: this index reads storage fresh and follows the
    // store's own notices from here on, so nothing is missed
    return (this.local ??= new GallerySearchIndex(this.store));
  }
}
