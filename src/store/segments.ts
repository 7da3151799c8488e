// Packing templates into `segments` records and taking them out again (pure: the store does
// the reads and writes). A (account, gallery, model) has segments seq 0, 1, 2, ...; new rows
// go into the highest one until it is full. Removal compacts a segment in place, so after
// deletes some segments are part-full; that costs a few bytes, never correctness.
import { EngineError } from '../errors.ts';
import { quantiseRows } from './int8-rows.ts';
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

function emptySegment(owner: SegmentOwner, seq: number, dim: number): SegmentRecord {
  return { ...owner, seq, dim, faceIds: [], subjects: [], timestamps: new Float64Array(0), vectors: new Float32Array(0) };
}

/** `segment` with rows[from, to) appended (a new record; the input is not modified). */
function extended(segment: SegmentRecord, rows: readonly IndexRow[], from: number, to: number): SegmentRecord {
  const have = segment.faceIds.length;
  const { dim } = segment;
  const timestamps = new Float64Array(have + to - from);
  const vectors = new Float32Array((have + to - from) * dim);
  timestamps.set(segment.timestamps);
  vectors.set(segment.vectors);
  const faceIds = segment.faceIds.slice();
  const subjects = segment.subjects.slice();
  for (let i = from, at = have; i < to; i++, at++) {
    const row = rows[i]!;
    faceIds.push(row.faceId);
    subjects.push(row.subject);
    timestamps[at] = row.enrollmentTimestamp;
    vectors.set(row.embedding, at * dim);
  }
  return { ...segment, faceIds, subjects, timestamps, vectors };
}

/**
 * Appends `rows` (all of `owner`'s model) after `last`, the owner's highest segment if any:
 * fills it up to `capacity` rows, then opens seq + 1, + 2, ... Returns the records to write
 * and, per row, the seq it landed in. Throws CORRUPT_FACE_DATA when the rows' dimension
 * differs from each other's or from what the gallery already holds for this model.
 */
export function appendRows(
  last: SegmentRecord | undefined,
  owner: SegmentOwner,
  rows: readonly IndexRow[],
  capacity: number,
  /** open a new segment after `last` even if it has room (a bulk import's first chunk: undone by deleting whole segments) */
  fresh = false,
): { segments: SegmentRecord[]; seqs: number[] } {
  if (rows.length === 0) return { segments: [], seqs: [] };
  const dim = last?.dim ?? rows[0]!.embedding.length;
  for (const row of rows) if (row.embedding.length !== dim) throw dimensionMismatch(owner.modelId, dim, row.embedding.length);

  const segments: SegmentRecord[] = [];
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

/** `segment` without the rows of `faceIds` (a new record), or undefined if none remain. */
export function withoutRows(segment: SegmentRecord, faceIds: ReadonlySet<string>): SegmentRecord | undefined {
  const keep: number[] = [];
  segment.faceIds.forEach((id, i) => {
    if (!faceIds.has(id)) keep.push(i);
  });
  if (keep.length === 0) return undefined;
  const { dim } = segment;
  const timestamps = new Float64Array(keep.length);
  const vectors = new Float32Array(keep.length * dim);
  keep.forEach((i, at) => {
    timestamps[at] = segment.timestamps[i]!;
    vectors.set(segment.vectors.subarray(i * dim, (i + 1) * dim), at * dim);
  });
  return {
    ...segment,
    faceIds: keep.map((i) => segment.faceIds[i]!),
    subjects: keep.map((i) => segment.subjects[i]!),
    timestamps,
    vectors,
  };
}
