// The demo's photo overlay on a real canvas: boxes, and the 49 landmarks joined into their
// contours only when asked.
import { describe, expect, test } from 'vitest';
import { drawMarks, LANDMARK_CONTOURS, MARK_COLORS, type FaceMark } from '../../src/demo/ui/overlay.ts';

// large enough that lines are several pixels wide (line width scales with the canvas)
const SIZE = 1600;
/** 49 points spread on a grid, so every contour segment is a visible line. */
const landmarks = Array.from({ length: 49 }, (_, i) => [160 + (i % 7) * 200, 160 + Math.floor(i / 7) * 200] as const);
const mark: FaceMark = { box: { x: 40, y: 40, width: 1520, height: 1520 }, landmarks };

function canvasWith(showLandmarks: boolean): CanvasRenderingContext2D {
  const canvas = document.createElement('canvas');
  canvas.width = SIZE;
  canvas.height = SIZE;
  const ctx = canvas.getContext('2d', { willReadFrequently: true })!;
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, SIZE, SIZE);
  drawMarks(ctx, [mark], { showLandmarks });
  return ctx;
}

/** The colour at a point, as the nearest of white and the overlay's colours (edges are antialiased). */
const PALETTE = ['#ffffff', MARK_COLORS.face, MARK_COLORS.landmark, MARK_COLORS.point];
const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
const hex = (ctx: CanvasRenderingContext2D, x: number, y: number) => {
  const px = Array.from(ctx.getImageData(Math.round(x), Math.round(y), 1, 1).data.slice(0, 3));
  const distance = (c: string) => rgb(c).reduce((s, v, i) => s + (v - px[i]!) ** 2, 0);
  return PALETTE.reduce((best, c) => (distance(c) < distance(best) ? c : best));
};
const midpoint = (a: number, b: number) => [(landmarks[a]![0] + landmarks[b]![0]) / 2, (landmarks[a]![1] + landmarks[b]![1]) / 2] as const;

describe('photo overlay', () => {
  test('the box is drawn in the face colour', () => {
    expect(hex(canvasWith(false), 41, 800)).toBe(MARK_COLORS.face);
  });

  test('landmarks and their contours appear only with showLandmarks', () => {
    const [x, y] = midpoint(17, 18);
    expect(hex(canvasWith(false), x, y)).toBe('#ffffff');
    const ctx = canvasWith(true);
    expect(hex(ctx, x, y)).toBe(MARK_COLORS.landmark);
    expect(hex(ctx, landmarks[30]![0], landmarks[30]![1])).toBe(MARK_COLORS.landmark);
  });

  test('closed contours join their last point to their first; open ones do not', () => {
    const ctx = canvasWith(true);
    // eye 17..22 is closed: a line from 22 back to 17
    const [cx, cy] = midpoint(22, 17);
    expect(hex(ctx, cx, cy)).toBe(MARK_COLORS.landmark);
    // contours are separate runs: the left brow's last point (3) is not joined to the right brow's first (4)
    const [ox, oy] = midpoint(3, 4);
    expect(hex(ctx, ox, oy)).toBe('#ffffff');
    expect(LANDMARK_CONTOURS.every(([first, last]) => first < last && last < 49)).toBe(true);
  });
});
