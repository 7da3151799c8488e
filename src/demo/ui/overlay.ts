// Draws a photo with marks on its faces: box, label (face number or a name), eye and chin
// points, and optionally the 49 named landmarks joined into their contours (a light mesh of
// brows, nose, eyes and lips). Used by detect, recognise and playback.

export interface FaceMark {
  box: { x: number; y: number; width: number; height: number };
  label?: string;
  /** eye centres and chin tip */
  points?: readonly (readonly [number, number])[];
  /** landmark points, drawn small when `showLandmarks` */
  landmarks?: readonly (readonly [number, number])[];
  /** box colour; default blue */
  color?: string;
}

export const MARK_COLORS = { face: '#3d63dd', known: '#1f8a4c', unknown: '#b4461b', point: '#f5a623', landmark: '#25c2d9' } as const;

/**
 * Runs of the 49 landmarks (facts.md order) drawn as lines: [first, last, closed].
 * Brows, nose line, nostrils, the eyes and the outer and inner lips.
 */
export const LANDMARK_CONTOURS: readonly (readonly [number, number, boolean])[] = [
  [0, 3, false],
  [4, 7, false],
  [8, 11, false],
  [12, 16, false],
  [17, 22, true],
  [23, 28, true],
  [29, 40, true],
  [41, 48, true],
];

function drawLandmarks(ctx: CanvasRenderingContext2D, points: readonly (readonly [number, number])[], line: number): void {
  ctx.strokeStyle = MARK_COLORS.landmark;
  ctx.lineWidth = Math.max(1, line / 2);
  if (points.length === 49) {
    for (const [first, last, closed] of LANDMARK_CONTOURS) {
      ctx.beginPath();
      for (let i = first; i <= last; i++) ctx.lineTo(points[i]![0], points[i]![1]);
      if (closed) ctx.closePath();
      ctx.stroke();
    }
  }
  ctx.fillStyle = MARK_COLORS.landmark;
  for (const [x, y] of points) ctx.fillRect(x - line / 2, y - line / 2, line, line);
  ctx.lineWidth = line;
}

/** Draws marks in image coordinates on a context already showing the image. */
export function drawMarks(ctx: CanvasRenderingContext2D, marks: readonly FaceMark[], options: { showLandmarks?: boolean } = {}): void {
  const size = Math.max(ctx.canvas.width, ctx.canvas.height);
  const line = Math.max(2, Math.round(size / 400));
  ctx.lineWidth = line;
  ctx.font = `600 ${Math.max(12, line * 8)}px system-ui, sans-serif`;
  ctx.textBaseline = 'bottom';
  for (const m of marks) {
    const color = m.color ?? MARK_COLORS.face;
    ctx.strokeStyle = color;
    ctx.strokeRect(m.box.x, m.box.y, m.box.width, m.box.height);
    if (m.label) {
      const pad = line * 2;
      const w = ctx.measureText(m.label).width + pad * 2;
      const hgt = Math.max(12, line * 8) + pad;
      const top = m.box.y - hgt >= 0 ? m.box.y - hgt : m.box.y;
      ctx.fillStyle = color;
      ctx.fillRect(m.box.x - line / 2, top, w, hgt);
      ctx.fillStyle = '#fff';
      ctx.fillText(m.label, m.box.x + pad - line / 2, top + hgt - pad / 2);
    }
    ctx.fillStyle = MARK_COLORS.point;
    for (const [x, y] of m.points ?? []) {
      ctx.beginPath();
      ctx.arc(x, y, line * 1.5, 0, Math.PI * 2);
      ctx.fill();
    }
    if (options.showLandmarks && m.landmarks) drawLandmarks(ctx, m.landmarks, line);
  }
}

/** Shows `image` on `canvas` at its own size, then the marks. */
export async function drawPhoto(canvas: HTMLCanvasElement, image: Blob | ImageBitmap, marks: readonly FaceMark[], options: { showLandmarks?: boolean } = {}): Promise<void> {
  const bitmap = image instanceof Blob ? await createImageBitmap(image) : image;
  canvas.width = bitmap.width;
  canvas.height = bitmap.height;
  const ctx = canvas.getContext('2d')!;
  ctx.drawImage(bitmap, 0, 0);
  drawMarks(ctx, marks, options);
  if (image instanceof Blob) bitmap.close();
}

/** Overlap of two boxes (intersection over union), to pair one endpoint's faces with another's. */
export function iou(a: FaceMark['box'], b: FaceMark['box']): number {
  const x1 = Math.max(a.x, b.x);
  const y1 = Math.max(a.y, b.y);
  const x2 = Math.min(a.x + a.width, b.x + b.width);
  const y2 = Math.min(a.y + a.height, b.y + b.height);
  const inter = Math.max(0, x2 - x1) * Math.max(0, y2 - y1);
  const union = a.width * a.height + b.width * b.height - inter;
  return union > 0 ? inter / union : 0;
}
