// The engine with sync on, and the calls test/sync/browsers.test.ts makes on it.
import { createEngine, type Engine } from '../../../src/engine/engine.ts';
import type { SyncOptionsInput } from '../../../src/sync/index.ts';

let engine: Engine | undefined;
const need = (): Engine => {
  if (!engine) throw new Error('start() first');
  return engine;
};

const api = {
  async start(sync: SyncOptionsInput | undefined) {
    engine = await createEngine({ ...(sync ? { sync } : {}), numThreads: 1 });
    return true;
  },
  /** the app closed and opened again (same page, same IndexedDB): what a reload does to the engine */
  async restart(sync: SyncOptionsInput | undefined) {
    need().close();
    engine = await createEngine({ ...(sync ? { sync } : {}), numThreads: 1 });
    return true;
  },
  /**
   * test/sync/crash.test.ts: at the next matching readwrite transaction — a gallery write with
   * its outbox records ('transaction'), or the outbox's own (the acknowledged entries' delete,
   * 'ack') — keeps it from committing (a chain of reads) and calls the page's `crashPoint`
   * binding, whose handler crashes the tab: the transaction dies uncommitted.
   */
  armCrash(step: 'transaction' | 'ack') {
    const original = IDBDatabase.prototype.transaction;
    IDBDatabase.prototype.transaction = function (this: IDBDatabase, names: string | string[], mode?: IDBTransactionMode, options?: IDBTransactionOptions) {
      const tx = original.call(this, names, mode, options);
      const list = typeof names === 'string' ? [names] : [...names];
      const hit = mode === 'readwrite' && list.includes('outbox') && (step === 'transaction' ? list.length > 1 : list.length === 1);
      if (hit) {
        IDBDatabase.prototype.transaction = original;
        const store = tx.objectStore(list[0]!);
        const keepOpen = () => (store.count().onsuccess = keepOpen);
        keepOpen();
        void (globalThis as unknown as { crashPoint(step: string): Promise<void> }).crashPoint(step);
      }
      return tx;
    } as typeof original;
    return true;
  },
  removeGallery: async (gallery: string) => need().galleryRemove({ gallery_name: gallery }),
  enroll: async (gallery: string, subject: string, image: string) => need().enroll({ image, subject_id: subject, gallery_name: gallery }),
  recognize: async (gallery: string, image: string) => need().recognize({ image, gallery_name: gallery }),
  removeSubject: async (gallery: string, subject: string) => need().galleryRemoveSubject({ gallery_name: gallery, subject_id: subject }),
  status: () => need().syncStatus(),
  syncNow: () => need().syncNow(),
  /** every template id of the gallery, sorted ([] when it does not exist) */
  async templateIds(gallery: string): Promise<string[]> {
    const e = need();
    const view = await e.galleryView({ gallery_name: gallery });
    if (!('subject_ids' in view)) return [];
    const ids: string[] = [];
    for (const subject of view.subject_ids) {
      const s = await e.galleryViewSubject({ gallery_name: gallery, subject_id: subject });
      if ('face_ids' in s) ids.push(...s.face_ids.map((f: { face_id: string }) => f.face_id));
    }
    return ids.sort();
  },
  /** whether the template's photo is stored here, and its size */
  async photoBytes(gallery: string, subject: string, faceId: string): Promise<number | null> {
    const r = await need().templateImage({ gallery_name: gallery, subject_id: subject, face_id: faceId });
    return r && 'image' in r ? r.image.size : null;
  },
  async exportGallery(gallery: string) {
    return need().exportGallery({ gallery_name: gallery, include_images: true });
  },
};

(globalThis as unknown as { syncTest: typeof api }).syncTest = api;
