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

export class RemoteSearchIndex {
  private readonly worker: Worker | undefined;
  private readonly api: Comlink.Remote<SearchIndexWorkerApi> | undefined;
  private readonly unsubscribe: () => void;
  /** true when the worker serves searches; false: it could not start (e.g. a CSP without worker-src blob:) */
  private readonly remote: Promise<boolean>;
  /** the fallback: the same index on this thread, as before the worker existed */
  private local: GallerySearchIndex | undefined;

  constructor(
    private readonly store: GalleryStore,
    startWorker: IndexWorkerFactory = inlineWorker,
  ) {
    let worker: Worker | undefined;
    try {
      worker = startWorker();
    } catch {
      worker = undefined;
    }
    this.worker = worker;
    this.api = worker && Comlink.wrap<SearchIndexWorkerApi>(worker);
    const api = this.api;
    this.remote =
      worker && api
        ? Promise.race([
            api.open(store.name, store.id).then(() => true),
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
    this.unsubscribe = store.onChange((change) => void api?.apply(change).catch(() => {}));
  }

  /** Whether searches run in the worker (false: on this thread, the fallback). */
  inWorker(): Promise<boolean> {
    return this.remote;
  }

  async searchSubjects(target: IndexTarget, query: Float32Array, k: number, minSimilarity?: number): Promise<SubjectMatch[]> {
    if (!(await this.remote) || !this.api) return this.fallback().searchSubjects(target, query, k, minSimilarity);
    const result = await this.api.searchSubjects(target, query, k, minSimilarity);
    if (!result.ok) throw new EngineError(result.error.kind, result.error.message);
    return result.value;
  }

  /** Starts reading a gallery's matrix (in the worker: nothing waits on the main thread). */
  async preload(target: IndexTarget): Promise<number> {
    if (!(await this.remote) || !this.api) return (await this.fallback().matrix(target)).size;
    const result = await this.api.preload(target);
    if (!result.ok) throw new EngineError(result.error.kind, result.error.message);
    return result.value;
  }

  async stats(): Promise<IndexStats> {
    return (await this.remote) && this.api ? this.api.stats() : this.fallback().stats();
  }

  close(): void {
    this.unsubscribe();
    this.local?.close();
    if (this.api) {
      void this.api.close().catch(() => {});
      this.api[Comlink.releaseProxy]();
    }
    // give close() its turn before the thread goes away
    setTimeout(() => this.worker?.terminate(), 0);
  }

  private fallback(): GallerySearchIndex {
    // the worker failed before any search: this index reads storage fresh and follows the
    // store's own notices from here on, so nothing is missed
    return (this.local ??= new GallerySearchIndex(this.store));
  }
}
