// The page's handle on the search index worker (index.worker.ts): the same searchSubjects as
// GallerySearchIndex, answered off the main thread. The page's GalleryStore forwards every
// committed write to the worker through the same port as the searches, so a search sent after
// a write resolved always sees it (one port delivers in order).
//
// The worker is inlined (vite `?worker&inline`: a Blob URL made from the bundled code), so the
// library ships no second worker file for apps and bundlers to serve.
//
// A worker that dies (the browser kills it for memory) never answers again and comlink would
// wait forever. As for the vision worker (engine/vision-client.ts): calls race the worker's
// death, a watchdog pings a worker that has calls pending, and a dead one is replaced. A search
// only reads, and a fresh worker reads storage when it opens, so the call is sent again to the
// new worker rather than failed.
import * as Comlink from 'comlink';
import { EngineError, type Result } from '../errors.ts';
import type { GalleryStore } from './gallery-store.ts';
import type { SubjectMatch } from './matrix.ts';
import { GallerySearchIndex, type IndexStats, type IndexTarget } from './search-index.ts';
import IndexWorker from './index.worker.ts?worker&inline';
import type { SearchIndexWorkerApi } from './index.worker.ts';

/** How the engine starts the worker (a test passes one that fails, to check the fallback). */
export type IndexWorkerFactory = () => Worker;
const inlineWorker: IndexWorkerFactory = () => new IndexWorker({ name: 'search-index' });

export interface SearchWorkerWatch {
  /** a worker with calls pending that answers no ping for this long is taken as dead (default 30 s) */
  unresponsiveMs?: number;
  /** how often the watchdog pings while calls are pending (default 5 s) */
  pingEveryMs?: number;
}

/** The started worker: its comlink handle and whether it answers (false: the fallback serves). */
interface Started {
  worker: Worker | undefined;
  api: Comlink.Remote<SearchIndexWorkerApi> | undefined;
  remote: Promise<boolean>;
  unsubscribe: () => void;
  /** rejects once the watchdog finds the worker dead */
  died: Promise<never>;
  kill(): void;
  dead: boolean;
  /** it could not start: the fallback serves, nothing to watch */
  failed: boolean;
}

class WorkerDied extends Error {}

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
  private restarted = 0;
  private pending = 0;
  private watchdog: ReturnType<typeof setInterval> | undefined;
  private pingSince: number | undefined;
  private readonly unresponsiveMs: number;
  private readonly pingEveryMs: number;

  constructor(
    private readonly store: GalleryStore,
    private readonly startWorker: IndexWorkerFactory = inlineWorker,
    watch: SearchWorkerWatch = {},
  ) {
    this.unresponsiveMs = watch.unresponsiveMs ?? 30_000;
    this.pingEveryMs = watch.pingEveryMs ?? 5000;
  }

  /** How many workers were started because one before them died (diagnostics). */
  restarts(): number {
    return this.restarted;
  }

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
    let reject!: (error: Error) => void;
    const died = new Promise<never>((_, r) => (reject = r));
    died.catch(() => {});
    const started: Started = {
      worker,
      api,
      remote,
      unsubscribe,
      died,
      dead: false,
      failed: false,
      kill: () => {
        started.dead = true;
        unsubscribe();
        api?.[Comlink.releaseProxy]();
        worker?.terminate();
        reject(new WorkerDied());
      },
    };
    void remote.then((ok) => (started.failed = !ok));
    this.started = started;
    return started;
  }

  /**
   * Runs `work` on the live worker (or the fallback), racing the worker's death; a worker
   * found dead is replaced and `work` runs once more on the new one.
   */
  private async call<T>(inWorker: (api: Comlink.Remote<SearchIndexWorkerApi>) => Promise<T>, onThread: (index: GallerySearchIndex) => Promise<T> | T): Promise<T> {
    this.pending++;
    this.watchdog ??= setInterval(() => this.checkPulse(), this.pingEveryMs);
    try {
      for (let attempt = 0; ; attempt++) {
        const started = this.start();
        try {
          if (!(await Promise.race([started.remote, started.died])) || !started.api) return await onThread(this.fallback());
          return await Promise.race([inWorker(started.api), started.died]);
        } catch (error) {
          if (!(error instanceof WorkerDied) || this.closed) throw error;
          if (this.started === started) {
            this.started = undefined;
            this.restarted++;
          }
          if (attempt > 0) throw new EngineError('UNAVAILABLE', 'temporarily unavailable: the search index worker died twice in a row; send the request again');
        }
      }
    } finally {
      if (--this.pending === 0) {
        clearInterval(this.watchdog);
        this.watchdog = undefined;
        this.pingSince = undefined;
      }
    }
  }

  private checkPulse(): void {
    const started = this.started;
    if (!started?.api || started.dead || started.failed || this.pending === 0) return;
    if (this.pingSince !== undefined) {
      if (performance.now() - this.pingSince > this.unresponsiveMs) {
        this.pingSince = undefined;
        started.kill();
      }
      return;
    }
    this.pingSince = performance.now();
    started.api.ping().then(
      () => {
        if (this.started === started) this.pingSince = undefined;
      },
      () => {},
    );
  }

  /** Whether searches run in the worker (false: on this thread, the fallback). */
  inWorker(): Promise<boolean> {
    return this.start().remote;
  }

  async searchSubjects(target: IndexTarget, query: Float32Array, k: number, minSimilarity?: number): Promise<SubjectMatch[]> {
    return this.call(
      async (api) => unwrap(await api.searchSubjects(target, query, k, minSimilarity)),
      (index) => index.searchSubjects(target, query, k, minSimilarity),
    );
  }

  /** Starts reading a gallery's matrix (in the worker: nothing waits on the main thread). */
  async preload(target: IndexTarget): Promise<number> {
    return this.call(
      async (api) => unwrap(await api.preload(target)),
      async (index) => (await index.matrix(target)).size,
    );
  }

  async stats(): Promise<IndexStats> {
    return this.call(
      (api) => api.stats(),
      (index) => index.stats(),
    );
  }

  close(): void {
    this.closed = true;
    clearInterval(this.watchdog);
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

function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw new EngineError(result.error.kind, result.error.message);
  return result.value;
}
