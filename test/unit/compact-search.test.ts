// The int8 search matrix (src/store/int8-rows.ts) against the exact float32 one: for random
// and for clustered galleries (near-duplicates, the hard case for a quantised score), the
// int8 candidates scored exactly give the very top k templates and subjects, similarity for
// similarity, that the exact search gives — the property the search index relies on.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import wabtInit from 'wabt';
import { describe, expect, it } from 'vitest';
import { errorCode, errorStep, int8Available, int8Stride, quantiseRows, SCAN_WASM } from '../../src/store/int8-rows.ts';
import { ROOT } from '../../tools/convert-models/build.ts';
import { EmbeddingMatrix } from '../../src/store/matrix.ts';
import type { IndexRow } from '../../src/store/schema.ts';
import { appendRows } from '../../src/store/segments.ts';
import { seededRandom } from './helpers/seeded-random.ts';

const DIM = 128;
const OWNER = { appId: 'app', gallery: 'g', modelId: 'm' };

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** `n` rows: uniform random, or around `clusters` centres with `spread` noise (subjects share a centre). */
function gallery(seed: number, n: number, clusters: number, spread: number): IndexRow[] {
  const random = seededRandom(seed);
  const centres = Array.from({ length: clusters }, () => Float32Array.from({ length: DIM }, () => gaussian(random)));
  return Array.from({ length: n }, (_, i) => {
    const centre = centres[i % clusters];
    const embedding = Float32Array.from({ length: DIM }, (_, j) => (centre ? centre[j]! + spread * gaussian(random) : gaussian(random)));
    return { faceId: `face-${i}`, subject: `subject-${Math.floor(i / 3) % Math.max(1, Math.floor(n / 5))}`, modelId: 'm', enrollmentTimestamp: i, embedding };
  });
}

/** What the search index does with an int8 matrix: candidates, then exact scores of their embeddings. */
function compactSearch(rows: IndexRow[], compact: EmbeddingMatrix, query: Float32Array, k: number, min: number) {
  const byId = new Map(rows.map((r) => [r.faceId, r]));
  const exactOf = (candidates: number[]) => {
    const m = new EmbeddingMatrix(DIM, { capacity: candidates.length });
    for (const row of candidates) m.add(byId.get(compact.rowRef(row).faceId)!);
    return m;
  };
  const templates = compact.templateCandidates(query, k, min);
  const subjects = compact.subjectCandidates(query, k, min);
  return {
    templates: exactOf(templates).searchTemplates(query, k, min),
    subjects: exactOf(subjects).searchSubjects(query, k, min),
    candidates: Math.max(templates.length, subjects.length),
  };
}

describe.runIf(int8Available())('int8 candidates scored exactly = exact search', () => {
  for (const [name, clusters, spread] of [
    ['random', 0, 0],
    ['clustered, close', 20, 0.35],
    ['clustered, near-duplicates', 50, 0.05],
  ] as const) {
    it(`${name}: same top k templates and subjects, similarities equal`, () => {
      fc.assert(
        // stored: the int8 rows as persisted (int8Segments) and loaded on reopen, not quantised in memory
        fc.property(fc.integer({ min: 1, max: 2 ** 30 }), fc.integer({ min: 1, max: 25 }), fc.constantFrom(-Infinity, 0, 0.3, 0.9), fc.boolean(), (seed, k, min, stored) => {
          const rows = gallery(seed, 1500, clusters, spread);
          const exact = new EmbeddingMatrix(DIM);
          for (const row of rows) exact.add(row);
          const compact = stored ? EmbeddingMatrix.fromInt8Blocks(appendRows(undefined, OWNER, rows, 512).segments) : new EmbeddingMatrix(DIM, { precision: 'int8' });
          if (!stored) for (const row of rows) compact.add(row);
          // removals move rows about in both
          for (let i = 0; i < 100; i += 7) {
            exact.remove(`face-${i}`);
            compact.remove(`face-${i}`);
          }
          const random = seededRandom(seed + 1);
          const query = clusters > 0 ? rows[Math.floor(random() * rows.length)]!.embedding.map((v) => v + 0.1 * gaussian(random)) : Float32Array.from({ length: DIM }, () => gaussian(random));
          const got = compactSearch(rows, compact, query, k, min);
          expect(got.templates).toEqual(exact.searchTemplates(query, k, min));
          expect(got.subjects).toEqual(exact.searchSubjects(query, k, min));
          // a few rows more than k, not the gallery
          expect(got.candidates).toBeLessThan(rows.length / 3);
        }),
        { numRuns: 25 },
      );
    });
  }

  it('bounds each row by its own error, rounded up by less than a step; a segment without them by its largest', () => {
    const rows = gallery(9, 300, 0, 0).map((row, i) => ({ ...row, embedding: row.embedding.map((v, j) => (j < 1 + (i % 128) ? v : 0)) }));
    const vectors = new Float32Array(rows.length * DIM);
    rows.forEach((row, i) => vectors.set(row.embedding, i * DIM));
    const stored = quantiseRows(vectors, rows.length, DIM);
    const stride = int8Stride(DIM);
    rows.forEach((row, i) => {
      // the row's real ‖r − q·s‖, from the stored values and scale
      const norm = Math.hypot(...row.embedding);
      let sum = 0;
      for (let j = 0; j < DIM; j++) sum += (row.embedding[j]! / norm - stored.rows[i * stride + j]! * stored.scales[i]!) ** 2;
      const error = Math.sqrt(sum);
      const step = errorStep(stored.scales[i]!, DIM);
      expect(stored.errors[i]! * step).toBeGreaterThanOrEqual(error - 1e-6);
      expect((stored.errors[i]! - 1) * step).toBeLessThan(error);
      // stored without per-row errors: the largest error, capped where every row is bounded anyway
      expect(errorCode(stored.error, stored.scales[i]!, DIM) * step).toBeGreaterThanOrEqual(error - 1e-6);
    });
    // rows of 1 to 128 non-zero values: errors differ a lot, so one bound for all would be loose
    expect(Math.max(...stored.errors)).toBeGreaterThan(4 * Math.min(...stored.errors.filter((c) => c > 0)));
  });

  it('a row whose score the int8 scan underrates by most of its error still wins over error-free rows just below it', () => {
    // The query leans along row A's quantisation residual d (x ∝ A + 3d/‖d‖), so A's approximate
    // score is about 0.95‖d‖ below its exact one; rows on the int8 lattice (no error of their
    // own) score exactly 0.02–0.25‖d‖ below A. Only a bound of about A's own error keeps A a
    // candidate: three quarters of it, or a lattice row's, would answer a lattice row.
    const random = seededRandom(21);
    const unit = (v: Float32Array) => v.map((x) => x / Math.hypot(...v));
    const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, j) => sum + x * b[j]!, 0);
    for (let round = 0; round < 6; round++) {
      // one large value: a large scale, so an error well above the query's own
      const a = unit(Float32Array.from({ length: DIM }, (_, j) => (j === round ? 8 : gaussian(random))));
      const stored = quantiseRows(a, 1, DIM);
      const residual = a.map((v, j) => v - stored.rows[j]! * stored.scales[0]!);
      const error = Math.hypot(...residual);
      const query = unit(a.map((v, j) => v + (3 * residual[j]!) / error));
      const top = dot(query, a);
      const rows: IndexRow[] = [{ faceId: 'a', subject: 'subject-a', modelId: 'm', enrollmentTimestamp: 0, embedding: a }];
      for (let tries = 0; rows.length < 4 && tries < 10_000; tries++) {
        // a lattice row at cosine ≈ top − 0.1‖d‖ from the query, kept if it lands in range
        const cos = top - 0.1 * error;
        const other = unit(Float32Array.from({ length: DIM }, () => gaussian(random)));
        const across = unit(other.map((v, j) => v - dot(other, query) * query[j]!));
        const near = query.map((v, j) => cos * v + Math.sqrt(1 - cos * cos) * across[j]!);
        const max = Math.max(...near.map(Math.abs));
        const lattice = near.map((v) => Math.round((v / max) * 127));
        const below = top - dot(query, unit(lattice));
        if (below > 0.02 * error && below < 0.25 * error) rows.push({ faceId: `l${rows.length}`, subject: `subject-l${rows.length}`, modelId: 'm', enrollmentTimestamp: rows.length, embedding: lattice });
      }
      expect(rows).toHaveLength(4);
      // and others that score below 0 (reflected where they would not)
      for (const row of gallery(round, 200, 0, 0)) {
        const lean = dot(row.embedding, query);
        rows.push({ ...row, embedding: lean > 0 ? row.embedding.map((v, j) => v - 2 * lean * query[j]!) : row.embedding });
      }
      expect(quantiseRows(rows[1]!.embedding, 1, DIM).errors[0]).toBe(0);
      const exact = new EmbeddingMatrix(DIM);
      for (const row of rows) exact.add(row);
      expect(exact.searchTemplates(query, 1)[0]!.faceId).toBe('a');
      for (const stored of [false, true]) {
        const compact = stored ? EmbeddingMatrix.fromInt8Blocks(appendRows(undefined, OWNER, rows, 128).segments) : new EmbeddingMatrix(DIM, { precision: 'int8' });
        if (!stored) for (const row of rows) compact.add(row);
        for (const k of [1, 3]) {
          const got = compactSearch(rows, compact, query, k, -Infinity);
          expect(got.templates).toEqual(exact.searchTemplates(query, k));
          expect(got.subjects).toEqual(exact.searchSubjects(query, k));
        }
      }
    }
  });

  it('embeds tools/wasm/int8-scan.wat, assembled', async () => {
    const wabt = await wabtInit();
    const module = wabt.parseWat('int8-scan.wat', readFileSync(join(ROOT, 'tools/wasm/int8-scan.wat'), 'utf8'), { simd: true });
    const { buffer } = module.toBinary({});
    module.destroy();
    expect(Buffer.from(buffer).toString('base64')).toBe(SCAN_WASM);
  });

  it('looks further down when the first rows listed are one subject’s, and lists more rows than one scan call holds', () => {
    const random = seededRandom(7);
    const query = Float32Array.from({ length: DIM }, () => gaussian(random));
    // 400 templates of one subject right around the query, then 9,603 others (not a multiple of 4)
    const rows = gallery(11, 10_003, 0, 0).map((row, i) =>
      i < 400 ? { ...row, subject: 'near', embedding: query.map((v) => v + 0.02 * gaussian(random)) } : row,
    );
    const exact = new EmbeddingMatrix(DIM);
    const compact = new EmbeddingMatrix(DIM, { precision: 'int8' });
    for (const row of rows) {
      exact.add(row);
      compact.add(row);
    }
    for (const [k, min] of [[5, -Infinity], [5, 0.2], [2600, -Infinity]] as const) {
      const got = compactSearch(rows, compact, query, k, min);
      expect(got.subjects).toEqual(exact.searchSubjects(query, k, min));
      expect(got.templates).toEqual(exact.searchTemplates(query, k, min));
    }
  });

  it('scores every row of a full matrix, whatever its count modulo 4 (the scan reads up to 3 rows past it)', () => {
    // capacity = count from 64 rows (the matrix's least)
    for (const n of [1, 2, 3, 5, 65, 66, 67, 69]) {
      const rows = gallery(n, n, 0, 0);
      const exact = new EmbeddingMatrix(DIM, { capacity: n });
      const compact = new EmbeddingMatrix(DIM, { precision: 'int8', capacity: n });
      for (const row of rows) {
        exact.add(row);
        compact.add(row);
      }
      const query = rows[n - 1]!.embedding;
      expect(compactSearch(rows, compact, query, n, -Infinity).templates).toEqual(exact.searchTemplates(query, n));
    }
  });

  it('keeps a quarter of the float32 rows’ memory', () => {
    const rows = gallery(3, 16_384, 0, 0);
    const compact = new EmbeddingMatrix(DIM, { precision: 'int8', capacity: rows.length });
    const float = new EmbeddingMatrix(DIM, { capacity: rows.length });
    for (const row of rows) {
      compact.add(row);
      float.add(row);
    }
    expect(compact.memory().matrixBytes).toBeLessThan(float.memory().matrixBytes * 0.3);
  });

  it('reopens stored blocks whose face ids repeat (across blocks or within one) as the rows a Map would keep, once its ids are indexed', () => {
    const uuid = (i: number) => `00000000-0000-7000-8000-${i.toString(16).padStart(12, '0')}`;
    const rows = gallery(5, 1200, 0, 0).map((row, i) => ({ ...row, faceId: uuid(i) }));
    // block 2 repeats a face id of block 1, block 3 one of its own rows: corrupt stores, kept once each
    const repeated = [...rows.slice(0, 512), { ...rows[700]!, faceId: uuid(3) }, ...rows.slice(512, 1000), { ...rows[1100]!, faceId: uuid(1050) }, ...rows.slice(1000)];
    const blocks = [appendRows(undefined, OWNER, repeated.slice(0, 512), 512).segments, appendRows(undefined, OWNER, repeated.slice(512, 1013), 512).segments, appendRows(undefined, OWNER, repeated.slice(1013), 512).segments].flat();
    const reopened = EmbeddingMatrix.fromInt8Blocks(blocks);
    // ids are looked up only once indexed (the search index does it after a reopen's first answer, or any lookup does)
    expect(reopened.idsDeferred).toBe(true);
    reopened.indexIds();
    const exact = new EmbeddingMatrix(DIM);
    for (const row of repeated) exact.add(row);
    const kept = repeated.filter((row, i) => repeated.findIndex((other) => other.faceId === row.faceId) === i);
    expect(reopened.size).toBe(rows.length);
    expect(kept).toHaveLength(rows.length);
    for (const row of rows) expect(reopened.has(row.faceId)).toBe(true);
    for (const query of [rows[1050]!.embedding, rows[1100]!.embedding, rows[3]!.embedding]) {
      const got = compactSearch(kept, reopened, query, 5, -Infinity);
      expect(got.templates).toEqual(exact.searchTemplates(query, 5, -Infinity));
      expect(got.subjects).toEqual(exact.searchSubjects(query, 5, -Infinity));
    }
  });
});

describe('face ids kept as 16 bytes (face-id-table.ts)', () => {
  it('finds, moves and forgets ids like a Map does, UUIDs and others alike, through growth and deletions', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.nat(399)), { minLength: 1, maxLength: 3000 }), (steps) => {
        const matrix = new EmbeddingMatrix(4);
        const model = new Map<string, true>();
        const ids = Array.from({ length: 400 }, (_, i) => (i % 7 === 0 ? `kept-${i}` : i % 11 === 0 ? crypto.randomUUID().toUpperCase() : crypto.randomUUID()));
        for (const [add, i] of steps) {
          const faceId = ids[i]!;
          if (add) expect(matrix.add({ faceId, subject: 's', modelId: 'm', enrollmentTimestamp: 1, embedding: Float32Array.of(1, i, 0, 1) })).toBe(!model.has(faceId));
          else expect(matrix.remove(faceId)).toBe(model.delete(faceId));
          if (add) model.set(faceId, true);
        }
        expect(matrix.size).toBe(model.size);
        for (const id of ids) expect(matrix.has(id)).toBe(model.has(id));
        const listed = matrix.searchTemplates(Float32Array.of(1, 0, 0, 0), 1000).map((m) => m.faceId);
        expect(listed.sort()).toEqual([...model.keys()].sort());
      }),
      { numRuns: 60 },
    );
  });
});
