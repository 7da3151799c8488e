// Packing templates into `segments` records and taking them out again (pure: the store does
// the reads and writes). A (account, gallery, model) has segments seq 0, 1, 2, ...; new rows
// go into the highest one until it is full. Removal compacts a segment in place, so after
// deletes some segments are part-full; that costs a few bytes, never correctness.
import { EngineError } from '../errors.ts';
import { int8Stride, quantiseRows } from './int8-rows.ts';
import type { IndexRow, Int8SegmentRecord, SegmentRecord } from './schema.ts';

/**
 * Rows per segment: an enroll rewrites its gallery's last segment (512 × 128-d ≈ 260 kB),
 * and reopening reads ~200 of them per 100k templates; both stay cheap at this size.
 */
export const DEFAULT_SEGMENT_ROWS = 512;

/** Rows column-wise, as a segment holds them: what a float32 search index is built from. */
export type IndexBlock = Pick<SegmentRecord, 'dim' | 'faceIds' | 'subjects' | 'timestamps' | 'vectors'>;
/** Rows column-wise as int8 (an `int8Segments` record): what an int8 search index is built from. */
export type Int8Block = Pick<Int8SegmentRecord, 'dim' | 'faceIds' | 'subjects' | 'timestamps' | 'rows' | 'scales' | 'error'>;

/** A segment's rows as its `int8Segments` record (same key). */
export function int8Segment({ vectors, ...segment }: SegmentRecord): Int8SegmentRecord {
  return { ...segment, ...quantiseRows(vectors, segment.faceIds.length, segment.dim) };
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
  return { ...owner, seq, dim, faceIds: [], subjects: [], timestamps: new Float64Array(0), rows: new Int8Array(0), scales: new Float32Array(0), error: 0 };
}

/** `segment` with rows[from, to) appended, quantised (a new record; the input is not modified). */
function extended(segment: Int8SegmentRecord, rows: readonly IndexRow[], from: number, to: number): Int8SegmentRecord {
  const have = segment.faceIds.length;
  const { dim } = segment;
  const vectors = new Float32Array((to - from) * dim);
  for (let i = from; i < to; i++) vectors.set(rows[i]!.embedding, (i - from) * dim);
  const added = quantiseRows(vectors, to - from, dim);
  const timestamps = new Float64Array(have + to - from);
  timestamps.set(segment.timestamps);
  const quantised = new Int8Array(segment.rows.length + added.rows.length);
  quantised.set(segment.rows);
  quantised.set(added.rows, segment.rows.length);
  const scales = new Float32Array(have + to - from);
  scales.set(segment.scales);
  scales.set(added.scales, have);
  const faceIds = segment.faceIds.slice();
  const subjects = segment.subjects.slice();
  for (let i = from, at = have; i < to; i++, at++) {
    faceIds.push(rows[i]!.faceId);
    subjects.push(rows[i]!.subject);
    timestamps[at] = rows[i]!.enrollmentTimestamp;
  }
  return { ...segment, faceIds, subjects, timestamps, rows: quantised, scales, error: Math.max(segment.error, added.error) };
}

/**
 * Appends `rows` (all of `owner`'s model) after `last`, the owner's highest segment if any:
 * fills it up to `capacity` rows, then opens seq + 1, + 2, ... Returns the records to write
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
  let current = last && !fresh && last.faceIds.length < capacity ? last : emptySegment(owner, last ? last.seq + 1 : 0, dim);
  for (let from = 0; from < rows.length; ) {
    const to = Math.min(rows.length, from + capacity - current.faceIds.length);
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
 * `error` stays what it was: still a bound of the rows left, as the in-memory matrix's is.
 */
export function withoutRows(segment: Int8SegmentRecord, faceIds: ReadonlySet<string>): Int8SegmentRecord | undefined {
  const keep: number[] = [];
  segment.faceIds.forEach((id, i) => {
    if (!faceIds.has(id)) keep.push(i);
  });
  if (keep.length === 0) return undefined;
  const stride = int8Stride(segment.dim);
  const timestamps = new Float64Array(keep.length);
  const rows = new Int8Array(keep.length * stride);
  const scales = new Float32Array(keep.length);
  keep.forEach((i, at) => {
    timestamps[at] = segment.timestamps[i]!;
    rows.set(segment.rows.subarray(i * stride, (i + 1) * stride), at * stride);
    scales[at] = segment.scales[i]!;
  });
  return {
    ...segment,
    faceIds: keep.map((i) => segment.faceIds[i]!),
    subjects: keep.map((i) => segment.subjects[i]!),
    timestamps,
    rows,
    scales,
  };
}
