// The search index worker: reads galleries from IndexedDB and keeps their matrices (reopening a
// 100k-template gallery reads ~51 MB of segments and builds the matrix: ~0.5 s of work that
// used to block the page). The page forwards its own writes with apply(), in order with its
// searches; other tabs' writes arrive on the BroadcastChannel as before. See docs/store.md.
import * as Comlink from 'comlink';
import { toResult, type Result } from '../errors.ts';
import type { StoreChange } from './changes.ts';
import { GalleryStore } from './gallery-store.ts';
import type { IndexStats, IndexTarget } from './search-index.ts';
import { GallerySearchIndex } from './search-index.ts';
import type { SubjectMatch } from './matrix.ts';

let opened: Promise<{ store: GalleryStore; index: GallerySearchIndex }> | undefined;

function ready() {
  if (!opened) throw new Error('search index worker used before open()');
  return opened;
}

const api = {
  /** `writer`: the id of the page's GalleryStore, whose notices come through apply(). */
  async open(name: string, writer: string): Promise<void> {
    opened ??= GalleryStore.open({ name, broadcast: false }).then((store) => ({
      store,
      index: new GallerySearchIndex(store, { directSource: writer }),
    }));
    await opened;
  },

  async apply(change: StoreChange): Promise<void> {
    (await ready()).index.apply(change);
  },

  async searchSubjects(target: IndexTarget, query: Float32Array, k: number, minSimilarity?: number): Promise<Result<SubjectMatch[]>> {
    const { index } = await ready();
    return toResult(() => index.searchSubjects(target, query, k, minSimilarity));
  },

  /** Reads the target's matrix now (e.g. right after start-up), so the first search does not wait. */
  async preload(target: IndexTarget): Promise<Result<number>> {
    const { index } = await ready();
    return toResult(async () => (await index.matrix(target)).size);
  },

  /** the page's watchdog: a worker that answers this is alive */
  ping(): boolean {
    return true;
  },

  async stats(): Promise<IndexStats> {
    return (await ready()).index.stats();
  },

  async close(): Promise<void> {
    const o = await opened;
    o?.index.close();
    o?.store.close();
  },
};

export type SearchIndexWorkerApi = typeof api;

Comlink.expose(api);
