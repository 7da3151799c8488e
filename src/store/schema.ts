// What the recognition store keeps in IndexedDB, as zod schemas (the types are inferred from
// them) plus idb's typed DBSchema and the versioned upgrade path.
//
// Every key starts with the account's app_id, then the gallery: one account's data is a key
// range of its own, so partitioning is structural (no query can reach past its prefix) and
// removing a gallery or a subject is one range delete, not a cursor walk.
import type { DBSchema, IDBPDatabase, IDBPTransaction, StoreNames } from 'idb';
import { z } from 'zod';
import { int8Segment, packedSegment } from './segments.ts';

/** Bump when stores, indexes or record layouts change, and add a step to upgrade() below. */
export const DB_VERSION = 5;

/** IndexedDB database name when the engine's "storage name" option is not given. */
export const DEFAULT_STORAGE_NAME = 'kairos-in-browser';

// typed arrays over any buffer: embeddings may come from wasm memory (copied before storing)
const float32Array = () => z.custom<Float32Array>((v) => v instanceof Float32Array, 'expected a Float32Array');
const int8Array = () => z.custom<Int8Array>((v) => v instanceof Int8Array, 'expected an Int8Array');
const float64Array = () => z.custom<Float64Array>((v) => v instanceof Float64Array, 'expected a Float64Array');
const uint8Array = () => z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'expected a Uint8Array');
const uint32Array = () => z.custom<Uint32Array>((v) => v instanceof Uint32Array, 'expected a Uint32Array');

export const AppIdSchema = z.string();
export const GalleryNameSchema = z.string().min(1, 'gallery_name must not be empty');
export const SubjectIdSchema = z.string().min(1, 'subject_id must not be empty');

/** The face's box in the enrolled photo, as the enroll transaction reports it. */
export const BoxSchema = z.object({
  topLeftX: z.number(),
  topLeftY: z.number(),
  width: z.number(),
  height: z.number(),
});
export type Box = z.infer<typeof BoxSchema>;

/** Opaque to the store: whatever the enroll response carried (age, gender, ...), as JSON. */
export const AttributesSchema = z.record(z.string(), z.json());

export const EmbeddingSchema = float32Array().refine((e) => e.length > 0 && e.every(Number.isFinite), 'an embedding must be non-empty and finite');

/** What the enroll service hands over per face; the store adds ids and the timestamp. */
export const NewTemplateSchema = z.object({
  /** embedding model that produced `embedding`: only same-model templates are ever compared */
  modelId: z.string().min(1),
  embedding: EmbeddingSchema,
  box: BoxSchema,
  attributes: AttributesSchema,
  quality: z.number(),
});
export type NewTemplate = z.infer<typeof NewTemplateSchema>;

/** An enrolled face template as the store returns it. */
export const StoredTemplateSchema = NewTemplateSchema.extend({
  appId: AppIdSchema,
  gallery: GalleryNameSchema,
  subject: SubjectIdSchema,
  /** the interface's string `face_id`: time-ordered, unique (see face-id.ts) */
  faceId: z.string(),
  /** epoch milliseconds as a digit string, as the interface returns it */
  enrollmentTimestamp: z.string().regex(/^\d+$/),
  /** key of the request's photo in `images`; absent when the request had `store_image: false` */
  imageKey: z.string().optional(),
});
export type StoredTemplate = z.infer<typeof StoredTemplateSchema>;

/** `templates` value: the stored template plus where its row lives in `segments`. */
export const TemplateRecordSchema = StoredTemplateSchema.extend({ segment: z.number().int().nonnegative() });
export type TemplateRecord = z.infer<typeof TemplateRecordSchema>;

/** A subject's key fields: a subject exists exactly while it has templates, a gallery while it has subjects. */
export const SubjectRecordSchema = z.object({ appId: AppIdSchema, gallery: GalleryNameSchema, subject: SubjectIdSchema });

/** A template inside its subject's record (version 4): the template record without the keys its subject holds. */
export type SubjectTemplate = Omit<TemplateRecord, 'appId' | 'gallery' | 'subject'>;

/**
 * `subjects` value (version 4): the subject and ALL its templates, in face id order (the
 * source of truth). One record per subject, not per template: Chromium's IndexedDB costs a
 * fixed ~0.1–0.3 ms per record written whatever its size (docs/benchmarks.md), so a million
 * templates of 200k subjects are 200k records. `lastSeen` (epoch ms) is kept only in
 * galleries whose retention counts from it.
 */
export type SubjectRecord = z.infer<typeof SubjectRecordSchema> & { lastSeen?: number; templates: SubjectTemplate[] };

/** A subject's template in the stored form the API hands out. */
export function storedTemplate(subject: z.infer<typeof SubjectRecordSchema>, { segment: _segment, ...template }: SubjectTemplate): StoredTemplate {
  return { appId: subject.appId, gallery: subject.gallery, subject: subject.subject, ...template };
}

/** A template record as its subject's record holds it. */
export function subjectTemplate({ appId: _appId, gallery: _gallery, subject: _subject, ...template }: TemplateRecord): SubjectTemplate {
  return template;
}

/** An enrolled photo as the store hands it out (readGallery). */
export const ImageRecordSchema = SubjectRecordSchema.extend({ imageKey: z.string(), blob: z.instanceof(Blob) });
export type ImageRecord = z.infer<typeof ImageRecordSchema>;

/**
 * `images` value: the enrolled photo, kept apart so listing and search never load it. Stored
 * as bytes + MIME type, which every engine's IndexedDB accepts (WebKit refuses Blobs:
 * "Error preparing Blob/File data to be stored in object store").
 */
export const StoredImageRecordSchema = SubjectRecordSchema.extend({
  imageKey: z.string(),
  bytes: z.instanceof(ArrayBuffer),
  type: z.string(),
});
/** What versions before the bytes form stored (same DB_VERSION): read as it is, never rewritten. */
export const LegacyImageRecordSchema = ImageRecordSchema;
export type StoredImageRecord = z.infer<typeof StoredImageRecordSchema> | z.infer<typeof LegacyImageRecordSchema>;

/** The photo of an `images` record in either stored form. */
export function imageBlobOf(record: StoredImageRecord): Blob {
  return 'bytes' in record ? new Blob([record.bytes], { type: record.type }) : record.blob;
}

/** The handed-out form of a stored record. */
export function imageRecordOf(record: StoredImageRecord): ImageRecord {
  return { appId: record.appId, gallery: record.gallery, subject: record.subject, imageKey: record.imageKey, blob: imageBlobOf(record) };
}

/**
 * `segments` value: up to N templates of one (account, gallery, model) packed column-wise:
 * exactly what the search index needs and nothing else. Reading 100k templates one record
 * at a time takes seconds; reading ~200 packed segments takes a fraction of that. Derived
 * from `templates` and always written in the same transaction.
 */
export const SegmentRecordSchema = z.object({
  appId: AppIdSchema,
  gallery: GalleryNameSchema,
  modelId: z.string().min(1),
  seq: z.number().int().nonnegative(),
  dim: z.number().int().positive(),
  faceIds: z.array(z.string()),
  subjects: z.array(z.string()),
  /** enrollment timestamps, epoch ms */
  timestamps: float64Array(),
  /** faceIds.length × dim, row-major, as enrolled (not normalised) */
  vectors: float32Array(),
});
export type SegmentRecord = z.infer<typeof SegmentRecordSchema>;

/**
 * `int8Segments` value of versions 3–4: a `segments` record's rows normalised and quantised to
 * int8 as the search index holds them (int8-rows.ts), under the same key, written in the same
 * transaction. Reopening an int8 index reads these: a quarter of the float32 bytes, and no
 * quantising (1M × 128-d: ~150 MB instead of ~600 MB).
 */
export const LegacyInt8SegmentRecordSchema = SegmentRecordSchema.omit({ vectors: true }).extend({
  /** faceIds.length × int8Stride(dim) */
  rows: int8Array(),
  /** per row: its int8 values × scale = the normalised row */
  scales: float32Array(),
  /** the largest quantisation error ‖r − q·s‖ of the rows */
  error: z.number().nonnegative(),
});
export type LegacyInt8SegmentRecord = z.infer<typeof LegacyInt8SegmentRecordSchema>;

/**
 * `int8Segments` value (version 5): as versions 3–4, but no string per row — a reopen of 1M
 * templates built a million id strings and a million subject strings out of them (most of its
 * build time). Face ids in the engine's form (lowercase UUIDs) are 16 bytes each in `ids`;
 * subjects are indices into the segment's own list of names.
 */
export const Int8SegmentRecordSchema = LegacyInt8SegmentRecordSchema.omit({ faceIds: true, subjects: true }).extend({
  /** n × 16: row i's face id as UUID bytes (face-id.ts); zeros for a row listed in otherIds */
  ids: uint8Array(),
  /** [row, face id] of the rows whose id is not a lowercase UUID (a gallery file may keep its own) */
  otherIds: z.array(z.tuple([z.number().int().nonnegative(), z.string()])),
  /** the segment's subjects, each once */
  subjectNames: z.array(z.string()),
  /** per row: its subject's index in subjectNames */
  subjectOf: uint32Array(),
  /**
   * per row: its ‖r − q·s‖ rounded up, in steps of s·√dim/500 (int8-rows.ts errorCode), so the
   * search's margin is each row's own error. Absent in segments written before it was kept:
   * then `error` bounds each of their rows (no migration needed).
   */
  errors: uint8Array().optional(),
});
export type Int8SegmentRecord = z.infer<typeof Int8SegmentRecordSchema>;

/** One template as the search index sees it (and as change notices carry it). */
export const IndexRowSchema = z.object({
  faceId: z.string(),
  subject: z.string(),
  modelId: z.string(),
  /** epoch ms */
  enrollmentTimestamp: z.number(),
  embedding: float32Array(),
});
export type IndexRow = z.infer<typeof IndexRowSchema>;

/**
 * `outbox` value: a change for the sync service, written in the SAME transaction as the
 * gallery write it describes (so a crash leaves both or neither). Opaque to the store (the
 * sync's codec makes it), except `template`: a queued enroll names its template, so removing
 * the subject or gallery also drops its queued enroll (its embedding does not linger).
 */
export interface OutboxRecord {
  template?: TemplateKey;
  change: unknown;
}

/** How long a gallery keeps templates: `days` after enrollment, or after the subject was last recognised or verified. */
export const RetentionSchema = z.object({
  days: z.number().int().min(1).max(36_500),
  from: z.enum(['enrolled', 'lastSeen']),
});
export type Retention = z.infer<typeof RetentionSchema>;

/** A gallery's privacy policy on this device; it outlives the gallery's data (removing a gallery keeps it). */
export const GalleryOptionsSchema = z.object({
  /** enrolls without a consent record are refused (1002) */
  requireConsent: z.boolean().default(false),
  retention: RetentionSchema.optional(),
});
export type GalleryOptions = z.infer<typeof GalleryOptionsSchema>;
export type GalleryOptionsRecord = GalleryOptions & { appId: string; gallery: string };

/** What the audit log records: which call touched which gallery (and subject), never images or embeddings. */
export const AuditEventSchema = z.object({
  /** epoch ms */
  at: z.number(),
  appId: AppIdSchema,
  event: z.enum(['enroll', 'verify', 'recognize', 'remove', 'export', 'import', 'retention']),
  gallery: z.string(),
  /** absent for gallery-wide events, and once the subject was erased (its name is scrubbed) */
  subject: z.string().optional(),
  /** templates enrolled, removed or expired; subjects matched */
  count: z.number().int().nonnegative().optional(),
  /** the subject named here was erased since: its name was removed from this event */
  erased: z.literal(true).optional(),
});
export type AuditEvent = z.infer<typeof AuditEventSchema>;

export type TemplateKey = [appId: string, gallery: string, subject: string, faceId: string];
export type SubjectKey = [appId: string, gallery: string, subject: string];
export type ImageKey = [appId: string, gallery: string, subject: string, imageKey: string];
export type SegmentKey = [appId: string, gallery: string, modelId: string, seq: number];

export interface GalleryDB extends DBSchema {
  subjects: { key: SubjectKey; value: SubjectRecord };
  images: { key: ImageKey; value: StoredImageRecord };
  /** version 3: each segment's rows as int8 (version 4: the only segments; float32 embeddings live in `subjects`; version 5: no strings per row) */
  int8Segments: { key: SegmentKey; value: Int8SegmentRecord };
  /** auto-increment keys: the order the changes were made */
  outbox: { key: number; value: OutboxRecord; indexes: { byTemplate: TemplateKey } };
  /** per gallery: its privacy options (requireConsent, retention) */
  options: { key: [appId: string, gallery: string]; value: GalleryOptionsRecord };
  /** the audit log, oldest first (auto-increment), bounded; `bySubject` finds the events to scrub on erasure */
  audit: { key: number; value: AuditEvent; indexes: { bySubject: SubjectKey } };
}

/** Versions 1–3 kept one record per template; version 4 moves them into their subjects' records; version 5 packs the int8 segments' ids. */
interface AnyVersionDB extends GalleryDB {
  templates: { key: TemplateKey; value: TemplateRecord; indexes: { byImage: string } };
  segments: { key: SegmentKey; value: SegmentRecord };
}
type UpgradeTx = IDBPTransaction<AnyVersionDB, StoreNames<AnyVersionDB>[], 'versionchange'>;

/** The stores keyed by [appId, gallery, …]: a gallery's data is one key range in each. */
export const STORE_NAMES = ['subjects', 'images', 'int8Segments'] as const satisfies readonly StoreNames<GalleryDB>[];
/** What a write's transaction covers: the gallery's stores and the sync's outbox. */
export const WRITE_STORES = [...STORE_NAMES, 'outbox', 'audit'] as const satisfies readonly StoreNames<GalleryDB>[];

/**
 * Brings a database from `oldVersion` to DB_VERSION, one step per version, inside the
 * versionchange transaction (all steps commit together or not at all).
 */
export function upgrade(db: IDBPDatabase<GalleryDB>, oldVersion: number, currentTx: IDBPTransaction<GalleryDB, StoreNames<GalleryDB>[], 'versionchange'>): void {
  // the steps see every store any version had
  const anyDb = db as unknown as IDBPDatabase<AnyVersionDB>;
  const tx = currentTx as unknown as UpgradeTx;
  const failed = () => {
    // a failed request aborts the upgrade by itself; anything else must too (nothing half-done)
    try {
      tx.abort();
    } catch {
      // already aborted
    }
  };
  if (oldVersion < 1) {
    const templates = anyDb.createObjectStore('templates', { keyPath: ['appId', 'gallery', 'subject', 'faceId'] });
    // sparse (templates without an image are not in it): is a photo still referenced?
    templates.createIndex('byImage', 'imageKey');
    db.createObjectStore('subjects', { keyPath: ['appId', 'gallery', 'subject'] });
    db.createObjectStore('images', { keyPath: ['appId', 'gallery', 'subject', 'imageKey'] });
    anyDb.createObjectStore('segments', { keyPath: ['appId', 'gallery', 'modelId', 'seq'] });
  }
  if (oldVersion < 2) {
    // the sync's outbox lives here so a write and its queued change commit together (docs/sync.md);
    // entries of the former separate `<name>:sync` outbox are moved in by the sync at start
    const outbox = db.createObjectStore('outbox', { autoIncrement: true });
    outbox.createIndex('byTemplate', 'template'); // sparse: only queued enrolls name a template
    db.createObjectStore('options', { keyPath: ['appId', 'gallery'] });
    // sparse: gallery-wide events (no subject) are not in it
    db.createObjectStore('audit', { autoIncrement: true }).createIndex('bySubject', ['appId', 'gallery', 'subject']);
  }
  if (oldVersion < 3) {
    // the int8 rows of every segment, so reopening reads a quarter of the bytes; derived from
    // the segments inside this transaction (requests only: it stays open while they run)
    db.createObjectStore('int8Segments', { keyPath: ['appId', 'gallery', 'modelId', 'seq'] });
  }
  if (oldVersion < 4) {
    // templates into their subjects' records (one record per subject); the float32 embeddings
    // stay there only, so the templates store and the float32 segments go
    const dropped = () => {
      anyDb.deleteObjectStore('templates');
      anyDb.deleteObjectStore('segments');
    };
    if (oldVersion >= 1) {
      const filled = oldVersion < 3 ? fillInt8Segments(tx) : Promise.resolve();
      Promise.all([filled, moveTemplatesIntoSubjects(tx)]).then(dropped, failed);
    } else {
      dropped();
    }
  }
  if (oldVersion < 5 && oldVersion >= 3) {
    // the int8 segments' ids as bytes and subjects as indices (step 3 writes that form already)
    packInt8Segments(tx).catch(failed);
  }
  // Never edit the steps above: a browser still at version 0 runs all of them, in order.
}

/** Version 3's data step: an int8 segment for every stored segment, one cursor step at a time. */
async function fillInt8Segments(tx: UpgradeTx): Promise<void> {
  const target = tx.objectStore('int8Segments');
  for (let cursor = await tx.objectStore('segments').openCursor(); cursor; cursor = await cursor.continue()) {
    void target.put(int8Segment(cursor.value));
  }
}

/** Version 5's data step: every int8 segment of the version 3–4 form rewritten packed, same key. */
async function packInt8Segments(tx: UpgradeTx): Promise<void> {
  for (let cursor = await tx.objectStore('int8Segments').openCursor(); cursor; cursor = await cursor.continue()) {
    const segment = cursor.value as Int8SegmentRecord | LegacyInt8SegmentRecord;
    if ('faceIds' in segment) void cursor.update(packedSegment(segment));
  }
}

/** Version 4's data step: each subject's template records, in key order, into its subject record. */
async function moveTemplatesIntoSubjects(tx: UpgradeTx): Promise<void> {
  const subjects = tx.objectStore('subjects');
  let group: TemplateRecord[] = [];
  const flush = async () => {
    const first = group[0];
    if (!first) return;
    const templates = group.map(subjectTemplate);
    group = [];
    const record = await subjects.get([first.appId, first.gallery, first.subject]);
    void subjects.put({ ...(record ?? { appId: first.appId, gallery: first.gallery, subject: first.subject }), templates });
  };
  for (let cursor = await tx.objectStore('templates').openCursor(); cursor; cursor = await cursor.continue()) {
    const t = cursor.value;
    const first = group[0];
    if (first && (first.appId !== t.appId || first.gallery !== t.gallery || first.subject !== t.subject)) await flush();
    group.push(t);
  }
  await flush();
}
