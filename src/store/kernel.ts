// The search's inner loop: one query's dot product with every row of a matrix. Plain JS
// manages ~1 ns per multiply-add; 100k × 128-d then takes 25–50 ms. A 345-byte WebAssembly
// module using 128-bit SIMD does the same in a quarter of that (docs/benchmarks.md), so the
// matrix lives in a WebAssembly.Memory and this kernel scores it in place; plain JS remains
// as the fallback where WebAssembly SIMD is missing or forbidden (CSP without wasm-unsafe-eval).

export type KernelKind = 'wasm-simd' | 'js';
export type KernelChoice = KernelKind | 'auto';

/** Memory holding rows, query and scores, and the scoring loop over it. */
export interface ScoreKernel {
  readonly kind: KernelKind;
  /** the current backing buffer: a new object after grow(), so never cache views across it */
  readonly buffer: ArrayBuffer;
  /** makes `buffer` at least `bytes` long, keeping its contents */
  grow(bytes: number): void;
  /**
   * out[r] = Σ_j rows[r][j] · query[j] for r < count, in float32. Offsets are bytes into
   * `buffer`, 16-byte aligned; rows lie `rowBytes` apart, and `rowBytes` (the query's length
   * too) is a multiple of 64 (rows are zero-padded to it).
   */
  score(rowsAt: number, queryAt: number, outAt: number, count: number, rowBytes: number): void;
}

export const ROW_ALIGN_BYTES = 64;
const PAGE = 65536;

// --- the WebAssembly module, assembled from the listing below ----------------------------
//
// (func (export "score") (param $rows i32) (param $q i32) (param $out i32) (param $n i32) (param $rowBytes i32)
//   (local $outEnd i32) (local $qEnd i32) (local $qp i32) (local $a0 v128) (local $a1 v128) (local $a2 v128) (local $a3 v128)
//   (if (i32.eqz $n) (return))
//   $outEnd = $out + ($n << 2);  $qEnd = $q + $rowBytes
//   (loop $row
//     $a0..$a3 = 0;  $qp = $q
//     (loop $col                         ;; 16 floats per turn, four independent accumulators
//       $ak += f32x4.mul(v128.load offset=16k ($rows), v128.load offset=16k ($qp))   for k = 0..3
//       $rows += 64;  $qp += 64
//       (br_if $col (i32.lt_u $qp $qEnd)))
//     $a0 = ($a0 + $a1) + ($a2 + $a3)
//     (f32.store $out (lane0 + lane1 + lane2 + lane3 of $a0))
//     $out += 4
//     (br_if $row (i32.lt_u $out $outEnd))))

const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n) byte |= 0x80;
    out.push(byte);
  } while (n);
  return out;
};
const name = (s: string) => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];
const section = (id: number, bytes: number[]) => [id, ...uleb(bytes.length), ...bytes];

const [ROWS, Q, OUT, N, ROW_BYTES, OUT_END, Q_END, QP] = [0, 1, 2, 3, 4, 5, 6, 7] as const;
const ACC = [8, 9, 10, 11] as const;
const I32 = 0x7f;
const V128 = 0x7b;
const get = (i: number) => [0x20, i];
const set = (i: number) => [0x21, i];
const tee = (i: number) => [0x22, i];
/** i32.const takes a signed LEB128: 64 needs two bytes (0xc0 0x00), as bit 6 is the sign */
const i32Const = (n: number): number[] => {
  const out: number[] = [0x41];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(byte & 0x40)) || (n === -1 && byte & 0x40)) return [...out, byte];
    out.push(byte | 0x80);
  }
};
const I32_ADD = 0x6a;
const I32_SHL = 0x74;
const I32_EQZ = 0x45;
const I32_LT_U = 0x49;
const F32_ADD = 0x92;
const v128Load = (offset: number) => [0xfd, 0x00, 4, ...uleb(offset)]; // align 2^4
const V128_ZERO = [0xfd, 0x0c, ...new Array<number>(16).fill(0)];
const F32X4_ADD = [0xfd, 0xe4, 0x01];
const F32X4_MUL = [0xfd, 0xe6, 0x01];
const lane = (i: number) => [0xfd, 0x1f, i]; // f32x4.extract_lane
const LOOP = [0x03, 0x40];
const IF = [0x04, 0x40];
const END = 0x0b;
const RETURN = 0x0f;
const brIf = (depth: number) => [0x0d, depth];

const body = [
  2, 3, I32, 4, V128, // locals
  ...get(N), I32_EQZ, ...IF, RETURN, END,
  ...get(OUT), ...get(N), ...i32Const(2), I32_SHL, I32_ADD, ...set(OUT_END),
  ...get(Q), ...get(ROW_BYTES), I32_ADD, ...set(Q_END),
  ...LOOP,
  ...ACC.flatMap((a) => [...V128_ZERO, ...set(a)]),
  ...get(Q), ...set(QP),
  ...LOOP,
  ...ACC.flatMap((a, k) => [...get(a), ...get(ROWS), ...v128Load(16 * k), ...get(QP), ...v128Load(16 * k), ...F32X4_MUL, ...F32X4_ADD, ...set(a)]),
  ...get(ROWS), ...i32Const(64), I32_ADD, ...set(ROWS),
  ...get(QP), ...i32Const(64), I32_ADD, ...tee(QP), ...get(Q_END), I32_LT_U, ...brIf(0),
  END,
  ...get(ACC[0]), ...get(ACC[1]), ...F32X4_ADD, ...get(ACC[2]), ...get(ACC[3]), ...F32X4_ADD, ...F32X4_ADD, ...set(ACC[0]),
  ...get(OUT),
  ...get(ACC[0]), ...lane(0), ...get(ACC[0]), ...lane(1), F32_ADD, ...get(ACC[0]), ...lane(2), F32_ADD, ...get(ACC[0]), ...lane(3), F32_ADD,
  0x38, 2, 0, // f32.store align=4 offset=0
  ...get(OUT), ...i32Const(4), I32_ADD, ...tee(OUT), ...get(OUT_END), I32_LT_U, ...brIf(0),
  END,
  END,
];

export const SIMD_MODULE_BYTES = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // \0asm, version 1
  ...section(1, [1, 0x60, 5, I32, I32, I32, I32, I32, 0]), // type: (i32 × 5) → ()
  ...section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x00, 1]), // import env.memory, min 1 page
  ...section(3, [1, 0]), // one function of type 0
  ...section(7, [1, ...name('score'), 0x00, 0]), // export it
  ...section(10, [1, ...uleb(body.length), ...body]),
]);

let compiled: WebAssembly.Module | null | undefined;

/** The compiled module, or null where WebAssembly SIMD can't run. Tiny, so compiled synchronously. */
function simdModule(): WebAssembly.Module | null {
  if (compiled === undefined) {
    try {
      compiled = typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_MODULE_BYTES) ? new WebAssembly.Module(SIMD_MODULE_BYTES) : null;
    } catch {
      compiled = null; // e.g. a CSP without 'wasm-unsafe-eval'
    }
  }
  return compiled;
}

class SimdKernel implements ScoreKernel {
  readonly kind = 'wasm-simd';
  private readonly memory: WebAssembly.Memory;
  private readonly run: (rowsAt: number, queryAt: number, outAt: number, count: number, rowBytes: number) => void;

  constructor(module: WebAssembly.Module, bytes: number) {
    this.memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(bytes / PAGE)) });
    const instance = new WebAssembly.Instance(module, { env: { memory: this.memory } });
    this.run = instance.exports.score as SimdKernel['run'];
  }

  get buffer(): ArrayBuffer {
    return this.memory.buffer;
  }

  grow(bytes: number): void {
    const missing = Math.ceil((bytes - this.memory.buffer.byteLength) / PAGE);
    if (missing > 0) this.memory.grow(missing);
  }

  score(rowsAt: number, queryAt: number, outAt: number, count: number, rowBytes: number): void {
    this.run(rowsAt, queryAt, outAt, count, rowBytes);
  }
}

class JsKernel implements ScoreKernel {
  readonly kind = 'js';
  buffer: ArrayBuffer;

  constructor(bytes: number) {
    this.buffer = new ArrayBuffer(bytes);
  }

  grow(bytes: number): void {
    if (bytes <= this.buffer.byteLength) return;
    const next = new ArrayBuffer(Math.max(bytes, Math.ceil(this.buffer.byteLength * 1.5)));
    new Uint8Array(next).set(new Uint8Array(this.buffer));
    this.buffer = next;
  }

  score(rowsAt: number, queryAt: number, outAt: number, count: number, rowBytes: number): void {
    const stride = rowBytes >> 2;
    const rows = new Float32Array(this.buffer, rowsAt, count * stride);
    const q = new Float32Array(this.buffer, queryAt, stride);
    const out = new Float32Array(this.buffer, outAt, count);
    for (let r = 0, o = 0; r < count; r++, o += stride) {
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let j = 0; j < stride; j += 4) {
        s0 += rows[o + j]! * q[j]!;
        s1 += rows[o + j + 1]! * q[j + 1]!;
        s2 += rows[o + j + 2]! * q[j + 2]!;
        s3 += rows[o + j + 3]! * q[j + 3]!;
      }
      out[r] = s0 + s1 + (s2 + s3);
    }
  }
}

/** A kernel with at least `bytes` of memory: the SIMD one unless unavailable or `choice` says 'js'. */
export function createKernel(bytes: number, choice: KernelChoice = 'auto'): ScoreKernel {
  const module = choice === 'js' ? null : simdModule();
  if (module) return new SimdKernel(module, bytes);
  if (choice === 'wasm-simd') throw new Error('WebAssembly SIMD is not available here');
  return new JsKernel(bytes);
}
