// Pixels → model input tensors (pure).

/**
 * RGBA pixels (as from ImageData) → NHWC float values in `range`; `gray` gives one
 * luma channel (0.2989R + 0.587G + 0.114B, the convention of the emotion model).
 */
export function rgbaToTensor(
  rgba: Uint8ClampedArray | Uint8Array,
  pixelCount: number,
  channels: 'RGB' | 'gray',
  [lo, hi]: readonly [number, number],
  out = new Float32Array(pixelCount * (channels === 'RGB' ? 3 : 1)),
): Float32Array {
  const k = (hi - lo) / 255;
  if (channels === 'RGB') {
    for (let i = 0; i < pixelCount; i++) {
      out[i * 3] = lo + rgba[i * 4]! * k;
      out[i * 3 + 1] = lo + rgba[i * 4 + 1]! * k;
      out[i * 3 + 2] = lo + rgba[i * 4 + 2]! * k;
    }
  } else {
    for (let i = 0; i < pixelCount; i++) {
      out[i] = lo + (0.2989 * rgba[i * 4]! + 0.587 * rgba[i * 4 + 1]! + 0.114 * rgba[i * 4 + 2]!) * k;
    }
  }
  return out;
}
