// Reads TF.js weight manifests (model.json "weightsManifest" or face-api's
// *-weights_manifest.json) and returns dequantised tensors.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface ManifestEntry {
  name: string;
  shape: number[];
  dtype: 'float32' | 'int32' | 'bool' | string;
  quantization?: { dtype: 'uint8' | 'uint16' | 'float16'; scale?: number; min?: number };
}
export interface ManifestGroup {
  paths: string[];
  weights: ManifestEntry[];
}

export interface WeightTensor {
  shape: number[];
  dtype: 'float32' | 'int32';
  data: Float32Array | Int32Array;
  /** the stored 8-bit values when the source quantised the tensor as `q*scale + min` */
  uint8?: { q: Uint8Array; scale: number; min: number };
}

export function float16ToFloat32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

/** float32 → IEEE half bits, or undefined when the value is not exactly representable. */
export function float32ToFloat16Exact(v: number): number | undefined {
  if (v === 0) return Object.is(v, -0) ? 0x8000 : 0;
  if (!Number.isFinite(v)) return undefined;
  const sign = v < 0 ? 0x8000 : 0;
  const a = Math.abs(v);
  let exponent = Math.floor(Math.log2(a));
  if (2 ** exponent > a) exponent--; // guard against log2 rounding
  let bits: number;
  if (exponent < -14) {
    const fraction = a / 2 ** -24; // subnormal: multiples of 2^-24
    if (!Number.isInteger(fraction) || fraction >= 1024) return undefined;
    bits = fraction;
  } else {
    if (exponent > 15) return undefined;
    const fraction = (a / 2 ** exponent - 1) * 1024;
    if (!Number.isInteger(fraction)) return undefined;
    bits = ((exponent + 15) << 10) | fraction;
  }
  return sign | bits;
}

function bytesPerValue(entry: ManifestEntry): number {
  const q = entry.quantization?.dtype;
  if (q === 'uint8') return 1;
  if (q === 'uint16' || q === 'float16') return 2;
  if (entry.dtype === 'float32' || entry.dtype === 'int32') return 4;
  if (entry.dtype === 'bool') return 1;
  throw new Error(`weight ${entry.name}: unsupported dtype ${entry.dtype}`);
}

function decode(entry: ManifestEntry, bytes: Buffer, offset: number, count: number): WeightTensor {
  const view = new DataView(bytes.buffer, bytes.byteOffset + offset, count * bytesPerValue(entry));
  const q = entry.quantization;
  if (entry.dtype === 'int32' && !q) {
    const data = new Int32Array(count);
    for (let i = 0; i < count; i++) data[i] = view.getInt32(i * 4, true);
    return { shape: entry.shape, dtype: 'int32', data };
  }
  if (entry.dtype !== 'float32') throw new Error(`weight ${entry.name}: unsupported dtype ${entry.dtype}`);
  const data = new Float32Array(count);
  if (!q) {
    for (let i = 0; i < count; i++) data[i] = view.getFloat32(i * 4, true);
  } else if (q.dtype === 'float16') {
    for (let i = 0; i < count; i++) data[i] = float16ToFloat32(view.getUint16(i * 2, true));
  } else {
    const scale = q.scale ?? 1;
    const min = q.min ?? 0;
    for (let i = 0; i < count; i++) {
      const v = q.dtype === 'uint8' ? view.getUint8(i) : view.getUint16(i * 2, true);
      data[i] = v * scale + min;
    }
    if (q.dtype === 'uint8') {
      const stored = new Uint8Array(count);
      for (let i = 0; i < count; i++) stored[i] = view.getUint8(i);
      return { shape: entry.shape, dtype: 'float32', data, uint8: { q: stored, scale, min } };
    }
  }
  return { shape: entry.shape, dtype: 'float32', data };
}

/** Loads every weight of a manifest whose .bin paths are relative to `baseDir`. */
export function loadWeights(groups: ManifestGroup[], baseDir: string): Map<string, WeightTensor> {
  const weights = new Map<string, WeightTensor>();
  for (const group of groups) {
    const bytes = Buffer.concat(group.paths.map((p) => readFileSync(join(baseDir, p))));
    let offset = 0;
    for (const entry of group.weights) {
      const count = entry.shape.reduce((a, b) => a * b, 1);
      const size = count * bytesPerValue(entry);
      if (offset + size > bytes.length) throw new Error(`weight ${entry.name} runs past the end of ${group.paths.join('+')}`);
      weights.set(entry.name, decode(entry, bytes, offset, count));
      offset += size;
    }
    if (offset !== bytes.length) {
      throw new Error(`weights of ${group.paths.join('+')} use ${offset} of ${bytes.length} bytes`);
    }
  }
  return weights;
}

export function loadWeightsManifestFile(manifestPath: string): Map<string, WeightTensor> {
  const groups = JSON.parse(readFileSync(manifestPath, 'utf8')) as ManifestGroup[];
  return loadWeights(groups, dirname(manifestPath));
}
