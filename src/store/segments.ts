// Packing templates into `segments` records and taking them out again (pure: the store does
// the reads and writes). A (account, gallery, model) has segments seq 0, 1, 2, ...; new rows
// go into the highest one until it is full. Removal compacts a segment in place, so after
// deletes some segments are part-full; that costs a few bytes, never correctness.
import { EngineError } from '../errors.ts';
import { uuidOfBytes, writeUuidBytes } from './face-id.ts';
import { int8Stride, quantiseRows, storedErrorCodes } from './int8-rows.ts';
import type { IndexRow, Int8SegmentRecord, LegacyInt8SegmentRecord, SegmentRecord } from './schema.ts';

/**
 * Rows per segment. Reopening reads every segment, and Chromium's IndexedDB charges about a
 * millisecond per record read whatever its size (300k templates: 586 records of 512 rows read
 * in 0.6–0.8 s, 74 of 4096 in 0.16–0.23 s on the loaded 2-core machine), so segments are big;
 * an enroll does not rewrite one that big (MAX_REWRITE_ROWS).
 */
export const DEFAULT_SEGMENT_ROWS = 4096;
/**
 * A write adds its rows to the last segment only while that holds at most
 * max(MAX_REWRITE_ROWS, 4 × the rows written), else it opens a new one: an enroll rewrites
 * ≤ 512 rows (~80 kB), a bulk write at most 4× its own rows.
 */
export const MAX_REWRITE_ROWS = 512;

/** Rows column-wise, as a segment holds them: what a float32 search index is built from. */
export type IndexBlock = Pick<SegmentRecord, 'dim' | 'faceIds' | 'subjects' | 'timestamps' | 'vectors'>;
/** Rows column-wise as int8 (an `int8Segments` record): what an int8 search index is built from. */
export type Int8Block = Pick<Int8SegmentRecord, 'dim' | 'ids' | 'otherIds' | 'subjectNames' | 'subjectOf' | 'timestamps' | 'rows' | 'scales' | 'error' | 'errors'>;
type Columns = Pick<Int8SegmentRecord, 'ids' | 'otherIds' | 'subjectNames' | 'subjectOf' | 'timestamps'>;

/** A segment's rows. */
export function rowCount(segment: Pick<Int8SegmentRecord, 'timestamps'>): number {
  return segment.timestamps.length;
}

/** Row i's face id (`otherIds`, when given as a Map, saves a scan per row). */
export function segmentFaceId(segment: Pick<Int8SegmentRecord, 'ids' | 'otherIds'>, i: number, others?: ReadonlyMap<number, string>): string {
  const other = others ? others.get(i) : segment.otherIds.find(([row]) => row === i)?.[1];
  return other ?? uuidOfBytes(segment.ids, i * 16);
}

/** Every row's face id, in row order. */
export function segmentFaceIds(segment: Pick<Int8SegmentRecord, 'ids' | 'otherIds' | 'timestamps'>): string[] {
  const others = new Map(segment.otherIds);
  return Array.from({ length: rowCount(segment) }, (_, i) => segmentFaceId(segment, i, others));
}

/** Every row's subject, in row order. */
export function segmentSubjects(segment: Pick<Int8SegmentRecord, 'subjectNames' | 'subjectOf'>): string[] {
  return Array.from(segment.subjectOf, (s) => segment.subjectNames[s]!);
}

/** Rows given by id, subject and time as a segment's columns (ids packed, subjects indexed). */
function packColumns(faceIds: readonly string[], subjects: readonly string[], timestamps: Float64Array): Columns {
  const n = faceIds.length;
  const ids = new Uint8Array(n * 16);
  const otherIds: [number, string][] = [];
  faceIds.forEach((id, i) => {
    if (!writeUuidBytes(id, ids, i * 16)) {
      ids.fill(0, i * 16, i * 16 + 16);
      otherIds.push([i, id]);
    }
  });
  const index = new Map<string, number>();
  const subjectNames: string[] = [];
  const subjectOf = new Uint32Array(n);
  subjects.forEach((name, i) => {
    let at = index.get(name);
    if (at === undefined) index.set(name, (at = subjectNames.push(name) - 1));
    subjectOf[i] = at;
  });
  return { ids, otherIds, subjectNames, subjectOf, timestamps };
}

/** A segment's rows as its `int8Segments` record (same key). */
export function int8Segment({ vectors, faceIds, subjects, timestamps, ...segment }: SegmentRecord): Int8SegmentRecord {
  return { ...segment, ...packColumns(faceIds, subjects, timestamps), ...quantiseRows(vectors, faceIds.length, segment.dim) };
}

/** A version 3–4 `int8Segments` record (ids and subjects as strings per row) in the version 5 form. */
export function packedSegment({ faceIds, subjects, timestamps, ...segment }: LegacyInt8SegmentRecord): Int8SegmentRecord {
  return { ...segment, ...packColumns(faceIds, subjects, timestamps) };
}

export interface SegmentOwner {
  appId: string;
  gallery: string;
  modelId: string;
}

export function dimensionMismatch(modelId: string, expected: number, got: number): EngineError {
  return new EngineError(
    'CORRUPT_FACE_DATA',
    `${modelId} embeddings in this gallery have ${expected} dimensions; this one has ${got}`,
  );
}

function emptySegment(owner: SegmentOwner, seq: number, dim: number): Int8SegmentRecord {
  return { ...owner, seq, dim, ...packColumns([], [], new Float64Array(0)), rows: new Int8Array(0), scales: new Float32Array(0), error: 0, errors: new Uint8Array(0) };
}

/** `segment` with rows[from, to) appended, quantised (a new record; the input is not modified). */
function extended(segment: Int8SegmentRecord, rows: readonly IndexRow[], from: number, to: number): Int8SegmentRecord {
  const have = rowCount(segment);
  const { dim } = segment;
  const vectors = new Float32Array((to - from) * dim);
  for (let i = from; i < to; i++) vectors.set(rows[i]!.embedding, (i - from) * dim);
  const added = quantiseRows(vectors, to - from, dim);
  const quantised = new Int8Array(segment.rows.length + added.rows.length);
  quantised.set(segment.rows);
  quantised.set(added.rows, segment.rows.length);
  const scales = new Float32Array(have + to - from);
  scales.set(segment.scales);
  scales.set(added.scales, have);
  const errors = new Uint8Array(have + to - from);
  errors.set(storedErrorCodes(segment, dim));
  errors.set(added.errors, have);
  const part = rows.slice(from, to);
  const columns = packColumns(part.map((r) => r.faceId), part.map((r) => r.subject), Float64Array.from(part, (r) => r.enrollmentTimestamp));
  return { ...segment, ...joinedColumns(segment, columns), rows: quantised, scales, errors, error: Math.max(segment.error, added.error) };
}

/** `a`'s rows then `b`'s, as one segment's columns (bytes copied: an enroll does not parse the segment's ids again). */
function joinedColumns(a: Columns, b: Columns): Columns {
  const n = rowCount(a);
  const ids = new Uint8Array(a.ids.length + b.ids.length);
  ids.set(a.ids);
  ids.set(b.ids, a.ids.length);
  const subjectNames = [...a.subjectNames];
  const index = new Map(subjectNames.map((name, i) => [name, i]));
  const renumbered = b.subjectNames.map((name) => index.get(name) ?? subjectNames.push(name) - 1);
  const subjectOf = new Uint32Array(n + rowCount(b));
  subjectOf.set(a.subjectOf);
  b.subjectOf.forEach((s, i) => (subjectOf[n + i] = renumbered[s]!));
  const timestamps = new Float64Array(n + rowCount(b));
  timestamps.set(a.timestamps);
  timestamps.set(b.timestamps, n);
  return { ids, otherIds: [...a.otherIds, ...b.otherIds.map(([row, id]): [number, string] => [n + row, id])], subjectNames, subjectOf, timestamps };
}

/**
 * Appends `rows` (all of `owner`'s model) after `last`, the owner's highest segment if any:
 * fills it up to `capacity` rows (unless it holds more than a write may rewrite:
 * MAX_REWRITE_ROWS), then opens seq + 1, + 2, ... Returns the records to write
 * and, per row, the seq it landed in. Throws CORRUPT_FACE_DATA when the rows' dimension
 * differs from each other's or from what the gallery already holds for this model.
 */
export function appendRows(
  last: Int8SegmentRecord | undefined,
  owner: SegmentOwner,
  rows: readonly IndexRow[],
  capacity: number,
  /** open a new segment after `last` even if it has room (a bulk import's first chunk: undone by deleting whole segments) */
  fresh = false,
): { segments: Int8SegmentRecord[]; seqs: number[] } {
  if (rows.length === 0) return { segments: [], seqs: [] };
  const dim = last?.dim ?? rows[0]!.embedding.length;
  for (const row of rows) if (row.embedding.length !== dim) throw dimensionMismatch(owner.modelId, dim, row.embedding.length);

  const segments: Int8SegmentRecord[] = [];
  const seqs: number[] = [];
  const held = last ? rowCount(last) : 0;
  const extend = last && !fresh && held < capacity && held <= Math.max(MAX_REWRITE_ROWS, 4 * rows.length);
  let current = extend ? last : emptySegment(owner, last ? last.seq + 1 : 0, dim);
  for (let from = 0; from < rows.length; ) {
    const to = Math.min(rows.length, from + capacity - rowCount(current));
    current = extended(current, rows, from, to);
    segments.push(current);
    for (let i = from; i < to; i++) seqs.push(current.seq);
    from = to;
    if (from < rows.length) current = emptySegment(owner, current.seq + 1, dim);
  }
  return { segments, seqs };
}

/**
 * `segment` without the rows of `faceIds` (a new record), or undefined if none remain. Its
 * `error` stays what it was: still a bound of the rows left, as the in-memory matrix's is; each
 * row keeps its own bound (`errors`, made from `error` for a segment stored without them).
 */
export function withoutRows(segment: Int8SegmentRecord, faceIds: ReadonlySet<string>): Int8SegmentRecord | undefined {
  const ids = segmentFaceIds(segment);
  const keep: number[] = [];
  ids.forEach((id, i) => {
    if (!faceIds.has(id)) keep.push(i);
  });
  if (keep.length === 0) return undefined;
  const stride = int8Stride(segment.dim);
  const rows = new Int8Array(keep.length * stride);
  const scales = new Float32Array(keep.length);
  const codes = storedErrorCodes(segment, segment.dim);
  const errors = new Uint8Array(keep.length);
  keep.forEach((i, at) => {
    rows.set(segment.rows.subarray(i * stride, (i + 1) * stride), at * stride);
    scales[at] = segment.scales[i]!;
    errors[at] = codes[i]!;
  });
  const subjects = segmentSubjects(segment);
  const columns = packColumns(
    keep.map((i) => ids[i]!),
    keep.map((i) => subjects[i]!),
    Float64Array.from(keep, (i) => segment.timestamps[i]!),
  );
  return { ...segment, ...columns, rows, scales, errors };
}
