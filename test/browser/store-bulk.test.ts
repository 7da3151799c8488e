// Bulk writes of the recognition store in real Chromium and real IndexedDB: an import bigger
// than one transaction (GalleryStore's chunkLimits, made small here) lands whole and
// searchable, into a new and an existing gallery; a later chunk that fails takes the earlier
// ones back. (A real quota hit part-way: test/e2e/store-quota.e2e.test.ts.)
import { deleteDB } from 'idb';
import { afterEach, describe, expect, it } from 'vitest';
import { GallerySearchIndex, GalleryStore, type ImportItem } from '../../src/store/index.ts';
import { seededRandom } from '../unit/helpers/seeded-random.ts';

const opened: { close(): void }[] = [];
const databases: string[] = [];

afterEach(async () => {
  for (const thing of opened.splice(0)) thing.close();
  for (const name of databases.splice(0)) await deleteDB(name);
});

async function openStore(rows: number): Promise<GalleryStore> {
  const name = `store-bulk-${crypto.randomUUID()}`;
  databases.push(name);
  const store = await GalleryStore.open({ name, chunkLimits: { rows, bytes: 64e6 }, segmentRows: 16 });
  opened.push(store);
  return store;
}

const random = seededRandom(7);
const embedding = (dim = 8) => Float32Array.from({ length: dim }, () => random() - 0.5);

function items(count: number, prefix: string, image?: Blob): ImportItem[] {
  return Array.from({ length: count }, (_, i) => ({
    subject: `${prefix}-${Math.floor(i / 3)}`,
    template: { modelId: 'm', embedding: embedding(), box: { topLeftX: 0, topLeftY: 0, width: 10, height: 10 }, attributes: {}, quality: 0.5 },
    ...(image && i % 3 === 0 ? { image } : {}),
  }));
}

/** Everything the gallery holds, as listings and the search index see it. */
async function contents(store: GalleryStore, gallery: string): Promise<{ subjects: string[]; faceIds: string[]; rows: number }> {
  if (!(await store.galleryExists('app', gallery))) return { subjects: [], faceIds: [], rows: 0 };
  const read = await store.readGallery('app', gallery, { images: true });
  const index = new GallerySearchIndex(store, { crossTab: false });
  try {
    const rows = (await index.matrix({ appId: 'app', gallery, modelId: 'm' })).size;
    return { subjects: await store.listSubjects('app', gallery), faceIds: read.templates.map((t) => t.faceId).sort(), rows };
  } finally {
    index.close();
  }
}

describe('a bulk import in several transactions', () => {
  it('lands whole: every template listed, in the segments, searchable, into a new and an existing gallery', async () => {
    const store = await openStore(40);
    const first = await store.importTemplates('app', 'big', items(150, 'a')); // 4 transactions
    const second = await store.importTemplates('app', 'big', items(95, 'b')); // 3 more, appending to the segments
    const got = await contents(store, 'big');
    expect(got.faceIds).toEqual([...first, ...second].sort());
    expect(got.rows).toBe(245);
    expect(got.subjects).toHaveLength(50 + 32);
    // every row searchable: each template is its own best match
    const index = new GallerySearchIndex(store, { crossTab: false });
    opened.push(index);
    const read = await store.readGallery('app', 'big');
    for (const t of read.templates.slice(0, 245).filter((_, i) => i % 20 === 0)) {
      const [best] = await index.search({ appId: 'app', gallery: 'big', modelId: 'm' }, t.embedding, 1);
      expect(best?.faceId).toBe(t.faceId);
    }
  });
});

describe('a bulk import whose later chunk fails', () => {
  it('takes the committed chunks back: a new gallery is not created, an existing one is as before', async () => {
    const store = await openStore(40);
    const photo = new Blob([new Uint8Array([1, 2, 3])], { type: 'image/jpeg' });
    await store.importTemplates('app', 'kept', items(50, 'old', photo));
    const kept = await contents(store, 'kept');
    for (const gallery of ['fresh', 'kept']) {
      // the fourth transaction's rows have another dimension than the gallery's: 5005 inside it
      const bad = items(150, 'new', photo).map((item, i) => (i >= 120 ? { ...item, template: { ...item.template, embedding: embedding(4) } } : item));
      const failure = await store.importTemplates('app', gallery, bad).catch((e: unknown) => e);
      expect(failure).toMatchObject({ failure: { code: 5005 } });
    }
    expect(await contents(store, 'fresh')).toEqual({ subjects: [], faceIds: [], rows: 0 });
    expect(await contents(store, 'kept')).toEqual(kept);
    expect((await store.readGallery('app', 'kept', { images: true })).images).toHaveLength(17);
  });
});

describe('the int8 search index', () => {
  it('answers as the float32 one does, score for score, its candidates re-scored from IndexedDB, also after removals', async () => {
    const store = await openStore(500);
    await store.importTemplates('app', 'g', items(900, 's'));
    const target = { appId: 'app', gallery: 'g', modelId: 'm' };
    const int8 = new GallerySearchIndex(store, { crossTab: false, precision: 'int8' });
    const float32 = new GallerySearchIndex(store, { crossTab: false, precision: 'float32' });
    opened.push(int8, float32);
    expect((await int8.matrix(target)).compact).toBe(true);
    const queries = Array.from({ length: 20 }, () => embedding());
    const answers = async () => {
      for (const q of queries) {
        expect(await int8.searchSubjects(target, q, 5)).toEqual(await float32.searchSubjects(target, q, 5));
        expect(await int8.search(target, q, 7, 0.2)).toEqual(await float32.search(target, q, 7, 0.2));
      }
    };
    await answers();
    for (let i = 0; i < 100; i += 3) await store.removeSubject('app', 'g', `s-${i}`);
    await answers();
  });
});
