// Points, boxes and the square "views" every crop is cut through (pure).

export interface Point {
  x: number;
  y: number;
}

/** Axis-aligned box in image pixels, origin top-left. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * A square region of the image, possibly rotated: centre, side length (image pixels) and
 * angle (radians, clockwise on screen). A crop of `outSize` pixels is cut through it.
 */
export interface View {
  cx: number;
  cy: number;
  size: number;
  angle: number;
}

/** 2x3 affine matrix [a, b, c, d, e, f]: x' = a*x + c*y + e, y' = b*x + d*y + f (canvas order). */
export type Affine = [number, number, number, number, number, number];

/** Maps image coordinates to crop coordinates of a view rendered at outSize x outSize. */
export function imageToCrop(view: View, outSize: number): Affine {
  const s = outSize / view.size;
  const cos = Math.cos(-view.angle) * s;
  const sin = Math.sin(-view.angle) * s;
  // crop = S/2 + s * R(-angle) * (p - c)
  return [cos, sin, -sin, cos, outSize / 2 - (cos * view.cx - sin * view.cy), outSize / 2 - (sin * view.cx + cos * view.cy)];
}

export function invertAffine([a, b, c, d, e, f]: Affine): Affine {
  const det = a * d - b * c;
  return [d / det, -b / det, -c / det, a / det, (c * f - d * e) / det, (b * e - a * f) / det];
}

export function applyAffine([a, b, c, d, e, f]: Affine, p: Point): Point {
  return { x: a * p.x + c * p.y + e, y: b * p.x + d * p.y + f };
}

/** Maps crop coordinates of a view back to image coordinates. */
export function cropToImage(view: View, outSize: number): Affine {
  return invertAffine(imageToCrop(view, outSize));
}

export function boxCenter(b: Box): Point {
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}

export function boxArea(b: Box): number {
  return Math.max(0, b.width) * Math.max(0, b.height);
}

export function intersection(a: Box, b: Box): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

export function iou(a: Box, b: Box): number {
  const i = intersection(a, b);
  return i === 0 ? 0 : i / (boxArea(a) + boxArea(b) - i);
}

/** The part of `b` inside a width × height frame (empty boxes have 0 width or height). */
export function clipBox(b: Box, width: number, height: number): Box {
  const x = Math.min(width, Math.max(0, b.x));
  const y = Math.min(height, Math.max(0, b.y));
  return { x, y, width: Math.max(0, Math.min(width, b.x + b.width) - x), height: Math.max(0, Math.min(height, b.y + b.height) - y) };
}

/** Overlap relative to the smaller box: catches a small duplicate inside a larger detection. */
export function overlapOfSmaller(a: Box, b: Box): number {
  const i = intersection(a, b);
  return i === 0 ? 0 : i / Math.min(boxArea(a), boxArea(b));
}

/** Bounding box of a set of points. */
export function boundingBox(points: readonly Point[]): Box {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const p of points) {
    minX = Math.min(minX, p.x);
    minY = Math.min(minY, p.y);
    maxX = Math.max(maxX, p.x);
    maxY = Math.max(maxY, p.y);
  }
  return { x: minX, y: minY, width: maxX - minX, height: maxY - minY };
}

export function distance(a: Point, b: Point): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

export function midpoint(a: Point, b: Point): Point {
  return { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
}

/**
 * A square sub-region of a view, given as fractions of the view's side: its centre
 * (fx, fy from the view's top-left, in the view's own rotated frame) and its side.
 */
export function subView(view: View, fx: number, fy: number, side: number): View {
  const dx = (fx - 0.5) * view.size;
  const dy = (fy - 0.5) * view.size;
  const cos = Math.cos(view.angle);
  const sin = Math.sin(view.angle);
  return { cx: view.cx + cos * dx - sin * dy, cy: view.cy + sin * dx + cos * dy, size: side * view.size, angle: view.angle };
}
