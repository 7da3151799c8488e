// The detector's padded passes reflect the frame into the pad (src/vision/mirror-pad.ts).
import { describe, expect, it } from 'vitest';
import { mirrorIntoPad } from '../../src/vision/mirror-pad.ts';

/** A width × height RGBA image whose frame pixels carry their own (x, y) in R and G; the pad is 0. */
function image(width: number, height: number, frame: { x0: number; y0: number; x1: number; y1: number }): Uint8ClampedArray {
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let y = frame.y0; y < frame.y1; y++) for (let x = frame.x0; x < frame.x1; x++) rgba.set([x, y, 7, 255], (y * width + x) * 4);
  return rgba;
}
const at = (rgba: Uint8ClampedArray, width: number, x: number, y: number) => [...rgba.subarray((y * width + x) * 4, (y * width + x) * 4 + 4)];

describe('mirrorIntoPad', () => {
  const frame = { x0: 3, y0: 2, x1: 9, y1: 7 };
  const [width, height] = [13, 10];

  it('reflects each side about its edge and leaves the frame as it was', () => {
    const rgba = image(width, height, frame);
    const before = rgba.slice();
    mirrorIntoPad(rgba, width, height, frame);
    for (let y = frame.y0; y < frame.y1; y++) for (let x = frame.x0; x < frame.x1; x++) expect(at(rgba, width, x, y)).toEqual(at(before, width, x, y));
    expect(at(rgba, width, 2, 4)).toEqual([3, 4, 7, 255]); // left: the first column, reflected
    expect(at(rgba, width, 0, 4)).toEqual([5, 4, 7, 255]);
    expect(at(rgba, width, 9, 4)).toEqual([8, 4, 7, 255]); // right
    expect(at(rgba, width, 11, 4)).toEqual([6, 4, 7, 255]);
    expect(at(rgba, width, 5, 1)).toEqual([5, 2, 7, 255]); // top
    expect(at(rgba, width, 5, 8)).toEqual([5, 5, 7, 255]); // bottom
    expect(at(rgba, width, 0, 0)).toEqual([5, 3, 7, 255]); // corner: both ways
    expect(at(rgba, width, 12, 9)).toEqual([5, 4, 7, 255]);
  });

  it('leaves no pad pixel empty, even with a pad wider than the frame', () => {
    const small = { x0: 5, y0: 4, x1: 7, y1: 5 };
    const rgba = image(width, height, small);
    mirrorIntoPad(rgba, width, height, small);
    for (let i = 0; i < width * height; i++) expect(rgba[i * 4 + 3]).toBe(255);
    // reflected past the frame's far side: its far edge repeats
    expect(at(rgba, width, 0, 0)).toEqual([6, 4, 7, 255]);
    expect(at(rgba, width, 12, 9)).toEqual([5, 4, 7, 255]);
  });
});
