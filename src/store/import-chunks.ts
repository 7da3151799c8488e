// Splitting a bulk write into transactions of bounded size (pure: the store does the writing).
// A browser holds a transaction's writes in memory until it commits (Chromium in its browser
// process, all of them at once), so a million-template import in one transaction asks for
// gigabytes at the commit; in chunks each commit stays a few MB and the import's memory flat.

/** A photo to store, with the template records that refer to it. */
export interface ChunkPhoto {
  subject: string;
  imageKey: string;
  bytes: ArrayBuffer;
  type: string;
}

export interface WriteChunk<R> {
  records: R[];
  photos: ChunkPhoto[];
  /** about what the chunk writes (values only; IndexedDB adds keys and its own overhead) */
  bytes: number;
}

export interface ChunkLimits {
  /** templates per transaction */
  rows: number;
  /** bytes per transaction (a single bigger photo still gets a chunk of its own) */
  bytes: number;
}

/**
 * 5000 templates (about 5 MB with their segments) per transaction: past a few thousand the time
 * per template no longer falls (docs/benchmarks.md), while the memory a commit needs keeps growing.
 */
export const IMPORT_CHUNK_LIMITS: ChunkLimits = { rows: 5000, bytes: 32e6 };

/** Per template beyond its embedding: keys, box, attributes, timestamps (measured ~1 kB stored with attributes). */
const RECORD_OVERHEAD_BYTES = 600;

interface ChunkableRecord {
  subject: string;
  embedding: Float32Array;
  imageKey?: string;
}

/** About the bytes one template costs in a transaction: its record plus its row in a segment. */
export function templateBytes(record: { embedding: Float32Array }): number {
  return 2 * record.embedding.byteLength + RECORD_OVERHEAD_BYTES;
}

/**
 * `records` in order, cut into chunks of at most `limits.rows` templates and about
 * `limits.bytes`; each photo goes with the chunk of the first template that refers to it.
 */
export function importChunks<R extends ChunkableRecord>(records: readonly R[], photos: readonly ChunkPhoto[], limits: ChunkLimits = IMPORT_CHUNK_LIMITS): WriteChunk<R>[] {
  const photoOf = new Map(photos.map((p) => [JSON.stringify([p.subject, p.imageKey]), p]));
  const chunks: WriteChunk<R>[] = [];
  let current: WriteChunk<R> = { records: [], photos: [], bytes: 0 };
  for (const record of records) {
    const key = record.imageKey === undefined ? undefined : JSON.stringify([record.subject, record.imageKey]);
    const photo = key === undefined ? undefined : photoOf.get(key);
    const bytes = templateBytes(record) + (photo?.bytes.byteLength ?? 0);
    if (current.records.length > 0 && (current.records.length >= limits.rows || current.bytes + bytes > limits.bytes)) {
      chunks.push(current);
      current = { records: [], photos: [], bytes: 0 };
    }
    current.records.push(record);
    current.bytes += bytes;
    if (photo && key !== undefined) {
      current.photos.push(photo);
      photoOf.delete(key); // stored once, with its first template
    }
  }
  if (current.records.length > 0) chunks.push(current);
  return chunks;
}
