// The pure parts of the recognition store, in Node: ranking, the embedding matrix (both
// scoring kernels) against brute force, segment packing, face ids and notice parsing.
// IndexedDB, transactions and cross-tab behaviour are tested in Chromium (test/browser/store.test.ts).
import { describe, expect, it } from 'vitest';
import { EngineError } from '../../src/errors.ts';
import { readNotice } from '../../src/store/changes.ts';
import { newFaceId } from '../../src/store/face-id.ts';
import { SIMD_MODULE_BYTES, createKernel, type KernelKind } from '../../src/store/kernel.ts';
import { EmbeddingMatrix } from '../../src/store/matrix.ts';
import { TopK, bestPerGroup, topK } from '../../src/store/rank.ts';
import { errorCode, quantiseRows } from '../../src/store/int8-rows.ts';
import type { IndexRow, Int8SegmentRecord } from '../../src/store/schema.ts';
import { MAX_REWRITE_ROWS, appendRows, rowCount, segmentFaceIds, segmentSubjects, withoutRows } from '../../src/store/segments.ts';
import { seededRandom as rng } from './helpers/seeded-random.ts';


function vector(random: () => number, dim: number): Float32Array {
  return Float32Array.from({ length: dim }, () => random() * 2 - 1);
}

function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na && nb ? dot / Math.sqrt(na * nb) : 0;
}

function rows(random: () => number, n: number, dim: number, subjects: number, prefix = 'f'): IndexRow[] {
  return Array.from({ length: n }, (_, i) => ({
    faceId: `${prefix}${i}`,
    subject: `s${Math.floor(random() * subjects)}`,
    modelId: 'm',
    enrollmentTimestamp: 1_700_000_000_000 + i,
    embedding: vector(random, dim),
  }));
}

/** Brute force over `live`: every row's cosine, sorted best first. */
function bruteForce(live: readonly IndexRow[], query: Float32Array) {
  return live.map((r) => ({ faceId: r.faceId, subject: r.subject, similarity: cosine(r.embedding, query) })).sort((a, b) => b.similarity - a.similarity);
}

function bruteForceSubjects(live: readonly IndexRow[], query: Float32Array) {
  const best = new Map<string, { faceId: string; subject: string; similarity: number }>();
  for (const hit of bruteForce(live, query)) if (!best.has(hit.subject)) best.set(hit.subject, hit);
  return [...best.values()];
}

describe('ranking', () => {
  it('topK returns the k best at or above the minimum, best first, like sorting does', () => {
    const random = rng(1);
    for (const [n, k] of [[0, 5], [1, 1], [10, 3], [1000, 10], [1000, 1000], [50, 80]] as const) {
      const scores = Float32Array.from({ length: n }, () => random() * 2 - 1);
      for (const min of [-Infinity, 0, 0.9]) {
        const expected = Array.from(scores, (score, id) => ({ id, score }))
          .filter((e) => e.score >= min)
          .sort((a, b) => b.score - a.score || a.id - b.id)
          .slice(0, k);
        expect(topK(scores, n, k, min)).toEqual(expected);
      }
    }
  });

  it('topK: k ≤ 0 gives nothing, NaN never qualifies, ties at the cut keep the earlier id', () => {
    expect(topK([1, 2, 3], 3, 0)).toEqual([]);
    expect(topK([NaN, 0.5, NaN], 3, 3)).toEqual([{ id: 1, score: 0.5 }]);
    expect(topK([0.5, 0.7, 0.5, 0.5], 4, 2)).toEqual([{ id: 1, score: 0.7 }, { id: 0, score: 0.5 }]);
  });

  it('TopK.floor is -Infinity until full, then the weakest held score', () => {
    const top = new TopK(2);
    expect(top.floor).toBe(-Infinity);
    top.offer(0.3, 0);
    expect(top.floor).toBe(-Infinity);
    top.offer(0.1, 1);
    expect(top.floor).toBeCloseTo(0.1);
    top.offer(0.2, 2);
    expect(top.floor).toBeCloseTo(0.2);
    expect(top.sorted().map((e) => e.id)).toEqual([0, 2]);
  });

  it('bestPerGroup keeps the best score and its index per group; empty groups stay -Infinity/-1', () => {
    const best = new Float32Array(4);
    const bestIndex = new Int32Array(4);
    bestPerGroup([0.1, 0.9, 0.4, 0.95, -0.2], [0, 0, 1, 3, 1], 5, best, bestIndex);
    expect(Array.from(best)).toEqual([Math.fround(0.9), Math.fround(0.4), -Infinity, Math.fround(0.95)]);
    expect(Array.from(bestIndex)).toEqual([1, 2, -1, 3]);
  });
});

describe('scoring kernels', () => {
  it('the WebAssembly SIMD module validates and is used by default', () => {
    expect(WebAssembly.validate(SIMD_MODULE_BYTES)).toBe(true);
    expect(createKernel(1024).kind).toBe('wasm-simd');
    expect(createKernel(1024, 'js').kind).toBe('js');
  });

  it('both kernels compute the same dot products as float64 brute force', () => {
    const random = rng(2);
    const rowBytes = 192; // 48 floats: three turns of the 16-float inner loop
    const stride = rowBytes / 4;
    const n = 37;
    for (const kind of ['wasm-simd', 'js'] as const) {
      const kernel = createKernel(rowBytes * (n + 1) + n * 4, kind);
      const query = new Float32Array(kernel.buffer, 0, stride);
      query.set(vector(random, stride));
      const matrix = new Float32Array(kernel.buffer, rowBytes, n * stride);
      matrix.set(Float32Array.from({ length: n * stride }, () => random() * 2 - 1));
      const outAt = rowBytes * (n + 1);
      kernel.score(rowBytes, 0, outAt, n, rowBytes);
      const out = new Float32Array(kernel.buffer, outAt, n);
      for (let r = 0; r < n; r++) {
        let dot = 0;
        for (let j = 0; j < stride; j++) dot += matrix[r * stride + j]! * query[j]!;
        expect(out[r]).toBeCloseTo(dot, 4);
      }
    }
  });
});

describe.each(['wasm-simd', 'js'] as const)('EmbeddingMatrix (%s kernel)', (kernel: KernelKind) => {
  it('search and subject search equal brute force, for dims that are and are not multiples of 16', () => {
    const random = rng(3);
    for (const dim of [128, 100, 3]) {
      const live = rows(random, 500, dim, 60);
      const matrix = new EmbeddingMatrix(0, { kernel });
      for (const row of live) matrix.add(row);
      expect(matrix.kernelKind).toBe(kernel);
      for (let q = 0; q < 5; q++) {
        const query = vector(random, dim);
        const expected = bruteForce(live, query).slice(0, 10);
        const got = matrix.searchTemplates(query, 10);
        expect(got.map((m) => m.faceId)).toEqual(expected.map((e) => e.faceId));
        got.forEach((m, i) => expect(m.similarity).toBeCloseTo(expected[i]!.similarity, 5));
        const subjects = bruteForceSubjects(live, query).slice(0, 7);
        expect(matrix.searchSubjects(query, 7).map((m) => [m.subject, m.faceId])).toEqual(subjects.map((s) => [s.subject, s.faceId]));
      }
    }
  });

  it('stays equal to brute force through random adds and removes (swap-with-last, growth, reused subject slots)', () => {
    const random = rng(4);
    const dim = 64;
    const pool = rows(random, 3000, dim, 200);
    const matrix = new EmbeddingMatrix(dim, { kernel, capacity: 1 });
    const live = new Map<string, IndexRow>();
    for (let step = 0; step < 6000; step++) {
      const row = pool[Math.floor(random() * pool.length)]!;
      if (random() < 0.6) {
        expect(matrix.add(row)).toBe(!live.has(row.faceId));
        live.set(row.faceId, row);
      } else {
        expect(matrix.remove(row.faceId)).toBe(live.delete(row.faceId));
      }
      if (step % 1000 === 999) {
        expect(matrix.size).toBe(live.size);
        const query = vector(random, dim);
        const expected = bruteForce([...live.values()], query).slice(0, 20);
        expect(matrix.searchTemplates(query, 20).map((m) => m.faceId)).toEqual(expected.map((e) => e.faceId));
        const subjects = bruteForceSubjects([...live.values()], query);
        const got = matrix.searchSubjects(query, 1000);
        expect(got.map((m) => m.subject)).toEqual(subjects.map((s) => s.subject));
        expect(got.every((m) => live.get(m.faceId)?.subject === m.subject)).toBe(true);
      }
    }
  });

  it('minSimilarity filters, results carry the enrollment timestamp as a digit string', () => {
    const matrix = new EmbeddingMatrix(0, { kernel });
    matrix.add({ faceId: 'a', subject: 'x', modelId: 'm', enrollmentTimestamp: 1_700_000_000_123, embedding: new Float32Array([1, 0]) });
    matrix.add({ faceId: 'b', subject: 'y', modelId: 'm', enrollmentTimestamp: 1_700_000_000_456, embedding: new Float32Array([0, 3]) });
    matrix.add({ faceId: 'c', subject: 'x', modelId: 'm', enrollmentTimestamp: 1_700_000_000_789, embedding: new Float32Array([1, 1]) });
    const query = new Float32Array([2, 0.1]);
    expect(matrix.searchTemplates(query, 10, 0.5).map((m) => m.faceId)).toEqual(['a', 'c']);
    expect(matrix.searchSubjects(query, 10, 0.5)).toEqual([
      { subject: 'x', faceId: 'a', similarity: expect.closeTo(cosine([1, 0], query), 5), enrollmentTimestamp: '1700000000123' },
    ]);
    expect(matrix.searchSubjects(query, 10).map((m) => m.subject)).toEqual(['x', 'y']);
  });

  it('rejects rows and queries of another dimension as corrupt face data; a zero vector scores 0', () => {
    const matrix = new EmbeddingMatrix(0, { kernel });
    matrix.add({ faceId: 'a', subject: 'x', modelId: 'm', enrollmentTimestamp: 1, embedding: new Float32Array(4) });
    const wrong = { faceId: 'b', subject: 'x', modelId: 'm', enrollmentTimestamp: 1, embedding: new Float32Array(5) };
    expect(() => matrix.add(wrong)).toThrow(EngineError);
    expect(() => matrix.add(wrong)).toThrow(/4 dimensions; this one has 5/);
    expect(() => matrix.searchTemplates(new Float32Array(3), 1)).toThrow(/query embedding has 3 dimensions/);
    expect(matrix.searchTemplates(new Float32Array([1, 0, 0, 0]), 1)[0]!.similarity).toBe(0);
    expect(new EmbeddingMatrix().searchTemplates(new Float32Array(7), 3)).toEqual([]);
  });

  it('fromBlocks reads float32 blocks; memory() accounts for the matrix, columns and ids', () => {
    const random = rng(5);
    const dim = 128;
    const live = rows(random, 1000, dim, 100);
    const vectors = new Float32Array(1000 * dim);
    live.forEach((r, i) => vectors.set(r.embedding, i * dim));
    const block = { dim, faceIds: live.map((r) => r.faceId), subjects: live.map((r) => r.subject), timestamps: Float64Array.from(live, (r) => r.enrollmentTimestamp), vectors };
    const matrix = EmbeddingMatrix.fromBlocks([block], { kernel });
    expect(matrix.size).toBe(1000);
    const query = vector(random, dim);
    expect(matrix.searchTemplates(query, 5).map((m) => m.faceId)).toEqual(bruteForce(live, query).slice(0, 5).map((e) => e.faceId));
    const memory = matrix.memory();
    expect(memory.rows).toBe(1000);
    expect(memory.matrixBytes).toBeGreaterThanOrEqual(1000 * dim * 4 + 1000 * 4);
    expect(memory.total).toBe(memory.matrixBytes + memory.columnBytes + memory.idBytes);
  });
});

describe('segments', () => {
  const owner = { appId: 'a', gallery: 'g', modelId: 'm' };

  it('fill the last segment up to capacity, then open the next seq', () => {
    const random = rng(6);
    const first = appendRows(undefined, owner, rows(random, 5, 4, 3, 'x'), 3);
    expect(first.segments.map((s) => [s.seq, rowCount(s)])).toEqual([[0, 3], [1, 2]]);
    expect(first.seqs).toEqual([0, 0, 0, 1, 1]);
    const last = first.segments[1]!;
    const ys = rows(random, 2, 4, 3, 'y');
    const next = appendRows(last, owner, ys, 3);
    expect(next.segments.map((s) => [s.seq, segmentFaceIds(s)])).toEqual([[1, ['x3', 'x4', 'y0']], [2, ['y1']]]);
    expect(next.segments[0]!.rows.subarray(2 * 16, 3 * 16)).toEqual(quantiseRows(ys[0]!.embedding, 1, 4).rows);
    expect(segmentFaceIds(last)).toEqual(['x3', 'x4']); // inputs are not modified
  });

  it('keep every row intact and refuse another dimension', () => {
    const random = rng(7);
    const input = rows(random, 7, 5, 2);
    const { segments } = appendRows(undefined, owner, input, 4);
    const all = segments.flatMap((s) => segmentFaceIds(s).map((id, i) => ({ id, subject: segmentSubjects(s)[i], t: s.timestamps[i], v: Array.from(s.rows.subarray(i * 16, i * 16 + 16)), scale: s.scales[i], error: s.errors?.[i] })));
    expect(all).toEqual(
      input.map((r) => {
        const own = quantiseRows(r.embedding, 1, 5);
        return { id: r.faceId, subject: r.subject, t: r.enrollmentTimestamp, v: Array.from(own.rows), scale: own.scales[0], error: own.errors[0] };
      }),
    );
    expect(() => appendRows(segments[1], owner, rows(random, 1, 6, 1), 4)).toThrow(/5 dimensions; this one has 6/);
  });

  it('withoutRows compacts, and yields undefined when nothing is left', () => {
    const random = rng(8);
    const [segment] = appendRows(undefined, owner, rows(random, 4, 2, 2), 10).segments as [Int8SegmentRecord];
    const rest = withoutRows(segment, new Set(['f1', 'f3']))!;
    expect(segmentFaceIds(rest)).toEqual(['f0', 'f2']);
    expect(Array.from(rest.rows)).toEqual([...segment.rows.subarray(0, 16), ...segment.rows.subarray(32, 48)]);
    expect(Array.from(rest.scales)).toEqual([segment.scales[0], segment.scales[2]]);
    expect(Array.from(rest.timestamps)).toEqual([segment.timestamps[0], segment.timestamps[2]]);
    expect(Array.from(rest.errors!)).toEqual([segment.errors![0], segment.errors![2]]);
    expect(withoutRows(segment, new Set(segmentFaceIds(segment)))).toBeUndefined();
  });

  it('a segment stored without per-row errors gets them from its largest error when rewritten, then keeps each row\'s own', () => {
    const random = rng(10);
    const [current] = appendRows(undefined, owner, rows(random, 4, 24, 2), 10).segments as [Int8SegmentRecord];
    const { errors, ...legacy } = current;
    const fallback = Array.from(legacy.scales, (scale) => errorCode(legacy.error, scale, 24));
    // each row's own bound is at most the fallback, which bounds it
    errors!.forEach((code, i) => expect(code).toBeLessThanOrEqual(fallback[i]!));
    expect(Array.from(withoutRows(legacy, new Set(['f1']))!.errors!)).toEqual([fallback[0], fallback[2], fallback[3]]);
    const ys = rows(random, 2, 24, 2, 'y');
    const [grown] = appendRows(legacy, owner, ys, 10).segments;
    expect(Array.from(grown!.errors!)).toEqual([...fallback, ...ys.map((y) => quantiseRows(y.embedding, 1, 24).errors[0])]);
  });

  it('keep UUID face ids as 16 bytes and other ids as strings, subjects once each; round-trip through a matrix', () => {
    const random = rng(9);
    const input = rows(random, 6, 4, 2).map((r, i) => (i % 3 === 2 ? r : { ...r, faceId: crypto.randomUUID() }));
    const [segment] = appendRows(undefined, owner, input, 10).segments as [Int8SegmentRecord];
    expect(segment.ids.length).toBe(6 * 16);
    expect(segment.otherIds).toEqual([[2, 'f2'], [5, 'f5']]);
    expect(segment.subjectNames.length).toBeLessThanOrEqual(2);
    expect(segmentFaceIds(segment)).toEqual(input.map((r) => r.faceId));
    expect(segmentSubjects(segment)).toEqual(input.map((r) => r.subject));
    const rest = withoutRows(segment, new Set([input[0]!.faceId, 'f2']))!;
    expect(segmentFaceIds(rest)).toEqual([1, 3, 4, 5].map((i) => input[i]!.faceId));
    expect(rest.otherIds).toEqual([[3, 'f5']]);
    const matrix = EmbeddingMatrix.fromInt8Blocks([rest]);
    expect([0, 1, 2, 3].map((r) => matrix.rowRef(r))).toEqual([1, 3, 4, 5].map((i) => ({ faceId: input[i]!.faceId, subject: input[i]!.subject, enrollmentTimestamp: input[i]!.enrollmentTimestamp })));
    // a block whose ids are partly there already adds only the others
    expect(matrix.addInt8Block(segment)).toBe(2);
    expect(matrix.has('f2') && matrix.has(input[0]!.faceId) && matrix.remove('f5')).toBe(true);
    expect(matrix.size).toBe(5);
    // stored blocks of UUIDs defer their ids until first looked up; a repeated id (never written by the store) is dropped then
    const uuids = appendRows(undefined, owner, rows(random, 4, 4, 2).map((r) => ({ ...r, faceId: crypto.randomUUID() })), 10).segments[0]!;
    const ids = segmentFaceIds(uuids);
    const reopened = EmbeddingMatrix.fromInt8Blocks([uuids, uuids]);
    expect([reopened.idsDeferred, reopened.size, reopened.rowRef(5).faceId]).toEqual([true, 8, ids[1]]);
    expect(reopened.has(ids[2]!)).toBe(true);
    expect([reopened.idsDeferred, reopened.size]).toEqual([false, 4]);
    expect([0, 1, 2, 3].map((r) => reopened.rowRef(r).faceId).sort()).toEqual([...ids].sort());
    expect(reopened.remove(ids[0]!) && !reopened.has(ids[0]!) && reopened.size === 3).toBe(true);
  });

  it('take a small write into the last segment only while it holds at most MAX_REWRITE_ROWS, or 4 × the rows written', () => {
    const random = rng(10);
    const capacity = 4 * MAX_REWRITE_ROWS;
    const [big] = appendRows(undefined, owner, rows(random, MAX_REWRITE_ROWS + 1, 4, 50, 'b'), capacity).segments as [Int8SegmentRecord];
    expect(appendRows(big, owner, rows(random, 1, 4, 1, 'e'), capacity).seqs).toEqual([1]); // an enroll opens a new segment
    const bulk = appendRows(big, owner, rows(random, 200, 4, 5, 'k'), capacity);
    expect(bulk.seqs.every((seq) => seq === 0)).toBe(true); // 200 rows may rewrite 800
    expect(rowCount(bulk.segments[0]!)).toBe(MAX_REWRITE_ROWS + 201);
  });
});

describe('face ids', () => {
  it('are UUIDv7 strings that sort in creation order, also within a millisecond and if the clock goes back', () => {
    const ids = [newFaceId(1_700_000_000_000), newFaceId(1_700_000_000_000), newFaceId(1_700_000_000_001), newFaceId(1_699_999_999_000)];
    for (let i = 0; i < 5000; i++) ids.push(newFaceId(1_700_000_000_002));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]!.replace(/-/g, '').slice(0, 12)).toBe((1_700_000_000_000).toString(16).padStart(12, '0'));
  });
});

describe('change notices', () => {
  it('an unreadable notice (another app version, garbage) means reset', () => {
    expect(readNotice({ nonsense: true })).toEqual({ source: undefined, change: { kind: 'reset' } });
    expect(readNotice({ source: 's', change: { kind: 'added', appId: 'a', gallery: 'g', rows: [{ faceId: 1 }] } }).change.kind).toBe('reset');
    const removed = { source: 's', change: { kind: 'removed', appId: 'a', gallery: 'g', faceIds: ['x'] } };
    expect(readNotice(removed)).toEqual(removed);
  });
});
