// A shorter idle spin for ONNX Runtime's pool threads, patched into the ORT WASM the project
// serves and packages (tools/vite-ort-assets.ts, tools/vite-package-files.ts).
//
// Why: after every parallel section, an idle thread of ORT's pool spins 2^20 times looking for
// work before it blocks — several ms each time. ORT stops that spinning between runs only for
// per-session thread pools, and onnxruntime-web creates its environment with global pools
// (its OrtInit), so the session option `session.force_spinning_stop` has no effect there. The
// pool thread then spins through every stretch of JavaScript between runs (crops, tensors, session
// creation): ~0.45 s of a core in a traced cold start, 46% of the pool thread's time in warm runs,
// on the same 2 cores as V8's compiler and the worker (docs/benchmarks.md, "Where the time goes").
//
// What: in the pool's worker loop, the two reads of its spin count (`local.get 1; i32.load
// offset=48`: the entry test and the loop bound) become the constant 16384 (`i32.const`, padded
// to the same 5 bytes): a spin 64× shorter, still enough to bridge the gaps between the operators
// of a run (no spin at all was slower, below), no longer the milliseconds between runs. Measured (A/B, same build otherwise): warm
// `engine.detect` on 1–1.3 MP photos 97–99 → 95 ms median; cold first answer 1104 → 1057 ms
// (small photo), 1368 → 1327 ms (large); no spinning at all (0) was slower warm, 103–106 ms.
//
// Guard: only the exact file of onnxruntime-web 1.30.0 (its SHA-256) is patched, and only if the
// bytes at both sites are the expected instructions; anything else is served unchanged. After an
// ORT upgrade, find the loop again: profile the pool thread with `--js-flags=--liftoff-only` (the
// spin loop is the hottest function of an idle pool thread) and look for its bound read from the
// pool object; or drop the patch.
import { createHash } from 'node:crypto';

export const PATCHED_ORT_FILE = 'ort-wasm-simd-threaded.wasm';

const ORT_1_30_0_SHA256 = '3398c10d07d229bd91b364548e130e0e51a8e5704b88c7c083ebbeb78842dee2';
/** byte offsets in the file of the two spin-count reads in the pool's worker loop */
export const SPIN_COUNT_SITES = [0x962eb8, 0x963533];
const SPIN_COUNT_READ = Uint8Array.of(0x20, 0x01, 0x28, 0x02, 0x30); // local.get 1; i32.load align=2 offset=48
export const SHORT_SPIN = 16384;
// i32.const 16384 as a 4-byte signed LEB128 (the 5 bytes it replaces): 0x80 0x80 0x81 0x00
const SHORT_SPIN_CONST = Uint8Array.of(0x41, 0x80 | (SHORT_SPIN & 0x7f), 0x80 | ((SHORT_SPIN >> 7) & 0x7f), 0x80 | ((SHORT_SPIN >> 14) & 0x7f), (SHORT_SPIN >> 21) & 0x7f);

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i]);

/** The ORT file's bytes to serve: `applied` says whether the short spin was patched in. */
export function patchOrtWasm(bytes: Uint8Array): { bytes: Uint8Array; applied: boolean } {
  if (sha256(bytes) !== ORT_1_30_0_SHA256) return { bytes, applied: false };
  if (!SPIN_COUNT_SITES.every((at) => sameBytes(bytes.subarray(at, at + SPIN_COUNT_READ.length), SPIN_COUNT_READ))) return { bytes, applied: false };
  const patched = bytes.slice();
  for (const at of SPIN_COUNT_SITES) patched.set(SHORT_SPIN_CONST, at);
  return { bytes: patched, applied: true };
}

/** Any of ORT's files as the project serves it (the WASM build's binary patched, the rest as installed). */
export function servedOrtFile(name: string, installed: Uint8Array): Uint8Array {
  return name === PATCHED_ORT_FILE ? patchOrtWasm(installed).bytes : installed;
}
