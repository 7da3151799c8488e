// Runs in test/e2e/pages/store-quota.html, driven by store-quota.e2e.test.ts: bulk imports of
// the gallery store (in transactions of 50 templates) into an origin whose quota Chromium was
// told to keep small before the page first touched storage.
import { openDB } from 'idb';
import { EngineError } from '../../../src/errors.ts';
import { GallerySearchIndex, GalleryStore, type GalleryDB, type ImportItem } from '../../../src/store/index.ts';
import { prefixRange } from '../../../src/store/key-range.ts';
import { segmentFaceIds } from '../../../src/store/segments.ts';
import { expose } from '../../../tools/harness/page.ts';

/** random bytes: IndexedDB compresses values, and zeros would take no room */
function randomBytes(n: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(n);
  for (let i = 0; i < n; i += 65536) crypto.getRandomValues(bytes.subarray(i, i + 65536));
  return bytes;
}
const PHOTO = new Blob([randomBytes(400_000)], { type: 'image/jpeg' });
let store: GalleryStore | undefined;

/** `count` templates, three per subject, the first of each with a 400 kB photo. */
function items(count: number, prefix: string): ImportItem[] {
  return Array.from({ length: count }, (_, i) => ({
    subject: `${prefix}-${Math.floor(i / 3)}`,
    template: { modelId: 'm', embedding: Float32Array.from({ length: 8 }, () => Math.random() - 0.5), box: { topLeftX: 0, topLeftY: 0, width: 1, height: 1 }, attributes: {}, quality: 0.5 },
    ...(i % 3 === 0 ? { image: PHOTO } : {}),
  }));
}

/**
 * Every record of the gallery's key range, read raw from another connection: what no listing
 * shows (a photo or segment row without a subject record) counts too. (No sync: no outbox.)
 */
async function stored(gallery: string): Promise<{ subjects: number; images: number; segmentIds: string[] }> {
  const db = await openDB<GalleryDB>('store-quota');
  try {
    const range = prefixRange('app', gallery);
    const segments = await db.getAll('int8Segments', range);
    return { subjects: await db.count('subjects', range), images: await db.count('images', range), segmentIds: segments.flatMap(segmentFaceIds).sort() };
  } finally {
    db.close();
  }
}

/** What a gallery holds, as listings, export, the search index and the raw records see it. */
async function contents(gallery: string): Promise<string> {
  const s = store!;
  const raw = await stored(gallery);
  if (!(await s.galleryExists('app', gallery))) return raw.images + raw.segmentIds.length === 0 ? 'absent' : `absent, but ${JSON.stringify(raw)}`;
  const read = await s.readGallery('app', gallery, { images: true });
  const index = new GallerySearchIndex(s, { crossTab: false });
  const rows = (await index.matrix({ appId: 'app', gallery, modelId: 'm' })).size;
  index.close();
  return JSON.stringify({ subjects: await s.listSubjects('app', gallery), faceIds: read.templates.map((t) => t.faceId).sort(), photos: read.images.length, rows, raw });
}

async function importing(gallery: string, count: number, prefix: string): Promise<{ ok: true; templates: number } | { ok: false; code: number; message: string }> {
  try {
    return { ok: true, templates: (await store!.importTemplates('app', gallery, items(count, prefix))).length };
  } catch (error) {
    if (error instanceof EngineError) return { ok: false, code: error.failure.code, message: error.message };
    throw error;
  }
}

async function open(): Promise<void> {
  store = await GalleryStore.open({ name: 'store-quota', chunkLimits: { rows: 50, bytes: 64e6 }, segmentRows: 16 });
}

const usage = async () => (await navigator.storage.estimate()).usage ?? 0;

expose({ open, importing, contents, usage });
