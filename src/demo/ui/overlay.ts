// Draws a photo with marks on its faces: box, label (face number or a name), eye and chin
// points, and optionally the 49 named landmarks. Used by detect, recognise and playback.

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
    if (options.showLandmarks) {
      ctx.fillStyle = MARK_COLORS.landmark;
      for (const [x, y] of m.landmarks ?? []) ctx.fillRect(x - line / 2, y - line / 2, line, line);
    }
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
