// Shared pieces of the model parity tests: deterministic inputs, a real face crop, diff stats.
import { readFileSync } from 'node:fs';
import jpeg from 'jpeg-js';
import { seededRandom } from './seeded-random.ts';

export { seededRandom };

export const DATA_DIR = new URL('../../../../shared/data/', import.meta.url);

export function seededTensorData(size: number, seed: number, [lo, hi]: readonly [number, number]): Float32Array {
  const next = seededRandom(seed);
  const out = new Float32Array(size);
  for (let i = 0; i < size; i++) out[i] = lo + (hi - lo) * next();
  return out;
}

/** obama.jpg's face region (910x1137 portrait), the crop used as the "real face" input. */
const FACE_BOX = { x: 215, y: 170, size: 500 };

/**
 * A real face crop from ../shared/data, resized (bilinear) to size x size, as NHWC values
 * mapped from 0..255 to `range`; gray = one luma channel.
 */
export function realFaceCrop(size: number, range: readonly [number, number], gray = false): Float32Array {
  const img = jpeg.decode(readFileSync(new URL('faces/obama/obama.jpg', DATA_DIR)), { useTArray: true });
  const channels = gray ? 1 : 3;
  const out = new Float32Array(size * size * channels);
  const scale = FACE_BOX.size / size;
  const px = (x: number, y: number, c: number) => img.data[(y * img.width + x) * 4 + c]!;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const sx = Math.min(img.width - 2, FACE_BOX.x + (x + 0.5) * scale - 0.5);
      const sy = Math.min(img.height - 2, FACE_BOX.y + (y + 0.5) * scale - 0.5);
      const x0 = Math.floor(sx);
      const y0 = Math.floor(sy);
      const fx = sx - x0;
      const fy = sy - y0;
      const rgb = [0, 1, 2].map(
        (c) => px(x0, y0, c) * (1 - fx) * (1 - fy) + px(x0 + 1, y0, c) * fx * (1 - fy) + px(x0, y0 + 1, c) * (1 - fx) * fy + px(x0 + 1, y0 + 1, c) * fx * fy,
      );
      const values = gray ? [0.2989 * rgb[0]! + 0.587 * rgb[1]! + 0.114 * rgb[2]!] : rgb;
      values.forEach((v, c) => {
        out[(y * size + x) * channels + c] = range[0] + ((range[1] - range[0]) * v) / 255;
      });
    }
  }
  return out;
}

export interface Difference {
  maxAbs: number;
  /** maxAbs relative to the largest reference magnitude */
  maxRel: number;
}

export function difference(reference: ArrayLike<number>, actual: ArrayLike<number>): Difference {
  if (reference.length !== actual.length) throw new Error(`length ${actual.length} differs from reference ${reference.length}`);
  let maxAbs = 0;
  let scale = 0;
  for (let i = 0; i < reference.length; i++) {
    const r = reference[i]!;
    const a = actual[i]!;
    if (!Number.isFinite(a)) return { maxAbs: Infinity, maxRel: Infinity };
    maxAbs = Math.max(maxAbs, Math.abs(r - a));
    scale = Math.max(scale, Math.abs(r));
  }
  return { maxAbs, maxRel: scale === 0 ? maxAbs : maxAbs / scale };
}

export const PARITY_LIMIT = 1e-4;

export function formatRow(model: string, input: string, output: string, d: Difference): string {
  return `${model.padEnd(24)} ${input.padEnd(8)} ${output.padEnd(24)} maxAbs ${d.maxAbs.toExponential(2)}  maxRel ${d.maxRel.toExponential(2)}`;
}
