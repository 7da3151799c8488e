// The recognition store: accounts (app_id) → galleries → subjects → templates in IndexedDB.
// Each method is one endpoint's storage work in ONE transaction, so it happens entirely or
// not at all, and concurrent calls (from this tab or others) serialise in IndexedDB.
// Committed writes are announced (changes.ts) so search indexes stay current.
import { openDB, type IDBPDatabase, type IDBPTransaction } from 'idb';
import type { z } from 'zod';
import { EngineError } from '../errors.ts';
import { ChangeFeed, MAX_IDS_PER_NOTICE, MAX_ROWS_PER_NOTICE, changeChannelName, type ChangeListener } from './changes.ts';
import { newFaceId } from './face-id.ts';
import { pastGroup, prefixRange } from './key-range.ts';
import {
  AppIdSchema,
  DB_VERSION,
  DEFAULT_STORAGE_NAME,
  GalleryNameSchema,
  GalleryOptionsSchema,
  NewTemplateSchema,
  STORE_NAMES,
  StoredTemplateSchema,
  WRITE_STORES,
  SubjectIdSchema,
  imageBlobOf,
  imageRecordOf,
  storedTemplate,
  subjectTemplate,
  upgrade,
  type GalleryDB,
  type GalleryOptions,
  type ImageRecord,
  type IndexRow,
  type OutboxRecord,
  type NewTemplate,
  type Int8SegmentRecord,
  type SegmentKey,
  type StoredTemplate,
  type SubjectKey,
  type SubjectRecord,
  type SubjectTemplate,
  type TemplateRecord,
} from './schema.ts';
import { AuditLog, scrubSubjects } from './audit-log.ts';
import { OutboxStore, dropQueuedEnrolls } from './outbox-store.ts';
import { IMPORT_CHUNK_LIMITS, importChunks, type ChunkLimits, type ChunkPhoto, type WriteChunk } from './import-chunks.ts';
import { DEFAULT_SEGMENT_ROWS, appendRows, rowCount, segmentFaceIds, segmentSubjects, withoutRows, type IndexBlock, type Int8Block } from './segments.ts';
import { DEFAULT_TRANSACTION_TIMEOUT_MS, atomically, withinTime, writable, type Enqueue } from './transaction.ts';

export interface GalleryStoreOptions {
  /** IndexedDB database name: the engine's "storage name" option (default DEFAULT_STORAGE_NAME) */
  name?: string;
  /** templates per packed index segment (default 512); small values are for tests */
  segmentRows?: number;
  /** announce writes to other tabs and workers of this origin (default true) */
  broadcast?: boolean;
  /** bound of one transaction, and of opening the database, in ms (default 20 000); past it the work is aborted and reported */
  timeoutMs?: number;
  /** audit events kept (default AUDIT_MAX_EVENTS); small values are for tests */
  auditMaxEvents?: number;
  /** templates and bytes per transaction of a bulk write (default IMPORT_CHUNK_LIMITS); small values are for tests */
  chunkLimits?: ChunkLimits;
}

/** A template as gallery/view_subject lists it. */
export interface TemplateSummary {
  faceId: string;
  enrollmentTimestamp: string;
}

export interface SubjectRemoval {
  /** the templates removed */
  faceIds: string[];
  /** the subject was the gallery's last, so the gallery is gone too */
  galleryRemoved: boolean;
}

export interface ImportOptions {
  /**
   * The kept face ids are known not to be in the gallery (a sync pull checked them with
   * presentTemplates): skip reading every key of the gallery to find out, O(gallery) per call.
   */
  newIds?: boolean;
}

/** One template of a bulk import. */
export interface ImportItem {
  subject: string;
  template: NewTemplate;
  /**
   * Keep this face_id (an imported gallery file's) unless the gallery already has a template
   * with it; then the template gets a new id and the current time, as a new enrollment would.
   */
  faceId?: string;
  /** with `faceId`: its enrollment time, epoch-ms digits; default now */
  enrollmentTimestamp?: string;
  /** the photo it was enrolled from; templates of a subject given the same Blob share one stored copy */
  image?: Blob;
}

/**
 * A committed write of THIS instance, in full (sync: src/sync/ queues it for the service).
 * Writes of other instances (another tab, the sync's own applier) are not reported here.
 */
export type CommittedWrite =
  | { kind: 'added'; appId: string; gallery: string; templates: StoredTemplate[]; photos: { subject: string; imageKey: string; bytes: ArrayBuffer; type: string }[] }
  | { kind: 'removedTemplates'; appId: string; gallery: string; subject: string; faceId?: string; faceIds: string[] }
  | { kind: 'removedGallery'; appId: string; gallery: string };
export type CommitListener = (write: CommittedWrite) => void;
/**
 * Called INSIDE a write's transaction with the write about to commit (ids final): the outbox
 * records it returns commit with it, or nothing does. Synchronous and pure: a crash at any
 * instant leaves the write and its queued changes both or neither.
 */
export type Journal = (write: CommittedWrite) => OutboxRecord[];

/** A whole gallery as exportGallery reads it. */
export interface GalleryContents {
  /** in key order: by subject, then enrollment */
  templates: StoredTemplate[];
  /** the gallery's stored photos, when asked for */
  images: ImageRecord[];
}

/** The face ids a write found in its gallery, read by its first transaction that keeps ids. */
interface TakenIds {
  ids: Set<string> | undefined;
}

/** What a write's transactions found before their first request: what its undo may take back. */
interface WriteScope {
  /** a bulk write: its first chunk of a model opens a segment of its own (undone by deleting it whole) */
  fresh: boolean;
  /** per model, the first segment the write wrote to */
  firstSeqs: Map<string, number>;
  /** the write's subjects that had a record before it (one transaction's: a bulk write reads the gallery's instead) */
  existed: Set<string>;
  /** the write added rows to a segment that held rows before it */
  extended: boolean;
}

/** What undoing a write may take back, all of it recorded before the write began. */
interface Undo {
  /** the gallery did not exist: its key ranges go whole */
  galleryCreated: boolean;
  /** subjects the write created (a bulk write's): their key ranges go whole; any other loses only the write's templates and photos */
  createdSubjects: ReadonlySet<string>;
  firstSeqs: ReadonlyMap<string, number>;
  /** the undo will put (a subject that was there took templates, a segment that held rows took some): not in Firefox's deletes-only cleanup transaction */
  rewrites: boolean;
}

/** between tries of an undo refused for quota */
const UNDO_RETRY_MS = 250;

const isStorageFull = (error: unknown) => error instanceof EngineError && error.failure.kind === 'STORAGE_FULL';

/** segments per getAll while building an index: bounds the transient copy, not the result */
const SEGMENTS_PER_READ = 32;

/** What an index is built from: float32 segments, or their int8 rows as stored. */
export type IndexBlocks = { precision: 'float32'; blocks: IndexBlock[] } | { precision: 'int8'; blocks: Int8Block[] };

/** The `modelId` templates of these subjects as one float32 block. */
function float32Block(subjects: readonly SubjectRecord[], modelId: string): IndexBlock {
  const rows = subjects.flatMap((s) => s.templates.filter((t) => t.modelId === modelId).map((t) => ({ subject: s.subject, t })));
  const dim = rows[0]?.t.embedding.length ?? 0;
  const vectors = new Float32Array(rows.length * dim);
  const timestamps = new Float64Array(rows.length);
  rows.forEach(({ t }, i) => {
    vectors.set(t.embedding, i * dim);
    timestamps[i] = Number(t.enrollmentTimestamp);
  });
  return { dim, faceIds: rows.map((r) => r.t.faceId), subjects: rows.map((r) => r.subject), timestamps, vectors };
}

/** subject records per getAll of a float32 build: bounds the transient copy (a few MB) */
const SUBJECTS_PER_READ = 2000;

/** Every subject record of the gallery, in key order, SUBJECTS_PER_READ per getAll, each page as `take` makes it. */
async function readSubjects<T>(store: { getAll(query: IDBKeyRange, count: number): Promise<SubjectRecord[]> }, appId: string, gallery: string, take: (page: SubjectRecord[]) => T): Promise<T[]> {
  const records: T[] = [];
  let range = prefixRange(appId, gallery);
  for (;;) {
    const page = await store.getAll(range, SUBJECTS_PER_READ);
    records.push(take(page));
    const last = page.at(-1);
    if (page.length < SUBJECTS_PER_READ || !last) return records;
    range = IDBKeyRange.bound([appId, gallery, last.subject], [appId, gallery, []], true);
  }
}

/** Every segment record of (account, gallery, model) in seq order, SEGMENTS_PER_READ per getAll. */
async function readSegments<T extends { seq: number }>(store: { getAll(query: IDBKeyRange, count: number): Promise<T[]> }, appId: string, gallery: string, modelId: string): Promise<T[]> {
  const blocks: T[] = [];
  let range = prefixRange(appId, gallery, modelId);
  for (;;) {
    const page = await store.getAll(range, SEGMENTS_PER_READ);
    blocks.push(...page);
    const last = page.at(-1);
    if (page.length < SEGMENTS_PER_READ || !last) return blocks;
    range = IDBKeyRange.bound([appId, gallery, modelId, last.seq], [appId, gallery, modelId, []], true);
  }
}

type Db = IDBPDatabase<GalleryDB>;

/** The storage of gallery data is gone or newer than this code: the engine can't serve. */
function unavailable(error: unknown): EngineError {
  if (error instanceof EngineError) return error;
  const reason =
    error instanceof DOMException && error.name === 'VersionError'
      ? 'the stored galleries were upgraded by a newer version of this app; reload the page'
      : `IndexedDB cannot be opened: ${error instanceof Error ? error.message : String(error)}`;
  return new EngineError('UNAVAILABLE', reason);
}

function openTimeout(timeoutMs: number): EngineError {
  return new EngineError(
    'UNAVAILABLE',
    `temporarily unavailable: the galleries' storage (IndexedDB) did not open within ${Math.round(timeoutMs / 1000)} s (another tab of this app may be upgrading it: close other tabs and reload)`,
  );
}

function checked<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new EngineError('INVALID_PARAMETER', parsed.error.issues[0]?.message);
  return parsed.data;
}

function checkedTemplate(value: unknown, index: number): NewTemplate {
  const parsed = NewTemplateSchema.safeParse(value);
  // a copy: the caller's array may live in shared or wasm memory (not storable) or change later
  if (parsed.success) return { ...parsed.data, embedding: new Float32Array(parsed.data.embedding) };
  const issue = parsed.error.issues[0];
  throw new EngineError('CORRUPT_FACE_DATA', `template ${index}: ${issue?.path.join('.') || 'value'}: ${issue?.message}`);
}

const FaceIdSchema = StoredTemplateSchema.shape.faceId.min(1, 'face_id must not be empty');
const TimestampSchema = StoredTemplateSchema.shape.enrollmentTimestamp;

function checkedItem(item: ImportItem, index: number): ImportItem {
  if (item.image !== undefined && !(item.image instanceof Blob)) throw new EngineError('INVALID_PARAMETER', 'the image to store must be a Blob');
  if (item.faceId !== undefined) checked(FaceIdSchema, item.faceId);
  if (item.enrollmentTimestamp !== undefined) checked(TimestampSchema, item.enrollmentTimestamp);
  return { ...item, template: checkedTemplate(item.template, index) };
}

function publicTemplate({ segment: _segment, ...template }: TemplateRecord): StoredTemplate {
  return template;
}

function indexRow(t: TemplateRecord): IndexRow {
  return {
    faceId: t.faceId,
    subject: t.subject,
    modelId: t.modelId,
    enrollmentTimestamp: Number(t.enrollmentTimestamp),
    embedding: t.embedding,
  };
}

type WriteTx = IDBPTransaction<GalleryDB, typeof WRITE_STORES extends readonly (infer N)[] ? N[] : never, 'readwrite'>;

/** Puts and deletes segments (`int8Segments`). */
function segmentWriter(tx: WriteTx, enqueue: Enqueue) {
  const segments = tx.objectStore('int8Segments');
  return {
    put(segment: Int8SegmentRecord): void {
      enqueue(segments.put(segment));
    },
    delete(key: SegmentKey): void {
      enqueue(segments.delete(key));
    },
  };
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

interface SubjectKeys {
  getKey(query: SubjectKey | IDBKeyRange): Promise<SubjectKey | undefined>;
}

async function requireGallery(subjects: SubjectKeys, appId: string, gallery: string): Promise<void> {
  if ((await subjects.getKey(prefixRange(appId, gallery))) === undefined) throw new EngineError('GALLERY_NOT_FOUND');
}

interface SubjectReads extends SubjectKeys {
  get(key: SubjectKey): Promise<SubjectRecord | undefined>;
}

/** The subject's record (with its templates); 5004 / 5003. */
async function requireSubject(subjects: SubjectReads, appId: string, gallery: string, subject: string): Promise<SubjectRecord> {
  await requireGallery(subjects, appId, gallery);
  const record = await subjects.get([appId, gallery, subject]);
  if (!record) throw new EngineError('SUBJECT_NOT_FOUND');
  return record;
}

/** These subjects' templates by face id (one get per distinct subject, issued together); absent subjects are left out. */
async function templatesOf(subjects: SubjectReads, appId: string, gallery: string, names: readonly string[]): Promise<Map<string, Map<string, SubjectTemplate>>> {
  const distinct = [...new Set(names)];
  const records = await Promise.all(distinct.map((subject) => subjects.get([appId, gallery, subject])));
  return new Map(records.flatMap((record) => (record ? [[record.subject, new Map(record.templates.map((t) => [t.faceId, t]))] as const] : [])));
}

/** Every face id of the gallery (all models), from its int8 segments: no embedding is read. */
async function faceIdsOf(int8Segments: { getAll(query: IDBKeyRange): Promise<Int8SegmentRecord[]> }, appId: string, gallery: string): Promise<string[]> {
  return (await int8Segments.getAll(prefixRange(appId, gallery))).flatMap(segmentFaceIds);
}

interface SubjectWrites extends SubjectReads {
  count(query: IDBKeyRange): Promise<number>;
  getAllKeys(query: IDBKeyRange): Promise<SubjectKey[]>;
}

/**
 * The records of those of `names` that exist, read inside the write's own transaction (so no
 * other write can slip in between). Chromium charges every request about as much as a put, so
 * a bulk write does not ask for each subject: one count and one key read over the span of the
 * names when few others lie in it (an import sorted by subject, a seeding), then a get only for
 * the subjects that exist. Else (names scattered over a big gallery) a get each.
 */
async function existingSubjects(subjects: SubjectWrites, appId: string, gallery: string, names: readonly string[]): Promise<Map<string, SubjectRecord>> {
  let candidates = names;
  if (names.length > 8) {
    const sorted = [...names].sort();
    const span = IDBKeyRange.bound([appId, gallery, sorted[0]!], [appId, gallery, sorted.at(-1)!]);
    if ((await subjects.count(span)) <= 4 * names.length) {
      const present = new Set((await subjects.getAllKeys(span)).map((key) => key[2]));
      candidates = names.filter((name) => present.has(name));
    }
  }
  const records = await Promise.all(candidates.map((subject) => subjects.get([appId, gallery, subject])));
  return new Map(records.flatMap((record) => (record ? [[record.subject, record] as const] : [])));
}

const byFaceId = (a: { faceId: string }, b: { faceId: string }) => (a.faceId < b.faceId ? -1 : a.faceId > b.faceId ? 1 : 0);

export class GalleryStore {
  /** the IndexedDB database name */
  readonly name: string;
  /** the BroadcastChannel that carries this database's change notices */
  readonly channelName: string;
  /** tells this instance's notices apart from other writers' */
  readonly id: string = crypto.randomUUID();
  private readonly segmentRows: number;
  private readonly timeoutMs: number;
  private readonly chunkLimits: ChunkLimits;
  private readonly feed: ChangeFeed;
  private readonly commitListeners = new Set<CommitListener>();
  private journalOf: Journal | undefined;
  /** the sync's outbox, in this database (its entries are written by the journal) */
  readonly outbox: OutboxStore = new OutboxStore(() => this.db(), (tx, work) => this.bounded(tx, work));
  /** the audit log, in this database (removals scrub erased subjects' names from it) */
  readonly audit: AuditLog;
  private connection: Promise<Db> | undefined;
  private closed = false;

  private constructor(options: GalleryStoreOptions) {
    this.name = options.name ?? DEFAULT_STORAGE_NAME;
    this.channelName = changeChannelName(this.name);
    this.segmentRows = options.segmentRows ?? DEFAULT_SEGMENT_ROWS;
    if (!(Number.isInteger(this.segmentRows) && this.segmentRows > 0)) throw new RangeError('segmentRows must be a positive integer');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TRANSACTION_TIMEOUT_MS;
    if (!(this.timeoutMs > 0)) throw new RangeError('timeoutMs must be positive');
    this.chunkLimits = options.chunkLimits ?? IMPORT_CHUNK_LIMITS;
    this.feed = new ChangeFeed(this.channelName, this.id, options.broadcast ?? true);
    this.audit = new AuditLog(() => this.db(), (tx, work) => this.bounded(tx, work), options.auditMaxEvents);
  }

  /** Opens (creating or upgrading) the database; rejects with UNAVAILABLE if it can't. */
  static async open(options: GalleryStoreOptions = {}): Promise<GalleryStore> {
    const store = new GalleryStore(options);
    await store.db();
    return store;
  }

  /**
   * Called synchronously after each committed write of THIS instance, before the write's
   * promise resolves. Other writers' changes arrive on `channelName`. Returns unsubscribe.
   */
  onChange(listener: ChangeListener): () => void {
    return this.feed.subscribe(listener);
  }

  /**
   * Called synchronously after each committed write of THIS instance with the whole write
   * (templates with box, attributes and quality; photos' bytes; removed ids) — what the sync
   * needs to send it on. Returns unsubscribe.
   */
  onCommit(listener: CommitListener): () => void {
    this.commitListeners.add(listener);
    return () => this.commitListeners.delete(listener);
  }

  /**
   * Sets the journal (one at a time): every later write of THIS instance commits the outbox
   * records it returns in the write's own transaction. Returns unset.
   */
  journal(journal: Journal): () => void {
    this.journalOf = journal;
    return () => {
      if (this.journalOf === journal) this.journalOf = undefined;
    };
  }

  /** Inside a write's transaction: queues the journal's records for `write`. */
  private journalize(outbox: { add(value: OutboxRecord): Promise<number> }, write: CommittedWrite, enqueue: Enqueue): void {
    for (const record of this.journalOf?.(write) ?? []) enqueue(outbox.add(record));
  }

  private committed(write: CommittedWrite): void {
    for (const listener of this.commitListeners) {
      try {
        listener(write);
      } catch (error) {
        // the write has committed: a faulty listener must not fail it
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  /**
   * /enroll: adds `templates` to `subject`, creating the subject and the gallery if new.
   * `image` is the request's photo, stored once for all its templates; leave it out when the
   * request had `store_image: false`. All or nothing.
   */
  async addTemplates(appId: string, gallery: string, subject: string, templates: readonly NewTemplate[], image?: Blob): Promise<StoredTemplate[]> {
    return this.write(appId, gallery, templates.map((template) => ({ subject, template, ...(image === undefined ? {} : { image }) })));
  }

  /**
   * Bulk import (gallery files, seeding, benchmarks, sync pulls): any number of subjects, into a
   * new or an existing gallery, all of it or nothing: in transactions of at most
   * `chunkLimits` (import-chunks.ts), those already committed undone if a later one fails.
   * Returns the templates' face ids (kept or new), in order.
   */
  async importTemplates(appId: string, gallery: string, items: readonly ImportItem[], options: ImportOptions = {}): Promise<string[]> {
    return (await this.write(appId, gallery, items, options)).map((t) => t.faceId);
  }

  /**
   * Which of these templates the gallery holds (their face ids), in one readonly transaction of
   * key lookups: what a sync pull page checks, without listing every subject or the gallery.
   */
  async presentTemplates(appId: string, gallery: string, refs: readonly { subject: string; faceId: string }[]): Promise<Set<string>> {
    if (refs.length === 0) return new Set();
    const tx = (await this.db()).transaction('subjects');
    return this.bounded(tx, async () => {
      const held = await templatesOf(tx.store, appId, gallery, refs.map((r) => r.subject));
      return new Set(refs.flatMap((r) => (held.get(r.subject)?.has(r.faceId) ? [r.faceId] : [])));
    });
  }

  /** /gallery/list_all: the account's galleries, sorted. */
  async listGalleries(appId: string): Promise<string[]> {
    const tx = (await this.db()).transaction('subjects');
    return this.bounded(tx, async () => {
      const galleries: string[] = [];
      // one seek per gallery, however many subjects each has
      let cursor = await tx.store.openKeyCursor(prefixRange(appId));
      while (cursor) {
        const gallery = cursor.key[1];
        galleries.push(gallery);
        cursor = await cursor.continue(pastGroup([appId], gallery) as unknown as SubjectKey);
      }
      return galleries;
    });
  }

  /** The gallery's privacy options (defaults when never set). */
  async galleryOptions(appId: string, gallery: string): Promise<GalleryOptions> {
    const tx = (await this.db()).transaction('options');
    const record = await this.bounded(tx, () => tx.store.get([appId, gallery]));
    return GalleryOptionsSchema.parse(record ?? {});
  }

  /** Sets the gallery's privacy options (they may precede its first enroll, and outlive its removal). */
  async setGalleryOptions(appId: string, gallery: string, options: GalleryOptions): Promise<void> {
    checked(GalleryNameSchema, gallery);
    const parsed = checked(GalleryOptionsSchema, options);
    const db = await this.db();
    const tx = writable(() => db.transaction('options', 'readwrite'));
    await this.bounded(tx, async (enqueue) => enqueue(tx.store.put({ ...parsed, appId, gallery })));
  }

  /** Every gallery of the account with privacy options set, and its options. */
  async allGalleryOptions(appId: string): Promise<(GalleryOptions & { gallery: string })[]> {
    const tx = (await this.db()).transaction('options');
    const records = await this.bounded(tx, () => tx.store.getAll(prefixRange(appId)));
    return records.map(({ appId: _appId, ...record }) => record);
  }

  /** Retention from 'lastSeen': records that these subjects were recognised or verified at `at` (absent ones are skipped). */
  async touchSubjects(appId: string, gallery: string, subjects: readonly string[], at: number): Promise<void> {
    if (subjects.length === 0) return;
    const db = await this.db();
    const tx = writable(() => db.transaction('subjects', 'readwrite'));
    await this.bounded(tx, async (enqueue) => {
      for (const subject of new Set(subjects)) {
        const record = await tx.store.get([appId, gallery, subject]);
        if (record && !((record.lastSeen ?? 0) >= at)) enqueue(tx.store.put({ ...record, lastSeen: at }));
      }
    });
  }

  /** Retention: the gallery's templates (subject, id, enrollment ms) and its subjects' lastSeen. */
  async retentionView(appId: string, gallery: string): Promise<{ templates: { subject: string; faceId: string; enrolled: number }[]; lastSeen: Map<string, number> }> {
    // the int8 segments: ids, subjects and times without loading a single float32 embedding
    const tx = (await this.db()).transaction(['int8Segments', 'subjects']);
    return this.bounded(tx, async () => {
      const segments = await tx.objectStore('int8Segments').getAll(prefixRange(appId, gallery));
      const subjects = await tx.objectStore('subjects').getAll(prefixRange(appId, gallery));
      return {
        templates: segments.flatMap((g) => {
          const subjects = segmentSubjects(g);
          return segmentFaceIds(g).map((faceId, i) => ({ subject: subjects[i]!, faceId, enrolled: g.timestamps[i]! }));
        }),
        lastSeen: new Map(subjects.flatMap((s) => (s.lastSeen === undefined ? [] : [[s.subject, s.lastSeen] as const]))),
      };
    });
  }

  /** Whether the account has this gallery (i.e. any template in it). */
  async galleryExists(appId: string, gallery: string): Promise<boolean> {
    const tx = (await this.db()).transaction('subjects');
    return this.bounded(tx, async () => (await tx.store.getKey(prefixRange(appId, gallery))) !== undefined);
  }

  /** /gallery/view: the gallery's subjects, sorted; GALLERY_NOT_FOUND (5004) if none. */
  async listSubjects(appId: string, gallery: string): Promise<string[]> {
    const tx = (await this.db()).transaction('subjects');
    return this.bounded(tx, async () => {
      const keys = await tx.store.getAllKeys(prefixRange(appId, gallery));
      if (keys.length === 0) throw new EngineError('GALLERY_NOT_FOUND');
      return keys.map((key) => key[2]);
    });
  }

  /** /gallery/view_subject: the subject's templates in enrollment order; 5004 / 5003. */
  async listTemplates(appId: string, gallery: string, subject: string): Promise<TemplateSummary[]> {
    return (await this.templatesForSubject(appId, gallery, subject)).map(({ faceId, enrollmentTimestamp }) => ({ faceId, enrollmentTimestamp }));
  }

  /** /verify: the subject's templates (of `modelId` if given) in enrollment order; 5004 / 5003. */
  async templatesForSubject(appId: string, gallery: string, subject: string, modelId?: string): Promise<StoredTemplate[]> {
    const tx = (await this.db()).transaction('subjects');
    return this.bounded(tx, async () => {
      const record = await requireSubject(tx.store, appId, gallery, subject);
      return record.templates.filter((t) => modelId === undefined || t.modelId === modelId).map((t) => storedTemplate(record, t));
    });
  }

  /** A whole gallery for export, in one readonly transaction (a consistent snapshot); 5004. */
  async readGallery(appId: string, gallery: string, options: { images?: boolean } = {}): Promise<GalleryContents> {
    const tx = (await this.db()).transaction(['subjects', 'images']);
    return this.bounded(tx, async () => {
      await requireGallery(tx.objectStore('subjects'), appId, gallery);
      const subjects = await tx.objectStore('subjects').getAll(prefixRange(appId, gallery));
      const images = options.images ? await tx.objectStore('images').getAll(prefixRange(appId, gallery)) : [];
      return { templates: subjects.flatMap((record) => record.templates.map((t) => storedTemplate(record, t))), images: images.map(imageRecordOf) };
    });
  }

  /**
   * One template and the photo it was enrolled from (absent when not stored). 5004; 5003
   * "subject ID was not found"; 5003 "subject id with face id was not found".
   */
  async templateImage(appId: string, gallery: string, subject: string, faceId: string): Promise<{ template: StoredTemplate; image?: Blob }> {
    const tx = (await this.db()).transaction(['subjects', 'images']);
    return this.bounded(tx, async () => {
      const owner = await requireSubject(tx.objectStore('subjects'), appId, gallery, subject);
      const template = owner.templates.find((t) => t.faceId === faceId);
      if (!template) throw new EngineError('SUBJECT_NOT_FOUND', 'subject id with face id was not found');
      const record = template.imageKey === undefined ? undefined : await tx.objectStore('images').get([appId, gallery, subject, template.imageKey]);
      return { template: storedTemplate(owner, template), ...(record ? { image: imageBlobOf(record) } : {}) };
    });
  }

  /** The photo a template was enrolled from, if it was stored. */
  async imageOf(appId: string, gallery: string, subject: string, faceId: string): Promise<Blob | undefined> {
    const tx = (await this.db()).transaction(['subjects', 'images']);
    return this.bounded(tx, async () => {
      const template = (await tx.objectStore('subjects').get([appId, gallery, subject]))?.templates.find((t) => t.faceId === faceId);
      if (template?.imageKey === undefined) return undefined;
      const record = await tx.objectStore('images').get([appId, gallery, subject, template.imageKey]);
      return record && imageBlobOf(record);
    });
  }

  /** /gallery/remove: the gallery with all its subjects, templates and photos; 5004. Returns the removed face ids. */
  async removeGallery(appId: string, gallery: string): Promise<string[]> {
    const db = await this.db();
    const tx = writable(() => db.transaction(WRITE_STORES, 'readwrite'));
    const { faceIds, scrubbed } = await this.bounded(tx, async (enqueue) => {
      await requireGallery(tx.objectStore('subjects'), appId, gallery);
      const removed = await faceIdsOf(tx.objectStore('int8Segments'), appId, gallery);
      for (const name of STORE_NAMES) enqueue(tx.objectStore(name).delete(prefixRange(appId, gallery)));
      await dropQueuedEnrolls(tx.objectStore('outbox'), prefixRange(appId, gallery), enqueue);
      const scrubbed = await scrubSubjects(tx.objectStore('audit'), prefixRange(appId, gallery), enqueue);
      this.journalize(tx.objectStore('outbox'), { kind: 'removedGallery', appId, gallery }, enqueue);
      return { faceIds: removed, scrubbed };
    });
    void this.audit.note(scrubbed);
    this.feed.publish({ kind: 'rebuild', appId, gallery });
    this.committed({ kind: 'removedGallery', appId, gallery });
    return faceIds;
  }

  /**
   * /gallery/remove_subject: without `faceId` the whole subject, with it only that template.
   * 5004 gallery name not found; 5003 "subject ID was not found"; 5003 "subject id with face
   * id was not found". A subject goes with its last template, a gallery with its last subject.
   */
  async removeSubject(appId: string, gallery: string, subject: string, faceId?: string): Promise<SubjectRemoval> {
    const db = await this.db();
    const tx = writable(() => db.transaction(WRITE_STORES, 'readwrite'));
    const subjects = tx.objectStore('subjects');
    const outbox = tx.objectStore('outbox');
    const images = tx.objectStore('images');
    const removal = await this.bounded(tx, async (enqueue) => {
      const record = await requireSubject(subjects, appId, gallery, subject);
      const subjectRange = prefixRange(appId, gallery, subject);
      const removed = faceId === undefined ? record.templates : record.templates.filter((t) => t.faceId === faceId);
      if (removed.length === 0) throw new EngineError('SUBJECT_NOT_FOUND', 'subject id with face id was not found');
      const rest = record.templates.filter((t) => !removed.includes(t));
      if (rest.length === 0) {
        enqueue(images.delete(subjectRange)); // a photo belongs to the one subject it was enrolled under
        enqueue(subjects.delete([appId, gallery, subject]));
      } else {
        enqueue(subjects.put({ ...record, templates: rest }));
        const imageKey = removed[0]!.imageKey;
        if (imageKey !== undefined && !rest.some((t) => t.imageKey === imageKey)) enqueue(images.delete([appId, gallery, subject, imageKey]));
      }
      await this.removeRows(tx, appId, gallery, removed, enqueue);
      const faceIds = removed.map((t) => t.faceId);
      await dropQueuedEnrolls(outbox, faceId === undefined ? subjectRange : IDBKeyRange.only([appId, gallery, subject, faceId]), enqueue);
      this.journalize(outbox, { kind: 'removedTemplates', appId, gallery, subject, ...(faceId === undefined ? {} : { faceId }), faceIds }, enqueue);
      // the subject is gone (its last template was removed): its name leaves the audit log too
      const scrubbed = rest.length === 0 ? await scrubSubjects(tx.objectStore('audit'), IDBKeyRange.only([appId, gallery, subject]), enqueue) : [];
      const galleryRemoved = (await subjects.getKey(prefixRange(appId, gallery))) === undefined;
      return { faceIds, galleryRemoved, scrubbed };
    });
    void this.audit.note(removal.scrubbed);
    this.feed.publish(
      removal.faceIds.length <= MAX_IDS_PER_NOTICE
        ? { kind: 'removed', appId, gallery, faceIds: removal.faceIds }
        : { kind: 'rebuild', appId, gallery },
    );
    this.committed({ kind: 'removedTemplates', appId, gallery, subject, ...(faceId === undefined ? {} : { faceId }), faceIds: removal.faceIds });
    return { faceIds: removal.faceIds, galleryRemoved: removal.galleryRemoved };
  }

  /**
   * The search index's read: the gallery's `modelId` templates, packed column-wise, in one
   * readonly transaction (a consistent snapshot). Empty when there are none. The int8 rows
   * as stored (a quarter of the bytes, nothing to quantise) when there are `int8FromRows` or
   * more; else the float32 segments (default: always).
   */
  async galleryEmbeddings(appId: string, gallery: string, modelId: string, int8FromRows = Infinity): Promise<IndexBlocks> {
    const tx = (await this.db()).transaction(['int8Segments', 'subjects']);
    return this.bounded(tx, async () => {
      if (int8FromRows !== Infinity) {
        const blocks = await readSegments(tx.objectStore('int8Segments'), appId, gallery, modelId);
        if (blocks.reduce((n, b) => n + rowCount(b), 0) >= int8FromRows) return { precision: 'int8', blocks };
      }
      // float32 rows (small galleries, or no WebAssembly SIMD): the embeddings in the subject records
      const blocks = await readSubjects(tx.objectStore('subjects'), appId, gallery, (page) => float32Block(page, modelId));
      return { precision: 'float32', blocks: blocks.filter((block) => block.faceIds.length > 0) };
    });
  }

  /**
   * The stored embeddings of these templates (undefined for one that is gone), in one readonly
   * transaction: what an int8 search index scores its candidates with exactly.
   */
  async templateEmbeddings(appId: string, gallery: string, refs: readonly { subject: string; faceId: string }[]): Promise<(Float32Array | undefined)[]> {
    if (refs.length === 0) return [];
    const tx = (await this.db()).transaction('subjects');
    return this.bounded(tx, async () => {
      const held = await templatesOf(tx.store, appId, gallery, refs.map((r) => r.subject));
      return refs.map((r) => held.get(r.subject)?.get(r.faceId)?.embedding);
    });
  }

  /** Closes the database; every later call rejects. */
  close(): void {
    this.closed = true;
    this.commitListeners.clear();
    this.journalOf = undefined;
    this.feed.close();
    void this.connection?.then((db) => db.close(), () => {});
    this.connection = undefined;
  }

  private async write(appId: string, gallery: string, items: readonly ImportItem[], options: ImportOptions = {}): Promise<StoredTemplate[]> {
    checked(AppIdSchema, appId);
    checked(GalleryNameSchema, gallery);
    for (const subject of new Set(items.map((item) => item.subject))) checked(SubjectIdSchema, subject);
    const parsed = items.map((item, i) => checkedItem(item, i));
    if (parsed.length === 0) return [];

    const now = Date.now();
    // one stored copy per (subject, photo): a multi-face enroll's templates share theirs
    const images = new Map<string, Map<Blob, string>>();
    const imageKeyOf = (subject: string, image: Blob): string => {
      const own = images.get(subject) ?? new Map<Blob, string>();
      images.set(subject, own);
      if (!own.has(image)) own.set(image, crypto.randomUUID());
      return own.get(image)!;
    };
    const records: TemplateRecord[] = parsed.map(({ subject, template, faceId, enrollmentTimestamp, image }) => ({
      ...template,
      appId,
      gallery,
      subject,
      faceId: faceId ?? newFaceId(now),
      enrollmentTimestamp: faceId === undefined ? String(now) : (enrollmentTimestamp ?? String(now)),
      ...(image === undefined ? {} : { imageKey: imageKeyOf(subject, image) }),
      segment: 0, // set below, once the packing is known
    }));
    // the templates that keep a given face id (a gallery file's, the service's)
    const kept = new Set(records.filter((_, i) => parsed[i]!.faceId !== undefined));
    // ids the caller vouches for are not looked up in the gallery (taken stays empty)
    const taken: TakenIds = { ids: options.newIds ? new Set() : undefined };
    // the photos' bytes, read before the transaction (awaiting a Blob inside it would commit it early)
    const photos: ChunkPhoto[] = [];
    for (const [subject, own] of images) {
      for (const [blob, imageKey] of own) photos.push({ subject, imageKey, bytes: await blob.arrayBuffer(), type: blob.type });
    }

    // a transaction refused for quota is undone too: Firefox (153 ESR) aborts it but keeps the
    // requests queued after the refused one (docs/benchmarks.md, Firefox at 1M)
    const chunks = importChunks(records, photos, this.chunkLimits);
    if (chunks.length === 1) {
      const scope: WriteScope = { fresh: false, firstSeqs: new Map(), existed: new Set(), extended: false };
      try {
        await this.writeChunk(appId, gallery, chunks[0]!, kept, taken, now, scope);
      } catch (error) {
        if (isStorageFull(error)) {
          const undo = { galleryCreated: false, createdSubjects: new Set<string>(), firstSeqs: scope.firstSeqs, rewrites: scope.existed.size > 0 || scope.extended };
          if (await this.undoing(appId, gallery, records, photos, undo)) this.feed.publish({ kind: 'rebuild', appId, gallery });
        }
        throw error;
      }
    } else {
      // a bulk import: several transactions, undone together if one fails (nothing half-written)
      const before = await this.subjectsOf(appId, gallery);
      const scope: WriteScope = { fresh: true, firstSeqs: new Map(), existed: new Set(), extended: false };
      let done = 0;
      try {
        for (const chunk of chunks) {
          await this.writeChunk(appId, gallery, chunk, kept, taken, now, scope);
          done++;
        }
      } catch (error) {
        const undone = chunks.slice(0, done + (isStorageFull(error) ? 1 : 0));
        if (undone.length > 0) {
          const written = undone.flatMap((c) => c.records);
          const undo: Undo = {
            galleryCreated: before.size === 0,
            createdSubjects: new Set(written.flatMap((r) => (before.has(r.subject) ? [] : [r.subject]))),
            firstSeqs: scope.firstSeqs,
            rewrites: written.some((r) => before.has(r.subject)),
          };
          await this.undoing(appId, gallery, written, undone.flatMap((c) => c.photos), undo);
          this.feed.publish({ kind: 'rebuild', appId, gallery }); // an index may have read the part written
        }
        throw error;
      }
    }

    // kept ids may have been in the gallery before and been removed: indexes must not treat
    // them as late notices of that removed template (search-index.ts, tombstones)
    const revives = kept.size > 0 ? { revives: true } : {};
    this.feed.publish(
      records.length <= MAX_ROWS_PER_NOTICE
        ? { kind: 'added', appId, gallery, rows: records.map(indexRow), ...revives }
        : { kind: 'rebuild', appId, gallery, ...revives },
    );
    const stored = records.map(publicTemplate);
    if (this.commitListeners.size > 0) this.committed({ kind: 'added', appId, gallery, templates: stored, photos });
    return stored;
  }

  /** One transaction of a write: the chunk's subjects, photos, segment rows and templates. */
  private async writeChunk(
    appId: string,
    gallery: string,
    chunk: WriteChunk<TemplateRecord>,
    kept: ReadonlySet<TemplateRecord>,
    taken: TakenIds,
    now: number,
    /** filled in before the first request: what the write's undo may take back */
    scope: WriteScope,
  ): Promise<void> {
    const { records, photos } = chunk;
    // the sync's outbox entry for this chunk commits with it (its journal); an undone chunk's goes in undoWrite
    const db = await this.db();
    const tx = writable(() => db.transaction(WRITE_STORES, 'readwrite'));
    await this.bounded(
      tx,
      async (enqueue) => {
        const subjects = tx.objectStore('subjects');
        if (records.some((record) => kept.has(record))) {
          // face ids are unique per gallery (the search index keys rows by them): a kept id the
          // gallery already has, under any subject, makes way for a new one (read once per write)
          taken.ids ??= new Set(await faceIdsOf(tx.objectStore('int8Segments'), appId, gallery));
          for (const record of records) {
            if (kept.has(record) && taken.ids.has(record.faceId)) {
              record.faceId = newFaceId(now);
              record.enrollmentTimestamp = String(now);
            }
            taken.ids.add(record.faceId);
          }
        }
        const bySubject = groupBy(records, (r) => r.subject);
        const before = await existingSubjects(subjects, appId, gallery, [...bySubject.keys()]);
        for (const subject of before.keys()) scope.existed.add(subject);
        for (const { subject, imageKey, bytes, type } of photos) enqueue(tx.objectStore('images').put({ appId, gallery, subject, imageKey, bytes, type }));
        const segments = tx.objectStore('int8Segments');
        const writer = segmentWriter(tx, enqueue);
        for (const [modelId, group] of groupBy(records, (r) => r.modelId)) {
          // the last segment's key, then the segment: a cursor with values costs Firefox 15 ms
          // here (it reads ahead several ~70 kB segments), key then get ~1 ms (docs/benchmarks.md)
          const lastKey = (await segments.openKeyCursor(prefixRange(appId, gallery, modelId), 'prev'))?.primaryKey;
          const last = lastKey === undefined ? undefined : await segments.get(lastKey);
          // a bulk write starts segments of its own, so undoing it deletes them and writes nothing
          const first = !scope.firstSeqs.has(modelId);
          const packed = appendRows(last, { appId, gallery, modelId }, group.map(indexRow), this.segmentRows, scope.fresh && first);
          const firstSeq = packed.seqs[0]!;
          if (first) scope.firstSeqs.set(modelId, firstSeq);
          if (first && firstSeq === last?.seq) scope.extended = true;
          group.forEach((record, i) => (record.segment = packed.seqs[i]!));
          for (const segment of packed.segments) writer.put(segment);
        }
        // each subject's record with its new templates merged in (face id order, as its listing reads them)
        bySubject.forEach((group, subject) => {
          const record = before.get(subject) ?? { appId, gallery, subject, templates: [] };
          const held = new Set(record.templates.map((t) => t.faceId));
          // a face id collision must fail the write, as an IndexedDB add of an existing key would
          if (group.some((t) => held.has(t.faceId))) throw new DOMException(`subject ${subject} already has a template with this face id`, 'ConstraintError');
          enqueue(subjects.put({ ...record, templates: [...record.templates, ...group.map(subjectTemplate)].sort(byFaceId) }));
        });
        if (this.journalOf) this.journalize(tx.objectStore('outbox'), { kind: 'added', appId, gallery, templates: records.map(publicTemplate), photos }, enqueue);
      },
      records.length,
      chunk.bytes,
    );
  }

  /** The gallery's subjects now (empty: the gallery does not exist), in one readonly transaction. */
  private async subjectsOf(appId: string, gallery: string): Promise<Set<string>> {
    const tx = (await this.db()).transaction('subjects');
    return this.bounded(tx, async () => new Set((await tx.store.getAllKeys(prefixRange(appId, gallery))).map((key) => key[2])));
  }

  /**
   * Takes back what a failed write stored (undoWrite). When that needs puts (subjects that were
   * there get their records back), the write's photos go first in a transaction of deletes:
   * Chromium refuses any put while the refused transaction's bytes still count, and lets go of
   * them lazily (import-quota e2e failed 6 of 17 runs; tries alone stayed refused for 20 s at
   * 62 MB of a 40 MB quota);
   * the photos are most of the bytes, and a template without its photo is a state the store
   * knows (store_image: false). undoWrite is tried again at once if it fails (a segment another
   * write extended meanwhile needs a put, which Firefox's cleanup transaction refuses; the next
   * try gets an ordinary one), then every UNDO_RETRY_MS while refused for quota, within the
   * store's bound. Whether rows were taken out (an index may have read them).
   */
  private async undoing(appId: string, gallery: string, records: readonly TemplateRecord[], photos: readonly ChunkPhoto[], undo: Undo): Promise<boolean> {
    if (undo.rewrites && photos.length > 0) await this.deletePhotos(appId, gallery, photos).catch(() => {});
    const until = Date.now() + this.timeoutMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.undoWrite(appId, gallery, records, photos, undo);
      } catch (error) {
        if (attempt > 0 && !(isStorageFull(error) && Date.now() < until)) return false;
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, UNDO_RETRY_MS));
      }
    }
  }

  /** Deletes these photos (a failed write's own: their keys are random UUIDs), in a transaction of deletes. */
  private async deletePhotos(appId: string, gallery: string, photos: readonly ChunkPhoto[]): Promise<void> {
    const db = await this.db();
    const tx = writable(() => db.transaction('images', 'readwrite'), true);
    await this.bounded(tx, async (enqueue) => {
      for (const p of photos) enqueue(tx.store.delete([appId, gallery, p.subject, p.imageKey]));
    });
  }

  /**
   * Takes back what a failed write stored (a bulk write's committed chunks; what Firefox kept of
   * a transaction it refused for quota), by deletes where it can (a store over its quota refuses
   * any transaction that puts, but not one that deletes): the gallery if the write created it;
   * the subjects a bulk write created; else, subject by subject, the write's templates and
   * photos (a record left without templates is deleted, one with others gets them back: the one
   * put), and the write's rows from the segments it wrote to (a bulk write's own, deleted
   * whole). Only what the write itself stored: never a template, photo or row that was there.
   * One transaction: deletes of whole ranges and keys are small. Whether rows were taken out.
   */
  private async undoWrite(appId: string, gallery: string, records: readonly TemplateRecord[], photos: readonly ChunkPhoto[], undo: Undo): Promise<boolean> {
    const db = await this.db();
    // only deletes: Firefox's cleanup transaction (quota checks off) may do it
    const tx = writable(() => db.transaction(WRITE_STORES, 'readwrite'), undo.galleryCreated || !undo.rewrites);
    return this.bounded(
      tx,
      async (enqueue) => {
        // the write's queued enrolls go with it (never sent: nothing was written)
        const outbox = tx.objectStore('outbox');
        if (undo.galleryCreated) {
          for (const name of STORE_NAMES) enqueue(tx.objectStore(name).delete(prefixRange(appId, gallery)));
          await dropQueuedEnrolls(outbox, prefixRange(appId, gallery), enqueue);
          return true;
        }
        const created = undo.createdSubjects;
        let changed = created.size > 0;
        for (const subject of created) await dropQueuedEnrolls(outbox, prefixRange(appId, gallery, subject), enqueue);
        for (const r of records) if (!created.has(r.subject)) await dropQueuedEnrolls(outbox, IDBKeyRange.only([appId, gallery, r.subject, r.faceId]), enqueue);
        const ours = new Set(records.map((r) => r.faceId));
        const subjects = tx.objectStore('subjects');
        for (const subject of new Set(records.map((r) => r.subject))) {
          if (created.has(subject)) {
            for (const name of ['images', 'subjects'] as const) enqueue(tx.objectStore(name).delete(prefixRange(appId, gallery, subject)));
            continue;
          }
          const record = await subjects.get([appId, gallery, subject]);
          const rest = record?.templates.filter((t) => !ours.has(t.faceId));
          if (!record || !rest || rest.length === record.templates.length) continue;
          enqueue(rest.length > 0 ? subjects.put({ ...record, templates: rest }) : subjects.delete([appId, gallery, subject]));
          changed = true;
        }
        // photo keys are the write's own (random UUIDs)
        for (const p of photos) if (!created.has(p.subject)) enqueue(tx.objectStore('images').delete([appId, gallery, p.subject, p.imageKey]));
        const segments = tx.objectStore('int8Segments');
        const writer = segmentWriter(tx, enqueue);
        for (const [modelId, first] of undo.firstSeqs) {
          const range = IDBKeyRange.bound([appId, gallery, modelId, first], [appId, gallery, modelId, []]);
          for (const segment of await segments.getAll(range)) {
            const rest = withoutRows(segment, ours);
            if (rest && rowCount(rest) === rowCount(segment)) continue;
            if (rest) writer.put(rest);
            else writer.delete([appId, gallery, modelId, segment.seq]);
            changed = true;
          }
        }
        return changed;
      },
      records.length,
    );
  }

  /** Takes `removed`'s rows out of their segments, deleting segments left empty. */
  private async removeRows(tx: WriteTx, appId: string, gallery: string, removed: readonly Pick<TemplateRecord, 'faceId' | 'modelId' | 'segment'>[], enqueue: Enqueue): Promise<void> {
    const segments = tx.objectStore('int8Segments');
    const writer = segmentWriter(tx, enqueue);
    for (const group of groupBy(removed, (t) => JSON.stringify([t.modelId, t.segment])).values()) {
      const key: SegmentKey = [appId, gallery, group[0]!.modelId, group[0]!.segment];
      const segment = await segments.get(key);
      if (!segment) continue;
      const rest = withoutRows(segment, new Set(group.map((t) => t.faceId)));
      if (rest) writer.put(rest);
      else writer.delete(key);
    }
  }

  /** atomically() with this store's bound; `rows` stretches it for big imports (1 ms a row). */
  private bounded<T>(tx: Parameters<typeof atomically>[0], work: (enqueue: Enqueue) => Promise<T>, rows = 0, writeBytes = 0): Promise<T> {
    return atomically(tx, work, this.timeoutMs + rows, writeBytes);
  }

  private db(): Promise<Db> {
    if (this.closed) return Promise.reject(new EngineError('UNAVAILABLE', 'the gallery store is closed'));
    if (!this.connection) {
      const opening = openDB<GalleryDB>(this.name, DB_VERSION, {
        upgrade: (db, oldVersion, _newVersion, tx) => upgrade(db, oldVersion, tx),
        // another tab wants to upgrade or delete the database: step aside (reopen on demand)
        blocking: () => this.disconnect(connection),
        terminated: () => this.disconnect(connection),
      });
      // an open that another tab blocks (or a browser that never answers) must not hang every call
      const connection: Promise<Db> = withinTime(opening, this.timeoutMs, () => openTimeout(this.timeoutMs)).catch((error: unknown) => {
        if (this.connection === connection) this.connection = undefined;
        // a late success after the bound: nobody uses that connection
        void opening.then((db) => db.close(), () => {});
        throw unavailable(error);
      });
      this.connection = connection;
    }
    return this.connection;
  }

  private disconnect(connection: Promise<Db>): void {
    if (this.connection === connection) this.connection = undefined;
    void connection.then((db) => db.close(), () => {});
    // what happens to the data next (deleted, migrated) no notice will describe
    this.feed.publish({ kind: 'reset' }, { broadcast: false });
  }
}
