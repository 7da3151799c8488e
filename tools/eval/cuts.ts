// The border-cut and close-up sets of `npm run eval`, planned from ../shared/data photos at
// eval time (pure): crops of a one-face photo that cut its face by the frame's edge, or that
// frame it so it fills 60–100% of the height. Truth is the face's mesh box found on the uncut
// photo, clipped to the crop; a face counts as found when a returned box (clipped to the
// crop, as /detect returns it) has IoU ≥ 0.5 with it.

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type Edge = 'left' | 'right' | 'top' | 'bottom';

export interface CutCrop {
  /** e.g. "left 30%", "top-right 25%", "close-up 80%" */
  label: string;
  /** the crop, integer pixels of the uncut photo */
  rect: Rect;
  /** the face's truth box in crop pixels, clipped to the crop */
  truth: Rect;
  /** fraction of the face's (uncut) box inside the crop */
  inside: number;
}

/** Cut fractions at each edge (10–50% of the face), and at each corner per side. */
export const EDGE_CUTS = [0.1, 0.3, 0.5] as const;
export const CORNER_CUTS = [0.1, 0.25] as const;
/** Face height over crop height for the close-up set. */
export const CLOSE_UP_FILLS = [0.6, 0.8, 1.0] as const;
/** IoU with the clipped truth at which a face counts as found (the bar). */
export const FOUND_IOU = 0.5;
/** Crops narrower or lower than this are left out (nothing a camera gives). */
const MIN_CROP_SIDE = 48;

const area = (r: Rect) => Math.max(0, r.width) * Math.max(0, r.height);

export function intersect(a: Rect, b: Rect): Rect {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  return { x, y, width: Math.max(0, Math.min(a.x + a.width, b.x + b.width) - x), height: Math.max(0, Math.min(a.y + a.height, b.y + b.height) - y) };
}

export function iouOf(a: Rect, b: Rect): number {
  const i = area(intersect(a, b));
  return i === 0 ? 0 : i / (area(a) + area(b) - i);
}

/** `face` (uncut photo pixels) seen through `rect`: its box in crop pixels, clipped to the crop, and how much of it is inside. */
function truthIn(face: Rect, rect: Rect): { truth: Rect; inside: number } {
  const clipped = intersect(face, rect);
  return { truth: { ...clipped, x: clipped.x - rect.x, y: clipped.y - rect.y }, inside: area(clipped) / area(face) };
}

function toIntegerRect(x0: number, y0: number, x1: number, y1: number): Rect {
  const x = Math.round(x0);
  const y = Math.round(y0);
  return { x, y, width: Math.round(x1) - x, height: Math.round(y1) - y };
}

/**
 * Crops that cut `face` (a box in a width × height photo) by each edge and corner: the frame's
 * edge is moved into the face, the rest of the photo is kept. A cut that would need pixels
 * outside the photo (the face already touches that edge) is left out.
 */
export function borderCrops(face: Rect, width: number, height: number): CutCrop[] {
  const out: CutCrop[] = [];
  const plan = (label: string, cuts: Partial<Record<Edge, number>>) => {
    let [x0, y0, x1, y1] = [0, 0, width, height];
    if (cuts.left !== undefined) x0 = face.x + cuts.left * face.width;
    if (cuts.right !== undefined) x1 = face.x + (1 - cuts.right) * face.width;
    if (cuts.top !== undefined) y0 = face.y + cuts.top * face.height;
    if (cuts.bottom !== undefined) y1 = face.y + (1 - cuts.bottom) * face.height;
    // the face must reach past the new edge in the uncut photo, and the crop must stay in the photo
    if (x0 <= 0 && cuts.left !== undefined) return;
    if (y0 <= 0 && cuts.top !== undefined) return;
    if (x1 >= width && cuts.right !== undefined) return;
    if (y1 >= height && cuts.bottom !== undefined) return;
    const rect = toIntegerRect(Math.max(0, x0), Math.max(0, y0), Math.min(width, x1), Math.min(height, y1));
    if (rect.width < MIN_CROP_SIDE || rect.height < MIN_CROP_SIDE) return;
    out.push({ label, rect, ...truthIn(face, rect) });
  };
  for (const f of EDGE_CUTS) for (const edge of ['left', 'right', 'top', 'bottom'] as const) plan(`${edge} ${f * 100}%`, { [edge]: f });
  for (const f of CORNER_CUTS) {
    for (const [v, h] of [['top', 'left'], ['top', 'right'], ['bottom', 'left'], ['bottom', 'right']] as const) plan(`${v}-${h} ${f * 100}%`, { [v]: f, [h]: f });
  }
  return out;
}

/**
 * Crops in which `face` fills `fill` of the height, as a webcam selfie frames it: 4:3 when the
 * photo is wide enough, else as wide as it is down to 3:4 (a phone held upright), centred on the
 * face and moved to stay inside the photo. Left out when the photo cannot give one.
 */
export function closeUpCrops(face: Rect, width: number, height: number): CutCrop[] {
  const out: CutCrop[] = [];
  for (const fill of CLOSE_UP_FILLS) {
    const h = face.height / fill;
    const w = Math.min((4 / 3) * h, width);
    if (h > height || w < 0.75 * h || h < MIN_CROP_SIDE) continue;
    const cx = face.x + face.width / 2;
    const cy = face.y + face.height / 2;
    const x0 = Math.min(Math.max(0, cx - w / 2), width - w);
    const y0 = Math.min(Math.max(0, cy - h / 2), height - h);
    const rect = toIntegerRect(x0, y0, x0 + w, y0 + h);
    out.push({ label: `close-up ${Math.round(fill * 100)}%`, rect, ...truthIn(face, rect) });
  }
  return out;
}

export interface CropOutcome {
  /** the source photo, as the manifest names it */
  path: string;
  crop: CutCrop;
  /** boxes returned on the crop, clipped to it (as /detect's fields) */
  boxes: Rect[];
}

/** Best IoU of the returned boxes with the crop's truth. */
export const bestIou = (o: CropOutcome): number => o.boxes.reduce((m, b) => Math.max(m, iouOf(b, o.crop.truth)), 0);

export const isFound = (o: CropOutcome): boolean => bestIou(o) >= FOUND_IOU;

/** Boxes that match no truth (the source photos hold one face each). */
export const extraBoxes = (o: CropOutcome): number => {
  const matched = o.boxes.some((b) => iouOf(b, o.crop.truth) >= FOUND_IOU) ? 1 : 0;
  return o.boxes.length - matched;
};
