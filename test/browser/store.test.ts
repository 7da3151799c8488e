// The recognition store in real Chromium, real IndexedDB: the gallery lifecycle with every
// error code, all-or-nothing writes, persistence across reconnects, app_id partitioning,
// store_image, the schema and its upgrade hand-off, and the search index: against brute
// force, kept current by this store's writes, by another "tab" (a module worker with its own
// store and index) through the BroadcastChannel, and across writes racing a build.
import { deleteDB, openDB, type IDBPDatabase } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineError } from '../../src/errors.ts';
import { GallerySearchIndex, GalleryStore, type GalleryStoreOptions, type NewTemplate, type StoredTemplate } from '../../src/store/index.ts';
import { MAX_ROWS_PER_NOTICE } from '../../src/store/changes.ts';
import { DB_VERSION, type GalleryDB, type TemplateRecord } from '../../src/store/schema.ts';
import { appendRows, int8Segment, rowCount, segmentFaceIds, segmentSubjects } from '../../src/store/segments.ts';
import { quantiseRows } from '../../src/store/int8-rows.ts';

// ---------------------------------------------------------------- helpers

const opened: { close(): void }[] = [];
const databases: string[] = [];

afterEach(async () => {
  for (const thing of opened.splice(0)) thing.close();
  for (const name of databases.splice(0)) await deleteDB(name);
});

function dbName(): string {
  const name = `store-test-${crypto.randomUUID()}`;
  databases.push(name);
  return name;
}

async function openStore(options: GalleryStoreOptions = {}): Promise<GalleryStore> {
  const store = await GalleryStore.open({ name: dbName(), ...options });
  opened.push(store);
  return store;
}

function indexOf(store: GalleryStore): GallerySearchIndex {
  const index = new GallerySearchIndex(store);
  opened.push(index);
  return index;
}

let seed = 1;
function embedding(dim = 8): Float32Array {
  // xorshift: deterministic per run, distinct per call
  return Float32Array.from({ length: dim }, () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 2 ** 32 - 0.5;
  });
}

function template(modelId = 'm', dim = 8, vector = embedding(dim)): NewTemplate {
  return {
    modelId,
    embedding: vector,
    box: { topLeftX: 10, topLeftY: 20, width: 100, height: 120 },
    attributes: { age: 33, gender: { type: 'F' }, asian: 0.1, black: 0.1, hispanic: 0.1, white: 0.6, other: 0.1, glasses: 'None' },
    quality: 0.8,
  };
}

/** Resolves to the EngineError `work` rejected with (fails if it resolved). */
async function failure(work: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await work;
  } catch (error) {
    expect(error).toBeInstanceOf(EngineError);
    const { code, message } = (error as EngineError).failure;
    return { code, message };
  }
  throw new Error('expected an EngineError, got a result');
}

const GALLERY_NOT_FOUND = { code: 5004, message: 'gallery name not found' };
const SUBJECT_NOT_FOUND = { code: 5003, message: 'subject ID was not found' };
const FACE_NOT_FOUND = { code: 5003, message: 'subject id with face id was not found' };

/** Opens the database as it is, bypassing the store. */
function raw(name: string): Promise<IDBPDatabase<GalleryDB>> {
  return openDB<GalleryDB>(name);
}

/** Templates as their subjects' records hold them (version 4), in key order. */
async function storedTemplates(db: IDBPDatabase<GalleryDB>): Promise<TemplateRecord[]> {
  return (await db.getAll('subjects')).flatMap(({ appId, gallery, subject, templates }) => templates.map((t) => ({ appId, gallery, subject, ...t })));
}

async function counts(name: string): Promise<Record<'templates' | 'subjects' | 'images' | 'segments', number>> {
  const db = await raw(name);
  try {
    const tx = db.transaction(['subjects', 'images', 'int8Segments']);
    const [subjects, images, segments] = await Promise.all((['subjects', 'images', 'int8Segments'] as const).map((s) => tx.objectStore(s).count()));
    return { templates: (await storedTemplates(db)).length, subjects: subjects!, images: images!, segments: segments! };
  } finally {
    db.close();
  }
}

/** The packed segments hold exactly the templates, each where its record says, with its row quantised from its embedding. */
async function expectConsistent(name: string): Promise<void> {
  const db = await raw(name);
  try {
    const templates = await storedTemplates(db);
    const segments = await db.getAll('int8Segments');
    const rows = new Map<string, { seq: number; key: string; row: number[]; scale: number; error: number | undefined; subject: string }>();
    for (const s of segments) {
      expect(rowCount(s)).toBeGreaterThan(0);
      const stride = s.rows.length / rowCount(s);
      const subjects = segmentSubjects(s);
      segmentFaceIds(s).forEach((id, i) => {
        expect(rows.has(id)).toBe(false);
        rows.set(id, { seq: s.seq, key: JSON.stringify([s.appId, s.gallery, s.modelId]), row: Array.from(s.rows.subarray(i * stride, (i + 1) * stride)), scale: s.scales[i]!, error: s.errors?.[i], subject: subjects[i]! });
      });
    }
    expect(rows.size).toBe(templates.length);
    for (const t of templates) {
      const own = quantiseRows(t.embedding, 1, t.embedding.length);
      expect(rows.get(t.faceId)).toEqual({ seq: t.segment, key: JSON.stringify([t.appId, t.gallery, t.modelId]), row: Array.from(own.rows), scale: own.scales[0], error: own.errors[0], subject: t.subject });
    }
    // a subject record exists exactly while it has templates, and holds them in face id order
    for (const record of await db.getAll('subjects')) {
      expect(record.templates.length).toBeGreaterThan(0);
      expect(record.templates.map((t) => t.faceId)).toEqual(record.templates.map((t) => t.faceId).sort());
    }
  } finally {
    db.close();
  }
}

async function eventually<T>(probe: () => Promise<T> | T, ok: (value: T) => boolean, ms = 5000): Promise<T> {
  const until = performance.now() + ms;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (performance.now() > until) throw new Error(`condition not met within ${ms} ms; last value ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / Math.sqrt(na * nb);
}

// ---------------------------------------------------------------- lifecycle

describe('gallery lifecycle', () => {
  it('enroll creates galleries and subjects; view, view_subject, remove_subject and remove follow the interface, with every error', async () => {
    const store = await openStore();
    const app = 'app';
    expect(await store.listGalleries(app)).toEqual([]);
    expect(await failure(store.listSubjects(app, 'g1'))).toEqual(GALLERY_NOT_FOUND);
    expect(await failure(store.listTemplates(app, 'g1', 's1'))).toEqual(GALLERY_NOT_FOUND);
    expect(await failure(store.templatesForSubject(app, 'g1', 's1'))).toEqual(GALLERY_NOT_FOUND);
    expect(await failure(store.removeGallery(app, 'g1'))).toEqual(GALLERY_NOT_FOUND);
    expect(await failure(store.removeSubject(app, 'g1', 's1'))).toEqual(GALLERY_NOT_FOUND);
    expect(await failure(store.removeSubject(app, 'g1', 's1', 'some-face'))).toEqual(GALLERY_NOT_FOUND);

    const before = Date.now();
    const [a, b] = await store.addTemplates(app, 'g1', 's1', [template(), template()]);
    const [c] = await store.addTemplates(app, 'g1', 's2', [template()]);
    await store.addTemplates(app, 'g2', 's1', [template()]);
    for (const t of [a!, b!, c!]) {
      expect(t.faceId).toMatch(/^[0-9a-f-]{36}$/);
      expect(t.enrollmentTimestamp).toMatch(/^\d+$/);
      expect(Number(t.enrollmentTimestamp)).toBeGreaterThanOrEqual(before);
      expect(Number(t.enrollmentTimestamp)).toBeLessThanOrEqual(Date.now());
    }
    expect(new Set([a!.faceId, b!.faceId, c!.faceId]).size).toBe(3);
    expect(a).toMatchObject({ appId: app, gallery: 'g1', subject: 's1', modelId: 'm', quality: 0.8, box: template().box, attributes: template().attributes });

    expect(await store.listGalleries(app)).toEqual(['g1', 'g2']);
    expect(await store.listSubjects(app, 'g1')).toEqual(['s1', 's2']);
    expect(await store.listTemplates(app, 'g1', 's1')).toEqual([
      { faceId: a!.faceId, enrollmentTimestamp: a!.enrollmentTimestamp },
      { faceId: b!.faceId, enrollmentTimestamp: b!.enrollmentTimestamp },
    ]);
    expect((await store.templatesForSubject(app, 'g1', 's1')).map((t) => Array.from(t.embedding))).toEqual([Array.from(a!.embedding), Array.from(b!.embedding)]);
    expect(await failure(store.listTemplates(app, 'g1', 'nobody'))).toEqual(SUBJECT_NOT_FOUND);
    expect(await failure(store.templatesForSubject(app, 'g1', 'nobody'))).toEqual(SUBJECT_NOT_FOUND);
    expect(await failure(store.removeSubject(app, 'g1', 'nobody'))).toEqual(SUBJECT_NOT_FOUND);
    expect(await failure(store.removeSubject(app, 'g1', 'nobody', a!.faceId))).toEqual(SUBJECT_NOT_FOUND);
    expect(await failure(store.removeSubject(app, 'g1', 's1', 'no-such-face'))).toEqual(FACE_NOT_FOUND);
    // a face id of another subject is not this subject's
    expect(await failure(store.removeSubject(app, 'g1', 's1', c!.faceId))).toEqual(FACE_NOT_FOUND);

    // with face_id: only that template goes
    expect(await store.removeSubject(app, 'g1', 's1', a!.faceId)).toEqual({ faceIds: [a!.faceId], galleryRemoved: false });
    expect((await store.listTemplates(app, 'g1', 's1')).map((t) => t.faceId)).toEqual([b!.faceId]);
    // its last template takes the subject with it
    expect(await store.removeSubject(app, 'g1', 's1', b!.faceId)).toEqual({ faceIds: [b!.faceId], galleryRemoved: false });
    expect(await store.listSubjects(app, 'g1')).toEqual(['s2']);
    expect(await failure(store.listTemplates(app, 'g1', 's1'))).toEqual(SUBJECT_NOT_FOUND);
    // the last subject takes the gallery with it
    expect(await store.removeSubject(app, 'g1', 's2')).toEqual({ faceIds: [c!.faceId], galleryRemoved: true });
    expect(await store.listGalleries(app)).toEqual(['g2']);
    expect(await failure(store.listSubjects(app, 'g1'))).toEqual(GALLERY_NOT_FOUND);
    // remove gallery: everything in it
    await store.addTemplates(app, 'g2', 's2', [template(), template()]);
    await store.removeGallery(app, 'g2');
    expect(await store.listGalleries(app)).toEqual([]);
    expect(await failure(store.removeGallery(app, 'g2'))).toEqual(GALLERY_NOT_FOUND);
    expect(await counts(store.name)).toEqual({ templates: 0, subjects: 0, images: 0, segments: 0 });
  });

  it('enroll adds to an existing subject; names that are prefixes of others or hold odd characters stay apart', async () => {
    const store = await openStore();
    const names = ['g', 'g\u0000', 'g\u0000x', 'g1', 'G', 'gä', '💡'];
    for (const gallery of names) {
      await store.addTemplates('app', gallery, 's', [template()]);
      await store.addTemplates('app', gallery, 's', [template()]);
      await store.addTemplates('app', gallery, `${gallery}-other`, [template()]);
    }
    expect(await store.listGalleries('app')).toEqual([...names].sort());
    for (const gallery of names) {
      expect(await store.listSubjects('app', gallery)).toEqual(['s', `${gallery}-other`].sort());
      expect(await store.listTemplates('app', gallery, 's')).toHaveLength(2);
    }
    await store.removeGallery('app', 'g');
    expect(await store.listGalleries('app')).toEqual(names.filter((n) => n !== 'g').sort());
    await expectConsistent(store.name);
  });

  it('refuses bad names and corrupt templates without writing anything', async () => {
    const store = await openStore();
    expect(await failure(store.addTemplates('app', '', 's', [template()]))).toMatchObject({ code: 1003 });
    expect(await failure(store.addTemplates('app', 'g', '', [template()]))).toMatchObject({ code: 1003 });
    const nan = template('m', 4, new Float32Array([1, NaN, 0, 0]));
    expect(await failure(store.addTemplates('app', 'g', 's', [template(), nan]))).toMatchObject({ code: 5005, message: expect.stringMatching(/^template 1: embedding/) });
    expect(await failure(store.addTemplates('app', 'g', 's', [template('m', 0, new Float32Array(0))]))).toMatchObject({ code: 5005 });
    expect(await failure(store.addTemplates('app', 'g', 's', [template()], 'not a blob' as unknown as Blob))).toMatchObject({ code: 1003 });
    expect(await store.addTemplates('app', 'g', 's', [])).toEqual([]);
    expect(await counts(store.name)).toEqual({ templates: 0, subjects: 0, images: 0, segments: 0 });
  });
});

// ---------------------------------------------------------------- transactions

describe('transactions', () => {
  it('a write failing mid-transaction leaves the store exactly as it was', async () => {
    const store = await openStore({ segmentRows: 4 });
    const photo = new Blob([new Uint8Array([1, 2, 3])], { type: 'image/jpeg' });
    await store.addTemplates('app', 'g', 's1', [template('m2', 8)], photo);
    const before = await counts(store.name);
    // the m1 template packs fine and is queued (subject, photo, segment, template) before the
    // m2 one meets the gallery's 8-d m2 rows: the whole request must roll back
    const error = await failure(store.addTemplates('app', 'g', 's2', [template('m1', 8), template('m1', 8), template('m2', 16)], photo));
    expect(error).toEqual({ code: 5005, message: 'm2 embeddings in this gallery have 8 dimensions; this one has 16' });
    expect(await counts(store.name)).toEqual(before);
    expect(await store.listSubjects('app', 'g')).toEqual(['s1']);
    await expectConsistent(store.name);
    // and the store still works
    await store.addTemplates('app', 'g', 's2', [template('m1', 8), template('m2', 8)], photo);
    expect(await store.listSubjects('app', 'g')).toEqual(['s1', 's2']);
    await expectConsistent(store.name);
  });

  it('the journal: a write and its outbox records commit together or not at all; a removal drops its queued enrolls', async () => {
    const store = await openStore();
    const journaled: string[] = [];
    store.journal((write) => {
      journaled.push(write.kind);
      if (write.kind === 'added') return write.templates.map((t) => ({ change: `enroll ${t.faceId}`, template: [t.appId, t.gallery, t.subject, t.faceId] }));
      return [{ change: write.kind === 'removedGallery' ? `remove gallery ${write.gallery}` : `remove ${write.subject} ${write.faceIds.length}` }];
    });
    const queued = async () => (await store.outbox.peek()).map((e) => e.record.change);
    const [a] = await store.addTemplates('app', 'g', 'alice', [template()]);
    const [b1, b2] = await store.addTemplates('app', 'g', 'bob', [template(), template()]);
    expect(await queued()).toEqual([`enroll ${a!.faceId}`, `enroll ${b1!.faceId}`, `enroll ${b2!.faceId}`]);
    // a write that fails leaves no outbox record either
    await failure(store.addTemplates('app', 'g', 'carol', [template('m', 8), template('m', 16)]));
    expect(await store.outbox.count()).toBe(3);
    // removing one of bob's templates drops only its queued enroll; removing alice drops hers
    await store.removeSubject('app', 'g', 'bob', b1!.faceId);
    await store.removeSubject('app', 'g', 'alice');
    expect(await queued()).toEqual([`enroll ${b2!.faceId}`, 'remove bob 1', 'remove alice 1']);
    await store.removeGallery('app', 'g');
    expect(await queued()).toEqual(['remove bob 1', 'remove alice 1', 'remove gallery g']);
    const entries = await store.outbox.peek(2);
    await store.outbox.remove(entries.map((e) => e.key));
    expect(await queued()).toEqual(['remove gallery g']);
    expect(journaled).toEqual(['added', 'added', 'removedTemplates', 'removedTemplates', 'removedGallery']);
  });

  it('the audit log keeps the newest events within its bound; erasing a subject scrubs its name from them', async () => {
    const store = await openStore({ auditMaxEvents: 100 });
    for (let i = 0; i < 250; i++) await store.audit.append([{ at: i, appId: 'app', event: 'verify', gallery: 'g', subject: `s${i % 3}` }]);
    const kept = await store.audit.read();
    expect(kept.length).toBeGreaterThanOrEqual(100);
    expect(kept.length).toBeLessThanOrEqual(101); // trimmed every 1% of the bound
    expect(kept.at(-1)!.at).toBe(249);
    expect(kept.map((e) => e.at)).toEqual([...kept.map((e) => e.at)].sort((a, b) => a - b));
    await store.addTemplates('app', 'g', 's1', [template()]);
    await store.removeSubject('app', 'g', 's1');
    const after = await store.audit.read();
    expect(after.some((e) => e.subject === 's1')).toBe(false);
    expect(after.filter((e) => e.erased).length).toBe(kept.filter((e) => e.subject === 's1').length);
    expect(after.filter((e) => e.subject === 's2').length).toBe(kept.filter((e) => e.subject === 's2').length);
  });

  it('concurrent writes and removals serialise: nothing lost, segments consistent', async () => {
    const store = await openStore({ segmentRows: 5 });
    const first = await store.addTemplates('app', 'g', 's0', [template(), template(), template()]);
    const writes = Array.from({ length: 30 }, (_, i) => store.addTemplates('app', 'g', `s${i % 4}`, [template(), template()]));
    const removals = [store.removeSubject('app', 'g', 's0', first[0]!.faceId), store.removeSubject('app', 'g', 's0', first[2]!.faceId)];
    await Promise.all([...writes, ...removals]);
    const listed = (await Promise.all(['s0', 's1', 's2', 's3'].map((s) => store.listTemplates('app', 'g', s)))).flat();
    expect(listed).toHaveLength(61);
    expect(new Set(listed.map((t) => t.faceId)).size).toBe(61);
    await expectConsistent(store.name);
    const { blocks } = await store.galleryEmbeddings('app', 'g', 'm');
    expect(blocks.reduce((n, b) => n + ('faceIds' in b ? b.faceIds.length : rowCount(b)), 0)).toBe(61);
  });
});

// ---------------------------------------------------------------- persistence, partitioning, images, schema

describe('persistence and partitioning', () => {
  it('everything survives closing and reopening the database (a reload)', async () => {
    const store = await openStore({ segmentRows: 3 });
    const enrolled = await store.addTemplates('app', 'g', 's', [template(), template(), template(), template()]);
    const query = enrolled[2]!.embedding;
    store.close();
    expect(await failure(store.listGalleries('app'))).toMatchObject({ code: 3001 });

    const again = await openStore({ name: store.name });
    expect(await again.listGalleries('app')).toEqual(['g']);
    expect((await again.listTemplates('app', 'g', 's')).map((t) => t.faceId)).toEqual(enrolled.map((t) => t.faceId));
    const [best] = await indexOf(again).search({ appId: 'app', gallery: 'g', modelId: 'm' }, query, 1);
    expect(best).toMatchObject({ faceId: enrolled[2]!.faceId, subject: 's', enrollmentTimestamp: enrolled[2]!.enrollmentTimestamp });
    expect(best!.similarity).toBeCloseTo(1, 5);
  });

  it('a bulk import merges into existing subjects chunk by chunk; a removal is final after a reload (int8 index too)', async () => {
    const store = await openStore({ segmentRows: 4, chunkLimits: { rows: 10, bytes: 64e6 } });
    const first = await store.importTemplates('app', 'g', Array.from({ length: 20 }, (_, i) => ({ subject: `a${i}`, template: template() })));
    // 40 more over the same 20 subjects (and 20 new ones), in 4 transactions: each finds its existing subjects
    const more = await store.importTemplates('app', 'g', Array.from({ length: 40 }, (_, i) => ({ subject: i % 2 ? `a${i >> 1}` : `b${i >> 1}`, template: template() })));
    expect(await store.listTemplates('app', 'g', 'a3')).toHaveLength(2);
    expect((await store.listSubjects('app', 'g')).length).toBe(40);
    await expectConsistent(store.name);
    const gone = [first[3]!, more[1]!]; // a3's first template; a0's second
    await store.removeSubject('app', 'g', 'a3', gone[0]);
    await store.removeSubject('app', 'g', 'a0', gone[1]);
    store.close();

    const again = await openStore({ name: store.name });
    expect((await again.listTemplates('app', 'g', 'a3')).map((t) => t.faceId)).toEqual([more[7]!]);
    expect((await again.presentTemplates('app', 'g', [{ subject: 'a3', faceId: gone[0]! }, { subject: 'a0', faceId: gone[1]! }, { subject: 'a0', faceId: first[0]! }])).size).toBe(1);
    for (const precision of ['int8', 'float32'] as const) {
      const matrix = await new GallerySearchIndex(again, { precision, crossTab: false }).matrix({ appId: 'app', gallery: 'g', modelId: 'm' });
      expect(matrix.size).toBe(58);
      expect(gone.some((id) => matrix.has(id))).toBe(false);
    }
    await expectConsistent(store.name);
  });

  it('one app_id can never list, read, match against or delete another’s galleries', async () => {
    const store = await openStore();
    const index = indexOf(store);
    const [mine] = await store.addTemplates('app', 'g', 's', [template()]);
    await store.addTemplates('app', 'other', 's', [template()]);
    for (const stranger of ['app2', 'ap', '', 'APP']) {
      expect(await store.listGalleries(stranger)).toEqual([]);
      expect(await failure(store.listSubjects(stranger, 'g'))).toEqual(GALLERY_NOT_FOUND);
      expect(await failure(store.listTemplates(stranger, 'g', 's'))).toEqual(GALLERY_NOT_FOUND);
      expect(await failure(store.templatesForSubject(stranger, 'g', 's'))).toEqual(GALLERY_NOT_FOUND);
      expect(await failure(store.removeGallery(stranger, 'g'))).toEqual(GALLERY_NOT_FOUND);
      expect(await failure(store.removeSubject(stranger, 'g', 's', mine!.faceId))).toEqual(GALLERY_NOT_FOUND);
      expect(await failure(index.searchSubjects({ appId: stranger, gallery: 'g', modelId: 'm' }, mine!.embedding, 10))).toEqual(GALLERY_NOT_FOUND);
      expect(await store.imageOf(stranger, 'g', 's', mine!.faceId)).toBeUndefined();
    }
    // the same names under another account are another gallery
    const [theirs] = await store.addTemplates('app2', 'g', 's', [template()]);
    expect(await failure(store.removeSubject('app2', 'g', 's', mine!.faceId))).toEqual(FACE_NOT_FOUND);
    const matches = await index.searchSubjects({ appId: 'app2', gallery: 'g', modelId: 'm' }, mine!.embedding, 10);
    expect(matches.map((m) => m.faceId)).toEqual([theirs!.faceId]);
    await store.removeGallery('app2', 'g');
    expect(await store.listGalleries('app')).toEqual(['g', 'other']);
    expect((await store.listTemplates('app', 'g', 's')).map((t) => t.faceId)).toEqual([mine!.faceId]);
  });

  it('stores the photo once per request only when given (store_image: false stores none); it goes with its last template', async () => {
    const store = await openStore();
    const bytes = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 7, 7, 7]);
    const [a, b] = await store.addTemplates('app', 'g', 's', [template(), template()], new Blob([bytes], { type: 'image/jpeg' }));
    const [c] = await store.addTemplates('app', 'g', 's', [template()]); // store_image: false
    expect(a!.imageKey).toBeDefined();
    expect(b!.imageKey).toBe(a!.imageKey);
    expect(c!.imageKey).toBeUndefined();
    expect(await store.imageOf('app', 'g', 's', c!.faceId)).toBeUndefined();
    expect((await counts(store.name)).images).toBe(1);
    const blob = await store.imageOf('app', 'g', 's', a!.faceId);
    expect(blob?.type).toBe('image/jpeg');
    expect(new Uint8Array(await blob!.arrayBuffer())).toEqual(bytes);

    await store.removeSubject('app', 'g', 's', a!.faceId);
    expect((await counts(store.name)).images).toBe(1); // b still refers to it
    await store.removeSubject('app', 'g', 's', b!.faceId);
    expect((await counts(store.name)).images).toBe(0);

    await store.addTemplates('app', 'g', 's', [template()], new Blob([bytes]));
    await store.removeSubject('app', 'g', 's');
    expect(await counts(store.name)).toEqual({ templates: 0, subjects: 0, images: 0, segments: 0 });

    // a store that was only ever given store_image: false has no blob at all
    const bare = await openStore();
    await bare.addTemplates('app', 'g', 's', [template(), template()]);
    expect((await counts(bare.name)).images).toBe(0);
  });

  it('creates the current schema, and steps aside when a newer version of the app upgrades the database', async () => {
    const store = await openStore();
    const index = indexOf(store);
    await store.addTemplates('app', 'g', 's', [template()]);
    await index.search({ appId: 'app', gallery: 'g', modelId: 'm' }, embedding(), 1);

    const db = await raw(store.name);
    expect(db.version).toBe(DB_VERSION);
    expect([...db.objectStoreNames].sort()).toEqual(['audit', 'images', 'int8Segments', 'options', 'outbox', 'subjects']);
    const tx = db.transaction(['subjects', 'images', 'int8Segments']);
    expect(tx.objectStore('subjects').keyPath).toEqual(['appId', 'gallery', 'subject']);
    expect(tx.objectStore('int8Segments').keyPath).toEqual(['appId', 'gallery', 'modelId', 'seq']);
    db.close();

    // "another tab" with version 2 of the app: our open connection must not block it
    const newer = await openDB(store.name, DB_VERSION + 1, { upgrade: (upgraded) => upgraded.createObjectStore('v2-only') });
    expect([...newer.objectStoreNames]).toContain('v2-only');
    newer.close();
    expect(index.stats().invalidations).toBe(1); // the index dropped what it held
    expect(await failure(store.listGalleries('app'))).toEqual({
      code: 3001,
      message: 'the stored galleries were upgraded by a newer version of this app; reload the page',
    });
  });
});


describe('upgrades', () => {
  /** The store on an existing database (upgrading it), its segments checked against its templates. */
  async function openConsistent(name: string): Promise<GalleryStore> {
    const store = await GalleryStore.open({ name });
    opened.push(store);
    await expectConsistent(name);
    return store;
  }

  it('a version 2 database: its segments become int8 (version 3) and its templates move into their subjects, the float32 embeddings kept there only (version 4): nothing lost, searches alike', async () => {
    const name = dbName();
    const owner = { appId: 'app', gallery: 'g', modelId: 'm' };
    const rows = Array.from({ length: 7 }, (_, i) => ({ faceId: `face-${i}`, subject: `s${i % 3}`, modelId: 'm', enrollmentTimestamp: 1000 + i, embedding: embedding() }));
    // version 2's float32 segments of 3 rows
    const seqs = rows.map((_, i) => Math.floor(i / 3));
    const segments = [0, 1, 2].map((seq) => {
      const part = rows.slice(seq * 3, seq * 3 + 3);
      const vectors = new Float32Array(part.length * 8);
      part.forEach((r, i) => vectors.set(r.embedding, i * 8));
      return { ...owner, seq, dim: 8, faceIds: part.map((r) => r.faceId), subjects: part.map((r) => r.subject), timestamps: Float64Array.from(part, (r) => r.enrollmentTimestamp), vectors };
    });
    // version 2 exactly as shipped (schema.ts steps 1 and 2), written by hand
    const v2 = await openDB(name, 2, {
      upgrade(db) {
        db.createObjectStore('templates', { keyPath: ['appId', 'gallery', 'subject', 'faceId'] }).createIndex('byImage', 'imageKey');
        db.createObjectStore('subjects', { keyPath: ['appId', 'gallery', 'subject'] });
        db.createObjectStore('images', { keyPath: ['appId', 'gallery', 'subject', 'imageKey'] });
        db.createObjectStore('segments', { keyPath: ['appId', 'gallery', 'modelId', 'seq'] });
        db.createObjectStore('outbox', { autoIncrement: true }).createIndex('byTemplate', 'template');
        db.createObjectStore('options', { keyPath: ['appId', 'gallery'] });
        db.createObjectStore('audit', { autoIncrement: true }).createIndex('bySubject', ['appId', 'gallery', 'subject']);
      },
    });
    const tx = v2.transaction(['templates', 'subjects', 'segments'], 'readwrite');
    const written: TemplateRecord[] = rows.map(({ embedding: vector, enrollmentTimestamp, faceId, subject }, i) => ({
      ...template('m', 8, vector),
      appId: owner.appId,
      gallery: owner.gallery,
      faceId,
      subject,
      enrollmentTimestamp: String(enrollmentTimestamp),
      segment: seqs[i]!,
    }));
    for (const record of written) {
      void tx.objectStore('templates').put(record);
      void tx.objectStore('subjects').put({ ...owner, subject: record.subject, ...(record.subject === 's2' ? { lastSeen: 5 } : {}) });
    }
    for (const segment of segments) void tx.objectStore('segments').put(segment);
    await tx.done;
    v2.close();

    const store = await openConsistent(name);
    const db = await raw(name);
    expect([...db.objectStoreNames]).not.toContain('templates');
    expect([...db.objectStoreNames]).not.toContain('segments');
    expect(await db.getAll('int8Segments')).toEqual(segments.map(int8Segment));
    const key = (t: TemplateRecord) => `${t.subject}/${t.faceId}`;
    expect((await storedTemplates(db)).sort((a, b) => key(a).localeCompare(key(b)))).toEqual(written.sort((a, b) => key(a).localeCompare(key(b))));
    expect((await db.get('subjects', ['app', 'g', 's2']))?.lastSeen).toBe(5);
    db.close();
    expect(await store.listTemplates('app', 'g', 's1')).toEqual([{ faceId: 'face-1', enrollmentTimestamp: '1001' }, { faceId: 'face-4', enrollmentTimestamp: '1004' }]);
    const compact = new GallerySearchIndex(store, { precision: 'int8' });
    const exact = new GallerySearchIndex(store, { precision: 'float32' });
    opened.push(compact, exact);
    const query = embedding();
    expect((await compact.matrix(owner)).compact).toBe(true);
    expect(await compact.searchSubjects(owner, query, 3)).toEqual(await exact.searchSubjects(owner, query, 3));
  });

  it('a version 4 database: its int8 segments get ids as bytes and subjects as indices (version 5); nothing lost, searches alike, a removal stays removed after reopening', async () => {
    const name = dbName();
    const owner = { appId: 'app', gallery: 'g', modelId: 'm' };
    // engine ids (UUIDs) and a gallery file's own ids, in segments of 3 rows
    const rows = Array.from({ length: 7 }, (_, i) => ({ faceId: i % 4 === 3 ? `file-face-${i}` : crypto.randomUUID(), subject: `s${i % 3}`, modelId: 'm', enrollmentTimestamp: 1000 + i, embedding: embedding() }));
    const { segments, seqs } = appendRows(undefined, owner, rows, 3);
    // version 4's form of the same segments: a string per row
    const legacy = segments.map(({ ids: _ids, otherIds: _others, subjectNames: _names, subjectOf: _of, ...rest }, i) => ({ ...rest, faceIds: segmentFaceIds(segments[i]!), subjects: segmentSubjects(segments[i]!) }));
    const written: TemplateRecord[] = rows.map(({ embedding: vector, enrollmentTimestamp, faceId, subject }, i) => ({
      ...template('m', 8, vector),
      ...owner,
      faceId,
      subject,
      enrollmentTimestamp: String(enrollmentTimestamp),
      segment: seqs[i]!,
    }));
    // version 4 exactly as shipped (schema.ts steps 1–4 on a new database), written by hand
    const v4 = await openDB(name, 4, {
      upgrade(db) {
        db.createObjectStore('subjects', { keyPath: ['appId', 'gallery', 'subject'] });
        db.createObjectStore('images', { keyPath: ['appId', 'gallery', 'subject', 'imageKey'] });
        db.createObjectStore('outbox', { autoIncrement: true }).createIndex('byTemplate', 'template');
        db.createObjectStore('options', { keyPath: ['appId', 'gallery'] });
        db.createObjectStore('audit', { autoIncrement: true }).createIndex('bySubject', ['appId', 'gallery', 'subject']);
        db.createObjectStore('int8Segments', { keyPath: ['appId', 'gallery', 'modelId', 'seq'] });
      },
    });
    const tx = v4.transaction(['subjects', 'int8Segments'], 'readwrite');
    for (const subject of ['s0', 's1', 's2']) {
      const templates = written.filter((t) => t.subject === subject).map(({ appId: _a, gallery: _g, subject: _s, ...t }) => t);
      void tx.objectStore('subjects').put({ ...owner, subject, templates: templates.sort((a, b) => (a.faceId < b.faceId ? -1 : 1)), ...(subject === 's2' ? { lastSeen: 5 } : {}) });
    }
    for (const segment of legacy) void tx.objectStore('int8Segments').put(segment);
    await tx.done;
    v4.close();

    const store = await openConsistent(name);
    const db = await raw(name);
    expect(db.version).toBe(DB_VERSION);
    expect(await db.getAll('int8Segments')).toEqual(segments);
    expect((await db.get('subjects', ['app', 'g', 's2']))?.lastSeen).toBe(5);
    db.close();
    const compact = new GallerySearchIndex(store, { precision: 'int8' });
    const exact = new GallerySearchIndex(store, { precision: 'float32' });
    opened.push(compact, exact);
    const query = embedding();
    expect(await compact.searchSubjects(owner, query, 3)).toEqual(await exact.searchSubjects(owner, query, 3));
    expect(await compact.search(owner, rows[3]!.embedding, 1)).toMatchObject([{ faceId: 'file-face-3', subject: 's0' }]);

    await store.removeSubject('app', 'g', 's0', 'file-face-3');
    await store.removeSubject('app', 'g', 's1');
    store.close();
    const again = await openConsistent(name);
    const reopened = new GallerySearchIndex(again, { precision: 'int8' });
    opened.push(reopened);
    const left = rows.filter((r) => r.faceId !== 'file-face-3' && r.subject !== 's1');
    for (const r of rows) {
      const [best] = await reopened.search(owner, r.embedding, 1);
      if (left.includes(r)) expect(best?.faceId).toBe(r.faceId);
      else expect(best?.faceId).not.toBe(r.faceId);
    }
    expect((await reopened.matrix(owner)).size).toBe(left.length);
  });
});

// ---------------------------------------------------------------- search index

describe('search index', () => {
  const target = { appId: 'app', gallery: 'g', modelId: 'm' };

  it('finds what brute force over the stored templates finds, per template and per subject, one model at a time', async () => {
    const store = await openStore({ segmentRows: 16 });
    const index = indexOf(store);
    const dim = 32;
    for (let s = 0; s < 40; s++) {
      await store.addTemplates('app', 'g', `subject-${s}`, Array.from({ length: 1 + (s % 7) }, () => template('m', dim)));
    }
    await store.addTemplates('app', 'g', 'subject-0', [template('other-model', 12)]);
    // removals leave part-full segments behind
    for (const s of [3, 9, 27]) {
      const [first] = await store.listTemplates('app', 'g', `subject-${s}`);
      await store.removeSubject('app', 'g', `subject-${s}`, first!.faceId);
    }
    await store.removeSubject('app', 'g', 'subject-11');
    await expectConsistent(store.name);

    const stored: StoredTemplate[] = [];
    for (const subject of await store.listSubjects('app', 'g')) stored.push(...(await store.templatesForSubject('app', 'g', subject, 'm')));
    for (let q = 0; q < 10; q++) {
      const query = q < 3 ? stored[q * 17]!.embedding : embedding(dim);
      const expected = stored.map((t) => ({ faceId: t.faceId, subject: t.subject, similarity: cosine(t.embedding, query) })).sort((a, b) => b.similarity - a.similarity);
      const top = await index.search(target, query, 15);
      expect(top.map((m) => m.faceId)).toEqual(expected.slice(0, 15).map((e) => e.faceId));
      top.forEach((m, i) => expect(m.similarity).toBeCloseTo(expected[i]!.similarity, 5));
      const seen = new Set<string>();
      const perSubject = expected.filter((e) => !seen.has(e.subject) && seen.add(e.subject));
      const subjects = await index.searchSubjects(target, query, 10, 0.1);
      expect(subjects.map((m) => [m.subject, m.faceId])).toEqual(perSubject.filter((e) => e.similarity >= 0.1).slice(0, 10).map((e) => [e.subject, e.faceId]));
    }
    const other = await index.search({ ...target, modelId: 'other-model' }, embedding(12), 5);
    expect(other.map((m) => m.subject)).toEqual(['subject-0']);
    expect(index.stats().builds).toBe(2);
  });

  it('follows this store’s writes without reading storage again; a removed gallery is 5004', async () => {
    const store = await openStore();
    const index = indexOf(store);
    expect(await failure(index.search(target, embedding(), 3))).toEqual(GALLERY_NOT_FOUND);
    const [a] = await store.addTemplates('app', 'g', 'alice', [template()]);
    expect((await index.search(target, a!.embedding, 3)).map((m) => m.faceId)).toEqual([a!.faceId]);
    const builds = index.stats().builds;

    const [b] = await store.addTemplates('app', 'g', 'bob', [template()]);
    expect((await index.searchSubjects(target, b!.embedding, 1))[0]).toMatchObject({ subject: 'bob', faceId: b!.faceId });
    await store.removeSubject('app', 'g', 'bob');
    expect((await index.search(target, b!.embedding, 5)).map((m) => m.subject)).toEqual(['alice']);
    expect(index.stats()).toMatchObject({ builds, rowsAdded: 2, rowsRemoved: 1, matrices: 1, rows: 1 });

    await store.removeGallery('app', 'g');
    expect(await failure(index.search(target, a!.embedding, 3))).toEqual(GALLERY_NOT_FOUND);
    // removing the last subject removes the gallery for search too
    const [c] = await store.addTemplates('app', 'g', 'carol', [template()]);
    expect((await index.search(target, c!.embedding, 3)).map((m) => m.subject)).toEqual(['carol']);
    await store.removeSubject('app', 'g', 'carol', c!.faceId);
    expect(await failure(index.search(target, c!.embedding, 3))).toEqual(GALLERY_NOT_FOUND);
  });

  it('writes racing a build (during its read, or committed before it) end up in the matrix exactly once', async () => {
    const store = await openStore();
    const other = await openStore({ name: store.name }); // another writer on the same database
    const index = indexOf(store);
    const [keep, drop] = await store.addTemplates('app', 'g', 'alice', [template(), template()]);

    // (1) writes land while the build's read is in flight: queued, then replayed onto the snapshot
    const read = store.galleryEmbeddings.bind(store);
    const listener = new BroadcastChannel(store.channelName); // created after the index's: hears notices after it
    opened.push(listener);
    /** resolves once `other`'s next notice has been delivered (to the index first: it listened first) */
    const heard = () =>
      new Promise<void>((resolve) => {
        const onMessage = ({ data }: MessageEvent) => {
          if (data?.source !== other.id) return;
          listener.removeEventListener('message', onMessage);
          resolve();
        };
        listener.addEventListener('message', onMessage);
      });
    let late: StoredTemplate[] = [];
    store.galleryEmbeddings = async (...args) => {
      const blocks = await read(...args);
      late = await store.addTemplates('app', 'g', 'bob', [template()]); // local notice
      const delivered = heard();
      await other.removeSubject('app', 'g', 'alice', drop!.faceId); // broadcast notice
      await delivered;
      return blocks;
    };
    const matrix = await index.matrix(target);
    expect(matrix.size).toBe(2);
    expect(matrix.has(keep!.faceId) && matrix.has(late[0]!.faceId) && !matrix.has(drop!.faceId)).toBe(true);
    expect(index.stats()).toMatchObject({ builds: 1, rowsAdded: 1, rowsRemoved: 1 }); // both came from the replay

    // (2) the write commits before the read but its notice arrives during the build: no duplicate
    index.drop();
    let early: StoredTemplate[] = [];
    store.galleryEmbeddings = async (...args) => {
      const delivered = heard();
      early = await other.addTemplates('app', 'g', 'carol', [template()]);
      const blocks = await read(...args); // already contains carol
      await delivered; // and now her notice reaches the index, mid-build
      return blocks;
    };
    const again = await index.matrix(target);
    expect(again.size).toBe(3);
    expect(again.has(early[0]!.faceId)).toBe(true);
    expect(index.stats()).toMatchObject({ builds: 2, rowsAdded: 1 }); // the replayed notice changed nothing

    // (3) a change that can't be replayed (bulk import → rebuild) during the read: read again
    index.drop();
    let reads = 0;
    store.galleryEmbeddings = async (...args) => {
      const blocks = await read(...args);
      if (reads++ === 0) {
        const delivered = heard();
        await other.importTemplates('app', 'g', Array.from({ length: MAX_ROWS_PER_NOTICE + 1 }, (_, i) => ({ subject: `bulk-${i % 50}`, template: template() })));
        await delivered;
      }
      return blocks;
    };
    const third = await index.matrix(target);
    expect(reads).toBe(2);
    expect(third.size).toBe(3 + MAX_ROWS_PER_NOTICE + 1);
  });
});

// ---------------------------------------------------------------- two tabs

/** Another "tab": a module worker with its own GalleryStore and GallerySearchIndex on the same database. */
async function startTab() {
  const moduleUrl = new URL('/src/store/index.ts', location.href).href;
  const source = `
    const { GalleryStore, GallerySearchIndex } = await import(${JSON.stringify(moduleUrl)});
    let store, index;
    self.onmessage = async ({ data: { id, op, args } }) => {
      try {
        let result;
        if (op === 'open') { store = await GalleryStore.open(args[0]); index = new GallerySearchIndex(store); }
        else if (op === 'store') result = await store[args[0]](...args.slice(1));
        else if (op === 'index') result = await index[args[0]](...args.slice(1));
        self.postMessage({ id, ok: true, result });
      } catch (e) {
        self.postMessage({ id, ok: false, failure: e.failure, message: String(e && e.message) });
      }
    };
    self.postMessage('ready');`;
  const worker = new Worker(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })), { type: 'module' });
  opened.push({ close: () => worker.terminate() });
  await new Promise((resolve, reject) => {
    worker.addEventListener('message', resolve, { once: true });
    worker.addEventListener('error', reject, { once: true });
  });
  let next = 0;
  const call = <T,>(op: string, ...args: unknown[]): Promise<T> => {
    const id = next++;
    return new Promise<T>((resolve, reject) => {
      const onMessage = ({ data }: MessageEvent) => {
        if (data.id !== id) return;
        worker.removeEventListener('message', onMessage);
        if (data.ok) resolve(data.result as T);
        else reject(data.failure ? Object.assign(new EngineError('UNAVAILABLE'), { failure: data.failure }) : new Error(data.message));
      };
      worker.addEventListener('message', onMessage);
      worker.postMessage({ id, op, args });
    });
  };
  return {
    open: (name: string) => call<void>('open', { name }),
    store: <T,>(method: string, ...args: unknown[]) => call<T>('store', method, ...args),
    index: <T,>(method: string, ...args: unknown[]) => call<T>('index', method, ...args),
  };
}

describe('two tabs', () => {
  const target = { appId: 'app', gallery: 'g', modelId: 'm' };

  it('a write in one tab updates (or invalidates) the other tab’s index through the BroadcastChannel', async () => {
    const store = await openStore();
    const index = indexOf(store);
    const tab = await startTab();
    await tab.open(store.name);

    const [a] = await store.addTemplates('app', 'g', 'alice', [template()]);
    // both indexes hold the gallery now
    expect((await index.search(target, a!.embedding, 5)).map((m) => m.subject)).toEqual(['alice']);
    expect((await tab.index<{ subject: string }[]>('search', target, a!.embedding, 5)).map((m) => m.subject)).toEqual(['alice']);

    // the other tab enrolls: our index adds the row from the notice, without reading storage
    const [b] = await tab.store<StoredTemplate[]>('addTemplates', 'app', 'g', 'bob', [template()]);
    await eventually(() => index.search(target, b!.embedding, 1), (m) => m[0]?.faceId === b!.faceId);
    expect(index.stats()).toMatchObject({ builds: 1, rowsAdded: 1 });

    // we enroll: theirs follows
    const [c] = await store.addTemplates('app', 'g', 'carol', [template()]);
    await eventually(() => tab.index<{ faceId: string }[]>('search', target, c!.embedding, 1), (m) => m[0]?.faceId === c!.faceId);
    expect(await tab.index('stats')).toMatchObject({ builds: 1, rowsAdded: 2 }); // bob (its own write) and carol

    // they remove a template and a subject
    await tab.store('removeSubject', 'app', 'g', 'alice', a!.faceId);
    await tab.store('removeSubject', 'app', 'g', 'bob');
    await eventually(() => index.searchSubjects(target, c!.embedding, 10), (m) => m.length === 1);
    expect((await index.searchSubjects(target, c!.embedding, 10)).map((m) => m.subject)).toEqual(['carol']);
    expect(index.stats()).toMatchObject({ builds: 1, rowsRemoved: 2 });

    // a bulk import is too big to describe: the other index reads storage again
    await tab.store('importTemplates', 'app', 'g', Array.from({ length: MAX_ROWS_PER_NOTICE + 5 }, (_, i) => ({ subject: `bulk-${i % 10}`, template: template() })));
    await eventually(() => index.stats().invalidations, (n) => n === 1);
    expect((await index.matrix(target)).size).toBe(1 + MAX_ROWS_PER_NOTICE + 5);
    expect(index.stats().builds).toBe(2);

    // they remove the gallery: here it is gone too
    await tab.store('removeGallery', 'app', 'g');
    await eventually(() => index.stats().invalidations, (n) => n === 2);
    expect(await failure(index.search(target, c!.embedding, 1))).toEqual(GALLERY_NOT_FOUND);
    // and their errors cross the worker boundary as engine failures
    await expect(tab.store('listSubjects', 'app', 'g')).rejects.toMatchObject({ failure: GALLERY_NOT_FOUND });
  });
});
