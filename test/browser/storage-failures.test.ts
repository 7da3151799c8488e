// Storage that works everywhere and never hangs, in real Chromium and real IndexedDB:
// photos stored as bytes (the form WebKit's IndexedDB accepts), older Blob records still
// read, a write the browser never settles (as WebKit did with a Blob) or refuses ends in the
// engine's error within the bound with nothing changed, and a full quota answers
// STORAGE_FULL 3004, with the galleries untouched and the engine working once space is back.
import { deleteDB, openDB } from 'idb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import obama2Url from '../../../shared/data/faces/obama/obama2.jpg?url';
import bidenUrl from '../../../shared/data/faces/biden/biden.jpg?url';
import { EngineError } from '../../src/errors.ts';
import { createEngine, type Engine } from '../../src/index.ts';
import { GalleryStore, type NewTemplate } from '../../src/store/index.ts';
import type { GalleryDB } from '../../src/store/schema.ts';

const databases: string[] = [];
const restores: (() => void)[] = [];
afterEach(async () => {
  for (const restore of restores.splice(0)) restore();
  for (const name of databases.splice(0)) await deleteDB(name);
});

function dbName(): string {
  const name = `storage-failures-${crypto.randomUUID()}`;
  databases.push(name);
  return name;
}

function template(): NewTemplate {
  return {
    modelId: 'm',
    embedding: Float32Array.from({ length: 8 }, (_, i) => Math.sin(i + Math.random())),
    box: { topLeftX: 1, topLeftY: 2, width: 30, height: 40 },
    attributes: {},
    quality: 0.9,
  };
}

/** Replaces IDBObjectStore.prototype.put for the rest of the test. */
function patchPut(replacement: (this: IDBObjectStore, original: IDBObjectStore['put'], ...args: Parameters<IDBObjectStore['put']>) => IDBRequest<IDBValidKey>): void {
  const original = IDBObjectStore.prototype.put;
  IDBObjectStore.prototype.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
    return replacement.call(this, original, ...args);
  };
  restores.push(() => (IDBObjectStore.prototype.put = original));
}

/** What a store holds, as plain data: galleries before and after a failed write must be equal. */
async function snapshot(store: GalleryStore, appId: string) {
  const out: Record<string, Record<string, string[]>> = {};
  for (const gallery of await store.listGalleries(appId)) {
    out[gallery] = {};
    for (const subject of await store.listSubjects(appId, gallery)) {
      out[gallery][subject] = (await store.listTemplates(appId, gallery, subject)).map((t) => t.faceId);
    }
  }
  return out;
}

const photo = () => new Blob([new Uint8Array([0xff, 0xd8, 0xff, 1, 2, 3, 4, 5])], { type: 'image/jpeg' });

describe('photos in a form every engine stores', () => {
  it('stores the enrolled photo as an ArrayBuffer with its type, and hands it back as the same bytes', async () => {
    const name = dbName();
    const store = await GalleryStore.open({ name });
    const [t] = await store.addTemplates('a', 'g', 's', [template()], photo());
    store.close();
    const raw = await openDB<GalleryDB>(name);
    const [record] = await raw.getAll('images');
    raw.close();
    expect(record).toBeDefined();
    expect('bytes' in record! && record.bytes instanceof ArrayBuffer).toBe(true);
    expect('blob' in record!).toBe(false);
    expect((record as { type: string }).type).toBe('image/jpeg');

    const again = await GalleryStore.open({ name });
    const { image } = await again.templateImage('a', 'g', 's', t!.faceId);
    again.close();
    expect(image?.type).toBe('image/jpeg');
    expect(new Uint8Array(await image!.arrayBuffer())).toEqual(new Uint8Array(await photo().arrayBuffer()));
  });

  it('reads back a photo that an older version stored as a Blob', async () => {
    const name = dbName();
    const store = await GalleryStore.open({ name });
    const [t] = await store.addTemplates('a', 'g', 's', [template()], photo());
    store.close();
    // rewrite the record in the old form, as versions before the bytes form left it
    const raw = await openDB<GalleryDB>(name);
    const [record] = await raw.getAll('images');
    const { appId, gallery, subject, imageKey } = record!;
    await raw.put('images', { appId, gallery, subject, imageKey, blob: new Blob(['old photo'], { type: 'image/png' }) });
    raw.close();

    const again = await GalleryStore.open({ name });
    const { image } = await again.templateImage('a', 'g', 's', t!.faceId);
    const contents = await again.readGallery('a', 'g', { images: true });
    again.close();
    expect(image?.type).toBe('image/png');
    expect(await image!.text()).toBe('old photo');
    expect(await contents.images[0]!.blob.text()).toBe('old photo');
  });
});

describe('no storage call hangs', () => {
  it('a write the browser never settles is aborted within the bound, with nothing stored', async () => {
    const store = await GalleryStore.open({ name: dbName(), timeoutMs: 1500 });
    await store.addTemplates('a', 'g', 'first', [template()]);
    const before = await snapshot(store, 'a');
    // as WebKit did with a Blob: the photo's put neither succeeds nor fails, and the
    // transaction stays open (kept busy by reads that never stop) instead of committing
    patchPut(function (original, value, key) {
      if (this.name !== 'images') return original.call(this, value, key);
      const keepBusy = () => {
        this.count().onsuccess = keepBusy;
      };
      keepBusy();
      // a request that cannot run before this transaction ends: queued behind it on the same store
      return this.transaction.db.transaction('images').objectStore('images').count() as unknown as IDBRequest<IDBValidKey>;
    });
    const begun = performance.now();
    const error = await store.addTemplates('a', 'g', 'second', [template()], photo()).catch((e: unknown) => e);
    const took = performance.now() - begun;
    restores.splice(0).forEach((restore) => restore());
    expect(error).toBeInstanceOf(EngineError);
    expect((error as EngineError).failure).toMatchObject({ code: 3001 });
    expect((error as EngineError).message).toMatch(/did not answer within 2 s.*nothing was changed/);
    expect(took).toBeLessThan(1500 + 5000);
    expect(await snapshot(store, 'a')).toEqual(before);
    store.close();
  });

  it('a write the browser refuses is the engine error naming the reason, with nothing stored', async () => {
    const store = await GalleryStore.open({ name: dbName(), timeoutMs: 5000 });
    await store.addTemplates('a', 'g', 'first', [template()]);
    const before = await snapshot(store, 'a');
    patchPut(function (original, value, key) {
      if (this.name === 'images') throw new DOMException('Error preparing Blob/File data to be stored in object store', 'UnknownError');
      return original.call(this, value, key);
    });
    const error = await store.addTemplates('a', 'g', 'second', [template()], photo()).catch((e: unknown) => e);
    restores.splice(0).forEach((restore) => restore());
    expect((error as EngineError).failure).toMatchObject({ code: 3001 });
    expect((error as EngineError).message).toContain('UnknownError: Error preparing Blob/File data');
    expect(await snapshot(store, 'a')).toEqual(before);
    // and the store works on: the refusal left no broken state behind
    await store.addTemplates('a', 'g', 'second', [template()], photo());
    expect(Object.keys((await snapshot(store, 'a')).g!)).toEqual(['first', 'second']);
    store.close();
  });
});

describe('a refused bulk import whose undo cannot finish', () => {
  it('answers 3004 saying what may remain of it, not that nothing was stored', async () => {
    const store = await GalleryStore.open({ name: dbName(), timeoutMs: 3000, chunkLimits: { rows: 2, bytes: 1e6 } });
    // the second transaction is refused as Chromium refuses one past the quota…
    const seen = new Set<IDBTransaction>();
    patchPut(function (original, value, key) {
      seen.add(this.transaction);
      const request = original.call(this, value, key);
      if (seen.size === 2) {
        this.transaction.abort();
        Object.defineProperty(this.transaction, 'error', { value: new DOMException('', 'QuotaExceededError') });
      }
      return request;
    });
    // …and the undo's deletes fail (a browser that refuses those too)
    const originalDelete = IDBObjectStore.prototype.delete;
    IDBObjectStore.prototype.delete = () => {
      throw new DOMException('injected by the test', 'UnknownError');
    };
    restores.push(() => (IDBObjectStore.prototype.delete = originalDelete));
    const items = ['a', 'b', 'c', 'd'].map((subject) => ({ subject, template: template() }));
    const error = await store.importTemplates('a', 'g', items).catch((e: unknown) => e);
    restores.splice(0).forEach((restore) => restore());
    expect((error as EngineError).failure).toMatchObject({ code: 3004 });
    expect((error as EngineError).message).toMatch(/^storage is full: .*up to 4 of its templates may remain in gallery "g"/);
    expect((error as EngineError).message).not.toContain('nothing was stored');
    // what it says may remain is what remains: the first transaction's two subjects
    expect(await snapshot(store, 'a')).toEqual({ g: { a: [expect.any(String)], b: [expect.any(String)] } });
    store.close();
  });
});

describe('a full storage quota, as the browser reports it', () => {
  // the real quota (Chromium's quota override, which applies only to an origin whose storage
  // is not in use yet) is tested on the demo page: test/e2e/storage-quota.e2e.test.ts
  const storageName = `quota-test-${Date.now()}`;
  let engine: Engine;
  const blobOf = async (url: string) => (await fetch(url)).blob();

  beforeAll(async () => {
    engine = await createEngine({ backend: 'wasm', storageName });
    const r = await engine.enroll({ image: await blobOf(obamaUrl), subject_id: 'obama', gallery_name: 'team' });
    expect('Errors' in r).toBe(false);
  });
  afterAll(async () => {
    engine?.close();
    await deleteDB(storageName).catch(() => {});
    await deleteDB(`${storageName}-media`).catch(() => {});
  });

  it('answers STORAGE_FULL 3004 (HTTP 507) with what to do, leaves the galleries exactly as they were, and works once space is back', async () => {
    const view = async () => JSON.stringify([await engine.galleryListAll(), await engine.galleryView({ gallery_name: 'team' }), await engine.galleryViewSubject({ gallery_name: 'team', subject_id: 'obama' })]);
    const before = await view();
    // Chromium's own failure of a write past the quota: the transaction aborts with QuotaExceededError
    patchPut(function (original, value, key) {
      const request = original.call(this, value, key);
      this.transaction.abort();
      Object.defineProperty(this.transaction, 'error', { value: new DOMException('', 'QuotaExceededError') });
      return request;
    });
    const full = await engine.enroll({ image: await blobOf(bidenUrl), subject_id: 'biden', gallery_name: 'team' });
    expect(full).toMatchObject({ Errors: [{ ErrCode: 3004 }] });
    expect((full as { Errors: { Message: string }[] }).Errors[0]!.Message).toMatch(/storage is full.*navigator\.storage\.persist/);
    const viaHttp = await engine.handle(
      new Request('https://api.kairos.com/enroll', {
        method: 'POST',
        headers: { app_id: 'demo', app_key: 'demo', 'Content-Type': 'application/json' },
        body: JSON.stringify({ image: await blobToBase64(await blobOf(obama2Url)), subject_id: 'obama', gallery_name: 'team' }),
      }),
    );
    expect(viaHttp.status).toBe(507);
    expect(await viaHttp.json()).toMatchObject({ Errors: [{ ErrCode: 3004 }] });
    restores.splice(0).forEach((restore) => restore());
    expect(await view()).toBe(before);

    const after = await engine.enroll({ image: await blobOf(bidenUrl), subject_id: 'biden', gallery_name: 'team' });
    expect('Errors' in after).toBe(false);
    expect(await engine.galleryView({ gallery_name: 'team' })).toMatchObject({ subject_ids: ['biden', 'obama'] });
  });
});

async function blobToBase64(blob: Blob): Promise<string> {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}
