// The in-memory search side of the store: per (account, gallery, model) an EmbeddingMatrix,
// built from IndexedDB on first use and then kept current from change notices: this
// store's own writes synchronously, other tabs' and workers' through the BroadcastChannel.
//
// The race that matters: a write lands while a matrix is being read from storage. The read
// is one readonly transaction, so it sees a write entirely or not at all, and a notice is
// only sent after its write committed. So every notice that arrives during the read is
// queued and replayed onto what was read; replaying is harmless when the read already had
// the write (face ids are not reused: adding a present id or removing an absent one does
// nothing; an import that keeps a file's face ids says `revives`, which lifts their tombstones). Notices that can't be replayed (`rebuild`, `reset`) bump the entry's generation
// instead, and a read that finishes under a newer generation is discarded and done again.
import { EngineError } from '../errors.ts';
import { readNotice, type StoreChange } from './changes.ts';
import type { GalleryStore, IndexBlocks } from './gallery-store.ts';
import { int8Available } from './int8-rows.ts';
import type { KernelChoice } from './kernel.ts';
import { EmbeddingMatrix, type MatrixOptions, type SubjectMatch, type TemplateMatch } from './matrix.ts';

export interface IndexTarget {
  appId: string;
  gallery: string;
  /** embedding model: only its templates are searched */
  modelId: string;
}

export interface SearchIndexOptions {
  /** follow other tabs' and workers' writes (default true) */
  crossTab?: boolean;
  /** scoring kernel for new matrices (default 'auto') */
  kernel?: KernelChoice;
  /**
   * 'int8': matrices of int8 rows, a quarter of the memory, whose candidates are then scored
   * exactly from the stored float32 embeddings (the same results as 'float32', plus one small
   * IndexedDB read per search); 'float32': exact rows in memory. Default: int8 for a gallery of
   * INT8_FROM_ROWS templates or more when read, where WebAssembly SIMD runs and kernel isn't 'js'.
   */
  precision?: MatrixOptions['precision'];
  /**
   * A writer whose notices reach this index through apply(), in order with the searches (the
   * page's store when the index runs in a worker): its copies on the BroadcastChannel are skipped.
   */
  directSource?: string;
}

export interface IndexStats {
  /** matrices read from storage */
  builds: number;
  /** rows added / removed by notices, without reading storage */
  rowsAdded: number;
  rowsRemoved: number;
  /** matrices dropped to be read again (`rebuild`/`reset` notices) */
  invalidations: number;
  /** matrices held now, their rows and approximate bytes */
  matrices: number;
  rows: number;
  bytes: number;
  /** the latest build: ms reading storage (one transaction, deserialising included) and building the matrix from what was read */
  lastBuild?: { readMs: number; buildMs: number };
}

interface Entry {
  matrix: EmbeddingMatrix | undefined;
  building: Promise<EmbeddingMatrix> | undefined;
  /** notices received while a build reads storage; undefined when not building */
  pending: StoreChange[] | undefined;
  /** bumped when the matrix must be read again */
  generation: number;
  /** face ids seen removed: a late (reordered) `added` notice must not bring one back */
  removed: Set<string>;
}

/**
 * Below this many templates a gallery's float32 rows take under 10 MB, and searching them in
 * memory (0.02 ms at 1k) beats the int8 search's IndexedDB read of its candidates (2–5 ms).
 */
export const INT8_FROM_ROWS = 20_000;

/** tombstones kept per gallery and model; reordering only ever spans a few notices */
const MAX_TOMBSTONES = 10_000;
/** reads of one build discarded for newer generations before giving up */
const MAX_REREADS = 10;

const galleryKey = (appId: string, gallery: string) => JSON.stringify([appId, gallery]);

export class GallerySearchIndex {
  private readonly galleries = new Map<string, Map<string, Entry>>();
  private readonly kernel: KernelChoice;
  private readonly precision: MatrixOptions['precision'];
  private readonly unsubscribe: () => void;
  private readonly channel: BroadcastChannel | undefined;
  private readonly counters = { builds: 0, rowsAdded: 0, rowsRemoved: 0, invalidations: 0 };
  private lastBuild: IndexStats['lastBuild'];
  private closed = false;

  constructor(
    private readonly store: GalleryStore,
    options: SearchIndexOptions = {},
  ) {
    this.kernel = options.kernel ?? 'auto';
    this.precision = options.precision ?? (this.kernel !== 'js' && int8Available() ? undefined : 'float32');
    this.unsubscribe = store.onChange((change) => this.apply(change));
    if ((options.crossTab ?? true) && typeof BroadcastChannel === 'function') {
      this.channel = new BroadcastChannel(store.channelName);
      this.channel.onmessage = (event: MessageEvent) => {
        const notice = readNotice(event.data);
        // this store's own notices came through onChange already, before its write resolved
        if (notice.source !== store.id && notice.source !== options.directSource) this.apply(notice.change);
      };
    }
  }

  /** The target's matrix, read from storage on first use and kept current after. */
  matrix(target: IndexTarget): Promise<EmbeddingMatrix> {
    if (this.closed) return Promise.reject(new EngineError('UNAVAILABLE', 'the search index is closed'));
    const entry = this.entry(target);
    if (entry.matrix) return Promise.resolve(entry.matrix);
    entry.building ??= this.build(target, entry).finally(() => (entry.building = undefined));
    return entry.building;
  }

  /** The k templates most similar to `query`, at least minSimilarity; 5004 if the gallery doesn't exist. */
  async search(target: IndexTarget, query: Float32Array, k: number, minSimilarity?: number): Promise<TemplateMatch[]> {
    const matrix = await this.matrix(target);
    if (matrix.size === 0) await this.requireGallery(target);
    if (!matrix.compact) return matrix.searchTemplates(query, k, minSimilarity);
    const answer = (await this.exactly(target, matrix, matrix.templateCandidates(query, k, minSimilarity))).searchTemplates(query, k, minSimilarity);
    this.indexAfterAnswer(matrix);
    return answer;
  }

  /** /recognize: the k subjects whose best template is most similar, at least minSimilarity; 5004. */
  async searchSubjects(target: IndexTarget, query: Float32Array, k: number, minSimilarity?: number): Promise<SubjectMatch[]> {
    const matrix = await this.matrix(target);
    if (matrix.size === 0) await this.requireGallery(target);
    if (!matrix.compact) return matrix.searchSubjects(query, k, minSimilarity);
    const answer = (await this.exactly(target, matrix, matrix.subjectCandidates(query, k, minSimilarity))).searchSubjects(query, k, minSimilarity);
    this.indexAfterAnswer(matrix);
    return answer;
  }

  /**
   * A reopened matrix finds rows by face id only once indexed (matrix.ts: the first search
   * needs none): done after this search's answer, so it delays neither that answer nor (much)
   * the next write, which would otherwise do it.
   */
  private indexAfterAnswer(matrix: EmbeddingMatrix): void {
    // a task of its own: the answer's continuations (the caller's, a worker's reply) run first
    if (matrix.idsDeferred) setTimeout(() => matrix.indexIds(), 0);
  }

  /**
   * An int8 matrix's candidate rows as an exact float32 matrix of their stored embeddings (one
   * readonly transaction): searching it gives what searching the whole gallery exactly would,
   * score for score (the same normalisation and kernel). A template removed meanwhile is left out.
   */
  private async exactly(target: IndexTarget, matrix: EmbeddingMatrix, rows: readonly number[]): Promise<EmbeddingMatrix> {
    const refs = rows.map((row) => matrix.rowRef(row));
    const embeddings = await this.store.templateEmbeddings(target.appId, target.gallery, refs);
    const exact = new EmbeddingMatrix(matrix.dim, { kernel: this.kernel, capacity: refs.length });
    refs.forEach((ref, i) => {
      const embedding = embeddings[i];
      if (embedding) exact.add({ ...ref, modelId: target.modelId, embedding });
    });
    return exact;
  }

  /** Forgets matrices to free memory: one gallery's, or all; they are read again on demand. */
  drop(appId?: string, gallery?: string): void {
    if (appId === undefined || gallery === undefined) this.galleries.clear();
    else this.galleries.delete(galleryKey(appId, gallery));
  }

  stats(): IndexStats {
    let matrices = 0;
    let rows = 0;
    let bytes = 0;
    for (const models of this.galleries.values()) {
      for (const { matrix } of models.values()) {
        if (!matrix) continue;
        matrices++;
        rows += matrix.size;
        bytes += matrix.memory().total;
      }
    }
    return { ...this.counters, matrices, rows, bytes, ...(this.lastBuild ? { lastBuild: this.lastBuild } : {}) };
  }

  close(): void {
    this.closed = true;
    this.unsubscribe();
    this.channel?.close();
    this.galleries.clear();
  }

  private entry({ appId, gallery, modelId }: IndexTarget): Entry {
    const key = galleryKey(appId, gallery);
    let models = this.galleries.get(key);
    if (!models) this.galleries.set(key, (models = new Map()));
    let entry = models.get(modelId);
    if (!entry) {
      entry = { matrix: undefined, building: undefined, pending: undefined, generation: 0, removed: new Set() };
      models.set(modelId, entry);
    }
    return entry;
  }

  private async build(target: IndexTarget, entry: Entry): Promise<EmbeddingMatrix> {
    for (let read = 0; read < MAX_REREADS; read++) {
      const generation = entry.generation;
      entry.pending = [];
      let read: IndexBlocks;
      const started = performance.now();
      try {
        const int8FromRows = this.precision === 'float32' ? Infinity : this.precision === 'int8' ? 0 : INT8_FROM_ROWS;
        read = await this.store.galleryEmbeddings(target.appId, target.gallery, target.modelId, int8FromRows);
      } catch (error) {
        entry.pending = undefined;
        throw error;
      }
      const pending = entry.pending ?? [];
      entry.pending = undefined;
      if (entry.generation !== generation) continue;
      const readAt = performance.now();
      const matrix =
        read.precision === 'int8'
          ? EmbeddingMatrix.fromInt8Blocks(read.blocks, { kernel: this.kernel })
          : EmbeddingMatrix.fromBlocks(read.blocks, { kernel: this.kernel, precision: 'float32' });
      for (const faceId of entry.removed) if (matrix.remove(faceId)) this.counters.rowsRemoved++;
      if (!pending.every((change) => this.applyTo(entry, matrix, target.modelId, change))) continue;
      this.counters.builds++;
      this.lastBuild = { readMs: readAt - started, buildMs: performance.now() - readAt };
      entry.matrix = matrix;
      return matrix;
    }
    throw new EngineError('UNAVAILABLE', `gallery ${target.gallery} kept changing while it was being loaded`);
  }

  /** A committed write (this store's own, or one forwarded by its writer in another context). */
  apply(change: StoreChange): void {
    if (change.kind === 'reset') {
      for (const models of this.galleries.values()) for (const entry of models.values()) this.invalidate(entry);
      return;
    }
    const models = this.galleries.get(galleryKey(change.appId, change.gallery));
    if (!models) return; // not loaded here: a later build reads it fresh
    for (const [modelId, entry] of models) {
      if (change.kind === 'rebuild') {
        if (change.revives) entry.removed.clear();
        this.invalidate(entry);
        continue;
      }
      if (change.kind === 'removed') this.remember(entry, change.faceIds);
      // an imported face id that was removed here before is a new template now, not a late notice
      if (change.kind === 'added' && change.revives) for (const row of change.rows) entry.removed.delete(row.faceId);
      if (entry.pending) entry.pending.push(change);
      else if (entry.matrix && !this.applyTo(entry, entry.matrix, modelId, change)) this.invalidate(entry);
    }
  }

  /** Applies an `added`/`removed` notice; false if it doesn't fit (then read storage again). */
  private applyTo(entry: Entry, matrix: EmbeddingMatrix, modelId: string, change: StoreChange): boolean {
    try {
      if (change.kind === 'added') {
        for (const row of change.rows) {
          if (row.modelId === modelId && !entry.removed.has(row.faceId) && matrix.add(row)) this.counters.rowsAdded++;
        }
      } else if (change.kind === 'removed') {
        for (const faceId of change.faceIds) if (matrix.remove(faceId)) this.counters.rowsRemoved++;
      }
      return true;
    } catch {
      return false; // e.g. a row of another dimension: storage has the truth
    }
  }

  private remember(entry: Entry, faceIds: readonly string[]): void {
    for (const faceId of faceIds) entry.removed.add(faceId);
    for (const faceId of entry.removed) {
      if (entry.removed.size <= MAX_TOMBSTONES) break;
      entry.removed.delete(faceId); // oldest first
    }
  }

  private invalidate(entry: Entry): void {
    entry.generation++;
    entry.matrix = undefined;
    this.counters.invalidations++;
  }

  private async requireGallery({ appId, gallery }: IndexTarget): Promise<void> {
    if (!(await this.store.galleryExists(appId, gallery))) throw new EngineError('GALLERY_NOT_FOUND');
  }
}
