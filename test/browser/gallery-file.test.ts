// Gallery files and gallery browsing in Chromium: real models, real IndexedDB, two engines on
// different databases. Export with photos, import elsewhere (same subjects, bit-exact
// embeddings, same confidences, photos), imports into a gallery that already has the face
// ids, the live search index following imports, all-or-nothing refusals, templateImage and
// subjectTemplates. The file format itself is unit-tested (test/unit/gallery-file.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import obamaUrl from '../../../shared/data/faces/obama/obama.jpg?url';
import obama1Url from '../../../shared/data/faces/obama/obama1.jpg?url';
import obama2Url from '../../../shared/data/faces/obama/obama2.jpg?url';
import bidenUrl from '../../../shared/data/faces/biden/biden.jpg?url';
import { createEngine, type Engine, type GalleryFile } from '../../src/index.ts';
import { EMBEDDING } from '../../src/models/catalog.ts';
import { float32ToBase64 } from '../../src/store/base64.ts';
import { MAX_ROWS_PER_NOTICE } from '../../src/store/changes.ts';
import { GallerySearchIndex, GalleryStore, type ImportItem, type StoredTemplate } from '../../src/store/index.ts';

const run = Date.now();
const nameA = `gallery-file-a-${run}`;
const nameB = `gallery-file-b-${run}`;
let a: Engine;
let b: Engine;
let file: GalleryFile;
/** obama2.jpg recognised in engine A's original gallery */
let before: { subject_id: string; confidence: number }[];

const blobOf = async (url: string) => (await fetch(url)).blob();
const code = (r: unknown) => (r as { Errors?: { ErrCode: number }[] }).Errors?.[0]?.ErrCode;
function body<T>(r: T): Exclude<T, { Errors: unknown }> {
  if (r && typeof r === 'object' && 'Errors' in r) throw new Error(JSON.stringify(r));
  return r as Exclude<T, { Errors: unknown }>;
}

async function candidates(engine: Engine, gallery: string) {
  const r = body(await engine.recognize({ image: await blobOf(obama2Url), gallery_name: gallery }));
  return r.images[0]!.candidates!.map(({ subject_id, confidence }) => ({ subject_id, confidence }));
}

/** Everything stored for a gallery, read directly from the database. */
async function storedTemplates(storageName: string, appId: string, gallery: string): Promise<StoredTemplate[]> {
  const store = await GalleryStore.open({ name: storageName, broadcast: false });
  try {
    return (await store.readGallery(appId, gallery)).templates;
  } finally {
    store.close();
  }
}

/** A gallery's subjects with their templates: what must not change when an import fails. */
async function snapshot(engine: Engine) {
  const galleries = body(await engine.galleryListAll({})).gallery_ids;
  const out: Record<string, unknown> = {};
  for (const g of galleries) {
    for (const s of body(await engine.galleryView({ gallery_name: g })).subject_ids) {
      out[`${g}/${s}`] = body(await engine.galleryViewSubject({ gallery_name: g, subject_id: s })).face_ids;
    }
  }
  return { galleries, out };
}

const bits = (v: Float32Array) => Array.from(new Uint32Array(v.buffer, v.byteOffset, v.length));

beforeAll(async () => {
  a = await createEngine({ backend: 'wasm', storageName: nameA });
  body(await a.enroll({ image: await blobOf(obamaUrl), subject_id: 'obama', gallery_name: 'people' }));
  body(await a.enroll({ image: await blobOf(obama1Url), subject_id: 'obama', gallery_name: 'people' }));
  body(await a.enroll({ image: await blobOf(bidenUrl), subject_id: 'biden', gallery_name: 'people' }));
  before = await candidates(a, 'people');
  file = body(await a.exportGallery({ gallery_name: 'people', include_images: true }));
  b = await createEngine({ backend: 'wasm', storageName: nameB });
});
afterAll(() => {
  a?.close();
  b?.close();
});

describe('gallery files', () => {
  it('export: the versioned format, subjects in order, embeddings and photos as base64', async () => {
    expect(file).toMatchObject({ format: 'kairos-in-browser/gallery', version: 1, gallery_name: 'people' });
    expect(new Date(file.exported_at).getTime()).toBeGreaterThan(run - 60_000);
    expect(file.subjects.map((s) => s.subject_id)).toEqual(['biden', 'obama']);
    const obama = file.subjects[1]!;
    expect(obama.templates).toHaveLength(2);
    expect(obama.images).toHaveLength(2);
    for (const t of obama.templates) {
      expect(t.model_id).toBe(EMBEDDING.id);
      expect(atob(t.embedding).length).toBe(EMBEDDING.dim * 4);
      expect(obama.images!.map((i) => i.image_id)).toContain(t.image_id);
    }
    expect(obama.images![0]!.mime_type).toBe('image/jpeg');
    expect(JSON.parse(JSON.stringify(file))).toEqual(file); // plain JSON
    // without photos unless asked
    const plain = body(await a.exportGallery({ gallery_name: 'people' }));
    expect(plain.subjects.every((s) => s.images === undefined)).toBe(true);
  });

  it('export of an unknown gallery answers like /gallery/view (5004)', async () => {
    const r = await a.exportGallery({ gallery_name: 'nope' });
    expect(code(r)).toBe(5004);
    expect(r).toEqual(await a.galleryView({ gallery_name: 'nope' }));
    expect(code(await a.exportGallery({ gallery_name: '' }))).toBe(1003);
  });

  it('import into another database: same subjects, face ids, timestamps, bit-exact embeddings, photos, confidences', async () => {
    const text = new Blob([JSON.stringify(file)], { type: 'application/json' });
    const r = body(await b.importGallery({ file: text }));
    expect(r).toEqual({ gallery_name: 'people', subject_ids: ['biden', 'obama'], templates: 3 });
    expect(body(await b.galleryView({ gallery_name: 'people' }))).toEqual(body(await a.galleryView({ gallery_name: 'people' })));
    for (const subject_id of ['obama', 'biden']) {
      expect(body(await b.galleryViewSubject({ gallery_name: 'people', subject_id }))).toEqual(
        body(await a.galleryViewSubject({ gallery_name: 'people', subject_id })),
      );
    }
    const [mine, theirs] = [await storedTemplates(nameA, a.appId, 'people'), await storedTemplates(nameB, b.appId, 'people')];
    expect(theirs.map((t) => t.faceId)).toEqual(mine.map((t) => t.faceId));
    theirs.forEach((t, i) => {
      expect(bits(t.embedding)).toEqual(bits(mine[i]!.embedding));
      expect(t).toMatchObject({ modelId: mine[i]!.modelId, box: mine[i]!.box, quality: mine[i]!.quality, attributes: mine[i]!.attributes });
    });

    // a fresh engine computes the query on its own worker: same models, same photo, same answer
    const after = await candidates(b, 'people');
    expect(after.map((c) => c.subject_id)).toEqual(before.map((c) => c.subject_id));
    expect(after[0]!.subject_id).toBe('obama');
    after.forEach((c, i) => expect(c.confidence).toBeCloseTo(before[i]!.confidence, 2));

    // the photos came along, byte for byte
    for (const t of mine) {
      const request = { gallery_name: 'people', subject_id: t.subject, face_id: t.faceId };
      const [x, y] = [body(await a.templateImage(request)), body(await b.templateImage(request))];
      expect(x && y).toBeTruthy();
      expect(y!.box).toEqual(x!.box);
      expect(y!.image.type).toBe(x!.image.type);
      expect(new Uint8Array(await y!.image.arrayBuffer())).toEqual(new Uint8Array(await x!.image.arrayBuffer()));
    }
    // the two obama templates came from two photos; stored once each
    const details = body(await b.subjectTemplates({ gallery_name: 'people', subject_id: 'obama' }));
    expect(details.every((d) => d.has_image)).toBe(true);
  });

  it('the live search index follows imports; face ids the gallery already has are replaced, others kept', async () => {
    body(await a.importGallery({ file, gallery_name: 'copy' }));
    expect(await candidates(a, 'copy')).toEqual(before); // same engine, same query: exactly equal
    body(await a.galleryRemoveSubject({ gallery_name: 'copy', subject_id: 'obama' }));
    expect((await candidates(a, 'copy')).map((c) => c.subject_id)).not.toContain('obama');

    // again into 'copy' (its index is built): obama's ids are free again and kept, biden's are taken
    const r = body(await a.importGallery({ file: JSON.stringify(file), gallery_name: 'copy' }));
    expect(r.templates).toBe(3);
    expect(await candidates(a, 'copy')).toEqual(before);
    const inFile = (s: string) => file.subjects.find((x) => x.subject_id === s)!.templates;
    const obama = body(await a.galleryViewSubject({ gallery_name: 'copy', subject_id: 'obama' })).face_ids;
    expect(obama).toEqual(inFile('obama').map((t) => ({ face_id: t.face_id, enrollment_timestamp: t.enrollment_timestamp })));
    const biden = body(await a.galleryViewSubject({ gallery_name: 'copy', subject_id: 'biden' })).face_ids;
    expect(biden).toHaveLength(2);
    expect(biden[0]!.face_id).toBe(inFile('biden')[0]!.face_id);
    expect(biden[1]!.face_id).not.toBe(inFile('biden')[0]!.face_id);
    expect(Number(biden[1]!.enrollment_timestamp)).toBeGreaterThanOrEqual(run);
  });

  it('a corrupted file writes nothing: one embedding cut in the middle of a multi-subject file', async () => {
    const was = await snapshot(b);
    const broken = JSON.parse(JSON.stringify(file)) as GalleryFile;
    const last = broken.subjects[1]!.templates[1]!;
    last.embedding = last.embedding.slice(0, last.embedding.length / 2);
    for (const gallery_name of ['people', 'fresh']) {
      const r = await b.importGallery({ file: broken, gallery_name });
      expect(code(r)).toBe(5005);
      expect(JSON.stringify(r)).toContain('subject \\"obama\\", template 2');
    }
    // another model's embeddings, a newer version, not JSON, no file at all
    const otherModel = JSON.parse(JSON.stringify(file)) as GalleryFile;
    otherModel.subjects[1]!.templates[0]!.model_id = 'mobilefacenet@1';
    otherModel.subjects[1]!.templates[0]!.embedding = float32ToBase64(new Float32Array(192).fill(0.07));
    const otherModelAnswer = await b.importGallery({ file: otherModel });
    expect(code(otherModelAnswer)).toBe(1003);
    expect(JSON.stringify(otherModelAnswer)).toContain('mobilefacenet@1');
    expect(code(await b.importGallery({ file: { ...file, version: 2 } }))).toBe(1003);
    expect(code(await b.importGallery({ file: '{"format": "kairos-in-browser/gallery", ' }))).toBe(1003);
    expect(code(await b.importGallery({} as never))).toBe(1002);
    expect(code(await b.importGallery({ file, gallery_name: 'a\u0001b' }))).toBe(1000);
    expect(await snapshot(b)).toEqual(was);
  });

  it('a write that fails inside the transaction leaves the gallery as it was (photos, segments, subjects)', async () => {
    const was = await snapshot(b);
    const store = await GalleryStore.open({ name: nameB, broadcast: false });
    try {
      const template = (dim: number) => ({ modelId: EMBEDDING.id, embedding: new Float32Array(dim).fill(0.1), box: { topLeftX: 0, topLeftY: 0, width: 1, height: 1 }, attributes: {}, quality: 1 });
      // the second template's dimension differs from the gallery's: found while packing segments
      const attempt = store.importTemplates(b.appId, 'people', [
        { subject: 'newcomer', template: template(EMBEDDING.dim), faceId: 'kept-id', enrollmentTimestamp: '1', image: new Blob(['x']) },
        { subject: 'obama', template: template(EMBEDDING.dim + 1) },
      ]);
      await expect(attempt).rejects.toMatchObject({ failure: { code: 5005 } });
    } finally {
      store.close();
    }
    expect(await snapshot(b)).toEqual(was);
    expect(await candidates(b, 'people')).toHaveLength(before.length);
  });

  it('store_image false on import keeps no photos', async () => {
    body(await b.importGallery({ file, gallery_name: 'no-photos' }, { storeImage: false }));
    const details = body(await b.subjectTemplates({ gallery_name: 'no-photos', subject_id: 'obama' }));
    expect(details.map((d) => d.has_image)).toEqual([false, false]);
    expect(await b.templateImage({ gallery_name: 'no-photos', subject_id: 'obama', face_id: details[0]!.face_id })).toBeNull();
  });
});

describe('browsing a gallery', () => {
  it('subjectTemplates: view_subject plus quality, box, attributes and whether a photo is stored', async () => {
    const listed = body(await a.galleryViewSubject({ gallery_name: 'people', subject_id: 'obama' })).face_ids;
    const details = body(await a.subjectTemplates({ gallery_name: 'people', subject_id: 'obama' }));
    expect(details.map(({ face_id, enrollment_timestamp }) => ({ face_id, enrollment_timestamp }))).toEqual(listed);
    for (const d of details) {
      expect(d.quality).toBeGreaterThan(0);
      expect(d.box.width).toBeGreaterThan(20);
      expect(d.has_image).toBe(true);
      expect((d.attributes as { gender: { type: string } }).gender.type).toBe('M');
    }
    expect(code(await a.subjectTemplates({ gallery_name: 'nope', subject_id: 'obama' }))).toBe(5004);
    expect(code(await a.subjectTemplates({ gallery_name: 'people', subject_id: 'nobody' }))).toBe(5003);
  });

  it('templateImage: a photo that decodes, with the face box inside it; null without a stored photo', async () => {
    const [first] = body(await a.subjectTemplates({ gallery_name: 'people', subject_id: 'biden' }));
    const r = body(await a.templateImage({ gallery_name: 'people', subject_id: 'biden', face_id: first!.face_id }));
    expect(r).not.toBeNull();
    expect(r!.image).toBeInstanceOf(Blob);
    const bitmap = await createImageBitmap(r!.image);
    const { topLeftX: x, topLeftY: y, width, height } = r!.box;
    expect(width).toBeGreaterThan(20);
    expect(x).toBeGreaterThanOrEqual(0);
    expect(y).toBeGreaterThanOrEqual(0);
    expect(x + width).toBeLessThanOrEqual(bitmap.width);
    expect(y + height).toBeLessThanOrEqual(bitmap.height);
    bitmap.close();

    const e = body(await a.enroll({ image: await blobOf(obamaUrl), subject_id: 'private', gallery_name: 'no-store' }, { storeImage: false }));
    expect(await a.templateImage({ gallery_name: 'no-store', subject_id: 'private', face_id: e.face_id })).toBeNull();
    expect(code(await a.templateImage({ gallery_name: 'nope', subject_id: 'private', face_id: e.face_id }))).toBe(5004);
    expect(code(await a.templateImage({ gallery_name: 'no-store', subject_id: 'nobody', face_id: e.face_id }))).toBe(5003);
    const wrongFace = await a.templateImage({ gallery_name: 'people', subject_id: 'biden', face_id: e.face_id });
    expect(code(wrongFace)).toBe(5003);
    expect(JSON.stringify(wrongFace)).toContain('face id');
  });
});

describe('imports that keep face ids, and the search index', () => {
  /** Polls until `ok` holds (notices from another store instance arrive asynchronously). */
  async function eventually<T>(probe: () => Promise<T>, ok: (value: T) => boolean, ms = 5000): Promise<T> {
    const until = performance.now() + ms;
    for (;;) {
      const value = await probe();
      if (ok(value)) return value;
      if (performance.now() > until) throw new Error(`condition not met within ${ms} ms; last value ${JSON.stringify(value)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('a removed face id imported again is searchable again, here and in another "tab" (added and rebuild notices)', async () => {
    const name = `gallery-file-index-${run}`;
    const writer = await GalleryStore.open({ name });
    const other = await GalleryStore.open({ name }); // another instance: hears the writer on the BroadcastChannel
    const here = new GallerySearchIndex(writer);
    const there = new GallerySearchIndex(other);
    const target = { appId: 'app', gallery: 'g', modelId: 'm' };
    const query = Float32Array.of(1, 0, 0, 0);
    const items = (n: number): ImportItem[] =>
      Array.from({ length: n }, (_, i) => ({
        subject: `s${i % 3}`,
        faceId: `kept-${i}`,
        enrollmentTimestamp: '1000',
        template: { modelId: 'm', embedding: Float32Array.of(1, i / n, 0, 0), box: { topLeftX: 0, topLeftY: 0, width: 1, height: 1 }, attributes: {}, quality: 1 },
      }));
    const ids = async (index: GallerySearchIndex) => new Set((await index.search(target, query, 1_000_000)).map((m) => m.faceId));
    try {
      await writer.importTemplates('app', 'g', items(5));
      expect((await ids(here)).size).toBe(5);
      expect((await ids(there)).size).toBe(5);
      await writer.removeSubject('app', 'g', 's0'); // kept-0 and kept-3: tombstones in both indexes
      await eventually(() => ids(there), (s) => s.size === 3 && !s.has('kept-0'));

      // small import: an `added` notice; kept-0 and kept-3 are free again and come back, the rest get new ids
      await writer.importTemplates('app', 'g', items(5));
      for (const index of [here, there]) {
        const found = await eventually(() => ids(index), (s) => s.size === 8);
        expect(found.has('kept-0') && found.has('kept-3')).toBe(true);
      }

      // big import: a `rebuild` notice; the storage read must not be filtered by old tombstones
      await writer.removeSubject('app', 'g', 's0');
      await eventually(() => ids(there), (s) => !s.has('kept-0'));
      await writer.importTemplates('app', 'g', items(MAX_ROWS_PER_NOTICE + 1));
      for (const index of [here, there]) {
        const found = await eventually(() => ids(index), (s) => s.size === 6 + MAX_ROWS_PER_NOTICE + 1);
        expect(found.has('kept-0') && found.has('kept-3')).toBe(true);
      }
    } finally {
      here.close();
      there.close();
      writer.close();
      other.close();
    }
  });
});
