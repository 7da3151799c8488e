// The engine with sync on, and the calls test/sync/browsers.test.ts makes on it.
import { createEngine, type Engine } from '../../../src/engine/engine.ts';
import type { SyncOptionsInput, SyncStatus } from '../../../src/sync/index.ts';

let engine: Engine | undefined;
/** every sync progress the engine reported since start (a poll can miss a short pull's totals) */
let progressSeen: SyncStatus['progress'][] = [];
const watchProgress = (e: Engine) => {
  progressSeen = [e.syncStatus().progress];
  e.onSyncStatus((status) => progressSeen.push(status.progress));
  return e;
};
const need = (): Engine => {
  if (!engine) throw new Error('start() first');
  return engine;
};

const api = {
  async start(sync: SyncOptionsInput | undefined) {
    engine = watchProgress(await createEngine({ ...(sync ? { sync } : {}), numThreads: 1 }));
    return true;
  },
  /** the app closed and opened again (same page, same IndexedDB): what a reload does to the engine */
  async restart(sync: SyncOptionsInput | undefined) {
    need().close();
    engine = watchProgress(await createEngine({ ...(sync ? { sync } : {}), numThreads: 1 }));
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
  /**
   * The app closed, its pull cursor set back to the start of the service's log (what a
   * `CURSOR_AHEAD` does), and opened again: every pulled page comes again.
   */
  async rewindPull(sync: SyncOptionsInput) {
    need().close();
    for (const { name } of await indexedDB.databases()) {
      if (!name?.endsWith(':sync')) continue;
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(name);
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      const tx = db.transaction('state', 'readwrite');
      const keys = await new Promise<IDBValidKey[]>((resolve) => (tx.objectStore('state').getAllKeys().onsuccess = (e) => resolve((e.target as IDBRequest<IDBValidKey[]>).result)));
      for (const key of keys) if (String(key).startsWith('cursor:')) tx.objectStore('state').put('0', key);
      await new Promise((resolve) => (tx.oncomplete = resolve));
      db.close();
    }
    engine = watchProgress(await createEngine({ sync, numThreads: 1 }));
    return true;
  },
  setGalleryOptions: async (request: Parameters<Engine['setGalleryOptions']>[0]) => need().setGalleryOptions(request),
  forget: async (request: { gallery_name: string; subject_id?: string }) => need().forget(request),
  erasureStatus: async (request: { gallery_name: string; subject_id?: string }) => need().erasureStatus(request),
  /**
   * Every key and value of every object store of every IndexedDB database of this origin, as
   * text (bytes and typed arrays as hex, Blobs read): what an erasure must leave no trace in.
   */
  async dumpIndexedDB(): Promise<string> {
    const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
    const blobs: Blob[] = [];
    const text = (value: unknown) =>
      JSON.stringify(value, (_k, v: unknown) => {
        if (v instanceof ArrayBuffer) return hex(new Uint8Array(v));
        if (ArrayBuffer.isView(v)) return hex(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
        if (v instanceof Blob) return `blob#${blobs.push(v) - 1}`;
        return v;
      });
    const parts: string[] = [];
    for (const { name } of await indexedDB.databases()) {
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(name!);
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      for (const storeName of db.objectStoreNames) {
        const store = db.transaction(storeName).objectStore(storeName);
        const all = <T>(request: IDBRequest<T>) => new Promise<T>((resolve, reject) => ((request.onsuccess = () => resolve(request.result)), (request.onerror = () => reject(request.error))));
        const [keys, values] = await Promise.all([all(store.getAllKeys()), all(store.getAll())]);
        parts.push(`${name}/${storeName}: ${text(keys)} ${text(values)}`);
      }
      db.close();
    }
    for (const blob of blobs) parts.push(hex(new Uint8Array(await blob.arrayBuffer())));
    return parts.join('\n');
  },
  removeGallery: async (gallery: string) => need().galleryRemove({ gallery_name: gallery }),
  enroll: async (gallery: string, subject: string, image: string) => need().enroll({ image, subject_id: subject, gallery_name: gallery }),
  recognize: async (gallery: string, image: string) => need().recognize({ image, gallery_name: gallery }),
  removeSubject: async (gallery: string, subject: string) => need().galleryRemoveSubject({ gallery_name: gallery, subject_id: subject }),
  status: () => need().syncStatus(),
  /** the progress values reported since start (deduplicated by the caller) */
  progressSeen: () => progressSeen,
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
