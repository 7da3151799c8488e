// A matrix's rows as int8 (a quarter of float32's memory: 1M × 128-d is 128 MB, not 512), with
// the scoring loop over them and the bound of its error. Each L2-normalised row r is kept as
// q·s (q int8, s = max|r|/127) and the query x as int16 (scale max|x|/32767), so
//   |x·r − approx| ≤ ‖r − q·s‖ + ‖x − x̂‖·‖q·s‖ ≤ e_row + e_x·(1 + e_row)
// and the search (matrix.ts) takes every row that could be in the exact top k by that bound,
// then scores those exactly from their stored float32 embeddings (search-index.ts).
//
// The kernel is a 249-byte WebAssembly SIMD module assembled by wabt from this listing:
//
// (func (export "score") (param $rows i32) (param $q i32) (param $scales i32) (param $out i32) (param $n i32) (param $rowBytes i32) (param $qScale f32)
//   (local $outEnd i32) (local $qp i32) (local $rowEnd i32) (local $acc v128) (local $r v128)
//   (if (i32.eqz $n) (return))   $outEnd = $out + ($n << 2)
//   (loop $row
//     $acc = 0;  $qp = $q;  $rowEnd = $rows + $rowBytes
//     (loop $col                                   ;; 16 int8 of the row against 16 int16 of the query
//       $r = v128.load $rows
//       $acc += i32x4.dot_i16x8_s(i16x8.extend_low_i8x16_s $r, v128.load $qp)
//       $acc += i32x4.dot_i16x8_s(i16x8.extend_high_i8x16_s $r, v128.load offset=16 $qp)
//       $rows += 16;  $qp += 32
//       (br_if $col (i32.lt_u $rows $rowEnd)))
//     (f32.store $out (f32(lane0 + lane1 + lane2 + lane3 of $acc) × f32.load $scales × $qScale))
//     $scales += 4;  $out += 4
//     (br_if $row (i32.lt_u $out $outEnd))))
// 128-d int8 · int16 products sum to at most 128 × 127 × 32767 < 2^31: the i32 lanes never overflow.

const PAGE = 65536;
/** int8 values per row are padded to a multiple of this (one v128 load) */
const ROW_ALIGN = 16;
/** slack for the float32 rounding of both the approximate and the exact score */
const ROUNDING = 1e-4;

const MODULE_BASE64 =
  'AGFzbQEAAAABCwFgB39/f39/f30AAg8BA2VudgZtZW1vcnkCAAEDAgEABwkBBXNjb3JlAAAKwQEBvgECA38CeyAERQRADwsgAyAEQQJ0aiEHA0D9DAAAAAAAAAAAAAAAAAAAAAAhCiABIQggACAFaiEJA0AgAP0ABAAhCyAKIAv9hwEgCP0ABAD9ugH9rgEhCiAKIAv9iAEgCP0ABBD9ugH9rgEhCiAAQRBqIQAgCEEgaiEIIAAgCUkNAAsgAyAK/RsAIAr9GwFqIAr9GwIgCv0bA2pqsiACKgIAlCAGlDgCACACQQRqIQIgA0EEaiEDIAMgB0kNAAsL';

type Score = (rows: number, q: number, scales: number, out: number, n: number, rowBytes: number, qScale: number) => void;

let compiled: WebAssembly.Module | null | undefined;

function int8Module(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      const bytes = Uint8Array.from(atob(MODULE_BASE64), (c) => c.charCodeAt(0));
      compiled = typeof WebAssembly === 'object' && WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
    } catch {
      compiled = null; // a CSP without 'wasm-unsafe-eval'
    }
  }
  return compiled;
}

/** Whether int8 rows can be scored here (WebAssembly SIMD); else the matrix keeps float32 rows. */
export function int8Available(): boolean {
  return int8Module() !== null;
}

/** int8 values per stored row of `dim` (padded for the v128 loads). */
export function int8Stride(dim: number): number {
  return Math.ceil(dim / ROW_ALIGN) * ROW_ALIGN;
}

/** Rows normalised and quantised exactly as Int8Rows.write does: what storage keeps (`int8Segments`). */
export interface QuantisedRows {
  /** n × int8Stride(dim), padding zeroed */
  rows: Int8Array;
  /** per row */
  scales: Float32Array;
  /** the largest ‖r − q·s‖ of the rows */
  error: number;
}

/** `n` rows of `vectors` (n × dim, as enrolled) normalised and quantised. */
export function quantiseRows(vectors: Float32Array, n: number, dim: number): QuantisedRows {
  const stride = int8Stride(dim);
  const rows = new Int8Array(n * stride);
  const scales = new Float32Array(n);
  let largest = 0;
  for (let i = 0; i < n; i++) {
    const { scale, error } = quantise(rows, i * stride, vectors, i * dim, dim, stride, 127);
    scales[i] = scale;
    largest = Math.max(largest, error);
  }
  return { rows, scales, error: largest };
}

/**
 * Writes `source[from, from + dim)` L2-normalised and quantised into `target` at `at`
 * (padding zeroed); returns the row's scale and its error ‖r − q·s‖.
 */
function quantise(target: Int8Array, at: number, source: ArrayLike<number>, from: number, dim: number, stride: number, levels: number): { scale: number; error: number } {
  let sum = 0;
  for (let j = 0; j < dim; j++) sum += source[from + j]! * source[from + j]!;
  const norm = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  let max = 0;
  for (let j = 0; j < dim; j++) max = Math.max(max, Math.abs(source[from + j]! * norm));
  const scale = max / levels;
  let error = 0;
  for (let j = 0; j < dim; j++) {
    const v = source[from + j]! * norm;
    const q = scale > 0 ? Math.round(v / scale) : 0;
    target[at + j] = q;
    error += (v - q * scale) ** 2;
  }
  target.fill(0, at + dim, at + stride);
  return { scale, error: Math.sqrt(error) };
}

/**
 * Rows as int8 in a WebAssembly.Memory laid out [query int16 | rows | scales | scores]; growing
 * moves only the scales (the scores are scratch).
 */
export class Int8Rows {
  private readonly memory: WebAssembly.Memory;
  private readonly run: Score;
  readonly stride: number;
  private capacity = 0;
  private largestError = 0;

  constructor(readonly dim: number, capacity: number) {
    const module = int8Module();
    if (!module) throw new Error('WebAssembly SIMD is not available here');
    this.stride = int8Stride(dim);
    this.memory = new WebAssembly.Memory({ initial: 1 });
    this.run = new WebAssembly.Instance(module, { env: { memory: this.memory } }).exports.score as Score;
    this.grow(capacity);
  }

  private get queryBytes(): number {
    return this.stride * 2;
  }

  private scalesAt(capacity = this.capacity): number {
    return this.queryBytes + capacity * this.stride;
  }

  private scoresAt(capacity = this.capacity): number {
    return this.scalesAt(capacity) + capacity * 4;
  }

  get bytes(): number {
    return this.memory.buffer.byteLength;
  }

  grow(capacity: number): void {
    if (capacity <= this.capacity) return;
    const needed = this.scoresAt(capacity) + capacity * 4;
    const missing = Math.ceil((needed - this.memory.buffer.byteLength) / PAGE);
    if (missing > 0) this.memory.grow(missing);
    const bytes = new Uint8Array(this.memory.buffer);
    bytes.copyWithin(this.scalesAt(capacity), this.scalesAt(), this.scalesAt() + this.capacity * 4);
    this.capacity = capacity;
  }

  /** Writes row `row` from source[from, from + dim), normalised and quantised. */
  write(row: number, source: ArrayLike<number>, from: number): void {
    const rows = new Int8Array(this.memory.buffer, this.queryBytes, this.capacity * this.stride);
    const { scale, error } = quantise(rows, row * this.stride, source, from, this.dim, this.stride, 127);
    new Float32Array(this.memory.buffer, this.scalesAt(), this.capacity)[row] = scale;
    this.largestError = Math.max(this.largestError, error);
  }

  /** Writes rows [row, row + count) as stored: `block`'s rows [from, from + count), already quantised (quantiseRows). */
  copy(row: number, block: QuantisedRows, from: number, count = 1): void {
    const rows = new Int8Array(this.memory.buffer, this.queryBytes, this.capacity * this.stride);
    rows.set(block.rows.subarray(from * this.stride, (from + count) * this.stride), row * this.stride);
    new Float32Array(this.memory.buffer, this.scalesAt(), this.capacity).set(block.scales.subarray(from, from + count), row);
    this.largestError = Math.max(this.largestError, block.error);
  }

  /** Row `from` copied over row `to` (removal moves the last row into the hole). */
  move(from: number, to: number): void {
    const bytes = new Uint8Array(this.memory.buffer);
    const rowsAt = this.queryBytes;
    bytes.copyWithin(rowsAt + to * this.stride, rowsAt + from * this.stride, rowsAt + (from + 1) * this.stride);
    const scales = new Float32Array(this.memory.buffer, this.scalesAt(), this.capacity);
    scales[to] = scales[from]!;
  }

  /**
   * Approximate cosine similarity of `query` with rows [0, count), and the bound of the error
   * of every one of them. The scores are a view of scratch memory, valid until the next call.
   */
  score(query: ArrayLike<number>, count: number): { scores: Float32Array; bound: number } {
    // the query normalised in float32, as the exact scoring (matrix.ts) normalises it
    const x = new Float32Array(this.dim);
    let sum = 0;
    for (let j = 0; j < this.dim; j++) sum += query[j]! * query[j]!;
    const norm = sum > 0 ? 1 / Math.sqrt(sum) : 0;
    for (let j = 0; j < this.dim; j++) x[j] = query[j]! * norm;
    const q = new Int16Array(this.memory.buffer, 0, this.stride);
    const { scale, error } = quantiseQuery(q, x, this.stride);
    this.run(this.queryBytes, 0, this.scalesAt(), this.scoresAt(), count, this.stride, scale);
    return {
      scores: new Float32Array(this.memory.buffer, this.scoresAt(), count),
      bound: this.largestError + error * (1 + this.largestError) + ROUNDING,
    };
  }
}

function quantiseQuery(target: Int16Array, x: Float32Array, stride: number): { scale: number; error: number } {
  let max = 0;
  for (const v of x) max = Math.max(max, Math.abs(v));
  const scale = max / 32767;
  let error = 0;
  x.forEach((v, j) => {
    const q = scale > 0 ? Math.round(v / scale) : 0;
    target[j] = q;
    error += (v - q * scale) ** 2;
  });
  target.fill(0, x.length, stride);
  return { scale, error: Math.sqrt(error) };
}
