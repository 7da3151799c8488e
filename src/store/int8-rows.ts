// A matrix's rows as int8 (a quarter of float32's memory: 1M × 128-d is 128 MB, not 512), with
// the scoring loop over them and the bound of its error. Each L2-normalised row r is kept as
// q·s (q int8, s = max|r|/127) and the query x as int16 (scale max|x|/2064 at 128-d: what the
// scan's int32 lanes can sum), so
//   |x·r − approx| ≤ ‖r − q·s‖ + ‖x − x̂‖·‖q·s‖ ≤ e_row + e_x·(1 + e_row)
// and the search (matrix.ts) takes every row that could be in the exact top k by that bound,
// then scores those exactly from their stored float32 embeddings (search-index.ts). Each row
// keeps its own e_row (a byte: errorCode), not the largest of all: the margin of a pair of rows
// is then their two errors, not twice the worst row's.
//
// The scan is a 1.1 kB WebAssembly SIMD module, tools/wasm/int8-scan.wat assembled: it scores
// every row and counts the scores into a histogram, from which the search (matrix.ts) picks a
// threshold that a few dozen rows pass; a second function lists those rows. So after the scan
// JavaScript touches only them, not the million scores.

const PAGE = 65536;
/** int8 values per row are padded to a multiple of this (one v128 load) */
const ROW_ALIGN = 16;
/** slack for the float32 rounding of both the approximate and the exact score */
const ROUNDING = 1e-4;
/** the scan's histogram: bin(s) = clamp(trunc((s + 1) × BIN_SCALE), 0, BINS − 1) */
const BINS = 4096;
const BIN_SCALE = 2048;
/** row indices one `collect` call may list; more are found by a loop in JavaScript */
const LIST_CAP = 8192;
/**
 * A row's error in steps of s·√dim / ERROR_STEPS: each of its values is off by at most s/2, so
 * ‖r − q·s‖ ≤ s·√dim/2 = ERROR_STEPS/2 steps (250), and a byte holds it rounded up, with room
 * for float rounding; 255 steps bound any row quantised here, whatever its stored error says.
 */
const ERROR_STEPS = 500;
const MAX_ERROR_CODE = 255;

// tools/wasm/int8-scan.wat assembled (test/unit/compact-search.test.ts checks the bytes)
/** @internal */
export const SCAN_WASM =
  'AGFzbQEAAAABFQJgCH9/f39/f31/AGAFf399f38BfwIPAQNlbnYGbWVtb3J5AgABAwMCAAEHEwIFc2NvcmUAAAdjb2xsZWN0AAEKkQgC+QYCDH8JeyAERQRADwsgBEEDakF8cUECdiEPIAMgD0ECdGohCP0MAP8A/wD/AP8A/wD/AP8A/yEcIA8gBWwhESARQQF0IQwgDCARaiENIA9BAnQhECAQQQF0IRIgEiAQaiETA0D9DAAAAAAAAAAAAAAAAAAAAAAhFP0MAAAAAAAAAAAAAAAAAAAAACEV/QwAAAAAAAAAAAAAAAAAAAAAIRb9DAAAAAAAAAAAAAAAAAAAAAAhFyAAIQkgASEKIAAgBWohCwNAIAr9AAQAIRggCv0ABBAhGSAJ/QAEACEaIBQgGkEI/YsBIBj9ugH9rgEhFCAUIBogHP1OIBn9ugH9rgEhFCAJIBFq/QAEACEaIBUgGkEI/YsBIBj9ugH9rgEhFSAVIBogHP1OIBn9ugH9rgEhFSAJIAxq/QAEACEaIBYgGkEI/YsBIBj9ugH9rgEhFiAWIBogHP1OIBn9ugH9rgEhFiAJIA1q/QAEACEaIBcgGkEI/YsBIBj9ugH9rgEhFyAXIBogHP1OIBn9ugH9rgEhFyAJQRBqIQkgCkEgaiEKIAkgC0kNAAsgFP36ASEUIBX9+gEhFSAW/foBIRYgF/36ASEXIBQgFf0NAAECAxAREhMEBQYHFBUWFyAUIBX9DQgJCgsYGRobDA0ODxwdHh/95AEhFCAWIBf9DQABAgMQERITBAUGBxQVFhcgFiAX/Q0ICQoLGBkaGwwNDg8cHR4f/eQBIRYgFCAW/Q0AAQIDBAUGBxAREhMUFRYXIBQgFv0NCAkKCwwNDg8YGRobHB0eH/3kASEbIBsgAiATaiACIBJqIAIgEGogAv1cAgD9VgIAAf1WAgAC/VYCAAP95gEgBv0T/eYBIRsgAyAb/VoCAAAgAyAQaiAb/VoCAAEgAyASaiAb/VoCAAIgAyATaiAb/VoCAAMgG0MAAIA//RP95AFDAAAARf0T/eYB/fgB/QwAAAAAAAAAAAAAAAAAAAAA/bgB/Qz/DwAA/w8AAP8PAAD/DwAA/bYBQQL9qwEhGiAHIBr9GwBqIQ4gDiAOKAIAQQFqNgIAIAcgGv0bAWohDiAOIA4oAgBBAWo2AgAgByAa/RsCaiEOIA4gDigCAEEBajYCACAHIBr9GwNqIQ4gDiAOKAIAQQFqNgIAIAAgBWohACACQQRqIQIgA0EEaiEDIAMgCEkNAAsLkwEDA38BewF/IAL9EyEIIAFBA2pBfHEhBgJAA0AgBSAGTw0BIAAgBUECdGr9AAQAIAj9Rv1TBEAgBSEJA0AgCSABSSAAIAlBAnRqKgIAIAJgcQRAIAcgBE8EQCAEQQFqDwsgAyAHQQJ0aiAJNgIAIAdBAWohBwsgCUEBaiEJIAlBA3ENAAsLIAVBBGohBQwACwsgBws=';

interface ScanExports {
  score(rows: number, q: number, scales: number, out: number, n: number, rowBytes: number, qScale: number, hist: number): void;
  collect(scores: number, n: number, min: number, at: number, cap: number): number;
}

let compiled: WebAssembly.Module | null | undefined;

function int8Module(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      const bytes = Uint8Array.from(atob(SCAN_WASM), (c) => c.charCodeAt(0));
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
  /** per row: its ‖r − q·s‖ rounded up (errorCode) */
  errors: Uint8Array;
}

/** A row's error bound ‖r − q·s‖ ≤ code × errorStep(scale, dim): its `errors` byte. */
export function errorStep(scale: number, dim: number): number {
  return (Math.fround(scale) * Math.sqrt(dim)) / ERROR_STEPS;
}

/** `error` (of a row of `scale`, quantised here) as a code that bounds it: rounded up, at most MAX_ERROR_CODE. */
export function errorCode(error: number, scale: number, dim: number): number {
  const step = errorStep(scale, dim);
  if (!(step > 0)) return 0; // a zero row: nothing to be off
  // above the cap only by rounding: MAX_ERROR_CODE steps bound every row (ERROR_STEPS)
  return Math.min(MAX_ERROR_CODE, Math.ceil(error / step));
}

/** `n` rows of `vectors` (n × dim, as enrolled) normalised and quantised. */
export function quantiseRows(vectors: Float32Array, n: number, dim: number): QuantisedRows {
  const stride = int8Stride(dim);
  const rows = new Int8Array(n * stride);
  const scales = new Float32Array(n);
  const errors = new Uint8Array(n);
  let largest = 0;
  for (let i = 0; i < n; i++) {
    const { scale, error } = quantise(rows, i * stride, vectors, i * dim, dim, stride, 127);
    scales[i] = scale;
    errors[i] = errorCode(error, scale, dim);
    largest = Math.max(largest, error);
  }
  return { rows, scales, error: largest, errors };
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

/** Stored rows to copy in: quantised rows whose per-row `errors` a segment written before them lacks (then `error` bounds each). */
export type StoredRows = Omit<QuantisedRows, 'errors'> & { errors?: Uint8Array | undefined };

/** Stored rows' per-row error codes: their own, or (stored before they had them) each from the largest `error`. */
export function storedErrorCodes(block: StoredRows, dim: number): Uint8Array {
  return block.errors ?? Uint8Array.from(block.scales, (scale) => errorCode(block.error, scale, dim));
}

/** Per listed row, the bound of its approximate score's error (score's `boundOf`). */
export type RowBound = (row: number) => number;

/**
 * Rows as int8 in a WebAssembly.Memory laid out [query int16 | rows | scales | scratch: scores,
 * histogram, row list]; growing moves only the scales (the scratch is rewritten by every scan).
 */
export class Int8Rows {
  private readonly memory: WebAssembly.Memory;
  private readonly scan: ScanExports;
  readonly stride: number;
  /** the query's int16 levels: as many as the scan's int32 lanes can sum without overflow */
  private readonly queryLevels: number;
  private capacity = 0;
  /** per row: errorCode of its ‖r − q·s‖ (in JavaScript memory: the scan never reads it) */
  private errorCodes = new Uint8Array(0);
  /** the largest error bound (code × step) of any row written: the margin the scan lists rows by */
  private largestError = 0;
  /** rows the last scan counted into the histogram (its count rounded up to 4) */
  private scanned = 0;

  constructor(readonly dim: number, capacity: number) {
    const module = int8Module();
    if (!module) throw new Error('WebAssembly SIMD is not available here');
    this.stride = int8Stride(dim);
    this.queryLevels = Math.min(32767, Math.floor((2 ** 31 - 1) / ((this.stride / 4) * 256 * 127)));
    this.memory = new WebAssembly.Memory({ initial: 1 });
    this.scan = new WebAssembly.Instance(module, { env: { memory: this.memory } }).exports as unknown as ScanExports;
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

  /** the scan scores up to 3 rows past the count: room for them */
  private histogramAt(capacity = this.capacity): number {
    return this.scoresAt(capacity) + (capacity + 4) * 4;
  }

  private listAt(capacity = this.capacity): number {
    return this.histogramAt(capacity) + BINS * 4;
  }

  get bytes(): number {
    return this.memory.buffer.byteLength + this.errorCodes.byteLength;
  }

  grow(capacity: number): void {
    if (capacity <= this.capacity) return;
    const needed = this.listAt(capacity) + LIST_CAP * 4;
    const missing = Math.ceil((needed - this.memory.buffer.byteLength) / PAGE);
    if (missing > 0) this.memory.grow(missing);
    const bytes = new Uint8Array(this.memory.buffer);
    bytes.copyWithin(this.scalesAt(capacity), this.scalesAt(), this.scalesAt() + this.capacity * 4);
    const codes = new Uint8Array(capacity);
    codes.set(this.errorCodes);
    this.errorCodes = codes;
    this.capacity = capacity;
  }

  /** Writes row `row` from source[from, from + dim), normalised and quantised. */
  write(row: number, source: ArrayLike<number>, from: number): void {
    const rows = new Int8Array(this.memory.buffer, this.queryBytes, this.capacity * this.stride);
    const { scale, error } = quantise(rows, row * this.stride, source, from, this.dim, this.stride, 127);
    new Float32Array(this.memory.buffer, this.scalesAt(), this.capacity)[row] = scale;
    this.errorCodes[row] = errorCode(error, scale, this.dim);
    this.noteErrors(row, 1);
  }

  /** Writes rows [row, row + count) as stored: `block`'s rows [from, from + count), already quantised (quantiseRows). */
  copy(row: number, block: StoredRows, from: number, count = 1): void {
    const rows = new Int8Array(this.memory.buffer, this.queryBytes, this.capacity * this.stride);
    rows.set(block.rows.subarray(from * this.stride, (from + count) * this.stride), row * this.stride);
    new Float32Array(this.memory.buffer, this.scalesAt(), this.capacity).set(block.scales.subarray(from, from + count), row);
    this.errorCodes.set(storedErrorCodes(block, this.dim).subarray(from, from + count), row);
    this.noteErrors(row, count);
  }

  /** Rows [row, row + count) written: the largest error bound takes theirs in. */
  private noteErrors(row: number, count: number): void {
    const scales = new Float32Array(this.memory.buffer, this.scalesAt(), this.capacity);
    let largest = this.largestError;
    for (let r = row; r < row + count; r++) largest = Math.max(largest, this.errorCodes[r]! * errorStep(scales[r]!, this.dim));
    this.largestError = largest;
  }

  /** Row `from` copied over row `to` (removal moves the last row into the hole). */
  move(from: number, to: number): void {
    const bytes = new Uint8Array(this.memory.buffer);
    const rowsAt = this.queryBytes;
    bytes.copyWithin(rowsAt + to * this.stride, rowsAt + from * this.stride, rowsAt + (from + 1) * this.stride);
    const scales = new Float32Array(this.memory.buffer, this.scalesAt(), this.capacity);
    scales[to] = scales[from]!;
    this.errorCodes[to] = this.errorCodes[from]!;
  }

  /**
   * Approximate cosine similarity of `query` with rows [0, count), each row's bound of its
   * error (`boundOf`) and the largest of them (`bound`). The scores are a view of scratch
   * memory, valid until the next call.
   */
  score(query: ArrayLike<number>, count: number): { scores: Float32Array; bound: number; boundOf: RowBound } {
    // the query normalised in float32, as the exact scoring (matrix.ts) normalises it
    const x = new Float32Array(this.dim);
    let sum = 0;
    for (let j = 0; j < this.dim; j++) sum += query[j]! * query[j]!;
    const norm = sum > 0 ? 1 / Math.sqrt(sum) : 0;
    for (let j = 0; j < this.dim; j++) x[j] = query[j]! * norm;
    const q = new Int16Array(this.memory.buffer, 0, this.stride);
    const { scale, error } = quantiseQuery(q, x, this.stride, this.queryLevels);
    new Int32Array(this.memory.buffer, this.histogramAt(), BINS).fill(0);
    // the scan's products carry a factor 256 (tools/wasm/int8-scan.wat): an exact power of two
    this.scan.score(this.queryBytes, 0, this.scalesAt(), this.scoresAt(), count, this.stride, scale / 256, this.histogramAt());
    this.scanned = count === 0 ? 0 : Math.ceil(count / 4) * 4;
    const bound = (rowError: number) => rowError + error * (1 + rowError) + ROUNDING;
    const scales = new Float32Array(this.memory.buffer, this.scalesAt(), this.capacity);
    const codes = this.errorCodes;
    return {
      scores: new Float32Array(this.memory.buffer, this.scoresAt(), count),
      bound: bound(this.largestError),
      boundOf: (row) => bound(codes[row]! * errorStep(scales[row]!, this.dim)),
    };
  }

  /**
   * From the last scan's histogram: a score that at least `rows` of its scores reach (give or
   * take the 3 junk scores past its count), as high as the histogram tells; -Infinity when it
   * scanned fewer rows. Only a guess to start from: nothing relies on how many pass it.
   */
  threshold(rows: number): number {
    if (rows > this.scanned) return -Infinity;
    const histogram = new Int32Array(this.memory.buffer, this.histogramAt(), BINS);
    let seen = 0;
    for (let bin = BINS - 1; bin > 0; bin--) {
      seen += histogram[bin]!;
      // one bin lower than the bin's edge: the float32 rounding of the scan's bin arithmetic
      if (seen >= rows) return (bin - 1) / BIN_SCALE - 1;
    }
    return -Infinity;
  }

  /**
   * The rows r < count whose score from the last scan is ≥ min (NaN never is), ascending. `min`
   * is compared in float32: pass one that is a float32 (Math.fround), or rows just below it count.
   */
  above(scores: Float32Array, min: number): number[] {
    const count = scores.length;
    const found = this.scan.collect(this.scoresAt(), count, min, this.listAt(), LIST_CAP);
    if (found <= LIST_CAP) return Array.from(new Int32Array(this.memory.buffer, this.listAt(), found));
    const rows: number[] = [];
    for (let r = 0; r < count; r++) if (scores[r]! >= min) rows.push(r);
    return rows;
  }
}

/** The query as int16 at `levels`, each 16 columns stored as their 8 even then 8 odd values (the scan's order). */
function quantiseQuery(target: Int16Array, x: Float32Array, stride: number, levels: number): { scale: number; error: number } {
  let max = 0;
  for (const v of x) max = Math.max(max, Math.abs(v));
  const scale = max / levels;
  let error = 0;
  target.fill(0);
  x.forEach((v, j) => {
    const q = scale > 0 ? Math.round(v / scale) : 0;
    target[(j & ~15) + ((j & 1) << 3) + ((j & 15) >> 1)] = q;
    error += (v - q * scale) ** 2;
  });
  return { scale, error: Math.sqrt(error) };
}
