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
import type { IndexStats, IndexTarget } from './search-index.ts';
import IndexWorker from './index.worker.ts?worker&inline';
import type { SearchIndexWorkerApi } from './index.worker.ts';

export class RemoteSearchIndex {
  private readonly worker: Worker;
  private readonly api: Comlink.Remote<SearchIndexWorkerApi>;
  private readonly unsubscribe: () => void;
  private readonly opened: Promise<void>;

  constructor(store: GalleryStore) {
    this.worker = new IndexWorker({ name: 'search-index' });
    this.api = Comlink.wrap<SearchIndexWorkerApi>(this.worker);
    this.opened = this.api.open(store.name, store.id);
    // forwarded, not awaited: ordering on the port is what matters, and a failure shows in the next search
    this.unsubscribe = store.onChange((change) => void this.api.apply(change).catch(() => {}));
  }

  async searchSubjects(target: IndexTarget, query: Float32Array, k: number, minSimilarity?: number): Promise<SubjectMatch[]> {
    await this.opened;
    const result = await this.api.searchSubjects(target, query, k, minSimilarity);
    if (!result.ok) throw new EngineError(result.error.kind, result.error.message);
    return result.value;
  }

  /** Starts reading a gallery's matrix in the worker (nothing waits on the main thread). */
  async preload(target: IndexTarget): Promise<number> {
    await this.opened;
    const result = await this.api.preload(target);
    if (!result.ok) throw new EngineError(result.error.kind, result.error.message);
    return result.value;
  }

  stats(): Promise<IndexStats> {
    return this.opened.then(() => this.api.stats());
  }

  close(): void {
    this.unsubscribe();
    void this.api.close().catch(() => {});
    this.api[Comlink.releaseProxy]();
    // give close() its turn before the thread goes away
    setTimeout(() => this.worker.terminate(), 0);
  }
}
