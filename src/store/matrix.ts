// One gallery's templates of one model, as a contiguous matrix of L2-normalised rows (so a
// dot product is the cosine similarity) with parallel arrays of face id, subject and
// enrollment time. Pure: no storage, no messages; the search index keeps it current.
//
// Memory layout, in the kernel's buffer (kernel.ts): [query | rows × capacity | scores ×
// capacity], rows zero-padded to a multiple of 16 floats. Growing keeps the rows in place
// (the scores are scratch), so adding is amortised O(dim) and removing is O(dim) too: the
// last row moves into the hole, row order means nothing.
import { EngineError } from '../errors.ts';
import { dimensionMismatch, rowCount, segmentFaceIds, segmentSubjects, type IndexBlock, type Int8Block } from './segments.ts';
import type { IndexRow } from './schema.ts';
import { FaceIdTable } from './face-id-table.ts';
import { Int8Rows } from './int8-rows.ts';
import { createKernel, ROW_ALIGN_BYTES, type KernelChoice, type KernelKind, type ScoreKernel } from './kernel.ts';
import { bestPerGroup, topK } from './rank.ts';

export interface TemplateMatch {
  faceId: string;
  subject: string;
  /** cosine similarity, -1..1 */
  similarity: number;
  /** epoch ms as a digit string, as the interface returns it */
  enrollmentTimestamp: string;
}

/** A subject's best-matching template. */
export type SubjectMatch = TemplateMatch;

export interface MatrixMemory {
  rows: number;
  capacity: number;
  kernel: KernelKind | 'int8-simd';
  /** the kernel's buffer: padded rows, query and scores (exact) */
  matrixBytes: number;
  /** subject, timestamp and face id columns with the face id table, and the per-subject scratch (exact) */
  columnBytes: number;
  /** subject names (and face ids not in the engine's UUID form) with their lookup maps: an estimate (JS strings and Maps) */
  idBytes: number;
  total: number;
}

export interface MatrixOptions {
  /** 'auto' (default): WebAssembly SIMD where available, else plain JS */
  kernel?: KernelChoice;
  /**
   * 'float32' (default): exact scores. 'int8': rows in a quarter of the memory (int8-rows.ts);
   * the matrix then only names the candidates of a search (templateCandidates,
   * subjectCandidates), which the caller scores exactly from the stored embeddings.
   */
  precision?: 'float32' | 'int8';
  /** rows to allocate up front */
  capacity?: number;
}

const MIN_CAPACITY = 64;
/**
 * Per id beyond its characters (V8 keeps ASCII one byte per character): string header, array
 * slot and Map entry. Calibrated once against the JS heap growth of a 20k-template index.
 */
const ID_OVERHEAD_BYTES = 64;

export class EmbeddingMatrix {
  /** embedding length; 0 until the first row fixes it */
  private dimension: number;
  private stride = 0;
  private rowBytes = 0;
  private capacity = 0;
  private count = 0;
  private readonly kernel: ScoreKernel;
  private rows = new Float32Array(0);
  private readonly int8Precision: boolean;
  private int8: Int8Rows | undefined;

  private readonly faceIds = new FaceIdTable();
  private rowSubject = new Int32Array(0);
  private timestamps = new Float64Array(0);

  // subjects as small ints, so per-subject aggregation indexes typed arrays; slots are reused
  private readonly subjectSlot = new Map<string, number>();
  private subjectNames: string[] = [];
  private subjectRows: number[] = [];
  private readonly freeSlots: number[] = [];
  private best = new Float32Array(0);
  private bestRow = new Int32Array(0);

  constructor(dim = 0, options: MatrixOptions = {}) {
    this.dimension = 0;
    this.int8Precision = options.precision === 'int8';
    this.kernel = createKernel(ROW_ALIGN_BYTES, options.kernel);
    if (dim > 0) this.setDimension(dim, options.capacity ?? MIN_CAPACITY);
  }

  /** A matrix holding `blocks` (as read from storage). */
  static fromBlocks(blocks: readonly IndexBlock[], options: MatrixOptions = {}): EmbeddingMatrix {
    const total = blocks.reduce((n, b) => n + b.faceIds.length, 0);
    const matrix = new EmbeddingMatrix(blocks[0]?.dim ?? 0, { ...options, capacity: Math.max(MIN_CAPACITY, total) });
    for (const block of blocks) matrix.addBlock(block);
    return matrix;
  }

  /** An int8 matrix holding `blocks` as stored (`int8Segments`): their rows are copied, not quantised again. */
  static fromInt8Blocks(blocks: readonly Int8Block[], options: Omit<MatrixOptions, 'precision'> = {}): EmbeddingMatrix {
    const total = blocks.reduce((n, b) => n + rowCount(b), 0);
    const matrix = new EmbeddingMatrix(blocks[0]?.dim ?? 0, { ...options, precision: 'int8', capacity: Math.max(MIN_CAPACITY, total) });
    for (const block of blocks) matrix.appendStored(block);
    return matrix;
  }

  get dim(): number {
    return this.dimension;
  }

  get size(): number {
    return this.count;
  }

  get kernelKind(): KernelKind {
    return this.kernel.kind;
  }

  /** int8 rows: searches name candidates, the caller scores them exactly */
  get compact(): boolean {
    return this.int8Precision;
  }

  has(faceId: string): boolean {
    this.indexIds();
    return this.faceIds.rowOf(faceId) !== undefined;
  }

  /** rows not yet findable by face id (indexIds) */
  get idsDeferred(): boolean {
    return this.faceIds.deferred;
  }

  /**
   * Makes rows findable by face id (fromInt8Blocks defers it: the first search needs none).
   * Done by every method that looks an id up, or ahead of them (the search index does it after
   * a reopen's first answer). A row whose id an earlier row has (never written by the store:
   * face ids are unique in a gallery) is removed here.
   */
  indexIds(): void {
    if (!this.idsDeferred) return;
    const duplicates = this.faceIds.index();
    for (let i = duplicates.length - 1; i >= 0; i--) this.removeRow(duplicates[i]!);
  }

  /** Adds a row; false (and no change) if its face id is already here. */
  add(row: IndexRow): boolean {
    if (this.has(row.faceId)) return false;
    this.fitDimension(row.modelId, row.embedding.length);
    this.ensureCapacity(this.count + 1);
    this.append(row.faceId, row.subject, row.enrollmentTimestamp, row.embedding, 0);
    return true;
  }

  /** Adds a block's rows (skipping face ids already here); returns how many were added. */
  addBlock(block: IndexBlock): number {
    this.indexIds();
    this.fitDimension('stored', block.dim);
    this.ensureCapacity(this.count + block.faceIds.length);
    let added = 0;
    for (let i = 0; i < block.faceIds.length; i++) {
      const faceId = block.faceIds[i]!;
      if (this.has(faceId)) continue;
      this.append(faceId, block.subjects[i]!, block.timestamps[i]!, block.vectors, i * block.dim);
      added++;
    }
    return added;
  }

  /** Adds an int8 block's rows as stored (skipping face ids already here); returns how many were added. */
  addInt8Block(block: Int8Block): number {
    this.fitDimension('stored', block.dim);
    if (!this.int8) throw new Error('stored int8 rows go into an int8 matrix');
    this.indexIds();
    const n = rowCount(block);
    this.ensureCapacity(this.count + n);
    // the usual case (a reopen: no id of the block is here yet): its rows, times and id bytes
    // in bulk, each id checked as it goes in, no string made; a block with an id already here
    // is undone and added row by row
    const start = this.count;
    this.int8.copy(start, block, 0, n);
    const others = block.otherIds.length > 0 ? new Map(block.otherIds) : undefined;
    let fresh = 0;
    for (; fresh < n; fresh++) {
      const other = others?.get(fresh);
      const added = other === undefined ? this.faceIds.trySetBytes(start + fresh, block.ids, fresh * 16) : this.faceIds.trySet(start + fresh, other);
      if (!added) break;
    }
    if (fresh === n) {
      this.setBlockColumns(start, block);
      return n;
    }
    for (let i = 0; i < fresh; i++) this.faceIds.delete(start + i);
    const faceIds = segmentFaceIds(block);
    const subjects = segmentSubjects(block);
    let added = 0;
    for (let i = 0; i < n; i++) {
      const faceId = faceIds[i]!;
      if (this.has(faceId)) continue;
      const row = this.count++;
      this.int8.copy(row, block, i);
      this.faceIds.set(row, faceId);
      this.setColumns(row, subjects[i]!, block.timestamps[i]!);
      added++;
    }
    return added;
  }

  /**
   * A stored block's rows at the end, their ids not looked up (deferred until indexIds): the
   * store's blocks of one gallery never repeat an id. Ids other than the engine's UUIDs are
   * few: such a block goes in as addInt8Block adds it.
   */
  private appendStored(block: Int8Block): void {
    if (block.otherIds.length > 0 || !this.int8) {
      this.addInt8Block(block);
      return;
    }
    this.fitDimension('stored', block.dim);
    const n = rowCount(block);
    this.ensureCapacity(this.count + n);
    this.int8.copy(this.count, block, 0, n);
    this.faceIds.deferRows(this.count, block.ids, n);
    this.setBlockColumns(this.count, block);
  }

  /** Rows [start, start + n) (capacity ensured, ids set) get the block's subjects and times; they count from now. */
  private setBlockColumns(start: number, block: Int8Block): void {
    const n = rowCount(block);
    const slots = block.subjectNames.map((name) => this.subjectSlotOf(name));
    for (let i = 0; i < n; i++) {
      const slot = slots[block.subjectOf[i]!]!;
      this.rowSubject[start + i] = slot;
      this.subjectRows[slot]!++;
    }
    this.timestamps.set(block.timestamps, start);
    this.count += n;
  }

  /** Removes a row; false if the face id is not here. */
  remove(faceId: string): boolean {
    this.indexIds();
    const row = this.faceIds.rowOf(faceId);
    if (row === undefined) return false;
    this.removeRow(row);
    return true;
  }

  /** Takes row `row` out: the last row moves into its place. */
  private removeRow(row: number): void {
    this.faceIds.delete(row);
    this.releaseSubject(this.rowSubject[row]!);
    const last = this.count - 1;
    if (row !== last) {
      if (this.int8) this.int8.move(last, row);
      else this.rows.copyWithin(row * this.stride, last * this.stride, (last + 1) * this.stride);
      this.faceIds.move(last, row);
      this.rowSubject[row] = this.rowSubject[last]!;
      this.timestamps[row] = this.timestamps[last]!;
    }
    this.count = last;
  }

  /**
   * Cosine similarity of `query` with every row: a view of scratch memory, valid until the
   * matrix is next searched or changed.
   */
  scores(query: ArrayLike<number>): Float32Array {
    if (this.count === 0) return new Float32Array(0);
    this.checkQuery(query);
    if (this.int8) throw new Error('an int8 matrix has no exact scores: search its candidates');
    const buffer = this.kernel.buffer;
    writeNormalised(new Float32Array(buffer, 0, this.stride), 0, query, 0, this.dimension, this.stride);
    const rowsAt = this.rowBytes;
    const scoresAt = rowsAt + this.capacity * this.rowBytes;
    this.kernel.score(rowsAt, 0, scoresAt, this.count, this.rowBytes);
    return new Float32Array(buffer, scoresAt, this.count);
  }

  /** The k most similar templates with similarity ≥ minSimilarity, best first. */
  searchTemplates(query: ArrayLike<number>, k: number, minSimilarity = -Infinity): TemplateMatch[] {
    const scores = this.scores(query);
    return topK(scores, this.count, k, minSimilarity).map(({ id, score }) => this.match(id, score));
  }

  /**
   * The k subjects whose best template is most similar, at least minSimilarity, best first;
   * each with that best template (what /recognize returns as candidates).
   */
  searchSubjects(query: ArrayLike<number>, k: number, minSimilarity = -Infinity): SubjectMatch[] {
    const scores = this.scores(query);
    const { best, bestRow, slots } = this.subjectScratch();
    bestPerGroup(scores, this.rowSubject, this.count, best, bestRow);
    // slots of departed subjects keep -Infinity and never pass a finite minimum; guard -Infinity itself
    const floor = Math.max(minSimilarity, -Number.MAX_VALUE);
    return topK(best, slots, k, floor).map(({ id, score }) => this.match(bestRow[id]!, score));
  }

  /**
   * int8: the rows that may be among the k most similar templates with similarity ≥
   * minSimilarity, ascending (their exact scores decide: int8-rows.ts has the bound).
   */
  templateCandidates(query: ArrayLike<number>, k: number, minSimilarity = -Infinity): number[] {
    return this.candidates(query, k, minSimilarity, undefined);
  }

  /**
   * int8: the rows that may be the best template of one of the k subjects whose best template
   * is most similar (at least minSimilarity), ascending.
   */
  subjectCandidates(query: ArrayLike<number>, k: number, minSimilarity = -Infinity): number[] {
    return this.candidates(query, k, minSimilarity, this.rowSubject);
  }

  /**
   * The rows that may be the best row of one of the k groups (subjects, or each row its own)
   * whose best row scores highest, at least minSimilarity. Each row's exact score lies in
   * [s − b, s + b] (s its approximate score, b its own error bound: int8-rows.ts), so a group's
   * best is at least the highest s − b of its rows, and the k-th highest group best at least
   * the k-th highest of those, kth. A row can be one of the answer's only if its s + b reaches
   * kth, minSimilarity, and every s − b of its group. Every group whose best is ≥ some L is
   * seen, best included, among the rows with s ≥ L: so the rows above a threshold L that the
   * scan's histogram guesses (a few dozen) decide, unless a row below L could still reach the
   * floor (s + largest b), when L is lowered and they are listed again.
   */
  private candidates(query: ArrayLike<number>, k: number, minSimilarity: number, groups: Int32Array | undefined): number[] {
    if (!this.int8) throw new Error('a float32 matrix scores exactly: use searchTemplates / searchSubjects');
    if (this.count === 0) return [];
    this.checkQuery(query);
    if (!(k > 0)) return [];
    const { scores, bound, boundOf } = this.int8.score(query, this.count);
    for (let want = 4 * k + 16; ; want *= 8) {
      // float32, as the scan compares: what is listed is exactly the rows with s ≥ lowest
      const lowest = Math.fround(this.int8.threshold(want) - 2 * bound);
      const rows = this.int8.above(scores, lowest);
      const bounds = rows.map(boundOf);
      // per group, the highest s − b of its listed rows: a lower bound of its best exact score
      const floorOf = new Map<number, number>();
      rows.forEach((r, i) => {
        const group = groups ? groups[r]! : r;
        const low = scores[r]! - bounds[i]!;
        if (!(floorOf.get(group)! >= low)) floorOf.set(group, low);
      });
      const kth = floorOf.size >= k ? [...floorOf.values()].sort((a, b) => b - a)[k - 1]! : -Infinity;
      const floor = Math.max(kth, minSimilarity);
      if (floor - bound < lowest) continue; // a row below what was listed could reach the floor
      return rows.filter((r, i) => {
        const high = scores[r]! + bounds[i]!;
        return high >= floor && high >= floorOf.get(groups ? groups[r]! : r)!;
      });
    }
  }

  /** Per-subject scratch for bestPerGroup, one slot per subject slot (reused across searches). */
  private subjectScratch(): { best: Float32Array; bestRow: Int32Array; slots: number } {
    const slots = this.subjectNames.length;
    if (this.best.length < slots) {
      this.best = new Float32Array(slots * 2);
      this.bestRow = new Int32Array(slots * 2);
    }
    return { best: this.best.subarray(0, slots), bestRow: this.bestRow.subarray(0, slots), slots };
  }

  /** Row `row`'s template, without its embedding. */
  rowRef(row: number): { faceId: string; subject: string; enrollmentTimestamp: number } {
    return { faceId: this.faceIds.id(row), subject: this.subjectNames[this.rowSubject[row]!]!, enrollmentTimestamp: this.timestamps[row]! };
  }

  private checkQuery(query: ArrayLike<number>): void {
    if (query.length !== this.dimension) {
      throw new EngineError('CORRUPT_FACE_DATA', `the query embedding has ${query.length} dimensions; the gallery's have ${this.dimension}`);
    }
  }

  /** What the matrix holds in memory (typed arrays exactly, strings estimated). */
  memory(): MatrixMemory {
    const matrixBytes = this.kernel.buffer.byteLength + (this.int8?.bytes ?? 0);
    const columnBytes = this.rowSubject.byteLength + this.timestamps.byteLength + this.best.byteLength + this.bestRow.byteLength + this.faceIds.byteLength;
    let idBytes = 0;
    for (const id of this.faceIds.others) idBytes += id.length + ID_OVERHEAD_BYTES;
    for (const name of this.subjectSlot.keys()) idBytes += name.length + ID_OVERHEAD_BYTES;
    return { rows: this.count, capacity: this.capacity, kernel: this.int8 ? 'int8-simd' : this.kernel.kind, matrixBytes, columnBytes, idBytes, total: matrixBytes + columnBytes + idBytes };
  }

  private match(row: number, similarity: number): TemplateMatch {
    return {
      faceId: this.faceIds.id(row),
      subject: this.subjectNames[this.rowSubject[row]!]!,
      similarity,
      enrollmentTimestamp: String(this.timestamps[row]!),
    };
  }

  private fitDimension(modelId: string, dim: number): void {
    if (this.dimension === 0) this.setDimension(dim, MIN_CAPACITY);
    else if (dim !== this.dimension) throw dimensionMismatch(modelId, this.dimension, dim);
  }

  private setDimension(dim: number, capacity: number): void {
    if (!(Number.isInteger(dim) && dim > 0)) throw new RangeError(`bad embedding dimension ${dim}`);
    this.dimension = dim;
    this.rowBytes = Math.ceil((dim * 4) / ROW_ALIGN_BYTES) * ROW_ALIGN_BYTES;
    this.stride = this.rowBytes / 4;
    if (this.int8Precision) this.int8 = new Int8Rows(dim, capacity);
    this.ensureCapacity(capacity);
  }

  private ensureCapacity(rows: number): void {
    if (rows <= this.capacity) return;
    const capacity = Math.max(rows, MIN_CAPACITY, Math.ceil(this.capacity * 1.5));
    if (this.int8) {
      this.int8.grow(capacity);
    } else {
      // query row + rows + one float32 score per row
      this.kernel.grow(this.rowBytes + capacity * this.rowBytes + capacity * 4);
      this.rows = new Float32Array(this.kernel.buffer, this.rowBytes, capacity * this.stride);
    }
    this.capacity = capacity;
    const rowSubject = new Int32Array(capacity);
    rowSubject.set(this.rowSubject.subarray(0, this.count));
    this.rowSubject = rowSubject;
    const timestamps = new Float64Array(capacity);
    timestamps.set(this.timestamps.subarray(0, this.count));
    this.timestamps = timestamps;
    this.faceIds.grow(capacity);
  }

  /** Writes row `count` (capacity ensured) from source[from, from + dim). */
  private append(faceId: string, subject: string, timestamp: number, source: ArrayLike<number>, from: number): void {
    const row = this.count++;
    if (this.int8) this.int8.write(row, source, from);
    else writeNormalised(this.rows, row * this.stride, source, from, this.dimension, this.stride);
    this.faceIds.set(row, faceId);
    this.setColumns(row, subject, timestamp);
  }

  /** a row's subject and timestamp (its face id is set apart: a reopen checks and sets it in one probe) */
  private setColumns(row: number, subject: string, timestamp: number): void {
    this.rowSubject[row] = this.claimSubject(subject);
    this.timestamps[row] = timestamp;
  }

  /** the subject's slot, a new one (holding no rows yet) if it has none */
  private subjectSlotOf(subject: string): number {
    let slot = this.subjectSlot.get(subject);
    if (slot === undefined) {
      slot = this.freeSlots.pop() ?? this.subjectNames.length;
      this.subjectSlot.set(subject, slot);
      this.subjectNames[slot] = subject;
      this.subjectRows[slot] = 0;
    }
    return slot;
  }

  private claimSubject(subject: string): number {
    const slot = this.subjectSlotOf(subject);
    this.subjectRows[slot]!++;
    return slot;
  }

  private releaseSubject(slot: number): void {
    if (--this.subjectRows[slot]! > 0) return;
    this.subjectSlot.delete(this.subjectNames[slot]!);
    this.subjectNames[slot] = '';
    this.freeSlots.push(slot);
  }
}

/**
 * target[at, at + dim) = source[from, from + dim) / ‖·‖ (a zero vector stays zero), and the
 * padding up to `stride` zeroed: a new row may land where the scores scratch used to be.
 */
function writeNormalised(target: Float32Array, at: number, source: ArrayLike<number>, from: number, dim: number, stride: number): void {
  let sum = 0;
  for (let j = 0; j < dim; j++) {
    const v = source[from + j]!;
    sum += v * v;
  }
  const scale = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  for (let j = 0; j < dim; j++) target[at + j] = source[from + j]! * scale;
  target.fill(0, at + dim, at + stride);
}
